// Package assuite holds the authorization-server checks: each judges, for one requirement, an
// OAuth authorization server an MCP server names (RFC 8414 metadata, PKCE, authorization codes,
// resource indicators, registration, RFC 9207 iss). They form a registry of their own, apart
// from the server checks of package conform and the client checks of package clientsuite:
// `mcpspec authserver` runs them, and `mcpspec run --authserver` on the authorization server a
// protected MCP server's metadata names.
package assuite

import (
	"fmt"
	"slices"

	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/finding"
	"github.com/mcpspec/mcpspec/suites/registry"
)

// Check is one requirement's authorization-server check.
type Check struct {
	ID          string
	Level       string // MUST or SHOULD: a violation fails a MUST and warns a SHOULD
	LevelReason string
	// Levels overrides Level at the revisions whose MCP text words the requirement otherwise.
	Levels   map[string]string
	Summary  string
	Versions []string // the revisions it runs at (default: the catalogue row's)
	Run      func(t *T) Finding
	// File is the source file that registered the check (set by Register): the layout test
	// wants it in the file of the catalogue area's page.
	File string
}

// LevelAt is the check's level at revision.
func (c *Check) LevelAt(revision string) string {
	if l, ok := c.Levels[revision]; ok {
		return l
	}
	return c.Level
}

// Title begins with the ID, so --focus 'ID' selects the check.
func (c *Check) Title(revision string) string {
	return fmt.Sprintf("%s [%s] %s", c.ID, c.LevelAt(revision), c.Summary)
}

// Area is the catalogue's area code.
func (c *Check) Area() string {
	e, _ := catalog.Lookup(c.ID)
	return e.Area
}

// reg holds the authorization-server checks; validation waits for the first Checks or Lookup,
// as the other registries' does.
var reg = registry.New(registry.Config[Check]{
	Kind:     "authorization-server check",
	ID:       func(c *Check) string { return c.ID },
	Validate: (*Check).validate,
	SetFile:  func(c *Check, file string) { c.File = file },
	Sorted:   true,
})

// Register adds checks; an unknown or duplicate ID or a malformed check is an error Checks
// reports.
func Register(cs ...Check) { reg.Register(cs...) }

func (c *Check) validate() error {
	e, ok := catalog.Lookup(c.ID)
	if !ok {
		return fmt.Errorf("authorization-server check %q: no such requirement in the catalogue", c.ID)
	}
	for _, l := range append([]string{c.Level}, mapValues(c.Levels)...) {
		if l != "MUST" && l != "SHOULD" {
			return fmt.Errorf("authorization-server check %s: level %q is not MUST or SHOULD", c.ID, l)
		}
	}
	if c.Summary == "" || c.Run == nil {
		return fmt.Errorf("authorization-server check %s: needs a summary and a Run function", c.ID)
	}
	if len(c.Versions) == 0 {
		c.Versions = e.Versions
	}
	for _, v := range c.Versions {
		if !slices.Contains(e.Versions, v) {
			return fmt.Errorf("authorization-server check %s: revision %s is outside the catalogue's %v", c.ID, v, e.Versions)
		}
	}
	for v := range c.Levels {
		if !slices.Contains(c.Versions, v) {
			return fmt.Errorf("authorization-server check %s: a level for revision %s, which it does not run at", c.ID, v)
		}
	}
	return nil
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// Checks returns every authorization-server check, sorted by ID, and the registration errors.
func Checks() ([]*Check, error) { return reg.All() }

// Lookup returns the authorization-server check for id.
func Lookup(id string) (*Check, bool) { return reg.Lookup(id) }

// Finding is the verdict of every check (package finding).
type Finding = finding.Finding

// The findings' constructors (finding.Outcome.With), as every kind of check names them.
// Functions, not method values, so that go vet checks their format strings.
func passed(format string, args ...any) Finding     { return finding.Pass.With(format, args...) }
func violated(format string, args ...any) Finding   { return finding.Violation.With(format, args...) }
func na(format string, args ...any) Finding         { return finding.NotApplicable.With(format, args...) }
func untestable(format string, args ...any) Finding { return finding.Untestable.With(format, args...) }
func broken(format string, args ...any) Finding     { return finding.Broken.With(format, args...) }
