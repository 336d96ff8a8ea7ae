package suites

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpspec/mcpspec/harness/legacysse"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the HTTP+SSE transport of 2024-11-05 (basic/transports/streamable-http § HTTP+SSE
// Transport in the newest revision, which deprecates it).

func init() {
	conform.Register(
		conform.Check{ID: "SSE-MESSAGE-EVENTS", Level: "MUST", Transports: []string{wire.SSE}, Revisions: conform.AllCatalogued,
			Summary:     "on the legacy SSE stream every server message comes as a message event whose data is one JSON-RPC message",
			LevelReason: "The row describes the transport without a keyword, but what breaks it breaks a MUST: data that is not one JSON-RPC message breaks 'messages MUST follow JSON-RPC' (MSG-JSONRPC), and a message in another event type never reaches a client of this transport (a response so sent leaves its request unanswered, which JSON-RPC forbids).",
			Side:        conform.Server{Connection: conform.Observed, Run: checkSSEMessageEvents}},
		conform.Check{ID: "SSE-TWO-ENDPOINTS", Level: "MUST", Transports: sseOnly, Revisions: conform.AllCatalogued,
			Summary: "the SSE URL answers GET with an event stream, and the announced endpoint accepts POSTed messages (answers arrive on the stream)",
			Side:    conform.Server{Connection: conform.Raw, Run: checkSSETwoEndpoints}},
		conform.Check{ID: "SSE-ENDPOINT-EVENT", Level: "MUST", Transports: sseOnly, Revisions: conform.AllCatalogued,
			Summary: "the first event on the SSE stream is an endpoint event whose data is a URI",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkSSEEndpointEvent}},
		conform.Check{ID: "SSE-ORIGIN", Level: "MUST", Transports: sseOnly, Revisions: conform.AllCatalogued,
			Summary:     "a GET of the stream or a POST with a foreign Origin header is refused",
			LevelReason: "The 2024-11-05 transport page says servers MUST validate Origin; the observable part is that a foreign Origin is not served (no 2xx).",
			Side:        conform.Server{Run: checkSSEOrigin}},
	)
}

// checkSSEMessageEvents judges the pristine session's stream (pristine.go), from its start.
func checkSSEMessageEvents(t *conform.T) conform.Finding {
	p, f := observePristine(t)
	if f != nil {
		return *f
	}
	var found []string
	for _, v := range p.violations {
		if v.Kind == "unexpected-event-type" || v.Kind == "invalid-sse-data" {
			found = append(found, fmt.Sprintf("%s: %q", v.Detail, clip(v.Sample, 160)))
		}
	}
	if len(found) > 0 {
		return conform.Violated("%d event(s) on the SSE stream were not message events carrying JSON-RPC:\n%s", len(found), strings.Join(found, "\n"))
	}
	return conform.Passed("%s", p.workNote())
}

// The HTTP+SSE transport is the one of 2024-11-05.
var sseOnly = []string{wire.SSE}

func sseConn(t *conform.T) *legacysse.Conn { return t.S.Conn.(*legacysse.Conn) }

func checkSSETwoEndpoints(t *conform.T) conform.Finding {
	c := sseConn(t)
	if m, _, _ := mime.ParseMediaType(c.Stream.ContentType); c.Stream.Status != http.StatusOK || m != "text/event-stream" {
		return conform.Violated("GET %s answered HTTP %d %q, want 200 text/event-stream", c.SSEURL(), c.Stream.Status, c.Stream.ContentType)
	}
	frame, id := pingFrame(t)
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		return conform.Violated("POST to %s: %v", c.Endpoint, err)
	}
	if err := waitReady(t, d); err != nil {
		return conform.Violated("POST to %s: %v", c.Endpoint, err)
	}
	if d.Status < 200 || d.Status >= 300 {
		return conform.Violated("POST of a ping to the endpoint %s got HTTP %d", c.Endpoint, d.Status)
	}
	if _, err := t.S.AwaitReply(t.Ctx, nil, from, id); err != nil {
		return conform.Violated("the ping POSTed to %s was not answered on the stream: %v", c.Endpoint, err)
	}
	return conform.Passed("")
}

func checkSSEEndpointEvent(t *conform.T) conform.Finding {
	c := sseConn(t)
	first := c.FirstEvent
	if first.Type != "endpoint" {
		return conform.Violated("the first event on the stream is %q (data %q), not an endpoint event", first.Type, clip(first.Data, 120))
	}
	if _, err := url.Parse(strings.TrimSpace(first.Data)); err != nil || strings.TrimSpace(first.Data) == "" {
		return conform.Violated("the endpoint event's data %q is not a URI", first.Data)
	}
	return conform.Passed("")
}

func checkSSEOrigin(t *conform.T) conform.Finding {
	c := sseConn(t)
	origin := http.Header{"Origin": {foreignOrigin}}
	get := c.Do(t.Ctx, nil, legacysse.Request{Method: http.MethodGet, URL: c.SSEURL(), Header: origin})
	if err := waitReady(t, get); err != nil {
		return conform.Violated("GET with a foreign Origin: %v", err)
	}
	if get.Status >= 200 && get.Status < 300 {
		return conform.Violated("GET %s with Origin: %s was served (HTTP %d)", c.SSEURL(), foreignOrigin, get.Status)
	}
	frame, _ := pingFrame(t)
	post := c.Do(t.Ctx, frame, legacysse.Request{Header: origin})
	if err := waitReady(t, post); err != nil {
		return conform.Violated("POST with a foreign Origin: %v", err)
	}
	if post.Status >= 200 && post.Status < 300 {
		return conform.Violated("a POST with Origin: %s was served (HTTP %d)", foreignOrigin, post.Status)
	}
	return conform.Passed("")
}
