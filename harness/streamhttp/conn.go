// Package streamhttp is a client of an MCP Streamable HTTP endpoint that shows checks everything:
// status codes, headers, JSON bodies and SSE streams, each message also landing in the inbox.
package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/redirect"
	"github.com/mcpspec/mcpspec/harness/sse"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Header names. Go canonicalises them, and lookups are case-insensitive, as HTTP says.
const (
	HeaderSession  = "Mcp-Session-Id"
	HeaderProtocol = "MCP-Protocol-Version"
	AcceptBoth     = "application/json, text/event-stream"
)

// seqHeader carries a request's transcript number from newRequest to roundTrip; it is removed
// before the request is sent.
const seqHeader = "X-Mcpspec-Transcript-Seq"

// Options configure a connection.
type Options struct {
	URL string
	// Header is added to every request (authentication and the like). Its values are secrets:
	// they are never written to the transcript.
	Header http.Header
	// HeaderTimeout bounds the wait for a response's status line and headers.
	HeaderTimeout time.Duration
	// MaxBody bounds a JSON body or one SSE event.
	MaxBody    int
	Transcript *transcript.Transcript
	// Server, when the harness launched the server, tells when it died and what it said.
	Server interface {
		Done() <-chan struct{}
		ExitErr() error
		StderrTail() string
	}
}

// Conn is a wire.Conn over HTTP. Each Conn is one MCP session (or none, before initialize).
type Conn struct {
	opts   Options
	client *http.Client
	inbox  *wire.Inbox
	tr     *transcript.Transcript
	base   context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	session   string
	protocol  string
	stateless bool // the stateless era: Mcp-Method and Mcp-Name headers mirror the body
	viol      []wire.Violation
	streams   sync.WaitGroup
	open      int             // requests whose response (body or stream) has not ended
	drained   []chan struct{} // closed when open drops to zero
	// cancelled holds the requests the harness cancelled: their streams are not resumed.
	cancelled map[jsonrpc.ID]bool
	// issued are the session ids the server's answers gave, in order, and ended those a DELETE
	// of this connection ended (ending.go).
	issued []string
	ended  map[string]bool
}

// Dial returns a connection; it sends nothing until asked.
func Dial(opts Options) *Conn {
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = 10 * time.Second
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 16 << 20
	}
	if opts.Transcript == nil {
		opts.Transcript = transcript.New()
	}
	base, cancel := context.WithCancel(context.Background())
	c := &Conn{
		opts: opts,
		client: &http.Client{Transport: &http.Transport{
			ResponseHeaderTimeout: opts.HeaderTimeout,
			DisableCompression:    true,
			MaxIdleConnsPerHost:   8,
		}, CheckRedirect: redirect.SameOrigin},
		inbox: wire.NewInbox(), tr: opts.Transcript, base: base, cancel: cancel, done: make(chan struct{}),
	}
	if opts.Server != nil {
		go func() {
			select {
			case <-opts.Server.Done():
				c.inbox.Close(fmt.Errorf("server exited (%v)", opts.Server.ExitErr()))
			case <-base.Done():
			}
		}()
	}
	return c
}

// SetSession sets the Mcp-Session-Id sent on later requests ("" sends none).
func (c *Conn) SetSession(id string) { c.mu.Lock(); c.session = id; c.mu.Unlock() }

// Session returns the session id in use.
func (c *Conn) Session() string { c.mu.Lock(); defer c.mu.Unlock(); return c.session }

// SetProtocolVersion sets the MCP-Protocol-Version header sent on later requests ("" sends none).
func (c *Conn) SetProtocolVersion(v string) { c.mu.Lock(); c.protocol = v; c.mu.Unlock() }

// SetStateless makes every request carry the headers of the stateless revision (Mcp-Method, and
// Mcp-Name where the method names something), taken from the body.
func (c *Conn) SetStateless(on bool) { c.mu.Lock(); c.stateless = on; c.mu.Unlock() }

// Header names of the stateless revision.
const (
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
)

// statelessHeaders derives Mcp-Method and Mcp-Name from a single request or notification body.
func statelessHeaders(body []byte) (method, name string) {
	m := jsonrpc.Parse(body)
	if m.Kind != jsonrpc.Request && m.Kind != jsonrpc.Notification {
		return "", ""
	}
	var p struct {
		Name   string `json:"name"`
		URI    string `json:"uri"`
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "tools/call", "prompts/get":
		name = p.Name
	case "resources/read":
		name = p.URI
	case "tasks/get", "tasks/update", "tasks/cancel": // the tasks extension routes by task
		name = p.TaskID
	}
	return m.Method, name
}

// URL is the endpoint.
func (c *Conn) URL() string { return c.opts.URL }

// Request describes one HTTP request beyond the defaults.
type Request struct {
	Method      string      // default POST
	Header      http.Header // added after the defaults, replacing them
	NoSession   bool        // omit Mcp-Session-Id
	NoProtocol  bool        // omit MCP-Protocol-Version
	Accept      string      // default: both types for POST, text/event-stream for GET; "-" sends none
	ContentType string      // default application/json for POST; "-" sends none
	URL         string      // default: the endpoint
	Channel     string      // where SSE messages land: default "POST-SSE" or "GET-SSE"
	// NoStatelessHeaders omits Mcp-Method and Mcp-Name on a stateless connection.
	NoStatelessHeaders bool
	// RawHeader is added last with its names exactly as written (not canonicalised), to show
	// how a server treats the case of header names.
	RawHeader http.Header
	// Host replaces the Host header, which is otherwise the URL's host (a Host in Header is
	// ignored by net/http).
	Host string
}

// Send implements wire.Conn: POST frame with the default headers.
func (c *Conn) Send(ctx context.Context, frame []byte) (*wire.Delivery, error) {
	return c.Do(ctx, frame, Request{}), nil
}

// Do sends one HTTP request and returns at once. The delivery becomes ready with the status and
// headers; a JSON body, or each event of an SSE stream, is put in the inbox as it arrives, and the
// delivery finishes when the body or stream ends. Streams live until they end or Close.
func (c *Conn) Do(ctx context.Context, body []byte, r Request) *wire.Delivery {
	d := wire.NewDelivery()
	d.CarriesReplies = true
	c.noteCancels(body)
	req, err := c.newRequest(body, r)
	if err != nil {
		d.Err = err
		d.MarkFinished()
		return d
	}
	c.streams.Add(1)
	c.mu.Lock()
	c.open++
	c.mu.Unlock()
	go func() {
		defer c.streams.Done()
		defer c.streamEnded()
		c.roundTrip(req, r, d, requestIDs(body))
	}()
	return d
}

// streamEnded counts one response as over (its messages are in the inbox by then) and wakes
// the waiters of Drained when it was the last one open.
func (c *Conn) streamEnded() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open--
	if c.open > 0 {
		return
	}
	for _, ch := range c.drained {
		close(ch)
	}
	c.drained = nil
}

// Drained implements wire.Drainer: every message this connection can receive comes in the
// response to a request the harness made.
func (c *Conn) Drained() <-chan struct{} {
	ch := make(chan struct{})
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open == 0 {
		close(ch)
		return ch
	}
	c.drained = append(c.drained, ch)
	return ch
}

func (c *Conn) newRequest(body []byte, r Request) (*http.Request, error) {
	method := r.Method
	if method == "" {
		method = http.MethodPost
	}
	url := r.URL
	if url == "" {
		url = c.opts.URL
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	// The stream outlives the caller's wait: it is bound to the connection, not to ctx.
	req, err := http.NewRequestWithContext(c.base, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("build %s request: %w", method, err)
	}
	for k, vs := range c.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	accept := r.Accept
	if accept == "" {
		accept = AcceptBoth
		if method == http.MethodGet {
			accept = "text/event-stream"
		}
	}
	if accept != "-" {
		req.Header.Set("Accept", accept)
	}
	if method == http.MethodPost && r.ContentType != "-" {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	c.mu.Lock()
	session, protocol, stateless := c.session, c.protocol, c.stateless
	c.mu.Unlock()
	if stateless && body != nil && !r.NoStatelessHeaders {
		method, name := statelessHeaders(body)
		if method != "" {
			req.Header.Set(HeaderMethod, method)
		}
		if name != "" {
			req.Header.Set(HeaderName, name)
		}
	}
	if session != "" && !r.NoSession {
		req.Header.Set(HeaderSession, session)
	}
	if protocol != "" && !r.NoProtocol {
		req.Header.Set(HeaderProtocol, protocol)
	}
	for k, vs := range r.Header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	for k, vs := range r.RawHeader {
		req.Header[k] = vs
	}
	if r.Host != "" {
		req.Host = r.Host
	}
	seq := c.tr.Add(record.Send, method, c.describeRequest(req, r), body)
	req.Header.Set(seqHeader, fmt.Sprint(seq))
	return req, nil
}

// describeRequest names the protocol headers of a request, never the caller's own (secrets).
func (c *Conn) describeRequest(req *http.Request, r Request) string {
	var parts []string
	parts = append(parts, req.URL.Path)
	for _, h := range []string{"Accept", "Content-Type", HeaderSession, HeaderProtocol, HeaderMethod, HeaderName, "Origin", "Last-Event-ID"} {
		if v := req.Header.Get(h); v != "" {
			parts = append(parts, h+": "+v)
		}
	}
	if r.Host != "" {
		parts = append(parts, "Host: "+r.Host)
	}
	return strings.Join(parts, "; ")
}

func (c *Conn) roundTrip(req *http.Request, r Request, d *wire.Delivery, pending map[jsonrpc.ID]bool) {
	defer d.MarkFinished()
	seq := req.Header.Get(seqHeader)
	answers := " (answers #" + seq + ")"
	req.Header.Del(seqHeader)
	resp, err := c.client.Do(req)
	if err != nil {
		d.Err = fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
		c.tr.Add(record.Recv, "HTTP", "no response"+answers, []byte(err.Error()))
		return
	}
	defer resp.Body.Close()
	c.noteSession(req, resp)
	d.Status, d.Header = resp.StatusCode, resp.Header
	d.ContentType = resp.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(d.ContentType)
	meta := fmt.Sprintf("HTTP %d", resp.StatusCode)
	if d.ContentType != "" {
		meta += " " + d.ContentType
	}
	if s := resp.Header.Get(HeaderSession); s != "" {
		meta += "; " + HeaderSession + ": " + s
	}
	if media == "text/event-stream" {
		c.tr.Add(record.Recv, "HTTP", meta+" (stream)"+answers, nil)
		d.MarkReady()
		channel := r.Channel
		if channel == "" {
			channel = req.Method + "-SSE"
		}
		st := &streamState{pending: pending}
		d.Events, d.Err = c.readStream(resp.Body, channel, d, st)
		if d.Err == nil && req.Method == http.MethodPost && c.resumable(st) {
			_ = resp.Body.Close()
			c.resumeStream(d, st, channel+"-RESUMED", seq)
		}
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.opts.MaxBody)+1))
	if err != nil {
		d.Err = fmt.Errorf("read %s response body: %w", req.Method, err)
	}
	if len(body) > c.opts.MaxBody {
		body = body[:c.opts.MaxBody]
		c.violate("oversized-body", fmt.Sprintf("response body over %d bytes", c.opts.MaxBody), body)
	}
	d.Body = body
	c.tr.Add(record.Recv, "HTTP", meta+answers, body)
	d.MarkReady()
	if media == "application/json" && len(bytes.TrimSpace(body)) > 0 {
		msg := jsonrpc.Parse(body)
		if msg.Kind == jsonrpc.Invalid {
			c.violate("invalid-json-body", msg.Problem, body)
		}
		c.inbox.PutVia(req.Method+"-JSON", msg, d)
		c.inbox.NoteBounds(c.tr, len(body))
	}
}

// readStream puts every SSE event's data in the inbox and returns how many events came. It
// keeps st up to date: the last event id and retry, and the requests still unanswered.
func (c *Conn) readStream(body io.Reader, channel string, d *wire.Delivery, st *streamState) (int, error) {
	rd := sse.NewReader(body, sse.WithMaxEventSize(c.opts.MaxBody))
	n := 0
	for {
		ev, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
				return n, nil
			}
			return n, fmt.Errorf("read SSE stream: %w", err)
		}
		n++
		st.saw(ev)
		d.AddEvent(wire.Event{ID: ev.ID, HasID: ev.HasID, Type: ev.Type, Data: ev.Data, HasRetry: ev.HasRetry, At: time.Now()})
		meta := ""
		if ev.HasID {
			meta = "id: " + ev.ID
		}
		if ev.Type != "" {
			meta = strings.TrimPrefix(meta+"; event: "+ev.Type, "; ")
		}
		if ev.HasRetry {
			meta = strings.TrimPrefix(fmt.Sprintf("%s; retry: %d", meta, ev.Retry.Milliseconds()), "; ")
		}
		c.tr.Add(record.Recv, channel, meta, []byte(ev.Data))
		if strings.TrimSpace(ev.Data) == "" {
			continue // priming events and keep-alives carry no message
		}
		msg := jsonrpc.Parse([]byte(ev.Data))
		if msg.Kind == jsonrpc.Invalid {
			c.violate("invalid-sse-data", msg.Problem, []byte(ev.Data))
		}
		st.answered(msg)
		c.inbox.PutVia(channel, msg, d)
		c.inbox.NoteBounds(c.tr, len(ev.Data))
	}
}

func (c *Conn) violate(kind, detail string, sample []byte) {
	if len(sample) > 512 {
		sample = sample[:512]
	}
	c.mu.Lock()
	if len(c.viol) < 200 {
		c.viol = append(c.viol, wire.Violation{At: time.Now(), Kind: kind, Detail: detail, Sample: string(sample)})
	}
	c.mu.Unlock()
}

// Transport implements wire.Conn.
func (c *Conn) Transport() string { return wire.HTTP }

// Inbox implements wire.Conn.
func (c *Conn) Inbox() *wire.Inbox { return c.inbox }

// Transcript implements wire.Conn.
func (c *Conn) Transcript() *transcript.Transcript { return c.tr }

// Violations implements wire.Conn.
func (c *Conn) Violations() []wire.Violation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Violation(nil), c.viol...)
}

// Done implements wire.Conn: closed when the launched server died or the conn was closed.
func (c *Conn) Done() <-chan struct{} {
	if c.opts.Server != nil {
		select {
		case <-c.opts.Server.Done():
			return c.opts.Server.Done()
		default:
		}
	}
	return c.done
}

// Err implements wire.Conn.
func (c *Conn) Err() error {
	if c.opts.Server != nil {
		return c.opts.Server.ExitErr()
	}
	return nil
}

// Diagnostics implements wire.Conn.
func (c *Conn) Diagnostics() string {
	if c.opts.Server != nil {
		return c.opts.Server.StderrTail()
	}
	return ""
}

// Close ends every open stream. It does not end the MCP session: a DELETE is a check's business.
func (c *Conn) Close() error {
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return nil
	default:
		close(c.done)
	}
	c.mu.Unlock()
	c.cancel()
	c.streams.Wait()
	c.inbox.Close(errors.New("connection closed by the harness"))
	c.client.CloseIdleConnections()
	return nil
}
