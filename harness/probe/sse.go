package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/mcpspec/mcpspec/harness/record"
)

// The legacy HTTP+SSE transport of 2024-11-05: the client GETs the SSE endpoint, whose first
// event names the endpoint it POSTs every message to; everything the probe sends goes down
// that stream as `message` events.
const (
	SSEPath     = "/sse"
	MessagePath = "/message"
)

// ChanStream is an event on the legacy transport's SSE stream.
const ChanStream = "SSE"

// SSEServer serves one scenario over the legacy HTTP+SSE transport on a loopback port.
type SSEServer struct {
	srv      *server
	rec      *Recorder
	endpoint string // path and query the client is told to POST to
	http     *http.Server
	ln       net.Listener
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu     sync.Mutex
	out    chan []byte // the open stream's queue; nil while none is open
	posted sync.WaitGroup
}

// StartSSE starts the probe's legacy transport on 127.0.0.1 at a free port.
func StartSSE(script Script, rec *Recorder) (*SSEServer, error) {
	if err := script.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("probe: listen on loopback: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &SSEServer{srv: newServer(script, rec), rec: rec, endpoint: MessagePath + "?sessionId=" + newSessionID(), ln: ln, ctx: ctx, cancel: cancel}
	s.http = &http.Server{Handler: s}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

// URL is the SSE endpoint the client is given.
func (s *SSEServer) URL() string { return "http://" + s.ln.Addr().String() + SSEPath }

// Close stops serving: requests still waiting for the client are given up.
func (s *SSEServer) Close() {
	s.cancel()
	_ = s.http.Close()
	s.posted.Wait()
	s.wg.Wait()
}

func (s *SSEServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	channel := map[string]string{http.MethodPost: record.ChanPOST, http.MethodGet: record.ChanGET, http.MethodDelete: record.ChanDELETE}[r.Method]
	if channel == "" {
		channel = record.ChanHTTP
	}
	// The path keeps its query: the endpoint the client must POST to is told by both.
	s.rec.Add(record.Record{Dir: record.Recv, Channel: channel, Path: r.URL.RequestURI(), Header: headerMap(r.Header), Body: string(body)})
	switch {
	case r.URL.Path == SSEPath && r.Method == http.MethodGet:
		s.stream(w, r)
	case r.URL.Path == MessagePath && r.Method == http.MethodPost:
		// Lenient as the Streamable HTTP probe: a POST that lost the session query is still
		// served, so that SSE-CLIENT-POST, not a broken run, reports it.
		s.post(w, body)
	case r.URL.Path == SSEPath:
		w.Header().Set("Allow", "GET")
		s.answer(w, channel, http.StatusMethodNotAllowed)
	default:
		s.answer(w, channel, http.StatusNotFound)
	}
}

func (s *SSEServer) answer(w http.ResponseWriter, channel string, status int) {
	s.rec.Add(record.Record{Dir: record.Send, Channel: channel, Status: status})
	w.WriteHeader(status)
}

// stream serves the SSE connection: the endpoint event, then every message the probe sends.
func (s *SSEServer) stream(w http.ResponseWriter, r *http.Request) {
	out := make(chan []byte, 64)
	s.mu.Lock()
	if s.out != nil {
		s.mu.Unlock()
		s.answer(w, record.ChanGET, http.StatusConflict)
		return
	}
	s.out = out
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.out = nil
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	s.rec.note(record.Event{Kind: record.EvEndpoint, URL: s.endpoint}, "endpoint announced: "+s.endpoint)
	s.rec.Add(record.Record{Dir: record.Send, Channel: ChanStream, Status: http.StatusOK, Body: "event: endpoint\ndata: " + s.endpoint})
	fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", s.endpoint)
	flush()
	for {
		select {
		case msg := <-out:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
			flush()
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		}
	}
}

// send queues a message on the open stream, recorded as sent; without a stream it is lost,
// and a note says so.
func (s *SSEServer) send(msg []byte) {
	s.mu.Lock()
	out := s.out
	s.mu.Unlock()
	if out == nil {
		s.rec.note(record.Event{Kind: record.EvNoSSEStream}, "no SSE stream open: the probe could not send "+string(msg))
		return
	}
	// Recorded before it is written: the client's reaction must never precede it.
	s.rec.Add(record.Record{Dir: record.Send, Channel: ChanStream, Status: http.StatusOK, Body: string(msg)})
	select {
	case out <- msg:
	case <-s.ctx.Done():
	}
}

func (s *SSEServer) post(w http.ResponseWriter, body []byte) {
	trimmed := bytes.TrimSpace(body)
	var msgs []message
	var err error
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &msgs)
	} else {
		var m message
		err = json.Unmarshal(trimmed, &m)
		msgs = []message{m}
	}
	if err != nil {
		s.answer(w, record.ChanPOST, http.StatusBadRequest)
		return
	}
	s.answer(w, record.ChanPOST, http.StatusAccepted)
	// Answered on the stream: a request may wait for the client's answer to the probe's own
	// request, which comes in a later POST.
	for _, m := range msgs {
		s.posted.Add(1)
		go func(m message) {
			defer s.posted.Done()
			if resp := s.srv.handle(s.ctx, m, s.send); resp != nil {
				s.send(resp)
			}
		}(m)
	}
}
