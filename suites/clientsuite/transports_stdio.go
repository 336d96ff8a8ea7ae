package clientsuite

import (
	"bytes"
	"encoding/json"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client checks of basic/transports (stdio): what the client writes to the server's stdin.

func init() {
	Register(
		Check{ID: "STDIO-CLIENT-STDIN", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio},
			Summary: "every line the client writes to the server's stdin is a JSON-RPC message",
			Side:    Client{Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Judge: judgeStdin}},
		Check{ID: "STDIO26-NO-CLIENT-RESPONSES", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio},
			Summary: "the client writes no JSON-RPC responses to the server's stdin",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeNoClientResponses}},
		Check{ID: "STDIO26-CANCEL", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio},
			Summary: "the client cancels an in-flight request with a notifications/cancelled whose requestId is the request's id",
			LevelReason: "The MUST says how a client cancels over stdio, so it judges the notifications/cancelled a client sends. A client that stops waiting " +
				"for a timed-out request without sending one cancelled nothing: it breaks the Timeouts section's SHOULD (LIFE-TIMEOUT-CANCEL), not this MUST, and is na here.",
			Side: Client{Scenario: probe.ScenarioRequestTimeout, Judge: judgeStdioCancel}},
		Check{ID: "STDIO26-SUB-CORRELATE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio},
			Summary: "the client takes a notification for its subscription by the io.modelcontextprotocol/subscriptionId in its _meta, not by its type",
			Side:    Client{Scenario: probe.ScenarioSubscriptions, Judge: judgeSubCorrelate}},
	)
}

func judgeStdin(v *View) Finding {
	n := 0
	for _, r := range v.Records {
		if r.Dir != record.Recv || r.Channel != record.ChanStdin {
			continue
		}
		n++
		if why := notAMessage([]byte(r.Body)); why != "" {
			return violated("line %d the client wrote to the server's stdin is not a JSON-RPC message (%s): %q", n, why, clip(r.Body))
		}
		// 2025-06-18 removed batches: from then on an array is no message of the revision.
		if t := bytes.TrimSpace([]byte(r.Body)); len(t) > 0 && t[0] == '[' && v.Revision >= harness.Rev20250618 {
			return violated("line %d the client wrote to the server's stdin is a batch, which %s does not have: %q", n, v.Revision, clip(r.Body))
		}
	}
	if n == 0 {
		return untestable("the client wrote nothing to the server's stdin")
	}
	return passed("all %d lines the client wrote are JSON-RPC messages of %s", n, v.Revision)
}

// notAMessage says why a line is not a JSON-RPC message (or a batch of them), "" if it is.
func notAMessage(line []byte) string {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return "an empty line"
	}
	var items []json.RawMessage
	if t[0] == '[' {
		if json.Unmarshal(t, &items) != nil || len(items) == 0 {
			return "not a JSON array of messages"
		}
	} else {
		items = []json.RawMessage{t}
	}
	for _, it := range items {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it, &m); err != nil {
			return "not a JSON object"
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			return `no "jsonrpc":"2.0"`
		}
		if m["method"] == nil && m["id"] == nil {
			return "neither a method nor an id"
		}
	}
	return ""
}

func judgeNoClientResponses(v *View) Finding {
	for _, m := range v.Msgs {
		if m.IsResponse() {
			return violated("the client wrote a JSON-RPC response (id %s, record %d) to the server's stdin: %s", m.ID, v.Records[m.Rec].Seq, clip(string(m.Raw)))
		}
	}
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	return passed("none of the client's %d messages is a response", len(v.Msgs))
}

func judgeStdioCancel(v *View) Finding {
	at, id, f := v.held()
	if f != nil {
		return *f
	}
	c := v.cancellation(at)
	switch {
	case before(c.notice, c.lateRec):
		if f := v.judgeNotice(c, id); f != nil {
			return *f
		}
		return passed("the client cancelled the in-flight request %s with notifications/cancelled naming it (record %d)", id, v.Records[c.notice.Rec].Seq)
	case before(c.wentOn, c.lateRec):
		// Going on without a word is not a cancellation sent wrongly: the timed-out request is
		// still in flight for the server. That breaks the Timeouts SHOULD, not this MUST.
		return na("the client did not cancel request %s: it stopped waiting for it (it went on with %s, record %d) without a notifications/cancelled, so it cancelled nothing (not cancelling a timed-out request is the Timeouts section's SHOULD, LIFE-TIMEOUT-CANCEL)", id, describe(*c.wentOn), v.Records[c.wentOn.Rec].Seq)
	case c.lateRec >= 0:
		return na("the client did not cancel request %s: it waited for the probe's late answer, so it cancelled nothing", id)
	}
	return na("the client did not cancel request %s: it ended the connection with the request in flight", id)
}

func judgeSubCorrelate(v *View) Finding {
	listen := v.note(record.EvSubscribed, -1)
	if listen < 0 {
		return v.noSubscription()
	}
	foreign := v.note(record.EvForeignChange, listen-1)
	own := v.note(record.EvOwnChange, listen)
	// Up to the relaunch, if any: the second connection sends no foreign notification.
	end := v.note(record.EvRelaunch, listen)
	if foreign < 0 {
		return untestable("the probe sent no notification of another subscription")
	}
	if m := v.listsBetween(foreign, own); m != nil && (end < 0 || m.Rec < end) {
		return violated("the client listed the tools again (record %d) after a tools/list_changed whose _meta names subscription %q, which it never opened, before any of its own subscription's", v.Records[m.Rec].Seq, probe.ForeignSubscription)
	}
	if own < 0 {
		return untestable("the client did not call %s after its subscription was acknowledged, so the probe sent no list_changed of its own subscription to tell its silence from deafness (the contract)", probe.ToolEcho)
	}
	if m := v.listsBetween(own, end); m != nil {
		return passed("the client ignored the tools/list_changed of subscription %q and listed the tools again on its own subscription's (record %d)", probe.ForeignSubscription, v.Records[m.Rec].Seq)
	}
	return untestable("the client did not list the tools again after its own subscription's tools/list_changed, so its silence after the other subscription's shows nothing (the contract)")
}
