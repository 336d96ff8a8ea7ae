package catalog

import "slices"

// Revisions picks, from the revisions a requirement's catalogue row names, those its check runs
// at: the catalogue stays the one place that says which revisions state a requirement. Server
// and client checks derive theirs the same way (conform.Check.Revisions,
// clientsuite.Check.Revisions).
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
