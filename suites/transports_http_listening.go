package suites

import (
	"fmt"
	"net/http"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/transports/streamable-http § Listening for Messages from the Server: the GET
// stream and what it may carry.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-GET-SSE-OR-405", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "GET on the endpoint opens an SSE stream or is refused with 405",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkGetSSEOr405}},
		conform.Check{ID: "HTTP-GET-NO-RESPONSE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "the GET stream never carries responses to requests POSTed meanwhile",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkGetNoResponse}},
		conform.Check{ID: "HTTP-GET-UNRELATED", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "the GET stream carries no progress of a request POSTed meanwhile: that belongs to the request's own answer",
			Side:    conform.Server{Connection: conform.Fresh, Waits: true, Ready: slowToolReady, Run: checkGetUnrelated}},
		conform.Check{ID: "HTTP-NO-BROADCAST", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "with two GET streams open, each notification a list change causes comes on one stream only, never copied to several",
			LevelReason: "One list change should cause one notification; the same notification text on two streams of the session is read as one message broadcast.",
			Side:        conform.Server{Connection: conform.Fresh, Ready: listToolReady, Run: checkNoBroadcast}},
	)
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

// listToolReady ends a check that needs a list change before it runs, when no list-changed
// tool was named or the server has no tools to call.
func listToolReady(t *conform.T) (conform.Finding, bool) {
	if t.Options().ListTool == "" {
		return conform.CannotTest("needs a tool whose call changes a list: name one with --list-changed-tool"), true
	}
	return capabilityReady("tools")(t)
}

func checkGetUnrelated(t *conform.T) conform.Finding {
	get, f := withGetStream(t)
	if f != nil {
		return *f
	}
	token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-get-unrelated-"+randomHex(4)))
	c, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return conform.CannotTest("starting the slow call: %v", err)
	}
	if _, err := c.finish(t); err != nil {
		return conform.CannotTest("the slow tool %q got no response: %v", t.Options().SlowTool, err)
	}
	if _, err := t.S.Quiet(t.Ctx, c.from); err != nil {
		return conform.Crashed("%v", err)
	}
	own := 0
	for _, r := range t.S.Conn.Inbox().Since(c.from) {
		for _, m := range flatten(r.Msg) {
			if got, ok := progressTokenOf(m); !ok || got != token {
				continue
			}
			if r.Via == get {
				return conform.Violated("progress of a POSTed request came on the GET stream: %s", show(m))
			}
			own++
		}
	}
	if own == 0 {
		return conform.CannotTest("the slow tool %q reported no progress, so none could stray to the GET stream", t.Options().SlowTool)
	}
	return conform.Passed("%d progress notifications, none on the GET stream", own)
}

func checkNoBroadcast(t *conform.T) conform.Finding {
	gets := 0
	var noGet *conform.Finding // why the first GET gave no stream: none offered (na), or no answer
	for i := 0; i < 2; i++ {
		if _, f := withGetStream(t); f == nil {
			gets++
		} else if noGet == nil {
			noGet = f
		}
	}
	if gets == 0 {
		return *noGet
	}
	from := t.S.Mark()
	if err := callListTool(t); err != nil {
		return conform.CannotTest("%v", err)
	}
	defer func() { _ = callListTool(t) }() // change the list back
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		return conform.Crashed("%v", err)
	}
	streams := map[string]map[*wire.Delivery]bool{}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind != jsonrpc.Notification || r.Via == nil {
				continue
			}
			key := string(m.Raw)
			if streams[key] == nil {
				streams[key] = map[*wire.Delivery]bool{}
			}
			streams[key][r.Via] = true
			if n := len(streams[key]); n > 1 {
				return conform.Violated("the same notification came on %d streams (%d GET streams open): %s", n, gets, show(m))
			}
		}
	}
	if len(streams) == 0 {
		return conform.CannotTest("calling the list-changed tool %q caused no notification", t.Options().ListTool)
	}
	return conform.Passed("%d distinct notification(s), each on one stream (%d GET streams open)", len(streams), gets)
}
