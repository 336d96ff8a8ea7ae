// Package clientsuite holds the client checks: each judges, for one requirement, what a client
// under test sent the probe server (harness/probe) in one scenario run. They form a registry
// of their own, apart from the server checks of package conform: `mcpspec client` runs these
// and only these, `mcpspec run` never does.
package clientsuite

import (
	"fmt"
	"slices"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/finding"
	"github.com/mcpspec/mcpspec/suites/registry"
)

// Check is one requirement's client check.
type Check struct {
	ID          string
	Level       string // MUST or SHOULD: a violation fails a MUST and warns a SHOULD
	LevelReason string
	Summary     string
	// Revisions derives the revisions the check runs at from its catalogue row
	// (catalog.AllCatalogued, Since, Until), as a server check's does; Versions lists them
	// instead where no derivation says it. A check sets one of the two, and Register leaves
	// the result in Versions.
	Revisions  catalog.Revisions
	Versions   []string
	Transports []string // wire.Stdio, wire.HTTP, wire.SSE: those it runs over, each named
	Scenario   string   // the probe scenario whose recording it judges
	// Also: other scenarios whose recordings it judges too, those whose exchange holds what it
	// reads (the handshake, the HTTP headers).
	Also []string
	// Rides: the check judges its Also scenarios only where another check has them served; it
	// never has one served for itself alone (its Scenario it does).
	Rides bool
	// Capability is the client capability the check is about ("roots", …): a client that
	// declares none makes the checks needing it untestable.
	Capability string
	// Once: the scenario does not depend on the revision; the check runs at the newest
	// selected revision only.
	Once  bool
	Judge func(v *View) Finding
	// File is the source file that registered the check (set by Register), as a server check's
	// conform.Check.File: where the layout test looks for it.
	File string
}

// The transports of a client check, each named (wire.*).
var (
	allTransports = []string{wire.Stdio, wire.HTTP, wire.SSE}
	httpOnly      = []string{wire.HTTP}
	stdioOnly     = []string{wire.Stdio}
	sseOnly       = []string{wire.SSE}
	stdioHTTP     = []string{wire.Stdio, wire.HTTP}
)

// Title begins with the ID, so --focus 'ID' selects the check.
func (c *Check) Title() string { return fmt.Sprintf("%s [%s] %s", c.ID, c.Level, c.Summary) }

// Area is the catalogue's area code.
func (c *Check) Area() string {
	e, _ := catalog.Lookup(c.ID)
	return e.Area
}

// Judges reports whether the check judges a scenario's recording.
func (c *Check) Judges(scenario string) bool {
	return c.Scenario == scenario || slices.Contains(c.Also, scenario)
}

// AppliesTo reports whether the check runs at revision over transport.
func (c *Check) AppliesTo(revision, transport string) bool {
	return slices.Contains(c.Versions, revision) && slices.Contains(c.Transports, transport)
}

// reg holds the client checks; validating needs the catalogue, whose parsing costs every
// process that links this package (each reference server and stdio probe a run starts) tens
// of milliseconds of CPU: it waits for the first Checks or Lookup.
var reg = registry.New(registry.Config[Check]{
	Kind:     "client check",
	ID:       func(c *Check) string { return c.ID },
	Validate: (*Check).validate,
	SetFile:  func(c *Check, file string) { c.File = file },
	Sorted:   true,
})

// Register adds checks; an unknown or duplicate ID or a malformed check is an error that
// Checks reports.
func Register(cs ...Check) { reg.Register(cs...) }

// validate checks a registration against the catalogue and completes its defaults; a check
// that runs at a stateless revision gets its Judge gated (gateStateless).
func (c *Check) validate() error {
	e, ok := catalog.Lookup(c.ID)
	if !ok {
		return fmt.Errorf("client check %q: no such requirement in the catalogue", c.ID)
	}
	if c.Level != "MUST" && c.Level != "SHOULD" {
		return fmt.Errorf("client check %s: level %q is not MUST or SHOULD", c.ID, c.Level)
	}
	if c.Summary == "" || c.Judge == nil || c.Scenario == "" {
		return fmt.Errorf("client check %s: needs a summary, a scenario and a Judge function", c.ID)
	}
	switch {
	case c.Revisions != nil && c.Versions != nil:
		return fmt.Errorf("client check %s: sets both Revisions and Versions", c.ID)
	case c.Revisions != nil:
		c.Versions = c.Revisions(e.Versions)
	}
	if len(c.Versions) == 0 {
		return fmt.Errorf("client check %s: runs at no revision (Revisions or Versions must name one of the catalogue's %v)", c.ID, e.Versions)
	}
	for _, v := range c.Versions {
		if !slices.Contains(e.Versions, v) {
			return fmt.Errorf("client check %s: revision %s is outside the catalogue's %v", c.ID, v, e.Versions)
		}
	}
	if len(c.Transports) == 0 {
		return fmt.Errorf("client check %s: names no transport", c.ID)
	}
	for _, t := range c.Transports {
		if !slices.Contains(allTransports, t) {
			return fmt.Errorf("client check %s: unknown transport %q", c.ID, t)
		}
	}
	if slices.ContainsFunc(c.Versions, harness.IsStateless) {
		c.Judge = gateStateless(c.Judge)
	}
	return nil
}

// Checks returns every client check, sorted by ID, and the registration errors.
func Checks() ([]*Check, error) { return reg.All() }

// Lookup returns the client check for id.
func Lookup(id string) (*Check, bool) { return reg.Lookup(id) }

// Outcome and Finding are the verdict of every check, client and server alike (package finding).
type (
	Outcome = finding.Outcome
	Finding = finding.Finding
)

// The outcomes a client check gives, as package finding names them.
const (
	Pass          = finding.Pass
	Violation     = finding.Violation
	NotApplicable = finding.NotApplicable
	Untestable    = finding.Untestable
	// Broken: mcpspec itself could not judge (a schema it lacks, say): a harness error,
	// never the client's failure.
	Broken = finding.Broken
)

// The findings' constructors (finding.Outcome.With), as every kind of check names them.
// Functions, not method values, so that go vet checks their format strings.
func passed(format string, args ...any) Finding     { return finding.Pass.With(format, args...) }
func violated(format string, args ...any) Finding   { return finding.Violation.With(format, args...) }
func na(format string, args ...any) Finding         { return finding.NotApplicable.With(format, args...) }
func untestable(format string, args ...any) Finding { return finding.Untestable.With(format, args...) }
func broken(format string, args ...any) Finding     { return finding.Broken.With(format, args...) }
