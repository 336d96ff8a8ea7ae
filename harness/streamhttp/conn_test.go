package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Bounds of the tests: every wait ends as soon as its condition holds, these are only ceilings.
const (
	requestTimeout  = 10 * time.Second // one exchange with the in-process reference server
	closeTimeout    = 5 * time.Second  // Close ending open streams
	shutdownTimeout = 10 * time.Second // the reference server stopping after the test
)

// startReference serves the reference server on a fresh 127.0.0.1 port and returns its /mcp URL.
func startReference(t *testing.T, opts reference.Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- reference.ServeHTTP(ctx, ln, opts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("reference server: %v", err)
			}
		case <-time.After(shutdownTimeout):
			t.Errorf("the reference server did not stop within %s", shutdownTimeout)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

func dial(t *testing.T, opts Options) *Conn {
	t.Helper()
	c := Dial(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

func request(t *testing.T, id jsonrpc.ID, method string, params any) []byte {
	t.Helper()
	frame, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

// initialize runs the handshake at revision and adopts the session; it returns the channel the
// initialize response came on.
func initialize(t *testing.T, ctx context.Context, c *Conn, revision string) string {
	t.Helper()
	id := jsonrpc.StringID("init-" + revision)
	params := map[string]any{
		"protocolVersion": revision,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "streamhttp-test", "version": "0"},
	}
	d, err := c.Send(ctx, request(t, id, "initialize", params))
	if err != nil {
		t.Fatalf("send initialize: %v", err)
	}
	if err := d.Ready(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if d.Status != http.StatusOK {
		t.Fatalf("initialize answered with HTTP %d: %s", d.Status, d.Body)
	}
	session := d.Header.Get(HeaderSession)
	if session == "" {
		t.Fatal("initialize response has no Mcp-Session-Id")
	}
	r, err := c.Inbox().Wait(ctx, 0, wire.RespondsTo(id))
	if err != nil {
		t.Fatalf("waiting for the initialize response: %v", err)
	}
	obj, ok := r.Msg.ResultObject()
	if !ok {
		t.Fatalf("initialize response %s has no result object", r.Msg.Raw)
	}
	var negotiated string
	if err := json.Unmarshal(obj["protocolVersion"], &negotiated); err != nil || negotiated != revision {
		t.Fatalf("negotiated %q (%v), want %q", negotiated, err, revision)
	}
	c.SetSession(session)
	c.SetProtocolVersion(revision)
	if c.Session() != session {
		t.Fatalf("Session() = %q after SetSession(%q)", c.Session(), session)
	}

	// notifications/initialized: accepted with 202 and an empty body, nothing in the inbox.
	before := c.Inbox().Len()
	note, err := jsonrpc.NewNotification("notifications/initialized", nil)
	if err != nil {
		t.Fatal(err)
	}
	nd, err := c.Send(ctx, note)
	if err != nil {
		t.Fatal(err)
	}
	if err := nd.Finished(ctx); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	if nd.Status != http.StatusAccepted || len(nd.Body) != 0 {
		t.Errorf("notification answered with HTTP %d and body %q, want 202 and no body", nd.Status, nd.Body)
	}
	if got := c.Inbox().Len(); got != before {
		t.Errorf("a notification put %d messages in the inbox", got-before)
	}
	return r.Channel
}

func TestJSONResponsesAndStreamedProgress(t *testing.T) {
	url := startReference(t, reference.Options{})
	tr := transcript.New()
	c := dial(t, Options{URL: url, Transcript: tr, Header: http.Header{"Authorization": {"Bearer s3cr3t-token"}}})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()

	if ch := initialize(t, ctx, c, "2025-06-18"); ch != "POST-JSON" {
		t.Errorf("initialize response came on %q, want POST-JSON", ch)
	}

	// A plain request is answered as JSON.
	list := jsonrpc.NumberID(2)
	d, err := c.Send(ctx, request(t, list, "tools/list", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.ContentType, "application/json") || d.Status != http.StatusOK || len(d.Body) == 0 {
		t.Errorf("tools/list answered with HTTP %d %q and %d body bytes", d.Status, d.ContentType, len(d.Body))
	}
	if _, err := c.Inbox().Wait(ctx, 0, wire.RespondsTo(list)); err != nil {
		t.Fatalf("tools/list response: %v", err)
	}

	// A slow call with a progress token is answered as SSE: progress, then the response.
	checkSlowCallStreams(t, ctx, c, jsonrpc.StringID("slow-1"))

	for _, e := range tr.Since(0) {
		if strings.Contains(e.Meta+e.Body, "s3cr3t-token") {
			t.Errorf("transcript entry %+v shows a caller's header value", e)
		}
	}
	if v := c.Violations(); len(v) != 0 {
		t.Errorf("violations against the reference server: %+v", v)
	}
}

func TestSSEResponseMode(t *testing.T) {
	url := startReference(t, reference.Options{HTTPResponseMode: reference.ResponseModeSSE})
	c := dial(t, Options{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()

	// 2025-11-25 opens each stream with a priming event that carries no message.
	if ch := initialize(t, ctx, c, "2025-11-25"); ch != "POST-SSE" {
		t.Errorf("initialize response came on %q, want POST-SSE", ch)
	}
	ping := jsonrpc.NumberID(5)
	d, err := c.Send(ctx, request(t, ping, "ping", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Events < 2 {
		t.Errorf("ping stream had %d events, want the priming event and the response", d.Events)
	}
	r, err := c.Inbox().Wait(ctx, 0, wire.RespondsTo(ping))
	if err != nil {
		t.Fatalf("ping response: %v", err)
	}
	if r.Channel != "POST-SSE" {
		t.Errorf("ping response on %q, want POST-SSE", r.Channel)
	}
	checkSlowCallStreams(t, ctx, c, jsonrpc.NumberID(6))
}

// checkSlowCallStreams calls the slow tool with a progress token and checks that its progress
// notifications and then its response arrive on the POST's SSE stream, in order.
func checkSlowCallStreams(t *testing.T, ctx context.Context, c *Conn, id jsonrpc.ID) {
	t.Helper()
	const steps = 3
	from := c.Inbox().Len()
	params := map[string]any{
		"name":      "slow",
		"arguments": map[string]any{"steps": steps, "stepMs": 10},
		"_meta":     map[string]any{"progressToken": "p1"},
	}
	d, err := c.Send(ctx, request(t, id, "tools/call", params))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.ContentType, "text/event-stream") {
		t.Fatalf("slow call answered as %q, want text/event-stream", d.ContentType)
	}
	resp, err := c.Inbox().Wait(ctx, from, wire.RespondsTo(id))
	if err != nil {
		t.Fatalf("slow call response: %v", err)
	}
	if err := d.Finished(ctx); err != nil {
		t.Fatalf("slow call stream: %v", err)
	}

	var progress []float64
	for _, r := range c.Inbox().Since(from) {
		if r.Channel != "POST-SSE" {
			t.Errorf("message %s on %q, want POST-SSE", r.Msg.Raw, r.Channel)
		}
		if r.Msg.Method != "notifications/progress" {
			continue
		}
		if r.Index > resp.Index {
			t.Errorf("progress %s arrived after the response", r.Msg.Raw)
		}
		var p struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
		}
		if err := json.Unmarshal(r.Msg.Params, &p); err != nil || p.ProgressToken != "p1" {
			t.Errorf("progress params %s (%v), want token p1", r.Msg.Params, err)
		}
		progress = append(progress, p.Progress)
	}
	if len(progress) != steps {
		t.Fatalf("%d progress notifications, want %d", len(progress), steps)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] <= progress[i-1] {
			t.Errorf("progress went %v, want it increasing", progress)
		}
	}
	if d.Events < steps+1 {
		t.Errorf("the stream counted %d events, want at least %d", d.Events, steps+1)
	}
}

func TestCloseEndsOpenGetStream(t *testing.T) {
	url := startReference(t, reference.Options{})
	c := Dial(Options{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	initialize(t, ctx, c, "2025-06-18")

	get := c.Do(ctx, nil, Request{Method: http.MethodGet})
	if err := get.Ready(ctx); err != nil {
		t.Fatalf("GET: %v", err)
	}
	if get.Status != http.StatusOK || !strings.HasPrefix(get.ContentType, "text/event-stream") {
		t.Fatalf("GET answered with HTTP %d %q, want an SSE stream", get.Status, get.ContentType)
	}
	if get.IsFinished() {
		t.Fatal("the GET stream ended on its own")
	}

	closed := make(chan struct{})
	start := time.Now()
	go func() {
		c.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(closeTimeout):
		t.Fatalf("Close did not return within %s with a GET stream open", closeTimeout)
	}
	t.Logf("Close took %s", time.Since(start))
	if !get.IsFinished() {
		t.Error("the GET stream's delivery is not finished after Close")
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done not closed after Close")
	}
	if _, err := c.Inbox().Wait(ctx, c.Inbox().Len(), func(wire.Received) bool { return true }); !errors.Is(err, wire.ErrClosed) {
		t.Errorf("Wait after Close = %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestStatusAndHeadersVisible(t *testing.T) {
	url := startReference(t, reference.Options{})
	c := dial(t, Options{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()

	// Before initialize, a request other than ping needs a session: 400 with a JSON error body.
	d, err := c.Send(ctx, request(t, jsonrpc.NumberID(1), "tools/list", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Status != http.StatusBadRequest {
		t.Errorf("tools/list without a session: HTTP %d, want 400", d.Status)
	}

	// The Accept header can be left out entirely: the server must refuse.
	d = c.Do(ctx, request(t, jsonrpc.NumberID(2), "ping", nil), Request{Accept: "-"})
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Status != http.StatusNotAcceptable {
		t.Errorf("POST without Accept: HTTP %d, want 406", d.Status)
	}

	// An unknown session id is 404.
	d = c.Do(ctx, request(t, jsonrpc.NumberID(3), "ping", nil), Request{Header: http.Header{"mcp-session-id": {"no-such-session"}}})
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Status != http.StatusNotFound {
		t.Errorf("unknown session: HTTP %d, want 404", d.Status)
	}

	// A broken body is answered with a parse error and a null id.
	from := c.Inbox().Len()
	d = c.Do(ctx, []byte(`{"jsonrpc":`), Request{})
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := c.Inbox().Wait(ctx, from, wire.RespondsTo(jsonrpc.Null))
	if err != nil {
		t.Fatalf("parse error response: %v", err)
	}
	if e, ok := r.Msg.ErrorObject(); !ok || e.CodeInt != -32700 {
		t.Errorf("broken body answered with %s, want -32700", r.Msg.Raw)
	}
}

func TestUnreachableServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there any more
	c := dial(t, Options{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	d, err := c.Send(ctx, request(t, jsonrpc.NumberID(1), "ping", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Finished(ctx); err == nil || d.Err == nil {
		t.Error("a POST to a closed port succeeded")
	}
	bad := c.Do(ctx, nil, Request{Method: "BAD METHOD"})
	if err := bad.Finished(ctx); err == nil {
		t.Error("an unbuildable request succeeded")
	}
}

// TestReadyThenStreamEnd reads a delivery's readiness while its SSE stream is still running and
// then lets the stream end: under -race this caught Ready reading Err while the stream wrote it.
func TestReadyThenStreamEnd(t *testing.T) {
	url := startReference(t, reference.Options{HTTPResponseMode: reference.ResponseModeSSE})
	c := dial(t, Options{URL: url})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	initialize(t, ctx, c, "2025-06-18")
	params := map[string]any{"name": "slow", "arguments": map[string]any{"steps": 2, "stepMs": 10}}
	d, err := c.Send(ctx, request(t, jsonrpc.NumberID(9), "tools/call", params))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.FinishedChan():
	case <-ctx.Done():
		t.Fatal("the stream did not end")
	}
	if err := d.Ready(ctx); err != nil {
		t.Errorf("Ready after the stream ended = %v", err)
	}
	if err := d.Finished(ctx); err != nil {
		t.Errorf("Finished = %v", err)
	}
}

// TestDrainedFollowsOpenStreams: Drained is closed at once on an idle connection, stays open
// while a response stream is, and is closed when the last one ends.
func TestDrainedFollowsOpenStreams(t *testing.T) {
	release := make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-release // the stream stays open until the test lets it end
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	c := dial(t, Options{URL: "http://" + ln.Addr().String() + "/mcp"})
	select {
	case <-c.Drained():
	default:
		t.Fatal("Drained is not closed on a connection with no request made")
	}
	d := c.Do(context.Background(), request(t, jsonrpc.StringID("1"), "ping", nil), Request{})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	if err := d.Ready(ctx); err != nil {
		t.Fatalf("the stream never opened: %v", err)
	}
	drained := c.Drained()
	select {
	case <-drained:
		t.Fatal("Drained is closed while a response stream is open")
	default:
	}
	close(release)
	select {
	case <-drained:
	case <-ctx.Done():
		t.Fatal("Drained stayed open after the last stream ended")
	}
	if !d.IsFinished() {
		t.Error("Drained closed before the delivery finished")
	}
}
