package streamhttp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// pollServer is a Streamable HTTP endpoint that answers a POST with an SSE stream it ends after
// one notification (with or without event ids and a retry field), and a GET with Last-Event-ID
// with the rest of that stream, the response, or with getStatus when that is not 200.
type pollServer struct {
	ids       bool
	getStatus int
	release   chan struct{} // when set, the resuming GET waits for it before the response

	mu      sync.Mutex
	gets    []http.Header
	started chan struct{} // closed when the first GET arrives
}

const pollResponse = `{"jsonrpc":"2.0","id":"call-1","result":{}}`

func (p *pollServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	if r.Method == http.MethodPost {
		w.Header().Set("Connection", "close")
		note := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
		if p.ids {
			fmt.Fprintf(w, "id: e1\ndata: \n\nid: e2\ndata: %s\n\nretry: 10\n\n", note)
		} else {
			fmt.Fprintf(w, "data: %s\n\nretry: 10\n\n", note)
		}
		return // ends the stream's connection without the response
	}
	p.mu.Lock()
	p.gets = append(p.gets, r.Header.Clone())
	if len(p.gets) == 1 {
		close(p.started)
	}
	p.mu.Unlock()
	if p.getStatus != http.StatusOK {
		w.Header().Set("Content-Type", "text/plain")
		http.Error(w, "no GET here", p.getStatus)
		return
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	if p.release != nil {
		<-p.release
	}
	fmt.Fprintf(w, "id: e3\ndata: %s\n\n", pollResponse)
}

func (p *pollServer) getHeaders() []http.Header {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gets
}

// startPoll serves p on 127.0.0.1 and returns a connection to it in session "s1" at revision.
func startPoll(t *testing.T, p *pollServer, revision string) *Conn {
	t.Helper()
	p.started = make(chan struct{})
	srv := httptest.NewServer(p) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	c := dial(t, Options{URL: srv.URL + "/mcp"})
	c.SetSession("s1")
	c.SetProtocolVersion(revision)
	c.SetStateless(revision == "2026-07-28")
	return c
}

// callAndFinish sends the request and waits for its delivery to end.
func callAndFinish(t *testing.T, c *Conn) *wire.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	d, err := c.Send(ctx, request(t, jsonrpc.StringID("call-1"), "tools/call", map[string]any{"name": "slow"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Finished(ctx); err != nil && ctx.Err() != nil {
		t.Fatalf("the delivery did not end: %v", err)
	}
	return d
}

// responseVia returns the delivery the response came on, nil when it did not come.
func responseVia(c *Conn) *wire.Delivery {
	for _, r := range c.Inbox().Since(0) {
		if wire.ContainsResponse(r.Msg, jsonrpc.StringID("call-1")) {
			return r.Via
		}
	}
	return nil
}

func TestResumesAStreamClosedEarly(t *testing.T) {
	p := &pollServer{ids: true, getStatus: http.StatusOK, release: make(chan struct{})}
	c := startPoll(t, p, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	d, _ := c.Send(ctx, request(t, jsonrpc.StringID("call-1"), "tools/call", map[string]any{"name": "slow"}))
	select {
	case <-p.started:
	case <-ctx.Done():
		t.Fatal("no resuming GET came")
	}
	select {
	case <-c.Drained():
		t.Fatal("Drained while the resuming GET is open")
	default:
	}
	close(p.release)
	if err := d.Finished(ctx); err != nil {
		t.Fatalf("the resumed delivery: %v", err)
	}
	select {
	case <-c.Drained():
	case <-ctx.Done():
		t.Fatal("not Drained after the resumed stream ended")
	}
	if via := responseVia(c); via != d {
		t.Fatalf("the response came via %p, want the POST's delivery %p", via, d)
	}
	gets := p.getHeaders()
	if len(gets) != 1 {
		t.Fatalf("%d GETs, want 1", len(gets))
	}
	for h, want := range map[string]string{"Last-Event-ID": "e2", HeaderSession: "s1", HeaderProtocol: "2025-11-25", "Accept": "text/event-stream"} {
		if got := gets[0].Get(h); got != want {
			t.Errorf("the GET's %s is %q, want %q", h, got, want)
		}
	}
	rs := d.Resumes()
	if len(rs) != 1 || rs[0].LastEventID != "e2" || rs[0].Status != http.StatusOK || rs[0].AfterEvents != 3 || rs[0].Err != nil {
		t.Fatalf("resumes %+v, want one from e2 after 3 events with HTTP 200", rs)
	}
	if n := len(d.EventsSoFar()); n != 4 || d.Events != 4 {
		t.Errorf("%d events recorded (Events %d), want 4", n, d.Events)
	}
	shown := false
	for _, e := range c.Transcript().Since(0) {
		shown = shown || strings.Contains(e.Meta, "HTTP 200 text/event-stream (resumes the stream of #")
	}
	if !shown {
		t.Errorf("the transcript does not show the resuming GET's answer: %+v", c.Transcript().Since(0))
	}
}

func TestDoesNotResume(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ids      bool
		revision string
	}{
		{"no event id", false, "2025-11-25"},
		{"stateless revision", true, "2026-07-28"},
		{"revision before early closes", true, "2025-06-18"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &pollServer{ids: tc.ids, getStatus: http.StatusOK}
			c := startPoll(t, p, tc.revision)
			d := callAndFinish(t, c)
			if n := len(p.getHeaders()); n != 0 || len(d.Resumes()) != 0 {
				t.Fatalf("%d GETs, resumes %+v: want none", n, d.Resumes())
			}
			if d.Err != nil || responseVia(c) != nil {
				t.Fatalf("delivery error %v, response via %p: want the stream just ended", d.Err, responseVia(c))
			}
		})
	}
}

func TestResumeRefused(t *testing.T) {
	p := &pollServer{ids: true, getStatus: http.StatusMethodNotAllowed}
	c := startPoll(t, p, "2025-11-25")
	d := callAndFinish(t, c)
	if d.Err == nil || !strings.Contains(d.Err.Error(), "HTTP 405") || !strings.Contains(d.Err.Error(), "Last-Event-ID e2") {
		t.Fatalf("delivery error %v, want one naming the refused resumption", d.Err)
	}
	if rs := d.Resumes(); len(rs) != 1 || rs[0].Status != http.StatusMethodNotAllowed || rs[0].Err == nil {
		t.Fatalf("resumes %+v, want one refused with 405", rs)
	}
	if n := len(p.getHeaders()); n != 1 {
		t.Fatalf("%d GETs, want 1 (a refusal is not retried)", n)
	}
}
