package clientsuite

import (
	"bytes"
	"encoding/json"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/probe"
)

// HTTP-POST-BODY and HTTP-POST-PER-MESSAGE share out what a client's POST may be: the second
// judges how each message travels (by POST, to the MCP endpoint), this one what one POST's body
// holds (a single message; a batch array only at 2025-03-26; at 2026-07-28 no response). So a
// batch breaks this check alone, and a message sent by GET that one alone.

func init() {
	Register(Check{ID: "HTTP-POST-BODY", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
		Summary: "each POST's body is a single JSON-RPC request, notification or response (a batch array only at 2025-03-26; at 2026-07-28 no response)",
		Side:    Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgePostBody}})
}

func judgePostBody(v *View) Finding {
	n := 0
	for _, i := range v.requests(record.ChanPOST) {
		r := v.Records[i]
		if r.Path != probe.Path {
			continue // HTTP-POST-PER-MESSAGE's matter
		}
		n++
		body := bytes.TrimSpace([]byte(r.Body))
		// A JSON object that is no JSON-RPC message is MSG-JSONRPC's matter; what is not one
		// JSON object or array is no message at all.
		if !json.Valid(body) || (body[0] != '{' && body[0] != '[') {
			return violated("POST (record %d) has a body that is not a JSON-RPC message: %q", r.Seq, clip(r.Body))
		}
		m := jsonrpc.Parse(body)
		switch {
		case m.Kind == jsonrpc.Batch && v.Revision != harness.Rev20250326:
			return violated("POST (record %d) carries a batch of %d messages; at %s a POST's body is a single message (batches were removed after 2025-03-26)", r.Seq, len(m.Elems), v.Revision)
		case m.Kind == jsonrpc.Response && harness.IsStateless(v.Revision):
			return violated("POST (record %d) carries a JSON-RPC response (id %s); at %s the client sends none", r.Seq, m.ID.Text(), v.Revision)
		}
	}
	if n == 0 {
		return untestable("the client sent no POST to the MCP endpoint")
	}
	return passed("each of the client's %d POSTs carries a single JSON-RPC message%s", n, map[bool]string{true: " or a batch (admitted at 2025-03-26)", false: ""}[v.Revision == harness.Rev20250326])
}

func init() {
	Register(
		Check{ID: "HTTP-POST-ACCEPT", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "every POST lists both application/json and text/event-stream in Accept",
			Side:    Client{Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Judge: judgePostAccept}},
		Check{ID: "HTTP-POST-PER-MESSAGE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "every message the client sends travels by POST to the MCP endpoint, never in another request's body (a POST's body is HTTP-POST-BODY's matter)",
			Side:    Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgePostPerMessage}},
	)
}

func judgePostAccept(v *View) Finding {
	posts := v.requests(record.ChanPOST)
	if len(posts) == 0 {
		return untestable("the client sent no POST")
	}
	for _, i := range posts {
		r := v.Records[i]
		a, ok := r.HasHeader("Accept")
		if !ok {
			return violated("POST (record %d) has no Accept header", r.Seq)
		}
		if !accepts(a, "application/json") || !accepts(a, "text/event-stream") {
			return violated("POST (record %d) has Accept: %s, which does not list both application/json and text/event-stream", r.Seq, a)
		}
	}
	return passed("all %d POSTs accept application/json and text/event-stream", len(posts))
}

func judgePostPerMessage(v *View) Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	for _, r := range v.Records {
		if r.Dir == record.Recv && r.Path != probe.Path && len(parseMsgs([]byte(r.Body))) > 0 {
			return violated("the client sent a message with %s to %s, not by POST to the MCP endpoint %s", r.Channel, r.Path, probe.Path)
		}
		if r.Dir == record.Recv && r.Channel != record.ChanPOST && r.Channel != record.ChanStdin && len(parseMsgs([]byte(r.Body))) > 0 {
			return violated("the client sent a message in the body of a %s request, not a POST", r.Channel)
		}
	}
	// What one POST's body holds (a single message, or a batch at 2025-03-26) is HTTP-POST-BODY's.
	return passed("each of the client's %d messages came in a POST to %s", len(v.Msgs), probe.Path)
}
