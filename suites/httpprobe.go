package suites

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: HTTP probing (raw requests, headers, answers judged as served or refused).

const (
	// foreignOrigin is an Origin no local server should trust.
	foreignOrigin = "http://evil.example"
	// sseCloseWindow is how long a response stream may stay open after its response event.
	sseCloseWindow = time.Second
)

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
	if t.S.Stateless() {
		method = listMethod(t.S)
	}
	return rawRequest(id, method, withProgressToken(t.S, nil, t.S.NextID())), id
}

// streamedAnswer POSTs a ping with a progress token and returns its answered delivery; where
// that came as JSON and a slow tool is named, the slow tool's call with a progress token is made
// and returned instead, as servers that stream only work reporting progress answer it as SSE.
func streamedAnswer(t *conform.T) (*wire.Delivery, error) {
	frame, id := streamedPing(t)
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, frame, streamhttp.Request{})
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return d, err
	}
	if mediaType(d) == "text/event-stream" {
		return d, nil
	}
	if _, ok := needSlowTool(t); !ok {
		return d, nil
	}
	c, err := startSlow(t, t.S.NextID(), t.S.NextID())
	if err != nil {
		return d, err
	}
	if _, err := c.finish(t); err != nil {
		return c.d, fmt.Errorf("the slow tool %q: %w", t.Options().SlowTool, err)
	}
	return c.d, nil
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

// slowToolReady ends a check that needs the slow tool before it runs, when there is none.
func slowToolReady(t *conform.T) (conform.Finding, bool) {
	f, ok := needSlowTool(t)
	return f, !ok
}

// servedFinding judges a request that must be served normally: HTTP 200 and a result.
func servedFinding(what string, resp jsonrpc.Message, d *wire.Delivery, err error) (conform.Finding, bool) {
	switch {
	case err != nil:
		return conform.Violated("%s got no JSON-RPC reply (HTTP %d): %v", what, d.Status, err), false
	case d.Status != http.StatusOK:
		return conform.Violated("%s got HTTP %d, want 200: %s", what, d.Status, show(resp)), false
	case resp.HasError:
		return conform.Violated("%s was refused: %s", what, show(resp)), false
	}
	return conform.Finding{}, true
}

// base64Header is value in the =?base64?…?= form of header values.
func base64Header(value string) string {
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(value)) + "?="
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func isEventStream(d *wire.Delivery) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(d.ContentType)), "text/event-stream")
}
