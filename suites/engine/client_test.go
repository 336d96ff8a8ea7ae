package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refclient"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
)

// TestEvidenceKeepsCitedRecord: past the evidence bound, the record a verdict cites stays.
func TestEvidenceKeepsCitedRecord(t *testing.T) {
	out := launchOutcome{started: time.Now()}
	for i := 1; i <= 1000; i++ {
		out.records = append(out.records, record.Record{Seq: i, At: out.started.Add(time.Duration(i) * time.Millisecond), Dir: record.Recv, Channel: record.ChanPOST, Body: fmt.Sprintf(`{"n":%d}`, i)})
	}
	ex := evidence(out, "the client did wrong (record 500) and worse (record 700)")
	if len(ex) > transcript.MaxEvidence+5 {
		t.Errorf("%d exchanges, want the bound (%d) and a few notes", len(ex), transcript.MaxEvidence)
	}
	for _, want := range []int{1, 500, 700, 1000} {
		if !slices.ContainsFunc(ex, func(e reports.Exchange) bool { return e.Seq == want && e.Direction == record.Recv }) {
			t.Errorf("record %d is not in the evidence", want)
		}
	}
	if e := ex[slices.IndexFunc(ex, func(e reports.Exchange) bool { return e.Seq == 500 })]; e.AtMs != 500 {
		t.Errorf("record 500 at %d ms, want 500", e.AtMs)
	}
}

func TestInterruptionFirstReasonStands(t *testing.T) {
	i := NewInterruption()
	if i.Reason() != "" {
		t.Fatal("interrupted before Interrupt")
	}
	i.Interrupt("SIGTERM")
	i.Interrupt("SIGINT")
	select {
	case <-i.Done():
	default:
		t.Fatal("Done is not closed")
	}
	if i.Reason() != "SIGTERM" {
		t.Errorf("reason %q, want the first, SIGTERM", i.Reason())
	}
}

// TestAwaitEndsAtLaunchBound: a client that never falls silent is never idle; the launch bound
// ends the wait anyway, and so does an interruption.
func TestAwaitEndsAtLaunchBound(t *testing.T) {
	proc, err := stdio.Start(stdio.Command{Argv: []string{"sleep", "600"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Stop(time.Second)
	rec := probe.NewRecorder(nil)
	quit := make(chan struct{})
	defer close(quit)
	go func() { // a record every 10 ms, as a chatty client's pings
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				rec.Add(record.Record{Dir: record.Recv, Channel: record.ChanPOST})
			}
		}
	}()
	bounds := ClientTimeouts{Startup: time.Minute, Request: time.Second, Idle: time.Minute, Shutdown: time.Second, Launch: 200 * time.Millisecond}
	if got := awaitClient(proc, rec, bounds, nil, nil); !strings.Contains(got, "still running at the launch timeout (200ms)") {
		t.Errorf("awaitClient = %q, want the launch bound", got)
	}
	stop := make(chan struct{})
	close(stop)
	bounds.Launch = time.Hour
	if got := awaitClient(proc, rec, bounds, stop, nil); got != "interrupted" {
		t.Errorf("awaitClient after stop = %q, want interrupted", got)
	}
}

// A client's stderr is quoted by the line that says why it failed, however long its tail.
func TestStderrHintQuotesTheReason(t *testing.T) {
	stderr := "Error: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules\n" + strings.Repeat("    at frame (file.js:1:1)\n", 40)
	hint := stderrHint(stderr)
	if !strings.HasPrefix(hint, "; its stderr says: Error: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules; its stderr ends: …") {
		t.Errorf("hint %q", hint)
	}
}

// TestRunClientParallelKeepsOrder: the first launch's client ends only once the second's has run,
// so the two overlap and the second finishes first; the hooks still get them in plan order.
func TestRunClientParallelKeepsOrder(t *testing.T) {
	dir := t.TempDir()
	// The URL goes last, as $0. tools_call waits (bounded) for version-unsupported's mark.
	script := `case "$MCP_CONFORMANCE_SCENARIO" in
tools_call) i=0; while [ ! -e "$MARK" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; [ -e "$MARK" ] || exit 7;;
*) touch "$MARK";;
esac`
	p := &ClientPlan{Argv: []string{"sh", "-c", script}, Env: []string{"MARK=" + dir + "/mark"}, Transport: "http",
		Revisions: []string{"2025-06-18"}, Scenarios: []string{probe.ScenarioTools, probe.ScenarioVersionUnsupported}, Parallel: 2,
		Timeouts: ClientTimeouts{Startup: 2 * time.Minute, Request: time.Second, Idle: time.Minute, Shutdown: 5 * time.Second, Launch: 2 * time.Minute}}
	launches, err := p.Launches()
	if err != nil || len(launches) != 2 {
		t.Fatalf("launches %v, %v: want tools_call and version-unsupported", launches, err)
	}
	var sessions, scenarios []string
	o := RunClient(p, launches, ClientHooks{
		Launched: func(l Launch, _ []string, _ []record.Record) { sessions = append(sessions, l.Session()) },
		Result:   func(r reports.Result) { scenarios = append(scenarios, r.Scenario) },
	})
	if want := []string{launches[0].Session(), launches[1].Session()}; !slices.Equal(sessions, want) {
		t.Errorf("launched %v, want %v", sessions, want)
	}
	if i := slices.Index(scenarios, probe.ScenarioVersionUnsupported); i <= 0 || slices.Contains(scenarios[i:], probe.ScenarioTools) {
		t.Errorf("results by scenario %v, want tools_call's then version-unsupported's", scenarios)
	}
	if len(o.Errors) != 2 || !strings.HasPrefix(o.Errors[0], "tools_call at 2025-06-18: it exited (exit status 0)") {
		t.Errorf("errors %q, want tools_call's first, its client having seen the other launch run", o.Errors)
	}
}

// TestDispatchOrderStartsLongestWaitFirst: the launches that wait out a request timeout start
// first, then sse-retry's, which wait before they reconnect; the others keep their order behind
// them.
func TestDispatchOrderStartsLongestWaitFirst(t *testing.T) {
	var ls []Launch
	for _, s := range []struct{ scenario, revision string }{{probe.ScenarioTools, "2025-11-25"}, {probe.ScenarioRequestTimeout, "2025-11-25"},
		{probe.ScenarioSSERetry, "2025-11-25"}, {probe.ScenarioTaskCancel, "2025-11-25"}, {probe.ScenarioSessionExpiry, "2025-11-25"},
		{probe.ScenarioSSERetry, "2025-06-18"}} {
		ls = append(ls, Launch{Script: probe.Script{Scenario: s.scenario, Revision: s.revision, AnswerWait: 10 * time.Second}, Revision: s.revision})
	}
	if got, want := dispatchOrder(ls), []int{1, 3, 2, 5, 0, 4}; !slices.Equal(got, want) {
		t.Errorf("dispatch order %v, want %v", got, want)
	}
}

// waitTestBound bounds each wait of TestWaitingLaunchGivesItsPlace: each ends as soon as its
// condition holds, so a generous bound costs nothing when the test passes.
const waitTestBound = 60 * time.Second

// TestWaitingLaunchGivesItsPlace: at --parallel 2, a request-timeout launch whose request the
// probe holds stops counting, so a third launch starts while it and a second still run: the
// second ends only once the third has started, and the held one only once the third has ended.
func TestWaitingLaunchGivesItsPlace(t *testing.T) {
	thirdStarted, thirdDone := make(chan struct{}), make(chan struct{})
	client := func(ctx context.Context, target []string, env map[string]string, stderr io.Writer) error {
		switch s := env["MCP_CONFORMANCE_SCENARIO"]; s {
		case probe.ScenarioRequestTimeout:
			// The reference client, with a timeout of its own far past the test's, waits on the
			// held call until the third launch is over.
			held, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() {
				select {
				case <-thirdDone:
				case <-held.Done():
				}
				cancel()
			}()
			return refclient.Run(held, target, refclient.Options{RequestTimeout: time.Hour, Getenv: func(k string) string { return env[k] }}, stderr)
		case probe.ScenarioTools:
			select {
			case <-thirdStarted:
				return nil
			case <-time.After(waitTestBound):
				return errors.New("the third launch never started beside this one")
			case <-ctx.Done():
				return ctx.Err()
			}
		default:
			close(thirdStarted)
			defer close(thirdDone)
			return nil
		}
	}
	p := &ClientPlan{InProcess: client, Transport: "http", Revisions: []string{"2025-06-18"}, Parallel: 2,
		Scenarios: []string{probe.ScenarioTools, probe.ScenarioVersionUnsupported, probe.ScenarioRequestTimeout},
		Timeouts:  ClientTimeouts{Startup: 2 * waitTestBound, Request: 10 * time.Minute, Idle: 2 * waitTestBound, Shutdown: waitTestBound, Launch: 2 * waitTestBound}}
	launches, err := p.Launches()
	if err != nil || len(launches) != 3 {
		t.Fatalf("launches %v, %v: want tools_call, version-unsupported and request-timeout", launches, err)
	}
	if got := launches[dispatchOrder(launches)[0]].Script.Scenario; got != probe.ScenarioRequestTimeout {
		t.Fatalf("%s dispatched first, want request-timeout", got)
	}
	o := RunClient(p, launches, ClientHooks{Result: func(reports.Result) {}})
	for _, e := range o.Errors {
		if strings.Contains(e, "never started beside") {
			t.Error(e)
		}
	}
	select {
	case <-thirdStarted:
	default:
		t.Error("version-unsupported never ran")
	}
}

// TestUnknownScenarioIsNA: a client that exits non-zero without connecting, its stderr saying
// it does not know the scenario, is na for that scenario's checks with that line quoted, not a
// harness error; one that exits so without saying why (a crash) still is one. The launch's
// revision reaches the client in MCP_CONFORMANCE_PROTOCOL_VERSION.
func TestUnknownScenarioIsNA(t *testing.T) {
	script := `[ "$MCP_CONFORMANCE_PROTOCOL_VERSION" = 2025-06-18 ] || { echo "MCP_CONFORMANCE_PROTOCOL_VERSION is '$MCP_CONFORMANCE_PROTOCOL_VERSION'" >&2; exit 9; }
case "$MCP_CONFORMANCE_SCENARIO" in
tools_call) echo "Unknown scenario: \"$MCP_CONFORMANCE_SCENARIO\"" >&2; echo "Available scenarios: initialize" >&2; exit 1;;
*) echo "running $MCP_CONFORMANCE_SCENARIO" >&2; echo "panic: runtime error: index out of range" >&2; exit 2;;
esac`
	p := &ClientPlan{Argv: []string{"sh", "-c", script}, Transport: "http", Revisions: []string{"2025-06-18"},
		Scenarios: []string{probe.ScenarioTools, probe.ScenarioVersionUnsupported}, Parallel: 1,
		Timeouts: ClientTimeouts{Startup: 2 * time.Minute, Request: time.Second, Idle: time.Minute, Shutdown: 5 * time.Second, Launch: 2 * time.Minute}}
	o, byScenario := runToolsAndVersion(t, p)
	for _, r := range byScenario[probe.ScenarioTools] {
		if r.Status != reports.NA || !strings.Contains(r.Message, `its stderr saying "Unknown scenario: \"tools_call\""`) {
			t.Errorf("%s in tools_call: %s %q, want na quoting the client's line", r.ID, r.Status, r.Message)
		}
	}
	for _, r := range byScenario[probe.ScenarioVersionUnsupported] {
		if r.Status != reports.Error {
			t.Errorf("%s in version-unsupported: %s, want error (the client crashed)", r.ID, r.Status)
		}
	}
	if len(o.Errors) != 1 || !strings.HasPrefix(o.Errors[0], "version-unsupported at 2025-06-18: it exited (exit status 2)") ||
		!strings.Contains(o.Errors[0], "panic: runtime error") {
		t.Errorf("errors %q, want version-unsupported's crash alone, its stderr quoted", o.Errors)
	}
}

func TestUnknownScenarioLine(t *testing.T) {
	for _, c := range []struct{ scenario, stderr, want string }{
		{"sse-retry", "2026/08/01 12:00:01 Unknown scenario: \"sse-retry\"\nAvailable scenarios:\n  - sse-retry", `Unknown scenario: "sse-retry"`},
		{"request-timeout", "Unknown scenario: request-timeout\n", "Unknown scenario: request-timeout"},
		{"tools_call", "scenario tools_call is not supported by this client", "scenario tools_call is not supported by this client"},
		{"tools_call", "Unknown scenario: initialize", ""},                      // names another
		{"tools_call", "running tools_call\nError: connection refused", ""},     // a crash
		{"version-unsupported", "running version-unsupported\npanic: boom", ""}, // the name is no refusal
		{"tools_call", "tools_call: dial tcp: lookup x: unknown host", ""},      // not about the scenario
	} {
		if got := unknownScenario(c.scenario, c.stderr); got != c.want {
			t.Errorf("unknownScenario(%q, %q) = %q, want %q", c.scenario, c.stderr, got, c.want)
		}
	}
}

// TestInterruptedRowsNameTheirScenario: the rows of a launch a signal ended before its judgement
// name its scenario as judged rows do, so they stay apart from the check's other scenarios.
func TestInterruptedRowsNameTheirScenario(t *testing.T) {
	checks, err := clientsuite.Checks()
	if err != nil || len(checks) == 0 {
		t.Fatalf("client checks: %v", err)
	}
	l := Launch{Script: probe.Script{Scenario: probe.ScenarioSessionExpiry}, Revision: "2025-06-18", Checks: checks[:1]}
	for _, r := range interruptedResults(l, "http", "SIGINT", "before its launch") {
		if r.Scenario != probe.ScenarioSessionExpiry || r.Status != reports.Error {
			t.Errorf("%s: scenario %q, status %s; want %q, error", r.ID, r.Scenario, r.Status, probe.ScenarioSessionExpiry)
		}
	}
}

// TestInProcessClient: a client run in process gets the probe's URL and the scenario's
// variables, and is judged as a launched one: what it writes is its stderr, a refusal of the
// scenario there makes the scenario's checks na, and one that never connects is stopped at
// the startup bound, its context cancelled.
func TestInProcessClient(t *testing.T) {
	stopped := make(chan struct{}, 1)
	client := func(ctx context.Context, target []string, env map[string]string, stderr io.Writer) error {
		if len(target) != 1 || !strings.HasPrefix(target[0], "http://127.0.0.1:") {
			return fmt.Errorf("target %q, want the probe's URL", target)
		}
		switch s := env["MCP_CONFORMANCE_SCENARIO"]; s {
		case probe.ScenarioTools:
			fmt.Fprintf(stderr, "Unknown scenario: %s (protocol %s, MARK=%s)\n", s, env["MCP_CONFORMANCE_PROTOCOL_VERSION"], env["MARK"])
			return errors.New("unknown scenario")
		default: // never connects, until stopped
			<-ctx.Done()
			stopped <- struct{}{}
			return ctx.Err()
		}
	}
	p := &ClientPlan{InProcess: client, Env: []string{"MARK=x"}, Transport: "http", Revisions: []string{"2025-06-18"},
		Scenarios: []string{probe.ScenarioTools, probe.ScenarioVersionUnsupported}, Parallel: 1,
		Timeouts: ClientTimeouts{Startup: 2 * time.Second, Request: time.Second, Idle: time.Minute, Shutdown: time.Minute, Launch: 2 * time.Minute}}
	o, byScenario := runToolsAndVersion(t, p)
	for _, r := range byScenario[probe.ScenarioTools] {
		if r.Status != reports.NA || !strings.Contains(r.Message, `its stderr saying "Unknown scenario: tools_call (protocol 2025-06-18, MARK=x)"`) {
			t.Errorf("%s in tools_call: %s %q, want na quoting the client's line", r.ID, r.Status, r.Message)
		}
	}
	select {
	case <-stopped:
	default:
		t.Error("the client that never connected was not stopped through its context")
	}
	if len(o.Errors) != 1 || !strings.HasPrefix(o.Errors[0], "version-unsupported at 2025-06-18: the client sent the probe nothing within the startup timeout") {
		t.Errorf("errors %q, want version-unsupported's startup timeout alone", o.Errors)
	}
}

// TestTailKeepsTheEnd: an in-process client's stderr keeps its last bytes, as a process's does.
func TestTailKeepsTheEnd(t *testing.T) {
	tl := tail{max: 8}
	for _, s := range []string{"abc", "defgh", "ijklmnop", "q"} {
		if _, err := tl.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := tl.String(); got != "jklmnopq" {
		t.Errorf("tail %q, want jklmnopq", got)
	}
}

// runToolsAndVersion runs a plan serving tools_call and version-unsupported, and returns the
// outcome and the results by scenario, with at least one of tools_call.
func runToolsAndVersion(t *testing.T, p *ClientPlan) (ClientOutcome, map[string][]reports.Result) {
	t.Helper()
	launches, err := p.Launches()
	if err != nil || len(launches) != 2 {
		t.Fatalf("launches %v, %v: want tools_call and version-unsupported", launches, err)
	}
	byScenario := map[string][]reports.Result{}
	o := RunClient(p, launches, ClientHooks{Result: func(r reports.Result) { byScenario[r.Scenario] = append(byScenario[r.Scenario], r) }})
	if len(byScenario[probe.ScenarioTools]) == 0 {
		t.Fatal("no tools_call results")
	}
	return o, byScenario
}

// TestWaitingLaunchesStayBounded: launches that give their places up still count as client
// processes: at --parallel 1 < n no more than n × maxAlivePerPlace clients are alive at once,
// however many of them wait on a held request.
func TestWaitingLaunchesStayBounded(t *testing.T) {
	var alive, most atomic.Int32
	client := func(ctx context.Context, target []string, env map[string]string, stderr io.Writer) error {
		n := alive.Add(1)
		defer alive.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		// The client's own timeout ends each held call: the run ends without the test's help.
		return refclient.Run(ctx, target, refclient.Options{RequestTimeout: 200 * time.Millisecond, Getenv: func(k string) string { return env[k] }}, stderr)
	}
	p := &ClientPlan{InProcess: client, Transport: "http", Revisions: harness.Revisions, Parallel: 2,
		Scenarios: []string{probe.ScenarioRequestTimeout, probe.ScenarioTaskCancel, probe.ScenarioSSERetry},
		Timeouts:  ClientTimeouts{Startup: waitTestBound, Request: 10 * time.Minute, Idle: waitTestBound, Shutdown: waitTestBound, Launch: 2 * waitTestBound}}
	launches, err := p.Launches()
	if err != nil || len(launches) <= 2*maxAlivePerPlace {
		t.Fatalf("launches %d, %v: want more than %d", len(launches), err, 2*maxAlivePerPlace)
	}
	RunClient(p, launches, ClientHooks{Result: func(reports.Result) {}})
	if got := most.Load(); got > 2*maxAlivePerPlace {
		t.Errorf("%d clients alive at once, want at most %d", got, 2*maxAlivePerPlace)
	}
}
