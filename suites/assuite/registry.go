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

	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/check"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Check is one requirement's authorization-server check (package check: the fields every kind
// has). Its transports are HTTP only (httpOnly).
type Check = check.Check[AuthServer]

// AuthServer is what only an authorization-server check has: levels per revision, and its Run.
type AuthServer struct {
	// Levels overrides Level at the revisions whose MCP text words the requirement otherwise.
	Levels map[string]string
	Run    func(t *T) Finding
}

// Kind makes AuthServer a check side.
func (AuthServer) Kind() check.Kind { return check.AuthServer }

// LevelAt is the check's level at revision: Levels' where it names one.
func (s AuthServer) LevelAt(level, revision string) string {
	if l, ok := s.Levels[revision]; ok {
		return l
	}
	return level
}

// httpOnly: an authorization server is reached over HTTP.
var httpOnly = []string{wire.HTTP}

// Title begins with the ID, so --focus 'ID' selects the check; its level is the revision's.
func Title(c *Check, revision string) string {
	return fmt.Sprintf("%s [%s] %s", c.ID, c.LevelAt(revision), c.Summary)
}

// reg holds the authorization-server checks; validation waits for the first Checks or Lookup,
// as the other registries' does.
var (
	config = check.Config[AuthServer]{Side: validateAuthServer, Sorted: true}
	reg    = check.NewRegistry(config)
)

// Register adds checks; an unknown or duplicate ID or a malformed check is an error Checks
// reports.
func Register(cs ...Check) { reg.Register(cs...) }

// validateAuthServer completes an authorization-server check once check.Validate has passed.
func validateAuthServer(c *Check) error {
	for v, l := range c.Side.Levels {
		if l != "MUST" && l != "SHOULD" {
			return fmt.Errorf("authorization-server check %s: level %q is not MUST or SHOULD", c.ID, l)
		}
		if !slices.Contains(c.Versions, v) {
			return fmt.Errorf("authorization-server check %s: a level for revision %s, which it does not run at", c.ID, v)
		}
	}
	if c.Side.Run == nil {
		return fmt.Errorf("authorization-server check %s: needs a Run function", c.ID)
	}
	return nil
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
