package catalog

// Parsed reports whether the catalogue has been parsed (for the laziness test). Read it only
// before the tests start, as TestMain does.
func Parsed() bool { return entries != nil || loadErr != nil }
