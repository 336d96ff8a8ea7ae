package legacysse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// waitBound bounds every wait of these tests; each ends as soon as its condition holds.
const waitBound = 30 * time.Second

// sseServer is a legacy HTTP+SSE server on loopback: GET /sse names the endpoint in its first
// event, then writes every raw event sent on events; a POST to the endpoint is recorded and
// answered 202.
type sseServer struct {
	*httptest.Server
	events   chan string        // raw SSE blocks, written to the open stream as they come
	posts    chan *http.Request // each POST; its body goes to bodies
	bodies   chan string
	endpoint string // the data of the endpoint event
}

func newSSEServer(t *testing.T, endpoint string) *sseServer {
	t.Helper()
	s := &sseServer{events: make(chan string, 64), posts: make(chan *http.Request, 16), bodies: make(chan string, 16), endpoint: endpoint}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", s.endpoint)
		w.(http.Flusher).Flush()
		for {
			select {
			case ev, ok := <-s.events:
				if !ok {
					return // ends the stream
				}
				io.WriteString(w, ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.posts <- r
		s.bodies <- string(body)
		w.WriteHeader(http.StatusAccepted)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Server.Close)
	return s
}

func dial(t *testing.T, url string, timeout time.Duration) (*Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	c, err := Dial(ctx, Options{URL: url, HeaderTimeout: timeout, Header: http.Header{"Authorization": {"Bearer secret"}}})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func waitMessage(t *testing.T, c *Conn, from int) wire.Received {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	r, err := c.Inbox().Wait(ctx, from, func(wire.Received) bool { return true })
	if err != nil {
		t.Fatalf("no message on the stream: %v", err)
	}
	return r
}

// TestDialResolvesEndpointAndPosts: the endpoint event's relative URI is resolved against the SSE
// URL, a POST carries the JSON and the configured headers there, and the reply arriving on the
// stream lands in the inbox.
func TestDialResolvesEndpointAndPosts(t *testing.T) {
	s := newSSEServer(t, "/messages?sessionId=abc")
	c, err := dial(t, s.URL+"/sse", waitBound)
	if err != nil {
		t.Fatal(err)
	}
	if want := s.URL + "/messages?sessionId=abc"; c.Endpoint != want {
		t.Errorf("Endpoint = %q, want %q", c.Endpoint, want)
	}
	if c.FirstEvent.Type != "endpoint" {
		t.Errorf("FirstEvent.Type = %q, want endpoint", c.FirstEvent.Type)
	}

	frame, _ := jsonrpc.NewRequest(jsonrpc.NumberID(1), "ping", nil)
	d, err := c.Send(context.Background(), frame)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Err != nil || d.Status != http.StatusAccepted {
		t.Fatalf("POST: status %d, err %v; want 202", d.Status, d.Err)
	}
	req, body := <-s.posts, <-s.bodies
	if req.URL.Query().Get("sessionId") != "abc" || req.Header.Get("Content-Type") != "application/json" || req.Header.Get("Authorization") != "Bearer secret" {
		t.Errorf("POST %s with Content-Type %q, Authorization %q", req.URL, req.Header.Get("Content-Type"), req.Header.Get("Authorization"))
	}
	if body != string(frame) {
		t.Errorf("POST body %q, want %q", body, frame)
	}

	s.events <- "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	r := waitMessage(t, c, 0)
	if r.Channel != "SSE" || !wire.ContainsResponse(r.Msg, jsonrpc.NumberID(1)) {
		t.Errorf("got %+v on %q, want the response to id 1 on SSE", r.Msg, r.Channel)
	}
	if v := c.Violations(); len(v) != 0 {
		t.Errorf("violations on a well-formed stream: %+v", v)
	}
	// The secret header is never written to the transcript.
	for _, e := range c.Transcript().Since(0) {
		if strings.Contains(e.Meta+e.Body, "secret") {
			t.Errorf("transcript entry carries the Authorization header: %+v", e)
		}
	}
}

// TestStreamViolations: a message under another event type, or data that is not JSON-RPC, is
// still delivered and recorded as a violation.
func TestStreamViolations(t *testing.T) {
	s := newSSEServer(t, "/messages")
	c, err := dial(t, s.URL+"/sse", waitBound)
	if err != nil {
		t.Fatal(err)
	}
	s.events <- "event: reply\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n"
	s.events <- "data: not json\n\n"
	waitMessage(t, c, 0)
	waitMessage(t, c, 1)
	kinds := map[string]bool{}
	for _, v := range c.Violations() {
		kinds[v.Kind] = true
	}
	if !kinds["unexpected-event-type"] || !kinds["invalid-sse-data"] {
		t.Errorf("violations %v, want unexpected-event-type and invalid-sse-data", kinds)
	}
}

// TestStreamEndClosesInbox: when the server ends the stream, waits end with wire.ErrClosed
// instead of running to their own bound.
func TestStreamEndClosesInbox(t *testing.T) {
	s := newSSEServer(t, "/messages")
	c, err := dial(t, s.URL+"/sse", waitBound)
	if err != nil {
		t.Fatal(err)
	}
	close(s.events)
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err = c.Inbox().Wait(ctx, 0, func(wire.Received) bool { return true })
	if !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("Wait after the stream ended: %v, want ErrClosed", err)
	}
}

// TestCloseEndsWaits: Close ends the stream and every wait on the inbox.
func TestCloseEndsWaits(t *testing.T) {
	s := newSSEServer(t, "/messages")
	c, err := dial(t, s.URL+"/sse", waitBound)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitBound)
		defer cancel()
		_, err := c.Inbox().Wait(ctx, 0, func(wire.Received) bool { return true })
		ended <- err
	}()
	c.Close()
	if err := <-ended; !errors.Is(err, wire.ErrClosed) {
		t.Fatalf("Wait across Close: %v, want ErrClosed", err)
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done is not closed after Close")
	}
}

// TestDialRefusals: a GET that is not an event stream, a stream without an endpoint event, and
// one that stays silent all fail Dial with a reason, the last within the header timeout.
func TestDialRefusals(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /notfound", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such stream", http.StatusNotFound)
	})
	mux.HandleFunc("GET /chatty", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i <= maxEventsBeforeEndpoint; i++ {
			fmt.Fprintf(w, "event: hello\ndata: %d\n\n", i)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("GET /silent", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("GET /short", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: hello\ndata: x\n\n")
	})
	// An endpoint of another origin (another port on the loopback interface, refused: nothing
	// may be sent there anyway).
	mux.HandleFunc("GET /elsewhere", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: http://127.0.0.1:1/messages\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, tc := range []struct {
		path    string
		timeout time.Duration
		want    string
	}{
		{"/notfound", waitBound, "HTTP 404"},
		{"/chatty", waitBound, "no endpoint event among the first"},
		{"/short", waitBound, "ended before an endpoint event"},
		{"/elsewhere", waitBound, "posts only within the origin it was given"},
		// The header timeout is the bound under test here: nothing will ever arrive.
		{"/silent", 2 * time.Second, "no endpoint event on"},
	} {
		_, err := dial(t, srv.URL+tc.path, tc.timeout)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Dial %s: %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
}
