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
	"github.com/mcpspec/mcpspec/suites/check"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Check is one requirement's client check (package check: the fields every kind has).
type Check = check.Check[Client]

// Client is what only a client check has: the scenario whose recording it judges, and its Judge.
type Client struct {
	Scenario string // the probe scenario whose recording it judges
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
}

// Kind makes Client a check side.
func (Client) Kind() check.Kind { return check.Client }

// Judges reports whether the check judges a scenario's recording.
func (s Client) Judges(scenario string) bool {
	return s.Scenario == scenario || slices.Contains(s.Also, scenario)
}

// The transports of a client check, each named (wire.*).
var (
	allTransports = []string{wire.Stdio, wire.HTTP, wire.SSE}
	httpOnly      = []string{wire.HTTP}
	stdioOnly     = []string{wire.Stdio}
	sseOnly       = []string{wire.SSE}
	stdioHTTP     = []string{wire.Stdio, wire.HTTP}
)

// reg holds the client checks; validating needs the catalogue, whose parsing costs every
// process that links this package (each reference server and stdio probe a run starts) tens
// of milliseconds of CPU: it waits for the first Checks or Lookup.
var (
	config = check.Config[Client]{Side: validateClient, Sorted: true}
	reg    = check.NewRegistry(config)
)

// Register adds checks; an unknown or duplicate ID or a malformed check is an error that
// Checks reports.
func Register(cs ...Check) { reg.Register(cs...) }

// validateClient completes a client check once check.Validate has passed: it needs a scenario
// and a Judge, gated (gateStateless) if it runs at a stateless revision.
func validateClient(c *Check) error {
	if c.Side.Judge == nil || c.Side.Scenario == "" {
		return fmt.Errorf("client check %s: needs a scenario and a Judge function", c.ID)
	}
	if slices.ContainsFunc(c.Versions, harness.IsStateless) {
		c.Side.Judge = gateStateless(c.Side.Judge)
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
