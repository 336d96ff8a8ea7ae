package conform

import "slices"

// Revisions picks, from the revisions a requirement's catalogue row names, those its check runs
// at: the catalogue stays the one place that says which revisions state a requirement.
type Revisions func(catalogued []string) []string

// AllCatalogued runs the check at every revision its catalogue row names.
var AllCatalogued Revisions = slices.Clone[[]string]

// Since runs the check at the catalogued revisions from rev on.
func Since(rev string) Revisions {
	return func(catalogued []string) []string {
		return slices.DeleteFunc(slices.Clone(catalogued), func(v string) bool { return v < rev })
	}
}

// Until runs the check at the catalogued revisions up to rev, rev included.
func Until(rev string) Revisions {
	return func(catalogued []string) []string {
		return slices.DeleteFunc(slices.Clone(catalogued), func(v string) bool { return v > rev })
	}
}
