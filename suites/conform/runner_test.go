package conform

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
)

// waitBound bounds the runner's every wait in these tests; each ends once its condition holds.
const waitBound = 30 * time.Second

// acceptAll judges every message valid: these tests are about the runner, not the schemas.
type acceptAll struct{}

func (acceptAll) MessageOfShape(string, []byte, string) error { return nil }
func (acceptAll) Definition(string, string, []byte) error     { return nil }

// served is the one revision the test server speaks.
const served = harness.Rev20250618

// newServer is a Streamable HTTP MCP server on loopback that serves one revision: initialize
// at any other is answered with that one (a refusal by protocolVersion), ping is answered.
func newServer(t *testing.T) string {
	t.Helper()
	return (&testServer{}).start(t)
}

// testServer is the runner tests' Streamable HTTP MCP server on loopback: initialize is
// answered with served (with the revision asked for where everyRevision), ping with an empty
// result, anything else with 202; where openGet, a GET opens a stream that stays open until
// the client goes. It counts the initializes and pings it answers.
type testServer struct {
	everyRevision bool
	openGet       bool
	inits, pings  atomic.Int32
}

func (s *testServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && s.openGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		body, _ := io.ReadAll(r.Body)
		msg := jsonrpc.Parse(body)
		var out []byte
		switch msg.Method {
		case "initialize":
			s.inits.Add(1)
			version := served
			if s.everyRevision {
				var p struct {
					Version string `json:"protocolVersion"`
				}
				_ = json.Unmarshal(msg.Params, &p)
				version = p.Version
			}
			out, _ = jsonrpc.NewResult(msg.ID, map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "runner-test", "version": "1"}})
		case "ping":
			s.pings.Add(1)
			out, _ = jsonrpc.NewResult(msg.ID, map[string]any{})
		default:
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func newRunner(url string, revisions []string, secrets []string, onResult func(reports.Result)) *Runner {
	timeouts := harness.DefaultTimeouts()
	timeouts.Startup, timeouts.Request = waitBound, waitBound
	return NewRunner(Config{Validator: acceptAll{}, Targets: []harness.Target{{Transport: wire.HTTP, URL: url}},
		Revisions: revisions, Timeouts: timeouts, Secrets: secrets, OnResult: onResult})
}

// newCheck is a check of the test's own, at every revision over HTTP, on the shared session.
func newCheck(id, level string, run func(t *T) Finding) *Check {
	return &Check{ID: id, Level: level, Summary: "runner test", Versions: harness.HandshakeRevisions, Transports: []string{wire.HTTP}, Side: Server{Run: run}}
}

func ping(t *T) Finding {
	if _, err := t.S.Request(t.Ctx, "ping", nil); err != nil {
		return Violated("ping: %v", err)
	}
	return Passed("")
}

// TestRunnerVerdicts runs checks on the background schedule against a loopback server and
// reads each verdict as reports show it: outcome and level make the status, a panic is an
// error, a revision the server does not serve is na, secrets never reach a result, results come
// back in spec order whatever order they ended in, and every one is passed to OnResult.
func TestRunnerVerdicts(t *testing.T) {
	url := newServer(t)
	var mu sync.Mutex
	var seen []string
	r := newRunner(url, []string{harness.Rev20250326, served}, []string{"s3cret-token"}, func(res reports.Result) {
		mu.Lock()
		seen = append(seen, res.ID+"@"+res.Version)
		mu.Unlock()
	})
	defer r.Close()

	specs := []Spec{
		{newCheck("PING-RESPOND", "MUST", ping), served, wire.HTTP},
		{newCheck("JRPC-ID-ECHO", "MUST", func(*T) Finding { return Violated("id changed") }), served, wire.HTTP},
		{newCheck("JRPC-ERROR-MESSAGE", "SHOULD", func(*T) Finding { return Violated("no message") }), served, wire.HTTP},
		{newCheck("JRPC-VERSION", "MUST", func(*T) Finding { panic("boom") }), served, wire.HTTP},
		{newCheck("JRPC-ERROR-OBJECT", "MUST", func(*T) Finding { return Violated("the server echoed s3cret-token") }), served, wire.HTTP},
		{newCheck("JRPC-RESULT-XOR-ERROR", "MUST", func(*T) Finding { return CannotTest("no tool") }), served, wire.HTTP},
		{newCheck("PING-RESPOND", "MUST", ping), harness.Rev20250326, wire.HTTP},
	}
	r.StartShared(specs, 2, 1)
	if r.Planned() != len(specs) {
		t.Errorf("Planned %d, want %d", r.Planned(), len(specs))
	}
	want := []reports.Status{reports.Pass, reports.Fail, reports.Warn, reports.Error, reports.Fail, reports.Untestable, reports.NA}
	for i, s := range specs {
		res := r.Result(s)
		if res.Status != want[i] {
			t.Errorf("%s at %s: %s (%q), want %s", res.ID, res.Version, res.Status, res.Message, want[i])
		}
	}
	results := r.Results()
	if len(results) != len(specs) {
		t.Fatalf("%d results, want %d", len(results), len(specs))
	}
	for i, res := range results {
		if res.ID != specs[i].Check.ID || res.Version != specs[i].Revision {
			t.Errorf("result %d is %s@%s, want spec order (%s@%s)", i, res.ID, res.Version, specs[i].Check.ID, specs[i].Revision)
		}
	}
	if pass := results[0]; len(pass.Evidence) == 0 || !slices.ContainsFunc(pass.Evidence, func(e reports.Exchange) bool { return strings.Contains(e.Body, `"ping"`) }) {
		t.Errorf("the pass keeps no evidence of its ping: %+v", pass.Evidence)
	}
	if msg := results[3].Message; !strings.Contains(msg, "check panicked: boom") {
		t.Errorf("panic reported as %q", msg)
	}
	if msg := results[4].Message; strings.Contains(msg, "s3cret-token") {
		t.Errorf("a secret reached a result: %q", msg)
	}
	if msg := results[6].Message; !strings.Contains(msg, "does not serve revision "+harness.Rev20250326) {
		t.Errorf("unserved revision reported as %q", msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(specs) {
		t.Errorf("OnResult saw %v, want every one of the %d results", seen, len(specs))
	}
}

// TestRunnerUnreachableTarget: a URL nothing listens on is an error for every check, not a
// verdict about a server, and the target is given up once rather than per check.
func TestRunnerUnreachableTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	r := newRunner(url, []string{served}, nil, nil)
	defer r.Close()
	first := r.Execute(newCheck("PING-RESPOND", "MUST", ping), served, wire.HTTP)
	second := r.Execute(newCheck("JRPC-ID-ECHO", "MUST", ping), served, wire.HTTP)
	for _, res := range []reports.Result{first, second} {
		if res.Status != reports.Error || !strings.Contains(res.Message, "nothing listens") {
			t.Errorf("%s: %s %q, want an error saying nothing listens", res.ID, res.Status, res.Message)
		}
	}
	var infra *harness.InfraError
	if err := r.launcher(wire.HTTP).BrokenErr(); !errors.As(err, &infra) {
		t.Errorf("the launcher does not remember the target as broken: %v", err)
	}
}

// TestRunnerInterrupt: after Interrupt no check runs; each is an error naming the reason, which
// the first Interrupt sets.
func TestRunnerInterrupt(t *testing.T) {
	url := newServer(t)
	r := newRunner(url, []string{served}, nil, nil)
	defer r.Close()
	ran := false
	r.Interrupt("SIGTERM")
	r.Interrupt("SIGINT")
	res := r.Execute(newCheck("PING-RESPOND", "MUST", func(t *T) Finding { ran = true; return Passed("") }), served, wire.HTTP)
	if ran || res.Status != reports.Error || !strings.Contains(res.Message, "interrupted (SIGTERM) before the check ran") {
		t.Errorf("after Interrupt: ran %v, %s %q", ran, res.Status, res.Message)
	}
	if r.Interruption() != "SIGTERM" {
		t.Errorf("Interruption %q, want the first reason", r.Interruption())
	}
}

// allTransports: every transport, named, as a server check states it.
var allTransports = []string{wire.Stdio, wire.HTTP, wire.SSE}

// TestCheckValidate: what Register refuses, and what it derives from the catalogue.
func TestCheckValidate(t *testing.T) {
	run := func(*T) Finding { return Passed("") }
	for name, c := range map[string]Check{
		"unknown id":         {ID: "NO-SUCH-REQUIREMENT", Level: "MUST", Summary: "s", Side: Server{Run: run}, Revisions: AllCatalogued, Transports: allTransports},
		"bad level":          {ID: "PING-RESPOND", Level: "MUST NOT", Summary: "s", Side: Server{Run: run}, Revisions: AllCatalogued, Transports: allTransports},
		"no Run":             {ID: "PING-RESPOND", Level: "MUST", Summary: "s", Revisions: AllCatalogued, Transports: allTransports},
		"no summary":         {ID: "PING-RESPOND", Level: "MUST", Side: Server{Run: run}, Revisions: AllCatalogued, Transports: allTransports},
		"both":               {ID: "PING-RESPOND", Level: "MUST", Summary: "s", Side: Server{Run: run}, Revisions: AllCatalogued, Transports: allTransports, Versions: []string{served}},
		"neither":            {ID: "PING-RESPOND", Level: "MUST", Transports: allTransports, Summary: "s", Side: Server{Run: run}},
		"outside catalogue":  {ID: "PING-RESPOND", Level: "MUST", Summary: "s", Side: Server{Run: run}, Versions: []string{harness.Rev20260728}, Transports: allTransports},
		"derives to nothing": {ID: "PING-RESPOND", Level: "MUST", Summary: "s", Side: Server{Run: run}, Revisions: Since(harness.Rev20260728), Transports: allTransports},
	} {
		if err := config.Validate(&c); err == nil {
			t.Errorf("%s: accepted %+v", name, c)
		}
	}
	c := Check{ID: "PING-RESPOND", Level: "MUST", Summary: "s", Side: Server{Run: run}, Revisions: Until(harness.Rev20250326), Transports: allTransports}
	if err := config.Validate(&c); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Versions, []string{harness.Rev20241105, harness.Rev20250326}) {
		t.Errorf("Until(%s) derived %v", harness.Rev20250326, c.Versions)
	}
	if !c.AppliesTo(harness.Rev20250326, wire.SSE) || c.AppliesTo(served, wire.HTTP) || c.AppliesTo(harness.RevJSONRPC, wire.HTTP) {
		t.Error("AppliesTo disagrees with the derived revisions (or admits the JSON-RPC profile without JSONRPC)")
	}
	c.Side.JSONRPC = true
	if !c.AppliesTo(harness.RevJSONRPC, wire.HTTP) {
		t.Error("a JSONRPC check does not apply to the JSON-RPC profile")
	}
}

// Beside takes a free slot of the check's pool and gives it back; with none free it waits, and
// ends when the work it would follow is over.
func TestBeside(t *testing.T) {
	pool := newTurns(2)
	pool.take(context.Background(), nil, arrival) // the check's own
	check := &T{Ctx: t.Context(), worker: pool}
	release := check.Beside(t.Context(), nil)
	if free := pool.freeNow(); free != 0 {
		t.Fatalf("%d slots free, want 0", free)
	}
	over := make(chan struct{})
	took := make(chan func())
	go func() { took <- check.Beside(t.Context(), over) }()
	close(over)
	select {
	case r := <-took:
		r()
	case <-time.After(waitBound):
		t.Fatal("Beside went on waiting for a slot once the work before was over")
	}
	if free := pool.freeNow(); free != 0 {
		t.Errorf("%d slots free after a Beside that took none, want 0", free)
	}
	release()
	if free := pool.freeNow(); free != 1 {
		t.Errorf("%d slots free after release, want 1", free)
	}
	(&T{Ctx: t.Context()}).Beside(t.Context(), nil)() // no scheduler: nothing to take
}

// TestAsk: checks asking the same question (T.Ask) at one revision put it to the server once,
// on whichever session the first asker holds, shared or its own; each keeps the exchange as
// evidence.
func TestAsk(t *testing.T) {
	srv := &testServer{}
	url := srv.start(t)
	r := newRunner(url, []string{served}, nil, nil)
	defer r.Close()
	asking := func(t *T) Finding {
		v := t.Ask("ping", func() any {
			_, err := t.S.Request(t.Ctx, "ping", nil)
			return err
		})
		if v != nil {
			return Violated("ping: %v", v)
		}
		return Passed("")
	}
	fresh := newCheck("JRPC-VERSION", "MUST", asking)
	fresh.Side.Connection = Fresh
	specs := []Spec{
		{newCheck("PING-RESPOND", "MUST", asking), served, wire.HTTP},
		{newCheck("JRPC-ID-ECHO", "MUST", asking), served, wire.HTTP},
		{fresh, served, wire.HTTP},
	}
	r.StartShared(specs, 2, 2)
	expectPassesWithPing(t, r, specs)
	if n := srv.pings.Load(); n != 1 {
		t.Errorf("the server got %d pings, want 1", n)
	}
}

// TestAskAt: a check asking at another revision of the run (T.AskAt) and that revision's checks
// asking through T.Ask share one answer, asked once, on that revision's session; each keeps its
// exchanges as evidence. A revision the run does not test is not asked.
func TestAskAt(t *testing.T) {
	srv := &testServer{everyRevision: true}
	url := srv.start(t)
	older, newer := harness.Rev20250618, harness.Rev20251125
	r := newRunner(url, []string{older, newer}, nil, nil)
	defer r.Close()
	pingOn := func(o *T) any {
		_, err := o.S.Request(o.Ctx, "ping", nil)
		return err
	}
	there := newCheck("PING-RESPOND", "MUST", func(t *T) Finding {
		if _, served := t.AskAt(harness.Rev20241105, "ping", pingOn); served {
			return Violated("asked at a revision the run does not test")
		}
		v, served := t.AskAt(newer, "ping", pingOn)
		if !served || v != nil {
			return Violated("ping at %s: served %v, %v", newer, served, v)
		}
		return Passed("")
	})
	there.Versions = []string{older}
	here := newCheck("JRPC-ID-ECHO", "MUST", func(t *T) Finding {
		if v := t.Ask("ping", func() any { return pingOn(t) }); v != nil {
			return Violated("ping: %v", v)
		}
		return Passed("")
	})
	here.Versions = []string{newer}
	specs := []Spec{{there, older, wire.HTTP}, {here, newer, wire.HTTP}}
	r.StartShared(specs, 2, 1)
	expectPassesWithPing(t, r, specs)
	if n := srv.pings.Load(); n != 1 {
		t.Errorf("the server got %d pings, want 1", n)
	}
}

// expectPasses: every spec passed.
func expectPasses(t *testing.T, r *Runner, specs []Spec) {
	t.Helper()
	for _, s := range specs {
		if res := r.Result(s); res.Status != reports.Pass {
			t.Errorf("%s %s %s: %s (%s)", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
	}
}

// expectPassesWithPing: every spec passed and keeps the ping it judged as evidence.
func expectPassesWithPing(t *testing.T, r *Runner, specs []Spec) {
	t.Helper()
	for _, s := range specs {
		res := r.Result(s)
		if res.Status != reports.Pass {
			t.Errorf("%s: %s (%s)", res.ID, res.Status, res.Message)
		}
		if !slices.ContainsFunc(res.Evidence, func(e reports.Exchange) bool { return strings.Contains(e.Body, `"ping"`) }) {
			t.Errorf("%s keeps no evidence of the ping it judged: %+v", res.ID, res.Evidence)
		}
	}
}

// TestOnceKept: a value its maker declines to keep is computed anew by the next check to ask.
func TestOnceKept(t *testing.T) {
	r := newRunner("http://127.0.0.1:1/mcp", []string{served}, nil, nil)
	defer r.Close()
	tt := &T{Ctx: context.Background(), run: r}
	made := 0
	f := func(keep bool) func() (any, bool) {
		return func() (any, bool) { made++; return made, keep }
	}
	if v, _ := tt.onceKept("k", f(false)); v != 1 {
		t.Errorf("the maker got %v, want 1", v)
	}
	if v, _ := tt.onceKept("k", f(true)); v != 2 {
		t.Errorf("after a value not kept, got %v, want 2 (computed anew)", v)
	}
	if v, _ := tt.onceKept("k", f(true)); v != 2 {
		t.Errorf("after a value kept, got %v, want 2", v)
	}
}

// TestObservedOverHTTP: checks that say ObservedOverHTTP open no session of their own over
// HTTP: the first to ask makes the observation on one, the others read it, and a session a
// check opens itself (T.Open) is judged with it, as on any connection.
func TestObservedOverHTTP(t *testing.T) {
	srv := &testServer{}
	url := srv.start(t)
	r := newRunner(url, []string{served}, nil, nil)
	defer r.Close()
	observing := func(t *T) Finding {
		if t.S != nil {
			return Violated("a session was opened for the check")
		}
		if _, f := t.Observe("ping", Fresh, func(o *T) any { return ping(o) }); f != nil {
			return *f
		}
		return Passed("")
	}
	opening := func(t *T) Finding {
		if f := observing(t); f.Outcome != Pass {
			return f
		}
		s, err := t.Open(t.Revision)
		if err != nil {
			return Failed(err)
		}
		if _, err := s.Request(t.Ctx, "ping", nil); err != nil {
			return Violated("ping on its own session: %v", err)
		}
		return Passed("")
	}
	var specs []Spec
	for i, id := range []string{"PING-RESPOND", "JRPC-ID-ECHO", "JRPC-VERSION"} {
		run := observing
		if i == 2 {
			run = opening
		}
		c := newCheck(id, "MUST", run)
		c.Side.Waits, c.Side.ObservedOverHTTP = true, true
		specs = append(specs, Spec{c, served, wire.HTTP})
	}
	r.StartShared(specs, 2, 2)
	for _, s := range specs {
		res := r.Result(s)
		if res.Status != reports.Pass {
			t.Errorf("%s: %s (%s)", res.ID, res.Status, res.Message)
		}
		pings := 0
		for _, e := range res.Evidence {
			if strings.Contains(e.Body, `"ping"`) {
				pings++
			}
		}
		if want := 1 + 1*btoi(res.ID == "JRPC-VERSION"); pings != want {
			t.Errorf("%s keeps %d pings as evidence, want %d (the observation's, and its own session's)", res.ID, pings, want)
		}
	}
	// The revision's first shared session, the gates' session, the observation's, and the one
	// JRPC-VERSION opened.
	if n := srv.inits.Load(); n != 4 {
		t.Errorf("the server got %d initialize requests, want 4", n)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
