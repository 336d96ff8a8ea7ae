package harness

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// waitBound bounds every wait of these tests; each ends as soon as its condition holds.
const waitBound = 30 * time.Second

// acceptAll judges every message valid: these tests are about the handshake, not the schemas.
type acceptAll struct{}

func (acceptAll) MessageOfShape(string, []byte, string) error { return nil }
func (acceptAll) Definition(string, string, []byte) error     { return nil }

func testEnv() *Env {
	t := DefaultTimeouts()
	t.Startup, t.Request = waitBound, waitBound
	return NewEnv(t, acceptAll{})
}

// httpServer is a Streamable HTTP server on loopback that answers initialize with the given
// status (200: a result at revision, with a session id), takes notifications with 202 and
// answers ping. It records the headers each method arrived with.
type httpServer struct {
	*httptest.Server
	initStatus int
	revision   string

	mu      sync.Mutex
	headers map[string]http.Header // by method
}

func newHTTPServer(t *testing.T, initStatus int, revision string) *httpServer {
	t.Helper()
	s := &httpServer{initStatus: initStatus, revision: revision, headers: map[string]http.Header{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Server.Close)
	return s
}

func (s *httpServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	msg := jsonrpc.Parse(body)
	s.mu.Lock()
	s.headers[msg.Method] = r.Header.Clone()
	s.mu.Unlock()
	reply := func(result any) {
		out, _ := jsonrpc.NewResult(msg.ID, result)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set(streamhttp.HeaderSession, "session-1")
		w.Write(out)
	}
	switch msg.Method {
	case "initialize":
		if s.initStatus != http.StatusOK {
			http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"refused"}}`, s.initStatus)
			return
		}
		reply(map[string]any{"protocolVersion": s.revision, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "test", "version": "1"}})
	case "ping":
		reply(map[string]any{})
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func (s *httpServer) header(method, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[method].Get(name)
}

func connect(t *testing.T, url string) (*Launcher, wire.Conn) {
	t.Helper()
	l := NewLauncher(Target{Transport: wire.HTTP, URL: url}, testEnv())
	t.Cleanup(l.Close)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	conn, err := l.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return l, conn
}

// TestOpenAdoptsTheSession: after the handshake the session knows the negotiated revision and
// capabilities, and every later request carries the session id and the protocol version.
func TestOpenAdoptsTheSession(t *testing.T) {
	s := newHTTPServer(t, http.StatusOK, Rev20250618)
	l, conn := connect(t, s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	sess, err := Open(ctx, conn, l.env, Rev20251125, "TEST-OPEN")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Negotiated() != Rev20250618 || sess.Revision() != Rev20250618 {
		t.Errorf("negotiated %q, revision %q; want %s for both", sess.Negotiated(), sess.Revision(), Rev20250618)
	}
	if !sess.HasCapability("tools") || sess.HasCapability("prompts") {
		t.Errorf("capabilities: tools %v, prompts %v; want true, false", sess.HasCapability("tools"), sess.HasCapability("prompts"))
	}
	if sess.ServerInfo()["name"] != "test" {
		t.Errorf("serverInfo %v", sess.ServerInfo())
	}
	var params struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(mustParams(t, InitializeParams(Rev20251125)), &params); err != nil || params.ProtocolVersion != Rev20251125 {
		t.Errorf("initialize params ask for %q (%v), want %s", params.ProtocolVersion, err, Rev20251125)
	}

	resp, err := sess.Request(ctx, "ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := resp.ResultObject(); !ok {
		t.Errorf("ping answered %s, want a result", resp.Raw)
	}
	if owner := l.env.IDs.Owner(resp.ID); owner != "TEST-OPEN" {
		t.Errorf("the ping's id belongs to %q, want TEST-OPEN", owner)
	}
	for _, m := range []string{"notifications/initialized", "ping"} {
		if got := s.header(m, streamhttp.HeaderSession); got != "session-1" {
			t.Errorf("%s carried %s %q, want session-1", m, streamhttp.HeaderSession, got)
		}
	}
	if got := s.header("ping", streamhttp.HeaderProtocol); got != Rev20250618 {
		t.Errorf("ping carried %s %q, want the negotiated %s", streamhttp.HeaderProtocol, got, Rev20250618)
	}
	if got := s.header("initialize", streamhttp.HeaderSession); got != "" {
		t.Errorf("initialize carried a session id %q before there was one", got)
	}
}

func mustParams(t *testing.T, p map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenRefusals: a 4xx to initialize is the server refusing it (an InitError, a verdict
// about the server); a 5xx is its infrastructure failing (an InfraError, not a verdict).
func TestOpenRefusals(t *testing.T) {
	for _, tc := range []struct {
		status int
		infra  bool
	}{{http.StatusBadRequest, false}, {http.StatusInternalServerError, true}} {
		s := newHTTPServer(t, tc.status, Rev20250618)
		l, conn := connect(t, s.URL)
		ctx, cancel := context.WithTimeout(context.Background(), waitBound)
		_, err := Open(ctx, conn, l.env, Rev20250618, "TEST-REFUSED")
		cancel()
		var initErr *InitError
		var infra *InfraError
		switch {
		case tc.infra && !errors.As(err, &infra):
			t.Errorf("HTTP %d: %v, want an InfraError", tc.status, err)
		case !tc.infra && (!errors.As(err, &initErr) || initErr.Status != tc.status):
			t.Errorf("HTTP %d: %v, want an InitError with that status", tc.status, err)
		case err != nil && !strings.Contains(err.Error(), "HTTP"):
			t.Errorf("HTTP %d: %q does not say what the server answered", tc.status, err)
		}
	}
}

// TestConnectRefusedIsRemembered: a URL nothing listens on, with no server to launch, fails
// Connect with an InfraError after the refusal grace, and later connects fail at once with it.
func TestConnectRefusedIsRemembered(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	l := NewLauncher(Target{Transport: wire.HTTP, URL: url}, testEnv())
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, first := l.Connect(ctx)
	var infra *InfraError
	if !errors.As(first, &infra) || !strings.Contains(first.Error(), "nothing listens") {
		t.Fatalf("Connect to a closed port: %v, want an InfraError saying nothing listens", first)
	}
	if _, again := l.Connect(ctx); again != first {
		t.Errorf("second Connect: %v, want the remembered %v", again, first)
	}
	if l.BrokenErr() != first {
		t.Errorf("BrokenErr %v, want %v", l.BrokenErr(), first)
	}
	l.Close()
	if _, err := l.Connect(ctx); err == nil || errors.As(err, &infra) {
		t.Errorf("Connect after Close: %v, want the run-is-stopping error", err)
	}
}

// TestInfraErrorQuotesStderrNow: the stderr tail is read when the error is shown, so lines that
// arrived after the failure are quoted, and only the last lines are kept.
func TestInfraErrorQuotesStderrNow(t *testing.T) {
	var lines []string
	for i := range 20 {
		lines = append(lines, "line "+string(rune('a'+i)))
	}
	now := ""
	e := &InfraError{What: "the server died", Err: io.ErrUnexpectedEOF, Stderr: "early", StderrNow: func() string { return now }}
	if got := e.Error(); !strings.Contains(got, "early") {
		t.Errorf("before more stderr arrived: %q", got)
	}
	now = strings.Join(lines, "\n")
	got := e.Error()
	if !strings.HasPrefix(got, "the server died: unexpected EOF\nserver stderr (last lines):\n") || !strings.HasSuffix(got, "line t") || strings.Contains(got, "line h\n") {
		t.Errorf("InfraError.Error() = %q, want the last 12 lines of the later tail", got)
	}
	if !errors.Is(e, io.ErrUnexpectedEOF) {
		t.Error("InfraError does not unwrap to its cause")
	}
}

// TestIDs: ids are unique, name their owner, and numeric ones stay clear of the small ids
// checks send on purpose.
func TestIDs(t *testing.T) {
	ids := NewIDs()
	a, b := ids.String("A"), ids.Number("B")
	if a == b || !a.IsString() || !b.IsNumber() {
		t.Fatalf("ids %s and %s", a, b)
	}
	if !strings.Contains(a.Text(), "mcpspec:A:") {
		t.Errorf("string id %s does not name its owner", a)
	}
	if n, _ := jsonInt(b); n <= 1000 {
		t.Errorf("numeric id %s is within the range checks use on purpose", b)
	}
	if ids.Owner(a) != "A" || ids.Owner(b) != "B" || ids.Owner(jsonrpc.NumberID(1)) != "" {
		t.Errorf("owners: %q %q %q", ids.Owner(a), ids.Owner(b), ids.Owner(jsonrpc.NumberID(1)))
	}
}

func jsonInt(id jsonrpc.ID) (int64, error) {
	var n int64
	err := json.Unmarshal(id.JSON(), &n)
	return n, err
}

func TestTimeoutsValidate(t *testing.T) {
	if err := DefaultTimeouts().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := DefaultTimeouts()
	bad.Quiet = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "quiet") {
		t.Errorf("zero quiet timeout: %v", err)
	}
}

// TestOpenStopsAtAnOversizedLine: a stdout line over the framing limit in the handshake ends it
// with the limit named, not at the startup timeout (far beyond this test's bound, so waiting
// for it fails the test); an answer written right behind such a line, within the quiet window
// (generous here, for a loaded machine), is still read.
func TestOpenStopsAtAnOversizedLine(t *testing.T) {
	const maxLine = 1024
	readID := `read -r l; id=$(printf %s "$l" | sed 's/^{"id":\([^,]*\),.*/\1/'); `
	long := `head -c 5000 /dev/zero | tr '\0' x; echo; `
	answer := `printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}\n' "$id"; `
	for _, tc := range []struct {
		name, script string
		ok           bool
	}{
		{"the answer in the line", readID + long + "while read -r x; do :; done", false},
		{"the answer behind it", readID + long + answer + "while read -r x; do :; done", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := stdio.Launch(stdio.Command{Argv: []string{"sh", "-c", tc.script}}, stdio.Options{MaxLine: maxLine})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			timeouts := DefaultTimeouts()
			timeouts.Startup, timeouts.Request, timeouts.Quiet = 10*time.Minute, waitBound, 2*time.Second
			ctx, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			_, err = Open(ctx, conn, NewEnv(timeouts, acceptAll{}), Rev20250618, "TEST-OVERSIZED")
			if ctx.Err() != nil {
				t.Fatalf("Open waited out the test's bound %s: %v", waitBound, err)
			}
			switch {
			case tc.ok && err != nil:
				t.Errorf("Open: %v, want the answer behind the oversized line", err)
			case !tc.ok && (err == nil || !strings.Contains(err.Error(), "over the 1024 bytes framing limit")):
				t.Errorf("Open: %v, want an error naming the framing limit", err)
			}
		})
	}
}

// TestAwaitReplyByKeepsItsDeadline: on a connection where the server has said nothing yet,
// AwaitReply would give the reply the startup timeout (waitBound here); AwaitReplyBy ends at the
// caller's deadline instead, names the wait from its start, notes the request unanswered as
// AwaitReply does, and still takes a reply that arrived before a deadline already past.
func TestAwaitReplyByKeepsItsDeadline(t *testing.T) {
	s := newHTTPServer(t, http.StatusOK, Rev20250618)
	l, conn := connect(t, s.URL)
	sess := Attach(conn, l.env, Rev20250618)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()

	never := sess.NextID() // never sent: nothing will answer it
	sess.Sent(never, "initialize")
	start := time.Now()
	_, err := sess.AwaitReplyBy(ctx, nil, 0, never, start, start.Add(20*time.Millisecond))
	if !errors.Is(err, ErrNoResponse) || !strings.Contains(err.Error(), "nothing within 20ms") {
		t.Errorf("AwaitReplyBy a near deadline: %v, want no response, nothing within 20ms", err)
	}
	if u := sess.UnansweredSince(0); len(u) != 1 || u[0].ID != never {
		t.Errorf("unanswered %v, want %s noted", u, never.Text())
	}

	id := sess.NextID()
	frame, err := jsonrpc.NewRequest(id, "ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	from := conn.Inbox().Len()
	d, err := conn.Send(ctx, frame)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.AwaitReply(ctx, d, from, id); err != nil {
		t.Fatalf("ping: %v", err)
	}
	past := time.Now().Add(-time.Second)
	if resp, err := sess.AwaitReplyBy(ctx, d, from, id, past, past); err != nil || resp.ID != id {
		t.Errorf("AwaitReplyBy a past deadline, the reply already in: %v %v, want the reply", resp.ID, err)
	}
}
