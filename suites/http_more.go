package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// More checks of the Streamable HTTP transport (2025-03-26 on, and the stateless revision):
// refused notifications, what a POST's SSE stream may carry, where a launched server listens.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-NOTIF-REJECT", Level: "MUST", Transports: httpOnly, Versions: streamableToo,
			Summary:     "a malformed POSTed notification is either accepted (202) or refused with an HTTP error status whose body, if JSON-RPC, is an error without an id",
			LevelReason: "The spec lets the server decide what it cannot accept, so a 202 passes; only a refusal is judged: it needs a status of 400 or above, and a JSON-RPC body may not carry an id (a plain-text body is not forbidden).",
			Run:         checkNotificationReject},
	)
	for id, reason := range map[string]string{
		"HTTP-ENDPOINT":          "served by every HTTP check through the one configured URL: HTTP-REQ-CONTENT-TYPE checks that a POSTed request is answered there, HTTP-GET-SSE-OR-405 what GET gets there",
		"HTTP-POST-BODY":         "binds what the client POSTs; the server's side, refusing an array from 2025-06-18 on, is BATCH-REMOVED's probe, and 2026-07-28 says nothing of what a server does with a POSTed response",
		"HTTP-BACKCOMPAT-DETECT": "guidance for clients that must guess a URL's transport; mcpspec is told the transport (--url or --sse), and the report shows per transport which revisions answered",
	} {
		conform.Exclude(id, reason)
	}
}

// malformedNotifications are notifications no JSON-RPC 2.0 peer has to take: a wrong jsonrpc
// version, and params that are not structured.
func malformedNotifications(t *conform.T) []namedFrame {
	method := "notifications/initialized"
	var params any
	if t.S.Modern() {
		method, params = "notifications/cancelled", t.S.ModernParams(cancelParams(t.S.NextID()))
	}
	wrongVersion := map[string]any{"jsonrpc": "1.0", "method": method}
	if params != nil {
		wrongVersion["params"] = params
	}
	v, _ := json.Marshal(wrongVersion)
	p, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": "mcpspec"})
	return []namedFrame{{"jsonrpc \"1.0\"", v}, {"params a string", p}}
}

// namedFrame is a probe and how the report names it.
type namedFrame struct {
	what  string
	frame []byte
}

func checkNotificationReject(t *conform.T) conform.Finding {
	var notes []string
	for _, n := range malformedNotifications(t) {
		what, frame := n.what, n.frame
		d, err := post(t, frame, streamhttp.Request{})
		if err != nil {
			return conform.Violated("a notification with %s: %v", what, err)
		}
		if err := d.Finished(t.Ctx); err != nil {
			return conform.Violated("a notification with %s: reading the response: %v", what, err)
		}
		if d.Status == http.StatusAccepted {
			notes = append(notes, what+": accepted (202)")
			continue
		}
		if d.Status < 400 {
			return conform.Violated("a notification with %s got HTTP %d: neither 202 (accepted) nor an error status: %s", what, d.Status, clip(string(d.Body), 200))
		}
		if m := jsonrpc.Parse(d.Body); len(d.Body) > 0 && m.Kind == jsonrpc.Response && m.HasID && !m.ID.IsNull() {
			return conform.Violated("a notification with %s was refused (HTTP %d) with a JSON-RPC error carrying id %s; a refusal's error has no id: %s", what, d.Status, m.ID.Text(), show(m))
		}
		notes = append(notes, fmt.Sprintf("%s: refused with HTTP %d", what, d.Status))
	}
	return conform.Passed("%s", strings.Join(notes, "; "))
}
