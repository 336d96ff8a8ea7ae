package selftest

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/conform"

	_ "github.com/mcpspec/mcpspec/suites"
)

// binary is the mcpspec binary built for the tests; its reference command is the server.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpspec-selftest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binary = filepath.Join(dir, "mcpspec")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/mcpspec")
	// Static, as make build links it: the self-tests start it as a server thousands of times.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mcpspec:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// selftestTimeouts are short where a fault costs them: the reference server answers in
// milliseconds, and a fault that drops a response must not cost the default ten seconds. The
// startup bound is not: under stress --cpu 2 a reference server over stdio once took over 10s to
// answer its first initialize (RES-LISTCHANGED error, want warn), which measured the machine.
var selftestTimeouts = harness.Timeouts{Startup: 30 * time.Second, Request: 2 * time.Second, Quiet: harness.DefaultTimeouts().Quiet, Shutdown: 2 * time.Second}

// referenceTargets are the reference server over stdio and HTTP with the given faults.
func referenceTargets(t *testing.T, faults ...string) []harness.Target {
	return referenceTargetsWith(t, nil, faults...)
}

// provenWith are the reference's arguments under which the clean run proves a check that its
// default configuration makes na: the server leaves out the capability whose absence the check
// judges, or (--sse-poll) closes SSE connections early, as only HTTP-SSE-RETRY judges. The
// check's fault brings that about by itself, so faults run with the default arguments.
var provenWith = map[string][]string{"COMP-NOT-SUPPORTED": {"--without", "completions"}, "TASK-IGNORE-IF-UNDECLARED": {"--without", "tasks"},
	"HTTP-SSE-RETRY": {"--sse-poll"}}

// referenceTargetsWith are referenceTargets with the reference's extra arguments args.
func referenceTargetsWith(t *testing.T, args []string, faults ...string) []harness.Target {
	flags := slices.Clone(args)
	for _, f := range faults {
		flags = append(flags, "--fault", f)
	}
	httpAddr, sseAddr := freeAddr(t), freeAddr(t)
	return []harness.Target{
		{Transport: wire.Stdio, Command: stdio.Command{Argv: append([]string{binary, "reference"}, flags...)}},
		{Transport: wire.HTTP, URL: "http://" + httpAddr + "/mcp", Command: stdio.Command{Argv: append([]string{binary, "reference", "--http", httpAddr}, flags...)}},
		{Transport: wire.SSE, URL: "http://" + sseAddr + "/sse", Command: stdio.Command{Argv: append([]string{binary, "reference", "--sse", sseAddr}, flags...)}, Revisions: legacyRevisions},
	}
}

// legacyRevisions: the HTTP+SSE transport is checked at its own revision.
var legacyRevisions = []string{harness.Rev20241105}

// statelessTargets are the stateless-only reference server (--era stateless) over stdio and HTTP
// at 2026-07-28 with the given faults: where the checks of requirements that bind only such a
// server are proven.
func statelessTargets(t *testing.T, faults ...string) []harness.Target {
	argv := []string{binary, "reference", "--era", reference.EraStateless}
	for _, f := range faults {
		argv = append(argv, "--fault", f)
	}
	httpAddr := freeAddr(t)
	stateless := []string{harness.Rev20260728}
	return []harness.Target{
		{Transport: wire.Stdio, Command: stdio.Command{Argv: argv}, Revisions: stateless},
		{Transport: wire.HTTP, URL: "http://" + httpAddr + "/mcp", Command: stdio.Command{Argv: append(slices.Clone(argv), "--http", httpAddr)}, Revisions: stateless},
	}
}

// The reference's auth mode in the self-test: the run's token goes with every request, the
// narrow and foreign ones reach the AUTH checks through the options.
const (
	selftestToken   = "selftest-token"
	selftestNarrow  = "selftest-narrow"
	selftestForeign = "selftest-foreign"
	selftestExpired = "selftest-expired"
)

// authTargets are the reference server over HTTP in auth mode with the given faults: where the
// AUTH checks are proven (against the plain reference they are na).
func authTargets(t *testing.T, faults ...string) []harness.Target {
	httpAddr := freeAddr(t)
	argv := []string{binary, "reference", "--http", httpAddr, "--auth-token", selftestToken, "--auth-token-narrow", selftestNarrow, "--auth-token-foreign", selftestForeign, "--auth-token-expired", selftestExpired}
	for _, f := range faults {
		argv = append(argv, "--fault", f)
	}
	return []harness.Target{{Transport: wire.HTTP, URL: "http://" + httpAddr + "/mcp", Command: stdio.Command{Argv: argv},
		Header: http.Header{"Authorization": {"Bearer " + selftestToken}}}}
}

// isAuth: the check judges a server that requires authorization.
func isAuth(c *conform.Check) bool { return c.Area() == "auth" }

// Ports for the reference servers the self-test launches come from below the kernel's
// ephemeral range (32768 and up on Linux), one after another from a random start: a port the
// kernel handed out and took back could go to the next outgoing connection before the server
// launched on it binds it, and two subtests never draw the same one.
const (
	selftestPortLow  = 20000
	selftestPortSpan = 12000
)

var nextPort atomic.Int64

func init() { nextPort.Store(rand.Int64N(selftestPortSpan)) }

// freeAddr returns a 127.0.0.1 address on a port nobody listens on now.
func freeAddr(t *testing.T) string {
	for range selftestPortSpan {
		port := selftestPortLow + int(nextPort.Add(1)%selftestPortSpan)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // taken by someone else: the next one
		}
		addr := ln.Addr().String()
		if err := ln.Close(); err != nil {
			t.Fatalf("release port %d: %v", port, err)
		}
		return addr
	}
	t.Fatalf("no free port in %d-%d", selftestPortLow, selftestPortLow+selftestPortSpan)
	return ""
}

// key names one check at one revision over one transport.
type key struct{ id, rev, transport string }

func (k key) String() string { return k.id + " " + k.rev + " " + k.transport }

// runAll executes every registered check at every revision and transport it applies to.
func runAll(t *testing.T, faults ...string) map[key]reports.Result {
	out := runOn(t, referenceTargets(t, faults...), func(c *conform.Check) bool { return provenWith[c.ID] == nil })
	for id, args := range provenWith {
		maps.Copy(out, runOn(t, referenceTargetsWith(t, args, faults...), func(c *conform.Check) bool { return c.ID == id }))
	}
	return out
}

// runStateless executes the checks that need a stateless-only server against one.
func runStateless(t *testing.T, faults ...string) map[key]reports.Result {
	return runOn(t, statelessTargets(t, faults...), func(c *conform.Check) bool { return c.Side.StatelessOnlyServer })
}

// runOn executes the checks include selects over each target, at each of its revisions (all
// of them when it names none) that a check applies to.
func runOn(t *testing.T, targets []harness.Target, include func(*conform.Check) bool) map[key]reports.Result {
	return runOnWith(t, targets, include, selftestSlowArgs)
}

// selftestSlowArgs make the reference's slow tool a 180 ms run: long enough for most checks.
var selftestSlowArgs = json.RawMessage(`{"steps":6,"stepMs":30}`)

// slowerFor are the slow-tool arguments of the checks whose fault runs must cancel a call while
// it runs: with every fault run at once, a 180 ms call can end before the server has surely
// read the cancellation (the check then cannot tell, rightly), three times in a row. Over
// stdio a starved server can also send all of a 180 ms call's remaining progress before it
// answers the ping that proves it read the cancellation (CANCEL26-NO-FURTHER then saw nothing
// after it, and passed its fault once in a loaded make test). A 600 ms call still did, three
// times in a row, in 1 of 20 stressed make tests (CANCEL-STOP-NO-RESPONSE:id-zero over stdio,
// untestable): its calls are 1.2 s.
var slowerFor = map[string]json.RawMessage{
	"CANCEL-STOP-NO-RESPONSE": json.RawMessage(`{"steps":40,"stepMs":30}`),
	"CANCEL26-NO-FURTHER":     json.RawMessage(`{"steps":20,"stepMs":30}`),
}

// runOnWith is runOn with the slow tool's arguments given.
func runOnWith(t *testing.T, targets []harness.Target, include func(*conform.Check) bool, slowArgs json.RawMessage) map[key]reports.Result {
	checks, err := conform.Checks()
	if err != nil {
		t.Fatal(err)
	}
	r := conform.NewRunner(conform.Config{Validator: validator, Targets: targets, Revisions: harness.Revisions, Timeouts: selftestTimeouts,
		Options: conform.Options{SlowTool: "slow", SlowToolArgs: slowArgs, ListTool: "toggle",
			InputTool: "confirm", InputToolArgs: json.RawMessage(`{"action":"mcpspec"}`), LogTool: "log", LogToolArgs: json.RawMessage(`{}`),
			AuthTokenNarrow: selftestNarrow, AuthTokenForeign: selftestForeign, AuthTokenExpired: selftestExpired}})
	defer r.Close()
	var specs []conform.Spec
	for _, target := range targets {
		revisions := target.Revisions
		if revisions == nil {
			revisions = harness.Revisions
		}
		for _, c := range checks {
			for _, rev := range revisions {
				if !include(c) || !c.AppliesTo(rev, target.Transport) || (c.Side.Once && rev != newestIn(c, revisions)) {
					continue
				}
				specs = append(specs, conform.Spec{Check: c, Revision: rev, Transport: target.Transport})
			}
		}
	}
	r.StartShared(specs, selftestWorkers, selftestSessions)
	out := map[key]reports.Result{}
	for _, s := range specs {
		out[key{s.Check.ID, s.Revision, s.Transport}] = r.Result(s)
	}
	return out
}

// newestIn is the newest of revisions that c applies to (where a Once check runs).
func newestIn(c *conform.Check, revisions []string) string {
	n := ""
	for _, v := range revisions {
		if slices.Contains(c.Versions, v) && v > n {
			n = v
		}
	}
	return n
}

var validator = schema.New()

// selftestWorkers bounds each run's concurrent executions; the faults run in parallel as well.
const (
	selftestWorkers  = 6
	selftestSessions = 2
)

var (
	cleanOnce sync.Once
	clean     map[key]reports.Result
)

func cleanResults(t *testing.T) map[key]reports.Result {
	cleanOnce.Do(func() { clean = runAll(t) })
	return clean
}

var (
	authOnce  sync.Once
	authClean map[key]reports.Result
)

func authResults(t *testing.T) map[key]reports.Result {
	// Every check, not the AUTH ones alone: their probes must leave the others' sessions clean.
	// (A check proven under other reference arguments, provenWith, is proven there.)
	authOnce.Do(func() {
		authClean = runOn(t, authTargets(t), func(c *conform.Check) bool { return provenWith[c.ID] == nil })
	})
	return authClean
}

var (
	statelessOnce  sync.Once
	statelessClean map[key]reports.Result
)

func statelessResults(t *testing.T) map[key]reports.Result {
	statelessOnce.Do(func() { statelessClean = runStateless(t) })
	return statelessClean
}

// expectAllPass fails every result that is not a pass. Against the dual-era reference a check
// that needs a stateless-only server is na instead (statelessResults proves those checks), and so
// is an AUTH check unless the reference runs in auth mode (authResults proves those).
func expectAllPass(t *testing.T, results map[key]reports.Result, round string, dualEra, authMode bool) {
	t.Helper()
	for k, res := range results {
		if c, _ := conform.Lookup(k.id); dualEra && c != nil && c.Side.StatelessOnlyServer {
			if res.Status != reports.NA {
				t.Errorf("%s%s: %s against the dual-era reference, want na: %s", round, k, res.Status, res.Message)
			}
			continue
		}
		if c, _ := conform.Lookup(k.id); !authMode && c != nil && isAuth(c) {
			if res.Status != reports.NA {
				t.Errorf("%s%s: %s against the reference without auth mode, want na: %s", round, k, res.Status, res.Message)
			}
			continue
		}
		if res.Status != reports.Pass {
			t.Errorf("%s%s: %s: %s", round, k, res.Status, res.Message)
		}
	}
}

// TestReferencePassesEveryCheck: no false positives against a conformant server, dual-era or
// stateless-only.
func TestReferencePassesEveryCheck(t *testing.T) {
	expectAllPass(t, cleanResults(t), "", true, false)
	stateless := statelessResults(t)
	if len(stateless) == 0 {
		t.Error("no check ran against the stateless-only reference")
	}
	expectAllPass(t, stateless, "stateless-only: ", false, false)
	auth := authResults(t)
	if len(auth) == 0 {
		t.Error("no check ran against the reference in auth mode")
	}
	expectAllPass(t, auth, "auth mode: ", true, true)
}

// sideEffectsWanted runs the whole suite under each fault and logs every other check whose
// status changes (MCPSPEC_SIDE_EFFECTS=1 go test -v -run TestEveryFaultFailsItsCheck).
var sideEffectsWanted = os.Getenv("MCPSPEC_SIDE_EFFECTS") != ""

// TestEveryFaultFailsItsCheck: no false negatives. Each fault must make its check fail (MUST) or
// warn (SHOULD) at every revision and over every transport the check covers, except where the
// fault is documented as transport-specific. Other checks that change status are logged as side
// effects.
func TestEveryFaultFailsItsCheck(t *testing.T) {
	base := cleanResults(t)
	for _, f := range reference.Faults() {
		t.Run(f.ID, func(t *testing.T) {
			t.Parallel()
			c, ok := conform.Lookup(f.Requirement)
			if !ok {
				t.Fatalf("fault %s names %s, which has no check", f.ID, f.Requirement)
			}
			want := reports.Fail
			if c.Level != "MUST" && !breaksMust[f.ID] {
				want = reports.Warn
			}
			targets, baseline := referenceTargets(t, f.ID), base
			if c.Side.StatelessOnlyServer {
				targets, baseline = statelessTargets(t, f.ID), statelessResults(t)
			}
			if isAuth(c) {
				targets, baseline = authTargets(t, f.ID), authResults(t)
			}
			// The fault's own check is what must change; the whole suite runs under it only
			// when its side effects are asked for, as it costs a full run per fault.
			include := func(o *conform.Check) bool { return o.ID == c.ID }
			if sideEffectsWanted {
				// A check proven under other arguments (provenWith) has no comparable baseline.
				include = func(o *conform.Check) bool {
					return (!c.Side.StatelessOnlyServer || o.Side.StatelessOnlyServer) && (!isAuth(c) || isAuth(o)) && (o.ID == c.ID || provenWith[o.ID] == nil)
				}
			}
			slowArgs := selftestSlowArgs
			if args, ok := slowerFor[c.ID]; ok && !sideEffectsWanted {
				slowArgs = args
			}
			got := runOnWith(t, targets, include, slowArgs)
			if f.ID == reference.FaultLifeNoHandshake {
				expectOneFailurePerTransport(t, got)
				return
			}
			var sideEffects []string
			ran := 0
			for k, res := range got {
				if k.id == c.ID {
					ran++
					if res.Status != want && !(want == reports.Warn && res.Status == reports.Fail) {
						t.Errorf("%s under fault %s: %s, want %s (%s)", k, f.ID, res.Status, want, res.Message)
					}
					continue
				}
				if b := baseline[k]; b.Status != res.Status {
					sideEffects = append(sideEffects, fmt.Sprintf("%s: %s → %s (%s)", k, b.Status, res.Status, firstLine(res.Message+b.Message)))
				}
			}
			if ran == 0 {
				t.Errorf("%s did not run under fault %s", c.ID, f.ID)
			}
			sort.Strings(sideEffects)
			if len(sideEffects) > 0 {
				t.Logf("side effects of fault %s:\n  %s", f.ID, strings.Join(sideEffects, "\n  "))
			}
		})
	}
}

// breaksMust are the faults that break a MUST rule in a SHOULD check's exchange: the check must
// fail on them, not warn (conform's rules.go).
var breaksMust = map[string]bool{reference.FaultBatchDropsRequest: true, reference.FaultCancelEarlierProgress: true}

// expectOneFailurePerTransport: against a server without an MCP handshake every check is na
// but one failure per transport that names what the server answered.
func expectOneFailurePerTransport(t *testing.T, got map[key]reports.Result) {
	t.Helper()
	failures := map[string]int{}
	for k, res := range got {
		switch res.Status {
		case reports.Fail:
			failures[k.transport]++
			if !strings.Contains(res.Message, "no MCP handshake") || !strings.Contains(res.Message, "-32603") {
				t.Errorf("%s: the failure does not say what the server answered: %s", k, res.Message)
			}
		case reports.NA:
			if !strings.Contains(res.Message, "no MCP handshake") {
				t.Errorf("%s: na without naming the missing handshake: %s", k, res.Message)
			}
		default:
			t.Errorf("%s: %s, want na or the one failure: %s", k, res.Status, res.Message)
		}
	}
	for _, transport := range []string{wire.Stdio, wire.HTTP, wire.SSE} {
		if failures[transport] != 1 {
			t.Errorf("%s: %d failures, want exactly one", transport, failures[transport])
		}
	}
}

// TestEveryCheckHasAFault: an implemented requirement without a fault could be a check that
// cannot fail.
func TestEveryCheckHasAFault(t *testing.T) {
	faults := map[string]bool{}
	for _, f := range reference.Faults() {
		faults[f.Requirement] = true
	}
	checks, err := conform.Checks()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !faults[c.ID] {
			t.Errorf("%s is implemented but the reference server has no fault that breaks it", c.ID)
		}
	}
}

// TestReferenceIsStable repeats the clean run: a check that fails now and then against a
// conformant server is a false positive waiting to happen.
func TestReferenceIsStable(t *testing.T) {
	if testing.Short() {
		t.Skip("repeats the whole suite")
	}
	for i := 0; i < 3; i++ {
		expectAllPass(t, runAll(t), fmt.Sprintf("round %d: ", i), true, false)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
