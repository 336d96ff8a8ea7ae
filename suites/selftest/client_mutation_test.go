package selftest

// The client mutation self-test, beside the server one (mutation_test.go): the reference client
// (fixtures/refclient) runs in process through the engine (suites/engine), each launch against a
// probe of its own — in process over Streamable HTTP and HTTP+SSE, over stdio the mcpspec binary
// built for these tests as `probe-stdio`, the child the client launches. The clean client passes
// every client check over every transport; each fault breaks its own check, at its level, in the
// scenarios that check judges, and no other check there. cmd/mcpspec/client_test.go proves the
// same through the binary for one fault per transport (the CLI path).

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refclient"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
	"github.com/mcpspec/mcpspec/suites/engine"
)

// clientSelftestTimeouts leave the reference client's every request room on a loaded machine,
// as cmd/mcpspec's clientParallelFlags do: the cancellation scenarios give the client a fifth of
// Request as its request timeout, and a tools/call answered after it is a different exchange
// (at 3 s, 600 ms each, a task-augmented tools/call timed out at load 25 before its task was
// created, and was cancelled as a request). Startup is generous for the same reason: over stdio
// it includes starting the probe binary.
var clientSelftestTimeouts = engine.ClientTimeouts{Startup: 30 * time.Second, Request: 5 * time.Second, Idle: 15 * time.Second,
	Shutdown: 5 * time.Second, Launch: 2 * time.Minute}

// clientSelftestParallel is each run's launches at once; the faults' runs go in parallel too
// (t.Parallel), every client and in-process probe in this one process.
const clientSelftestParallel = 2

// referenceClient runs the reference client with faults in process, as `mcpspec reference-client
// [--sse] [--fault F]… TARGET` would: what it returns goes to its stderr.
func referenceClient(transport string, faults []string) func(context.Context, []string, map[string]string, io.Writer) error {
	return func(ctx context.Context, target []string, env map[string]string, stderr io.Writer) error {
		opts := refclient.Options{Faults: faults, SSE: transport == wire.SSE, Stderr: stderr, Getenv: func(k string) string { return env[k] }}
		err := refclient.Run(ctx, target, opts, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "mcpspec reference-client:", err)
		}
		return err
	}
}

// runReferenceClient runs the client checks judging scenarios on the reference client with
// faults over transport, at every revision, and returns the results; a harness-level error (a
// launch that never connected, hung or crashed) fails the test.
func runReferenceClient(t *testing.T, transport string, scenarios []string, faults ...string) []reports.Result {
	t.Helper()
	p := &engine.ClientPlan{Transport: transport, Revisions: harness.Revisions, Scenarios: scenarios, Timeouts: clientSelftestTimeouts,
		Self: binary, Parallel: clientSelftestParallel, InProcess: referenceClient(transport, faults)}
	launches, err := p.Launches()
	if err != nil {
		t.Fatal(err)
	}
	var results []reports.Result
	o := engine.RunClient(p, launches, engine.ClientHooks{Result: func(r reports.Result) { results = append(results, r) }})
	for _, e := range o.Errors {
		t.Errorf("faults %q over %s: %s", faults, transport, e)
	}
	if name := o.ClientInfo["name"]; len(faults) == 0 && name != "mcpspec-reference-client" {
		t.Errorf("the clean client over %s: clientInfo name %v, want the reference client's", transport, name)
	}
	return results
}

// clientTransports are the transports a check runs over at some revision.
func clientTransports(c *clientsuite.Check) []string {
	var out []string
	for _, transport := range c.Transports {
		if slices.ContainsFunc(harness.TransportRevisions(transport), func(r string) bool { return c.AppliesTo(r, transport) }) {
			out = append(out, transport)
		}
	}
	return out
}

// judgedScenarios are the scenarios some client check judges: every scenario served on request
// whose checks no default scenario judges (task-cancel, subscriptions, the skills and schema
// scenarios, …), and the authorization ones.
func judgedScenarios(t *testing.T) []string {
	t.Helper()
	checks, err := clientsuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range probe.Known() {
		if slices.ContainsFunc(checks, func(c *clientsuite.Check) bool { return c.Side.Judges(s) }) {
			out = append(out, s)
		}
	}
	return out
}

var (
	cleanClientOnce sync.Map // transport → *sync.Once
	cleanClient     sync.Map // transport → []reports.Result
)

// cleanClientResults runs the clean reference client over transport in every judged scenario,
// once per test binary.
func cleanClientResults(t *testing.T, transport string) []reports.Result {
	t.Helper()
	once, _ := cleanClientOnce.LoadOrStore(transport, &sync.Once{})
	once.(*sync.Once).Do(func() { cleanClient.Store(transport, runReferenceClient(t, transport, judgedScenarios(t))) })
	res, _ := cleanClient.Load(transport)
	return res.([]reports.Result)
}

// TestClientReferencePassesEveryCheck: no false positives against a conformant client. Every
// client check that applies over a transport has a result there, and each is a pass.
func TestClientReferencePassesEveryCheck(t *testing.T) {
	checks, err := clientsuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{wire.HTTP, wire.Stdio, wire.SSE} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			seen := map[string]bool{}
			for _, res := range cleanClientResults(t, transport) {
				seen[res.ID+" "+res.Version] = true
				if res.Status != reports.Pass {
					t.Errorf("%s %s in %s: %s, want pass: %s", res.ID, res.Version, res.Scenario, res.Status, res.Message)
				}
				if res.Transport != transport || len(res.Evidence) == 0 || res.SpecURL == "" {
					t.Errorf("%s %s: transport %q, %d exchanges, spec %q", res.ID, res.Version, res.Transport, len(res.Evidence), res.SpecURL)
				}
			}
			for _, c := range checks {
				if !slices.Contains(clientTransports(c), transport) {
					continue
				}
				// At each revision it runs at (a Once check at its newest) where a scenario it
				// judges is served.
				var revs []string
				for _, r := range harness.TransportRevisions(transport) {
					if c.AppliesTo(r, transport) && slices.ContainsFunc(append([]string{c.Side.Scenario}, c.Side.Also...), func(s string) bool { return probe.ServesAt(s, r) }) {
						revs = append(revs, r)
					}
				}
				if c.Side.Once && len(revs) > 0 {
					revs = revs[len(revs)-1:]
				}
				for _, r := range revs {
					if !seen[c.ID+" "+r] {
						t.Errorf("%s applies at %s over %s but has no result", c.ID, r, transport)
					}
				}
				if len(revs) == 0 {
					t.Errorf("%s applies over %s but no scenario it judges is served there", c.ID, transport)
				}
			}
		})
	}
}

// TestClientEveryCheckHasAFault: a client check without a fault in the reference client could be
// a check that cannot fail; a fault names the check it breaks (ID, or ID:variant).
func TestClientEveryCheckHasAFault(t *testing.T) {
	checks, err := clientsuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	broken := map[string]bool{}
	for _, f := range refclient.Faults() {
		id, _, _ := strings.Cut(f.ID, ":")
		if _, ok := clientsuite.Lookup(id); !ok {
			t.Errorf("fault %s names %s, which has no client check", f.ID, id)
		}
		broken[id] = true
	}
	for _, c := range checks {
		if !broken[c.ID] {
			t.Errorf("client check %s has no fault in the reference client: it could be a check that cannot fail", c.ID)
		}
	}
}

// TestClientEveryFaultFailsItsCheck: no false negatives. Each fault of the reference client
// (variants included) makes its check fail (MUST) or warn (SHOULD) in some scenario it judges,
// over every transport the check runs on; no other check judging those scenarios fails, warns
// or errs, and the run has no harness error.
func TestClientEveryFaultFailsItsCheck(t *testing.T) {
	for _, f := range refclient.Faults() {
		id, _, _ := strings.Cut(f.ID, ":")
		c, ok := clientsuite.Lookup(id)
		if !ok {
			continue // TestClientEveryCheckHasAFault
		}
		for _, transport := range clientTransports(c) {
			if only, ok := faultOnlyOver[f.ID]; ok && !slices.Contains(only, transport) {
				continue
			}
			t.Run(f.ID+"/"+transport, func(t *testing.T) {
				t.Parallel()
				want := reports.Fail
				if c.Level == "SHOULD" && !clientFaultBreaksMust[f.ID] {
					want = reports.Warn
				}
				results := runReferenceClient(t, transport, append([]string{c.Side.Scenario}, c.Side.Also...), f.ID)
				broken := 0
				for _, res := range results {
					switch {
					case res.ID == c.ID && res.Status == want:
						broken++
					// The fault shows in some of the check's scenarios or revisions, not all.
					case res.ID == c.ID && (res.Status == reports.Pass || res.Status == reports.NA):
					// Another check may lose its evidence (na), never fail; a capability left
					// undeclared, or its request left unanswered, makes the checks of its answers
					// untestable, and so does an authorization flow the fault broke (no token).
					case res.ID != c.ID && res.Status == reports.Pass, res.ID != c.ID && res.Status == reports.NA:
					case res.ID != c.ID && res.Status == reports.Untestable && (losesAnswers(f.ID, c, res.ID) || probe.IsAuth(res.Scenario)):
					default:
						t.Errorf("the fault %s made %s %s in %s %s: %s", f.ID, res.ID, res.Version, res.Scenario, res.Status, res.Message)
					}
				}
				if broken == 0 {
					t.Errorf("the fault %s made no %s result %s over %s (%d results)", f.ID, c.ID, want, transport, len(results))
				}
				for _, w := range everyWay[f.ID] {
					if w.transport == transport && !slices.ContainsFunc(results, func(r reports.Result) bool {
						return r.ID == c.ID && r.Version == w.revision && r.Status == want
					}) {
						t.Errorf("the fault %s made no %s result %s at %s over %s", f.ID, c.ID, want, w.revision, transport)
					}
				}
			})
		}
	}
}

// everyWay are the faults that must show at each of these revisions and transports, not at one
// of them: LIFE-TIMEOUT-CANCEL's in each way a client cancels (a notifications/cancelled before
// 2026-07-28 and over stdio at it, closing the request's POST stream over HTTP at it).
var everyWay = map[string][]struct{ revision, transport string }{
	refclient.FaultTimeoutCancel: {{harness.Rev20251125, wire.HTTP}, {harness.Rev20260728, wire.HTTP}, {harness.Rev20260728, wire.Stdio}},
	// The notification does not release the held call there: the stream left open until the
	// late answer shows.
	refclient.FaultTimeoutNotifyOpen: {{harness.Rev20260728, wire.HTTP}},
}

// faultOnlyOver are the faults made to show over some of their check's transports only:
// elsewhere they behave as the clean client (LIFE-TIMEOUT-CANCEL:notify-open cancels the way
// every revision but 2026-07-28 over HTTP asks).
var faultOnlyOver = map[string][]string{refclient.FaultTimeoutNotifyOpen: {wire.HTTP}}

// clientFaultBreaksMust are the faults that break a MUST in a SHOULD check's exchange: their
// check fails, not warns (the reference client's tools/list before initialize breaks
// "initialization MUST be the first interaction"; its tasks/update answering a key the task
// never asked breaks "each key MUST correspond to a currently-outstanding inputRequest key").
var clientFaultBreaksMust = map[string]bool{refclient.FaultPreInitRequest: true, refclient.FaultTaskXUpdate: true}

// losesAnswers reports whether fault, of check c, leaves the check id without the answers it
// judges: a capability left undeclared (a -CAP fault) or its request left unanswered
// (ROOTS-CLIENT-RESULT:unanswered), where id judges answers of that capability.
func losesAnswers(fault string, c *clientsuite.Check, id string) bool {
	other, ok := clientsuite.Lookup(id)
	return ok && c.Side.Capability != "" && other.Side.Capability == c.Side.Capability &&
		(strings.HasSuffix(c.ID, "-CAP") || fault == refclient.FaultRootsUnanswered)
}
