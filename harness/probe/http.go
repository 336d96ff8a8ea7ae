package probe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// RetryMs is the retry field the probe sends before it closes a stream, from 2025-11-25 on.
const RetryMs = 500

// HasRetry reports whether a revision defines the server's retry field before a close.
func HasRetry(revision string) bool { return revision >= "2025-11-25" }

// Path is the probe's Streamable HTTP endpoint.
const Path = "/mcp"

// maxBody bounds what the probe reads of one request body.
const maxBody = 4 << 20

// HTTPServer serves one scenario over Streamable HTTP on a loopback port.
type HTTPServer struct {
	srv     *server
	rec     *Recorder
	mu      sync.Mutex
	session string
	expired bool // ScenarioSessionExpiry: the session was expired once
	events  int  // the last SSE event id: ids are unique across all the session's streams
	// ScenarioSSERetry: the first tools/call's stream was cut (once), and its response waits
	// for the GET that resumes after cutID.
	cut      bool
	cutID    string
	cutReply []byte
	http     *http.Server
	ln       net.Listener
	// auth is the authorization server of an authorization scenario (nil otherwise): it serves
	// every path but the MCP endpoint, and gates the endpoint.
	auth   *authServer
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// ServeHTTP starts the probe on 127.0.0.1 at a free port.
func StartHTTP(script Script, rec *Recorder) (*HTTPServer, error) {
	if err := script.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("probe: listen on loopback: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &HTTPServer{srv: newServer(script, rec), rec: rec, session: newSessionID(), ln: ln, ctx: ctx, cancel: cancel}
	h.srv.streamCancels = script.Stateless()
	if err := h.srv.open(); err != nil {
		cancel()
		_ = ln.Close()
		return nil, err
	}
	if plan, ok := PlanFor(script.Scenario); ok {
		h.auth = newAuthServer(plan, rec)
		h.auth.origin = "http://" + ln.Addr().String()
		h.auth.perOperation = script.Stateless()
	}
	h.http = &http.Server{Handler: h}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		_ = h.http.Serve(ln)
	}()
	return h, nil
}

// URL is the endpoint the client is given.
func (h *HTTPServer) URL() string { return "http://" + h.ln.Addr().String() + Path }

// AuthContext is what MCP_CONFORMANCE_CONTEXT carries for the authorization scenario (nil for
// any other): a pre-registered client's client_id and client_secret.
func (h *HTTPServer) AuthContext() map[string]any {
	if h.auth == nil {
		return nil
	}
	return h.auth.ContextFields()
}

// Secrets lists every secret of the authorization scenario (tokens, refresh tokens, codes,
// client secrets, code verifiers), minted or seen: none may reach a report.
func (h *HTTPServer) Secrets() []string {
	if h.auth == nil {
		return nil
	}
	return h.auth.Secrets()
}

// Close stops serving: requests still waiting for the client are given up.
// AwaitReleased waits, up to d, until the probe holds no request: a client that closed a held
// request's stream and left is noticed when the server's reader runs, which on a loaded machine
// can come after the client is gone, and Close first would lose that close (EvStreamClosed). It
// reports whether no request is held.
func (h *HTTPServer) AwaitReleased(d time.Duration) bool { return h.srv.awaitReleased(d) }

func (h *HTTPServer) Close() {
	h.cancel()
	_ = h.http.Close()
	h.wg.Wait()
	h.srv.shut()
}

func newSessionID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "probe-" + hex.EncodeToString(b)
}

// ServeHTTP records the request and answers it. The probe is lenient: it answers a request
// whatever headers it lacks, so that a client's one slip does not hide the rest of its
// behaviour from the checks.
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := h.rec.Next()
	if h.auth != nil && r.URL.Path != Path {
		h.auth.serve(w, r, h.URL())
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	channel := map[string]string{http.MethodPost: record.ChanPOST, http.MethodGet: record.ChanGET, http.MethodDelete: record.ChanDELETE}[r.Method]
	if channel == "" {
		channel = record.ChanHTTP
	}
	if h.auth != nil {
		h.auth.learnSecrets(r, nil)
		h.auth.recordRequest(r, channel, body, nil)
		if h.refuse(w, r, channel, body) {
			return
		}
	} else {
		h.rec.Add(record.Record{Dir: record.Recv, Channel: channel, Path: r.URL.Path, Header: headerMap(r.Header), Body: string(body), Arrived: arrived})
	}
	if r.URL.Path != Path {
		h.answer(w, channel, http.StatusNotFound, "", nil)
		return
	}
	if h.unknownSession(r.Header.Get("Mcp-Session-Id"), body) {
		// A server MUST answer a session it does not know (one it ended, say) with 404, and
		// does so every time, not only the first.
		h.rec.note(record.Event{Kind: record.EvUnknownSession, Session: r.Header.Get("Mcp-Session-Id")}, "unknown session: "+r.Header.Get("Mcp-Session-Id"))
		h.answer(w, channel, http.StatusNotFound, "", nil)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(r.Context(), w, body)
	case http.MethodGet:
		if last, ok := r.Header["Last-Event-Id"]; ok {
			h.resume(w, r, strings.Join(last, ", "))
			return
		}
		// The probe offers no stream of its own: a GET learns that it is not served.
		w.Header().Set("Allow", "POST, DELETE")
		h.answer(w, record.ChanGET, http.StatusMethodNotAllowed, "", nil)
	case http.MethodDelete:
		if h.srv.script.Stateless() { // no session to end (HTTP26-GET-DELETE-405)
			w.Header().Set("Allow", "POST")
			h.answer(w, record.ChanDELETE, http.StatusMethodNotAllowed, "", nil)
			return
		}
		h.answer(w, record.ChanDELETE, http.StatusOK, "", nil)
	default:
		w.Header().Set("Allow", "POST, GET, DELETE")
		h.answer(w, record.ChanHTTP, http.StatusMethodNotAllowed, "", nil)
	}
}

// refuse answers a request to the MCP endpoint of an authorization scenario that lacks a token
// good for it with 401 (or 403 insufficient_scope) and the challenge, and reports whether it did.
func (h *HTTPServer) refuse(w http.ResponseWriter, r *http.Request, channel string, body []byte) bool {
	var msgs []message
	if m := bytes.TrimSpace(body); len(m) > 0 && m[0] == '[' {
		_ = json.Unmarshal(m, &msgs)
	} else {
		var one message
		if json.Unmarshal(m, &one) == nil {
			msgs = []message{one}
		}
	}
	ch := h.auth.gate(r, msgs, h.URL())
	if ch == nil {
		return false
	}
	h.rec.note(*ch, "auth: challenge "+strconv.Itoa(ch.Status)+" "+ch.Challenge)
	header := map[string]string{"Www-Authenticate": ch.Challenge}
	if n := h.auth.dpopNonceHeader(ch); n != "" {
		header["Dpop-Nonce"] = n
		w.Header().Set("DPoP-Nonce", n)
	}
	h.rec.Add(record.Record{Dir: record.Send, Channel: channel, Status: ch.Status, Header: header})
	w.Header().Set("WWW-Authenticate", ch.Challenge)
	w.WriteHeader(ch.Status)
	return true
}

// unknownSession reports whether a request names a session that is not the probe's current
// one. A request without a session id is served (the probe is lenient; the checks judge the
// omission), and so is an initialize, which starts a session whatever it carries
// (HTTP-SESSION-EXPIRED-CLIENT judges that).
func (h *HTTPServer) unknownSession(id string, body []byte) bool {
	if id == "" || h.srv.script.Stateless() || bytes.Contains(body, []byte(`"initialize"`)) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return id != h.session
}

// expire ends the session at the first tools/call of ScenarioSessionExpiry: the call is
// answered 404, and the next initialize gets a new session id.
func (h *HTTPServer) expire(msgs []message) bool {
	if h.srv.script.Scenario != ScenarioSessionExpiry {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.expired {
		return false
	}
	for _, m := range msgs {
		if m.Method == "tools/call" {
			h.expired = true
			h.rec.note(record.Event{Kind: record.EvSessionExpired, Session: h.session}, "session expired: "+h.session)
			h.session = newSessionID()
			return true
		}
	}
	return false
}

// answer writes and records a whole response.
func (h *HTTPServer) answer(w http.ResponseWriter, channel string, status int, contentType string, body []byte) {
	// Recorded before it is written: the client's reaction must never precede it.
	h.rec.Add(record.Record{Dir: record.Send, Channel: channel, Status: status, Body: string(body)})
	if contentType != "" {
		w.Header().Set("Content-Type", contentType)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (h *HTTPServer) post(rctx context.Context, w http.ResponseWriter, body []byte) {
	ctx, done := h.requestContext(rctx)
	defer done()
	trimmed := bytes.TrimSpace(body)
	var msgs []message
	batch := len(trimmed) > 0 && trimmed[0] == '['
	var err error
	if batch {
		err = json.Unmarshal(trimmed, &msgs)
	} else {
		var m message
		err = json.Unmarshal(trimmed, &m)
		msgs = []message{m}
	}
	if err != nil {
		h.answer(w, record.ChanPOST, http.StatusBadRequest, "application/json", errorResponse(json.RawMessage("null"), -32700, "parse error: "+err.Error()))
		return
	}
	if h.expire(msgs) {
		h.answer(w, record.ChanPOST, http.StatusNotFound, "", nil)
		return
	}
	requests := 0
	for _, m := range msgs {
		if m.isRequest() {
			requests++
		}
		// The stateless revision has no sessions (HTTP26-IGNORE-SESSION).
		if m.Method == "initialize" && !h.srv.script.Stateless() {
			h.mu.Lock()
			session := h.session
			h.mu.Unlock()
			w.Header().Set("Mcp-Session-Id", session)
			h.rec.note(record.Event{Kind: record.EvSessionAssigned, Session: session}, "session id assigned: "+session)
		}
	}
	if requests == 0 {
		for _, m := range msgs {
			h.srv.handle(h.ctx, m, func([]byte) {})
		}
		h.answer(w, record.ChanPOST, http.StatusAccepted, "", nil)
		return
	}
	// The answer becomes an SSE stream when the probe has something to send before it.
	st := &stream{w: w, rec: h.rec, nextID: h.nextEventID}
	if h.cutting(msgs) {
		h.cutStream(st, msgs[0])
		return
	}
	var responses [][]byte
	for _, m := range msgs {
		if resp := h.srv.handle(ctx, m, st.event); resp != nil {
			responses = append(responses, resp)
		}
	}
	if len(responses) == 0 {
		// A held request the client cancelled (or whose stream it closed): its stream ends
		// without a response.
		st.start()
		st.flush()
		return
	}
	out := responses[0]
	if batch {
		out = append(append([]byte("["), bytes.Join(responses, []byte(","))...), ']')
	}
	if st.open {
		st.event(out)
		return
	}
	status := http.StatusOK
	if h.srv.script.Stateless() {
		status = statelessStatus(out)
	}
	h.answer(w, record.ChanPOST, status, "application/json", out)
}

// errClientClosed is the cause of a POST's context ending because the client closed the
// request's connection before the probe answered it.
var errClientClosed = errors.New("the client closed the request's stream")

// requestContext is the context a POST's messages are handled under: the probe's, ended too
// (cause errClientClosed) when the client closes the connection before the answer. The probe
// closing first leaves the cause its own, so a shutdown never reads as the client's close.
func (h *HTTPServer) requestContext(r context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(h.ctx)
	stop := context.AfterFunc(r, func() { cancel(errClientClosed) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

func (h *HTTPServer) nextEventID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events++
	return strconv.Itoa(h.events)
}

// cutting reports whether this POST is ScenarioSSERetry's first tools/call, whose stream the
// probe cuts.
func (h *HTTPServer) cutting(msgs []message) bool {
	if h.srv.script.Scenario != ScenarioSSERetry || len(msgs) != 1 || msgs[0].Method != "tools/call" || !msgs[0].isRequest() {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cut {
		return false
	}
	h.cut = true
	return true
}

// cutStream answers a tools/call with an SSE stream that carries an event with an id and no
// data (the 2025-11-25 priming event; an SSE parser of any revision records its id and
// dispatches nothing), a retry field where the revision has one, and closes before the
// response: to the client, a broken connection it should resume.
func (h *HTTPServer) cutStream(st *stream, m message) {
	id := h.nextEventID()
	retry := 0
	if HasRetry(h.srv.script.Revision) {
		retry = RetryMs
	}
	st.start()
	raw := "id: " + id + "\n"
	if retry > 0 {
		raw += "retry: " + strconv.Itoa(retry) + "\n"
	}
	raw += "data: \n\n"
	h.rec.Add(record.Record{Dir: record.Send, Channel: record.ChanSSE, Status: http.StatusOK, Body: raw})
	_, _ = io.WriteString(st.w, raw)
	st.flush()
	// The response is made now, while the client waits, as any server's would be; only its
	// delivery waits for the resumed stream.
	reply := h.srv.handle(h.ctx, m, st.event)
	h.mu.Lock()
	h.cutID, h.cutReply = id, reply
	h.mu.Unlock()
	// Recorded just before the handler returns and the stream closes: the client's wait,
	// measured from here, is overstated by that moment at most, never understated.
	h.rec.note(record.Event{Kind: record.EvStreamCut, EventID: id, RetryMs: retry}, "stream closed before its response after event id "+id+"; retry "+strconv.Itoa(retry)+" ms")
}

// resume serves a GET with Last-Event-ID: the cut stream's response follows on the resumed
// stream, which stays open until the client leaves. Any other id is not the probe's to resume.
func (h *HTTPServer) resume(w http.ResponseWriter, r *http.Request, last string) {
	h.mu.Lock()
	reply := h.cutReply
	ok := reply != nil && last == h.cutID
	if ok {
		h.cutReply = nil
	}
	h.mu.Unlock()
	if !ok {
		h.rec.note(record.Event{Kind: record.EvNoResume, EventID: last}, "no stream to resume after event id "+last)
		h.answer(w, record.ChanGET, http.StatusBadRequest, "", nil)
		return
	}
	st := &stream{w: w, rec: h.rec, nextID: h.nextEventID, channel: record.ChanGETSSE}
	st.event(reply)
	select {
	case <-r.Context().Done():
	case <-h.ctx.Done():
	}
}

// stream is an SSE stream answering a POST (or a resuming GET), opened by its first event.
type stream struct {
	w       http.ResponseWriter
	rec     *Recorder
	nextID  func() string
	channel string // ChanSSE unless set
	open    bool
}

func (s *stream) start() {
	if !s.open {
		s.w.Header().Set("Content-Type", "text/event-stream")
		s.w.Header().Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
		s.open = true
	}
}

func (s *stream) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *stream) event(msg []byte) {
	s.start()
	channel := s.channel
	if channel == "" {
		channel = record.ChanSSE
	}
	s.rec.Add(record.Record{Dir: record.Send, Channel: channel, Status: http.StatusOK, Body: string(msg)})
	fmt.Fprintf(s.w, "id: %s\nevent: message\ndata: %s\n\n", s.nextID(), msg)
	s.flush()
}
