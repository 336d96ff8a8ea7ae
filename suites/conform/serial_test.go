package conform

import (
	"bufio"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
)

// stdioServerEnv makes the test binary a stdio MCP server (TestMain), so that the runner's
// stdio launches are processes the tests can count.
const stdioServerEnv = "CONFORM_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) != "" {
		serveStdio()
		return
	}
	os.Exit(m.Run())
}

// serveStdio answers initialize and ping at the served revision until stdin ends. After
// "mcpspec/leave-late" it writes, behind the answer to the next ping, a notification nobody
// asked for: what a check that left something on its way looks like to the next one.
func serveStdio() {
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	late := false
	for in.Scan() {
		msg := jsonrpc.Parse(in.Bytes())
		if msg.Kind != jsonrpc.Request {
			continue
		}
		var frame []byte
		switch msg.Method {
		case "initialize":
			frame, _ = jsonrpc.NewResult(msg.ID, map[string]any{"protocolVersion": served, "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "runner-test", "version": "1"}})
		case "ping":
			frame, _ = jsonrpc.NewResult(msg.ID, map[string]any{})
			if late {
				note, _ := jsonrpc.NewNotification("notifications/message", map[string]any{"level": "info", "data": "late"})
				frame = append(append(frame, '\n'), note...)
				late = false
			}
		case "mcpspec/leave-late":
			late = true
			frame, _ = jsonrpc.NewResult(msg.ID, map[string]any{})
		default:
			frame = []byte(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"error":{"code":-32601,"message":"method not found"}}`)
		}
		out.Write(append(frame, '\n'))
		out.Flush()
	}
}

// newStdioRunner runs the test binary as a stdio server.
func newStdioRunner(t *testing.T) *Runner {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	timeouts := harness.DefaultTimeouts()
	timeouts.Startup, timeouts.Request = waitBound, waitBound
	// A window long enough that the late message, written with the sentinel's answer, is in it
	// however loaded the machine.
	timeouts.Quiet = time.Second
	target := harness.Target{Transport: wire.Stdio, Command: stdio.Command{Argv: []string{exe}, Env: []string{stdioServerEnv + "=1"}}}
	return NewRunner(Config{Validator: acceptAll{}, Targets: []harness.Target{target}, Revisions: []string{served}, Timeouts: timeouts})
}

// TestExclusiveChecksTakeTurnsOverStdio: over stdio the Exclusive checks of a revision run one
// after another on one process beside the shared session's, each starting from a session the
// one before left quiet; a check that broke, or left a message on its way, costs the next one a
// new process. Over HTTP each has a session of its own.
func TestExclusiveChecksTakeTurnsOverStdio(t *testing.T) {
	var mu sync.Mutex
	var sessions []*harness.Session
	record := func(c *T) Finding {
		mu.Lock()
		sessions = append(sessions, c.S)
		mu.Unlock()
		if n := len(c.S.UnansweredSince(0)); n > 0 {
			return Violated("%d requests left unanswered before this check", n)
		}
		return ping(c)
	}
	exclusive := func(id string, run func(*T) Finding) Spec {
		c := newCheck(id, "MUST", run)
		c.Transports = []string{wire.Stdio, wire.HTTP}
		c.Side.Connection = Exclusive
		return Spec{c, served, wire.Stdio}
	}
	leaveLate := func(c *T) Finding {
		record(c)
		if _, err := c.S.Request(c.Ctx, "mcpspec/leave-late", nil); err != nil {
			return Violated("%v", err)
		}
		return Passed("")
	}
	broken := func(c *T) Finding { record(c); return Failed(os.ErrClosed) }
	specs := []Spec{
		exclusive("PING-RESPOND", record),
		exclusive("JRPC-ID-ECHO", record),
		exclusive("JRPC-VERSION", leaveLate), // its late notification retires the process
		exclusive("JRPC-ERROR-MESSAGE", broken),
		exclusive("JRPC-REPLY-REQUIRED", record),
	}
	r := newStdioRunner(t)
	defer r.Close()
	r.StartShared(specs, 4, 1)
	want := map[string]reports.Status{"JRPC-ERROR-MESSAGE": reports.Error}
	for _, s := range specs {
		res := r.Result(s)
		if w, ok := want[res.ID]; !ok && res.Status != reports.Pass || ok && res.Status != w {
			t.Errorf("%s: %s (%s)", res.ID, res.Status, res.Message)
		}
	}
	// The gate's shared session, then one serial process for the first three checks, one for
	// the fourth (the third left a message late) and one for the fifth (the fourth broke).
	if n := r.Env().Stats.ServersSpawned.Load(); n != 4 {
		t.Errorf("%d servers spawned, want 4: the shared session and three serial ones", n)
	}
	if len(sessions) != 5 || sessions[0] != sessions[1] || sessions[1] != sessions[2] || sessions[2] == sessions[3] || sessions[3] == sessions[4] {
		t.Errorf("the checks' sessions: want the first three one, then a new one each for the fourth and fifth")
	}

	// Over HTTP the Exclusive checks take turns on a serial session too, but one that Waits is
	// Fresh: a session of its own, in the pool of checks that wait.
	sessions = nil
	r2 := newRunner(newServer(t), []string{served}, nil, nil)
	defer r2.Close()
	var overHTTP []Spec
	for _, s := range specs[:2] {
		s.Transport = wire.HTTP
		overHTTP = append(overHTTP, s)
	}
	waits := exclusive("JRPC-NOTIF-NO-REPLY", record)
	waits.Check.Side.Waits = true
	waits.Transport = wire.HTTP
	overHTTP = append(overHTTP, waits)
	r2.StartShared(overHTTP, 1, 1)
	expectPasses(t, r2, overHTTP)
	mu.Lock()
	defer mu.Unlock()
	on := map[*harness.Session]int{}
	for _, s := range sessions {
		on[s]++
	}
	if len(sessions) != 3 || len(on) != 2 {
		t.Errorf("over HTTP the two Exclusive checks that do not wait should share a session, the one that waits have its own: %d checks on %d sessions", len(sessions), len(on))
	}
}

// TestStdioSharedSessionsBounded: over stdio a revision gets at most MaxStdioSessions shared
// sessions, each a server process, however many --sessions asks for.
func TestStdioSharedSessionsBounded(t *testing.T) {
	r := newStdioRunner(t)
	defer r.Close()
	var specs []Spec
	for _, id := range []string{"PING-RESPOND", "JRPC-ID-ECHO", "JRPC-VERSION", "JRPC-ERROR-MESSAGE", "JRPC-REPLY-REQUIRED", "JRPC-NOTIF-NO-REPLY"} {
		c := newCheck(id, "MUST", ping)
		c.Transports = []string{wire.Stdio}
		specs = append(specs, Spec{c, served, wire.Stdio})
	}
	r.StartShared(specs, 4, MaxStdioSessions+1)
	expectPasses(t, r, specs)
	if n := r.Env().Stats.ServersSpawned.Load(); n != MaxStdioSessions {
		t.Errorf("%d servers spawned for %d shared sessions asked, want %d", n, MaxStdioSessions+1, MaxStdioSessions)
	}
}

// TestConnectionOver: an Exclusive check takes turns on the serial session over stdio and
// Streamable HTTP unless, there, it waits or leaves a GET open, or it leaves something open at
// the stateless revision; a check that says ObservedOverHTTP is Observed over Streamable HTTP.
func TestConnectionOver(t *testing.T) {
	c := newCheck("PING-RESPOND", "MUST", ping)
	c.Side.Connection = Exclusive
	for _, tc := range []struct {
		statelessFresh, waits bool
		revision, transport   string
		want                  Connection
	}{
		{false, false, harness.Rev20251125, wire.Stdio, Exclusive},
		{false, false, harness.Rev20251125, wire.HTTP, Exclusive},
		{false, true, harness.Rev20251125, wire.HTTP, Fresh},
		{false, true, harness.Rev20251125, wire.Stdio, Exclusive},
		{false, false, harness.Rev20251125, wire.SSE, Fresh},
		{false, false, harness.Rev20260728, wire.Stdio, Exclusive},
		{false, false, harness.Rev20260728, wire.HTTP, Exclusive},
		{true, false, harness.Rev20251125, wire.Stdio, Exclusive},
		{true, false, harness.Rev20251125, wire.HTTP, Exclusive},
		{true, false, harness.Rev20260728, wire.Stdio, Fresh},
		{true, false, harness.Rev20260728, wire.HTTP, Fresh},
	} {
		c.Side.StatelessFresh, c.Side.Waits = tc.statelessFresh, tc.waits
		if got := connectionOver(c, tc.revision, tc.transport); got != tc.want {
			t.Errorf("StatelessFresh %v, Waits %v at %s over %s: %v, want %v", tc.statelessFresh, tc.waits, tc.revision, tc.transport, got, tc.want)
		}
	}
	c.Side.StatelessFresh, c.Side.Waits, c.Side.LeavesGetOpen = false, false, true
	if got := connectionOver(c, harness.Rev20251125, wire.HTTP); got != Fresh {
		t.Errorf("LeavesGetOpen over HTTP: %v, want Fresh", got)
	}
	if got := connectionOver(c, harness.Rev20251125, wire.Stdio); got != Exclusive {
		t.Errorf("LeavesGetOpen over stdio: %v, want Exclusive", got)
	}
	c.Side.LeavesGetOpen = false
	c.Side.StatelessFresh, c.Side.Waits, c.Side.ObservedOverHTTP = false, true, true
	for _, tc := range []struct {
		declared  Connection
		transport string
		want      Connection
	}{
		{Exclusive, wire.Stdio, Exclusive},
		{Shared, wire.Stdio, Shared},
		{Exclusive, wire.HTTP, Observed},
		{Shared, wire.HTTP, Observed},
		{Shared, wire.SSE, Shared},
	} {
		c.Side.Connection = tc.declared
		if got := connectionOver(c, harness.Rev20251125, tc.transport); got != tc.want {
			t.Errorf("ObservedOverHTTP, declared %v, over %s: %v, want %v", tc.declared, tc.transport, got, tc.want)
		}
	}
	// A HandshakeObserved check is Observed at the handshake revisions, Shared at the stateless.
	o := newCheck("ELICIT-ENUM-FORMS", "MUST", ping)
	o.Side.HandshakeObserved = true
	for rev, want := range map[string]Connection{harness.Rev20251125: Observed, harness.Rev20260728: Shared} {
		for _, transport := range []string{wire.Stdio, wire.HTTP} {
			if got := connectionOver(o, rev, transport); got != want {
				t.Errorf("HandshakeObserved at %s over %s: %v, want %v", rev, transport, got, want)
			}
		}
	}
}

// TestFirstObservationOnSerialProcess: over stdio an observation declared with ObserveFirst
// runs first on the revision's serial process, whichever check asks for it, and the Exclusive
// checks take their turns there after it: no process of its own.
func TestFirstObservationOnSerialProcess(t *testing.T) {
	var mu sync.Mutex
	var observedOn *harness.Session
	var sessions []*harness.Session
	work := func(o *T) any {
		mu.Lock()
		observedOn = o.S
		mu.Unlock()
		if _, err := o.S.Request(o.Ctx, "ping", nil); err != nil {
			return err.Error()
		}
		return "answered"
	}
	firstMu.Lock()
	saved := firstOnStdio
	firstOnStdio = []firstObservation{{"runner-test", work, []string{"JRPC-VERSION"}}}
	firstMu.Unlock()
	defer func() {
		firstMu.Lock()
		firstOnStdio = saved
		firstMu.Unlock()
	}()

	exclusive := func(id string) Spec {
		c := newCheck(id, "MUST", func(c *T) Finding {
			mu.Lock()
			sessions = append(sessions, c.S)
			mu.Unlock()
			return ping(c)
		})
		c.Transports = []string{wire.Stdio}
		c.Side.Connection = Exclusive
		return Spec{c, served, wire.Stdio}
	}
	observed := newCheck("JRPC-VERSION", "MUST", func(c *T) Finding {
		v, f := c.Observe("runner-test", Fresh, work)
		if f != nil {
			return *f
		}
		if v != "answered" {
			return Violated("the observation gave %v", v)
		}
		return Passed("")
	})
	observed.Transports = []string{wire.Stdio}
	observed.Side.Connection = Observed
	specs := []Spec{{observed, served, wire.Stdio}, exclusive("PING-RESPOND"), exclusive("JRPC-ID-ECHO")}

	r := newStdioRunner(t)
	defer r.Close()
	r.StartShared(specs, 4, 1)
	expectPasses(t, r, specs)
	// The gates' shared session and the serial process: the observation started none.
	if n := r.Env().Stats.ServersSpawned.Load(); n != 2 {
		t.Errorf("%d servers spawned, want 2: the shared session and the serial one", n)
	}
	if len(sessions) != 2 || observedOn == nil || sessions[0] != observedOn || sessions[1] != observedOn {
		t.Errorf("the observation and the Exclusive checks did not share the serial process")
	}
}

// A first observation is claimed only where a check that judges it is planned, and a check that
// observes it without being declared among its users fails instead of making it.
func TestFirstObservationOnlyForItsUsers(t *testing.T) {
	firstMu.Lock()
	saved := firstOnStdio
	firstOnStdio = []firstObservation{{"runner-test", func(*T) any { return "made" }, []string{"JRPC-VERSION"}}}
	firstMu.Unlock()
	defer func() {
		firstMu.Lock()
		firstOnStdio = saved
		firstMu.Unlock()
	}()
	r := newStdioRunner(t)
	defer r.Close()
	if got := r.claimFirst(wire.Stdio, served, map[string]bool{"PING-RESPOND": true}); len(got) != 0 {
		t.Errorf("claimed %d first observations with none of their users planned", len(got))
	}
	if got := r.claimFirst(wire.Stdio, served, map[string]bool{"JRPC-VERSION": true}); len(got) != 1 {
		t.Errorf("claimed %d first observations with their user planned, want 1", len(got))
	}
	stranger := &T{Check: newCheck("PING-RESPOND", "MUST", nil), Revision: served, Transport: wire.Stdio, run: r}
	if _, f := stranger.Observe("runner-test", Fresh, func(*T) any { return "made" }); f == nil || f.Outcome != Broken {
		t.Errorf("an undeclared user observed the first observation: %+v", f)
	}
}

// TestSerialOverHTTPReplacedAfterOpenStream: over Streamable HTTP an Exclusive check that left a
// stream open (a GET) does not hand its session to the next one, whose window what came on that
// stream would land in: the next check gets a new session.
func TestSerialOverHTTPReplacedAfterOpenStream(t *testing.T) {
	url := (&testServer{openGet: true}).start(t)
	timeouts := harness.DefaultTimeouts()
	timeouts.Startup, timeouts.Request, timeouts.Quiet = waitBound, waitBound, 50*time.Millisecond
	r := NewRunner(Config{Validator: acceptAll{}, Targets: []harness.Target{{Transport: wire.HTTP, URL: url}},
		Revisions: []string{served}, Timeouts: timeouts})
	defer r.Close()
	var mu sync.Mutex
	var sessions []*harness.Session
	record := func(c *T) {
		mu.Lock()
		defer mu.Unlock()
		sessions = append(sessions, c.S)
	}
	leavesGet := newCheck("PING-RESPOND", "MUST", func(c *T) Finding {
		record(c)
		d := c.S.Conn.(*streamhttp.Conn).Do(c.Ctx, nil, streamhttp.Request{Method: http.MethodGet})
		if err := d.Ready(c.Ctx); err != nil {
			return Failed(err)
		}
		return ping(c)
	})
	after := newCheck("JRPC-ID-ECHO", "MUST", func(c *T) Finding { record(c); return ping(c) })
	var specs []Spec
	for _, c := range []*Check{leavesGet, after} {
		c.Side.Connection = Exclusive
		specs = append(specs, Spec{c, served, wire.HTTP})
	}
	r.StartShared(specs, 1, 1)
	expectPasses(t, r, specs)
	mu.Lock()
	defer mu.Unlock()
	if len(sessions) != 2 || sessions[0] == sessions[1] {
		t.Errorf("the check after one that left a GET open ran on its session")
	}
}

// TestObserveStartAndApart: checks that share a start of a session (T.ObserveStart) get one
// server between them per revision, made by the first to ask; one whose part is made on a
// connection of its own (T.MakeApart, then T.Report) reports that connection's finding alone:
// its evidence is that connection's, and a request the shared conversation left unanswered,
// which fails a check that judges the conversation, does not fail it.
func TestObserveStartAndApart(t *testing.T) {
	var works atomic.Int32
	observe := func(c *T) (*Finding, bool) {
		v, f := c.ObserveStart("start", func(o *T) any {
			works.Add(1)
			if f := ping(o); f.Outcome != Pass {
				return f
			}
			o.S.NoteUnanswered(jsonrpc.StringID("mcpspec:start:never"), "left unanswered by the test")
			return Passed("")
		})
		if f != nil {
			return f, false
		}
		got := v.(Finding)
		return &got, got.Outcome == Pass
	}
	observed := func(id string, run func(*T) Finding) Spec {
		c := newCheck(id, "MUST", run)
		c.Transports = []string{wire.Stdio}
		c.Side.Connection, c.Side.PreInit = Observed, true
		return Spec{c, served, wire.Stdio}
	}
	specs := []Spec{
		observed("PING-RESPOND", func(c *T) Finding {
			if f, ok := observe(c); !ok {
				return *f
			}
			return Passed("")
		}),
		observed("JRPC-VERSION", func(c *T) Finding {
			if f, ok := observe(c); !ok {
				return *f
			}
			return Violated("judged on the shared conversation")
		}),
		observed("JRPC-ID-ECHO", func(c *T) Finding {
			if f, ok := observe(c); !ok {
				return *f
			}
			return c.Report(c.MakeApart(c.Check.ID, func(o *T) Finding {
				if f := ping(o); f.Outcome != Pass {
					return f
				}
				return Violated("made apart")
			}))
		}),
	}
	r := newStdioRunner(t)
	defer r.Close()
	r.StartShared(specs, 4, 1)
	results := map[string]reports.Result{}
	for _, s := range specs {
		results[s.Check.ID] = r.Result(s)
	}
	if res := results["PING-RESPOND"]; res.Status != reports.Pass {
		t.Errorf("PING-RESPOND: %s (%s)", res.Status, res.Message)
	}
	if res := results["JRPC-VERSION"]; res.Status != reports.Fail || !strings.Contains(res.Message, "mcpspec:start:never") {
		t.Errorf("JRPC-VERSION judged the shared conversation, whose request went unanswered: %s (%s)", res.Status, res.Message)
	}
	apart := results["JRPC-ID-ECHO"]
	if apart.Status != reports.Fail || apart.Message != "made apart" {
		t.Errorf("JRPC-ID-ECHO: %s (%q), want its own connection's violation alone", apart.Status, apart.Message)
	}
	if len(apart.Evidence) == 0 {
		t.Error("JRPC-ID-ECHO has no evidence: its own connection's exchange is")
	}
	for _, e := range apart.Evidence {
		if strings.Contains(e.Body, "mcpspec:start:") {
			t.Errorf("JRPC-ID-ECHO keeps the shared conversation's exchange as evidence: %s", e.Body)
		}
	}
	if n := works.Load(); n != 1 {
		t.Errorf("the start was observed %d times, want once", n)
	}
	// The gate's shared session, the shared start, and JRPC-ID-ECHO's connection of its own.
	if n := r.Env().Stats.ServersSpawned.Load(); n != 3 {
		t.Errorf("%d servers spawned, want 3", n)
	}
}
