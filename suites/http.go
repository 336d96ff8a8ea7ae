package suites

import (
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

const (
	// foreignOrigin is an Origin no local server should trust.
	foreignOrigin = "http://evil.example"
	// sseCloseWindow is how long a response stream may stay open after its response event.
	sseCloseWindow = time.Second
)

var visibleASCII = regexp.MustCompile(`^[\x21-\x7E]+$`)

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-ORIGIN-VALIDATE", Level: "MUST", Transports: httpOnly, Revisions: conform.Since(harness.Rev20250326),
			Summary:     "a request with a foreign Origin header is refused, never served",
			LevelReason: "Before 2025-11-25 the spec says servers MUST validate Origin without naming a status; the observable part is that a foreign Origin is not served (no 2xx).",
			Run:         checkOriginValidate},
		conform.Check{ID: "HTTP-ORIGIN-403", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a request with a foreign Origin header is answered 403 Forbidden",
			Run:     checkOrigin403},
		conform.Check{ID: "HTTP-202-ACCEPTED", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a POSTed notification is accepted with 202 and an empty body",
			Run:     checkAccepted202},
		conform.Check{ID: "HTTP-REQ-CONTENT-TYPE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a POSTed request is answered as application/json holding its one response, or as text/event-stream",
			Run:     checkRequestContentType},
		conform.Check{ID: "HTTP-SSE-INCLUDES-RESPONSE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an SSE response stream carries the request's response before it ends",
			Run:     checkSSEIncludesResponse},
		conform.Check{ID: "HTTP-SSE-CLOSE-AFTER", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an SSE response stream ends soon (within a second) after its response",
			Run:     checkSSECloseAfter},
		conform.Check{ID: "HTTP-SSE-PRIME", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an SSE response stream starts with a priming event: an event id and empty data",
			Run:     checkSSEPrime},
		conform.Check{ID: "HTTP-GET-SSE-OR-405", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh,
			Summary: "GET on the endpoint opens an SSE stream or is refused with 405",
			Run:     checkGetSSEOr405},
		conform.Check{ID: "HTTP-GET-NO-RESPONSE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh,
			Summary: "the GET stream never carries responses to requests POSTed meanwhile",
			Run:     checkGetNoResponse},
		conform.Check{ID: "HTTP-EVENT-ID-UNIQUE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh,
			Summary: "SSE event ids are unique across all the streams of a session",
			Run:     checkEventIDsUnique},
		conform.Check{ID: "HTTP-SESSION-ID-CHARSET", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a session id contains only visible ASCII characters",
			Run:     checkSessionIDCharset},
		conform.Check{ID: "HTTP-SESSION-ID-SECURE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Raw,
			Summary: "session ids are unique and unguessable: distinct, at least 16 characters, not a counter",
			Run:     checkSessionIDSecure},
		conform.Check{ID: "HTTP-SESSION-REQUIRED-400", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "once sessions are in use, a request without a session id is answered 400",
			Run:     checkSessionRequired},
		conform.Check{ID: "HTTP-SESSION-TERMINATED-404", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh,
			Summary: "a request with a terminated (deleted) or unknown session id is answered 404",
			Run:     checkSessionTerminated},
		conform.Check{ID: "HTTP-PROTO-HEADER-INVALID", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an invalid or unsupported MCP-Protocol-Version header is answered 400",
			Run:     checkProtocolHeaderInvalid},
		conform.Check{ID: "HTTP-PROTO-HEADER-DEFAULT", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a request without MCP-Protocol-Version is still served (the negotiated revision applies)",
			Run:     checkProtocolHeaderDefault},
	)
}

// httpConn is the session's HTTP connection.
func httpConn(t *conform.T) *streamhttp.Conn { return t.S.Conn.(*streamhttp.Conn) }

// post sends frame with the request options and waits for its status.
func post(t *conform.T, frame []byte, r streamhttp.Request) (*wire.Delivery, error) {
	d := httpConn(t).Do(t.Ctx, frame, r)
	if err := waitReady(t, d); err != nil {
		return d, err
	}
	return d, nil
}

func waitReady(t *conform.T, d *wire.Delivery) error {
	ctx, cancel := contextWithTimeout(t, t.S.Env().Timeouts.Request)
	defer cancel()
	if err := d.Ready(ctx); err != nil {
		return fmt.Errorf("no HTTP response within %s: %w", t.S.Env().Timeouts.Request, err)
	}
	return nil
}

func mediaType(d *wire.Delivery) string {
	m, _, _ := mime.ParseMediaType(d.ContentType)
	return m
}

// pingFrame is a ping (at 2026-07-28 a server/discover with its _meta) with a fresh id.
func pingFrame(t *conform.T) ([]byte, jsonrpc.ID) {
	id := t.S.NextID()
	return probeRequest(t.S, id), id
}

// streamedPing is a ping that carries a progress token, which servers tend to answer as SSE. At
// 2026-07-28, which has no ping, it is a list request (server/discover may be answered at once).
func streamedPing(t *conform.T) ([]byte, jsonrpc.ID) {
	id := t.S.NextID()
	method := "ping"
	if t.S.Modern() {
		method = listMethod(t.S)
	}
	return rawRequest(id, method, withProgressToken(t.S, nil, t.S.NextID())), id
}

func checkOriginValidate(t *conform.T) conform.Finding {
	frame, _ := pingFrame(t)
	d, err := post(t, frame, streamhttp.Request{Header: http.Header{"Origin": {foreignOrigin}}})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if d.Status >= 200 && d.Status < 300 {
		return conform.Violated("a request with Origin: %s was served (HTTP %d)", foreignOrigin, d.Status)
	}
	return conform.Passed("refused with HTTP %d", d.Status)
}

func checkOrigin403(t *conform.T) conform.Finding {
	frame, _ := pingFrame(t)
	d, err := post(t, frame, streamhttp.Request{Header: http.Header{"Origin": {foreignOrigin}}})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if d.Status != http.StatusForbidden {
		return conform.Violated("a request with Origin: %s got HTTP %d, want 403", foreignOrigin, d.Status)
	}
	return conform.Passed("")
}

func checkAccepted202(t *conform.T) conform.Finding {
	frame := rawNotification("notifications/initialized", nil)
	if t.S.Modern() {
		// 2026-07-28 has no initialized notification; a cancellation of a request that never
		// existed is one every server must accept and ignore.
		frame = rawNotification("notifications/cancelled", t.S.ModernParams(cancelParams(t.S.NextID())))
	}
	d, err := post(t, frame, streamhttp.Request{})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if err := d.Finished(t.Ctx); err != nil {
		return conform.Violated("reading the response: %v", err)
	}
	if d.Status != http.StatusAccepted || len(d.Body) > 0 || d.Events > 0 {
		return conform.Violated("a POSTed notification got HTTP %d with %d body bytes and %d events, want 202 and nothing", d.Status, len(d.Body), d.Events)
	}
	return conform.Passed("")
}

func checkRequestContentType(t *conform.T) conform.Finding {
	frame, id := pingFrame(t)
	if t.S.Modern() {
		// Any request will do; the one that opens every session is the least telling.
		frame = rawRequest(id, listMethod(t.S), t.S.ModernParams(nil))
	}
	from := t.S.Mark()
	d, err := post(t, frame, streamhttp.Request{})
	if err != nil {
		return conform.Violated("%v", err)
	}
	switch mediaType(d) {
	case "text/event-stream":
		if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
			return conform.Violated("the SSE response carried no response: %v", err)
		}
		return conform.Passed("answered as text/event-stream")
	case "application/json":
		if err := d.Finished(t.Ctx); err != nil {
			return conform.Violated("reading the body: %v", err)
		}
		m := jsonrpc.Parse(d.Body)
		if m.Kind != jsonrpc.Response || m.ID != id {
			return conform.Violated("the application/json body is not the one response to %s: %s", id.Text(), clip(string(d.Body), 200))
		}
		return conform.Passed("answered as application/json")
	default:
		return conform.Violated("a request was answered with Content-Type %q (HTTP %d), want application/json or text/event-stream", d.ContentType, d.Status)
	}
}

// sseAnswer POSTs a ping with a progress token and returns the delivery when it is answered as an
// SSE stream; a JSON answer makes the SSE checks not applicable.
func sseAnswer(t *conform.T) (*wire.Delivery, jsonrpc.ID, int, *conform.Finding) {
	frame, id := streamedPing(t)
	from := t.S.Mark()
	d, err := post(t, frame, streamhttp.Request{})
	if err != nil {
		f := conform.Violated("%v", err)
		return nil, id, from, &f
	}
	if mediaType(d) != "text/event-stream" {
		f := conform.NA("the server answered a request with a progress token as %q, not as an SSE stream", d.ContentType)
		return nil, id, from, &f
	}
	return d, id, from, nil
}

func checkSSEIncludesResponse(t *conform.T) conform.Finding {
	d, id, from, f := sseAnswer(t)
	if f != nil {
		return *f
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.Violated("the SSE stream ended without the response to %s: %v", id.Text(), err)
	}
	return conform.Passed("")
}

func checkSSECloseAfter(t *conform.T) conform.Finding {
	d, id, from, f := sseAnswer(t)
	if f != nil {
		return *f
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.CannotTest("the SSE stream carried no response (see HTTP-SSE-INCLUDES-RESPONSE): %v", err)
	}
	ctx, cancel := contextWithTimeout(t, sseCloseWindow)
	defer cancel()
	if err := d.Finished(ctx); err != nil {
		return conform.Violated("the SSE stream was still open %s after its response", sseCloseWindow)
	}
	return conform.Passed("")
}

func checkSSEPrime(t *conform.T) conform.Finding {
	d, id, from, f := sseAnswer(t)
	if f != nil {
		return *f
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.CannotTest("the SSE stream carried no response: %v", err)
	}
	events := d.EventsSoFar()
	if len(events) == 0 {
		return conform.Violated("the SSE stream had no events")
	}
	if first := events[0]; !first.HasID || first.Data != "" {
		return conform.Violated("the first SSE event is not a priming event (id %q, data %q)", first.ID, clip(first.Data, 120))
	}
	return conform.Passed("")
}

// openGet opens the session's GET stream; ok is false with a finding when it is refused.
func openGet(t *conform.T) (*wire.Delivery, *conform.Finding) {
	d := httpConn(t).Do(t.Ctx, nil, streamhttp.Request{Method: http.MethodGet})
	if err := waitReady(t, d); err != nil {
		f := conform.Violated("GET: %v", err)
		return d, &f
	}
	return d, nil
}

func checkGetSSEOr405(t *conform.T) conform.Finding {
	d, f := openGet(t)
	if f != nil {
		return *f
	}
	switch {
	case d.Status == http.StatusMethodNotAllowed:
		return conform.Passed("GET refused with 405")
	case d.Status == http.StatusOK && mediaType(d) == "text/event-stream":
		return conform.Passed("GET opened an SSE stream")
	}
	return conform.Violated("GET got HTTP %d %q, want an SSE stream or 405", d.Status, d.ContentType)
}

// withGetStream opens a GET stream, or says the check does not apply. A GET left unanswered
// is HTTP-GET-SSE-OR-405's to judge; a check that needs the stream cannot test without it.
func withGetStream(t *conform.T) (*wire.Delivery, *conform.Finding) {
	d, f := openGet(t)
	if f != nil {
		f := conform.CannotTest("no GET stream to observe (see HTTP-GET-SSE-OR-405): %s", f.Message)
		return d, &f
	}
	if d.Status != http.StatusOK || mediaType(d) != "text/event-stream" {
		f := conform.NA("the server offers no GET stream (HTTP %d %q)", d.Status, d.ContentType)
		return d, &f
	}
	return d, nil
}

func checkGetNoResponse(t *conform.T) conform.Finding {
	if _, f := withGetStream(t); f != nil {
		return *f
	}
	from := t.S.Mark()
	for _, build := range []func(*conform.T) ([]byte, jsonrpc.ID){pingFrame, streamedPing} {
		frame, id := build(t)
		if _, err := t.S.Exchange(t.Ctx, id, frame); err != nil {
			return conform.Violated("%v", err)
		}
	}
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		return conform.Crashed("%v", err)
	}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if r.Channel == "GET-SSE" && r.Msg.Kind == jsonrpc.Response {
			return conform.Violated("a response arrived on the GET stream: %s", show(r.Msg))
		}
	}
	return conform.Passed("")
}

func checkEventIDsUnique(t *conform.T) conform.Finding {
	get, f := openGet(t)
	if f != nil {
		return *f
	}
	deliveries := []*wire.Delivery{get}
	for i := 0; i < 3; i++ {
		frame, id := streamedPing(t)
		from := t.S.Mark()
		d := httpConn(t).Do(t.Ctx, frame, streamhttp.Request{})
		if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
			return conform.Violated("%v", err)
		}
		deliveries = append(deliveries, d)
	}
	seen := map[string]int{}
	n := 0
	for i, d := range deliveries {
		for _, e := range d.EventsSoFar() {
			if !e.HasID || e.ID == "" {
				continue
			}
			n++
			if prev, dup := seen[e.ID]; dup {
				return conform.Violated("SSE event id %q was used on stream %d and again on stream %d", e.ID, prev, i)
			}
			seen[e.ID] = i
		}
	}
	if n == 0 {
		return conform.NA("the server sent no SSE event ids on this session")
	}
	return conform.Passed("%d event ids, all distinct", n)
}

func checkSessionIDCharset(t *conform.T) conform.Finding {
	id := httpConn(t).Session()
	if id == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	if !visibleASCII.MatchString(id) {
		return conform.Violated("session id %q has characters outside visible ASCII (0x21-0x7E)", id)
	}
	return conform.Passed("")
}

func checkSessionIDSecure(t *conform.T) conform.Finding {
	var ids []string
	for i := 0; i < 3; i++ {
		s, err := t.Open(t.Revision)
		if err != nil {
			return conform.Violated("opening session %d: %v", i+1, err)
		}
		ids = append(ids, s.Conn.(*streamhttp.Conn).Session())
	}
	if ids[0] == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return conform.Violated("two sessions got the same id %q", id)
		}
		seen[id] = true
		if len(id) < 16 {
			return conform.Violated("session id %q is %d characters long; at least 16 are needed to be hard to guess", id, len(id))
		}
	}
	if a, errA := strconv.ParseInt(ids[0], 10, 64); errA == nil {
		if b, errB := strconv.ParseInt(ids[1], 10, 64); errB == nil && b-a == 1 {
			return conform.Violated("session ids count up: %v", ids)
		}
	}
	return conform.Passed("")
}

func checkSessionRequired(t *conform.T) conform.Finding {
	if httpConn(t).Session() == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	d, err := post(t, rawRequest(t.S.NextID(), listMethod(t.S), nil), streamhttp.Request{NoSession: true})
	if err != nil {
		return conform.Violated("%v", err)
	}
	switch {
	case d.Status == http.StatusBadRequest:
		return conform.Passed("")
	case d.Status >= 200 && d.Status < 300:
		return conform.NA("the server serves requests without a session id (HTTP %d): it does not require sessions", d.Status)
	}
	return conform.Violated("a request without Mcp-Session-Id got HTTP %d, want 400", d.Status)
}

func checkSessionTerminated(t *conform.T) conform.Finding {
	hc := httpConn(t)
	old := hc.Session()
	if old == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	del := hc.Do(t.Ctx, nil, streamhttp.Request{Method: http.MethodDelete})
	if err := waitReady(t, del); err != nil {
		return conform.Violated("DELETE: %v", err)
	}
	target, what := old, "deleted"
	switch {
	case del.Status == http.StatusMethodNotAllowed:
		target, what = "mcpspec-no-such-session-"+t.S.NextID().Text()[1:9], "unknown"
	case del.Status < 200 || del.Status >= 300:
		return conform.Violated("DELETE of the session got HTTP %d, want 2xx or 405", del.Status)
	}
	d, err := post(t, rawRequest(t.S.NextID(), "ping", nil), streamhttp.Request{Header: http.Header{streamhttp.HeaderSession: {target}}})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if d.Status != http.StatusNotFound {
		return conform.Violated("a request with the %s session id %q got HTTP %d, want 404", what, target, d.Status)
	}
	return conform.Passed("")
}

func checkProtocolHeaderInvalid(t *conform.T) conform.Finding {
	for _, v := range []string{unsupportedRevision, "garbage"} {
		d, err := post(t, rawRequest(t.S.NextID(), listMethod(t.S), nil), streamhttp.Request{Header: http.Header{streamhttp.HeaderProtocol: {v}}})
		if err != nil {
			return conform.Violated("%v", err)
		}
		if d.Status != http.StatusBadRequest {
			return conform.Violated("MCP-Protocol-Version: %s got HTTP %d, want 400", v, d.Status)
		}
	}
	return conform.Passed("")
}

func checkProtocolHeaderDefault(t *conform.T) conform.Finding {
	frame, id := pingFrame(t)
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, frame, streamhttp.Request{NoProtocol: true})
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	if err != nil || !resp.HasResult {
		return conform.Violated("a request without MCP-Protocol-Version was not served (HTTP %d): %v %s", d.Status, err, show(resp))
	}
	return conform.Passed("")
}
