package conform

import "github.com/mcpspec/mcpspec/suites/catalog"

// Revisions and its derivations are the catalogue's (catalog.Revisions), shared with the client
// checks; the server checks name them from here.
type Revisions = catalog.Revisions

// AllCatalogued runs the check at every revision its catalogue row names.
var AllCatalogued = catalog.AllCatalogued

// Since runs the check at the catalogued revisions from rev on.
func Since(rev string) Revisions { return catalog.Since(rev) }

// Until runs the check at the catalogued revisions up to rev, rev included.
func Until(rev string) Revisions { return catalog.Until(rev) }
