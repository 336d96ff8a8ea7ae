package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/patterns/subscriptions: subscriptions/listen (2026-07-28), the long-lived request
// that replaces the GET stream and resources/subscribe. Over HTTP a listen stream is the SSE
// response to its POST; on stdio it is every message tagged with the listen request's id in _meta
// (listen.go).

func init() {
	conform.Register(
		conform.Check{ID: "SUB-ACK-FIRST", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the first message of a listen stream is its acknowledgment",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkSubAckFirst}},
		conform.Check{ID: "SUB-ID-TAG", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every notification of a listen stream carries the listen request's id, same JSON type and value, as its subscriptionId",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkSubIDTag}},
		conform.Check{ID: "SUB-ONLY-REQUESTED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a listen stream that did not opt in to tool list changes hears nothing of them",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkSubOnlyRequested}},
		conform.Check{ID: "SUB-ACK-SUBSET", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the acknowledgment names only notification types the listen request asked for",
			LevelReason: "The spec describes the acknowledged set as a subset of the requested one without a keyword, so holding the acknowledgment to it is mcpspec's reading: a type acknowledged but not asked for warns. Sending such a notification is SUB-ONLY-REQUESTED's MUST.",
			Side:        conform.Server{Connection: conform.Fresh, Run: checkSubAckSubset}},
		conform.Check{ID: "SUB-NO-REQUEST-SCOPED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the progress of a request stays off the listen streams",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkSubNoRequestScoped}},
		conform.Check{ID: "SUB-MULTIPLE", Level: "MAY", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "two listen streams open at once each carry their own listen id",
			LevelReason: "Concurrent subscriptions are optional: a server that refuses the second is not applicable; one that serves both must tag each with its own id.",
			Side:        conform.Server{Connection: conform.Fresh, Run: checkSubMultiple}},
		conform.Check{ID: "SUB-GRACEFUL-CLOSE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: []string{wire.Stdio},
			Summary:     "a server shutting down answers an open listen request with a result naming the subscription",
			LevelReason: "The only server-side close a client can provoke is shutdown: on stdio, closing the server's stdin makes it exit while its stdout can still carry the closing result. Over HTTP a client cannot make the server close a stream (closing it itself is a cancellation), so the check runs on stdio only.",
			Side:        conform.Server{Connection: conform.Fresh, Run: checkSubGracefulClose}},
	)
}

func checkSubAckFirst(t *conform.T) conform.Finding {
	l, err := openListen(t, t.S, t.S.NextID(), map[string]any{"toolsListChanged": true})
	if err != nil {
		return conform.Crashed("%v", err)
	}
	first, f := l.start(t)
	if f != nil {
		return *f
	}
	if first.Kind != jsonrpc.Notification || first.Method != methodAcknowledged {
		return conform.Violated("the first message of listen %s is not its acknowledgment: %s", l.id.Text(), show(first))
	}
	return conform.Passed("")
}

func checkSubIDTag(t *conform.T) conform.Finding {
	// A number id: the classic bug is a tag that turns it into a string.
	l, _, f := acknowledged(t, t.S, t.S.NextNumberID(), map[string]any{"toolsListChanged": true})
	if f != nil {
		return *f
	}
	c, f := changeAndAwait(t, l)
	if f != nil {
		return *f
	}
	if f := settle(t, l.from); f != nil {
		return *f
	}
	n := 0
	for _, m := range l.messages() {
		if m.Kind != jsonrpc.Notification {
			continue
		}
		n++
		tag, ok := subscriptionTag(m)
		if !ok {
			return conform.Violated("a notification of listen %s has no %s: %s", l.id.Text(), metaSubscriptionID, show(m))
		}
		if id, err := jsonrpc.CanonicalID(tag); err != nil || id != l.id {
			return conform.Violated("a notification of listen %s is tagged %s: %s", l.id.Text(), string(tag), show(m))
		}
	}
	switch {
	case !c.triggered:
		return conform.Passed("%d notification(s) judged; %s", n, noListTool)
	case !c.heard:
		return conform.Passed("%d notification(s) judged; the tools list changed, but no notification of it came on the stream", n)
	}
	return conform.Passed("%d notification(s) judged", n)
}

func checkSubOnlyRequested(t *conform.T) conform.Finding {
	l, _, f := acknowledged(t, t.S, t.S.NextID(), map[string]any{"promptsListChanged": true})
	if f != nil {
		return *f
	}
	// A witness that does ask for tool list changes: once it has heard of them, so would l have.
	var witness *listen
	if t.Options().ListTool != "" {
		if witness, _, f = acknowledged(t, t.S, t.S.NextID(), map[string]any{"toolsListChanged": true}); f != nil {
			witness = nil
		}
	}
	c, f := changeAndAwait(t, witnesses(witness)...)
	if f != nil {
		return *f
	}
	if f := settle(t, l.from); f != nil {
		return *f
	}
	for _, m := range l.messages() {
		if m.Kind == jsonrpc.Notification && m.Method != methodAcknowledged && m.Method != "notifications/prompts/list_changed" {
			return conform.Violated("listen %s asked only for prompt list changes and got %s", l.id.Text(), show(m))
		}
	}
	switch {
	case !c.triggered:
		return conform.CannotTest("nothing unrequested arrived, but %s", noListTool)
	case witness == nil:
		return conform.Passed("nothing unrequested arrived within the quiet window (no second listen stream served as witness)")
	case !c.heard:
		return conform.CannotTest("the tools list changed, but a listen stream that asked for it heard nothing either, so silence proves nothing")
	}
	return conform.Passed("")
}

// filterMembers are the notification types of a SubscriptionFilter.
var filterMembers = []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions"}

// witnesses is ls without nils.
func witnesses(ls ...*listen) []*listen {
	return slices.DeleteFunc(ls, func(l *listen) bool { return l == nil })
}

func checkSubAckSubset(t *conform.T) conform.Finding {
	uri := "mcpspec://no-such-resource"
	requested := map[string]any{"toolsListChanged": true, "resourceSubscriptions": []string{uri}}
	_, ack, f := acknowledged(t, t.S, t.S.NextID(), requested)
	if f != nil {
		return *f
	}
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	if json.Unmarshal(ack.Params, &p) != nil || p.Notifications == nil {
		return conform.Violated("the acknowledgment has no notifications object: %s", show(ack))
	}
	for name, raw := range p.Notifications {
		if !slices.Contains(filterMembers, name) {
			continue // not a notification type this revision knows: the schema judges it
		}
		switch name {
		case "resourceSubscriptions":
			var uris []string
			if json.Unmarshal(raw, &uris) != nil {
				return conform.Violated("the acknowledged resourceSubscriptions is not a list of URIs: %s", show(ack))
			}
			for _, u := range uris {
				if u != uri {
					return conform.Violated("the acknowledgment names resource %q, which was not asked for: %s", u, show(ack))
				}
			}
		default:
			var on bool
			if json.Unmarshal(raw, &on) == nil && on && requested[name] == nil {
				return conform.Violated("the acknowledgment names %s, which was not asked for: %s", name, show(ack))
			}
		}
	}
	return conform.Passed("")
}

// startStatelessSlow calls the slow tool with a progress token in a request of the stateless
// revision (its own _meta carries the required keys beside the token).
func startStatelessSlow(t *conform.T, token jsonrpc.ID) (slowCall, error) {
	meta := map[string]any{harness.MetaProtocolVersion: t.Revision, harness.MetaClientCapabilities: map[string]any{}, "progressToken": token.JSON()}
	params := map[string]any{"name": t.Options().SlowTool, "arguments": json.RawMessage(t.Options().SlowToolArgs), "_meta": meta}
	c := slowCall{id: t.S.NextID(), token: token, from: t.S.Mark()}
	t.S.Sent(c.id, "tools/call")
	var err error
	c.d, err = t.S.Send(t.Ctx, rawRequest(c.id, "tools/call", params))
	return c, err
}

func checkSubNoRequestScoped(t *conform.T) conform.Finding {
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	l, _, f := acknowledged(t, t.S, t.S.NextID(), map[string]any{"toolsListChanged": true})
	if f != nil {
		return *f
	}
	call, err := startStatelessSlow(t, t.S.NextID())
	if err != nil {
		return conform.Crashed("starting the slow tool: %v", err)
	}
	if _, err := call.finish(t); err != nil {
		return conform.CannotTest("the slow tool got no response: %v", err)
	}
	// Notifications on the listen stream may trail the call's answer: a change heard of after it
	// shows the stream has caught up.
	if _, f := changeAndAwait(t, l); f != nil {
		return *f
	}
	if f := settle(t, l.from); f != nil {
		return *f
	}
	for _, m := range l.messages() {
		if m.Kind == jsonrpc.Notification && (m.Method == "notifications/progress" || m.Method == "notifications/message") {
			return conform.Violated("a request-scoped %s came on listen %s: %s", m.Method, l.id.Text(), show(m))
		}
	}
	if len(progressSince(t, call.from)) == 0 {
		return conform.CannotTest("the slow tool %q sent no progress at all, so there was nothing to misroute", t.Options().SlowTool)
	}
	return conform.Passed("")
}

func checkSubMultiple(t *conform.T) conform.Finding {
	first, _, f := acknowledged(t, t.S, t.S.NextID(), map[string]any{"toolsListChanged": true})
	if f != nil {
		return *f
	}
	second, err := openListen(t, t.S, t.S.NextNumberID(), map[string]any{"toolsListChanged": true})
	if err != nil {
		return conform.Crashed("%v", err)
	}
	// On stdio the second acknowledgment is found by its method, whatever it is tagged with.
	r, err := t.S.WaitFor(t.Ctx, second.d, second.from, func(r wire.Received) bool {
		if second.d.CarriesReplies {
			return r.Via == second.d
		}
		return wire.ContainsResponse(r.Msg, second.id) || (r.Msg.Kind == jsonrpc.Notification && r.Msg.Method == methodAcknowledged)
	})
	if err != nil {
		return conform.Violated("a second listen %s, with %s open, got no acknowledgment or answer: %v", second.id.Text(), first.id.Text(), err)
	}
	if resp, ok := wire.FindResponse(r.Msg, second.id); ok {
		return conform.NA("the server does not take a second subscription at once: %s", show(resp))
	}
	if f := tagIs(r.Msg, second); f != nil {
		return *f
	}
	second.ack = r.Msg
	c, f := changeAndAwait(t, first, second)
	if f != nil {
		return *f
	}
	if f := settle(t, first.from); f != nil {
		return *f
	}
	for _, l := range []*listen{first, second} {
		for _, m := range l.messages() {
			if f := tagIs(m, l); f != nil {
				return *f
			}
		}
	}
	if !c.heard {
		return conform.Passed("both acknowledgments carry their own id; no tools list change was heard of on both streams (%s)", noListTool)
	}
	return conform.Passed("")
}

// tagIs judges a notification of l: tagged with l's id exactly.
func tagIs(m jsonrpc.Message, l *listen) *conform.Finding {
	if m.Kind != jsonrpc.Notification {
		return nil
	}
	tag, _ := subscriptionTag(m)
	if id, err := jsonrpc.CanonicalID(tag); err != nil || id != l.id {
		f := conform.Violated("a notification of listen %s is tagged %s: %s", l.id.Text(), string(tag), show(m))
		return &f
	}
	return nil
}

func checkSubGracefulClose(t *conform.T) conform.Finding {
	conn, ok := t.S.Conn.(*stdio.Conn)
	if !ok {
		return conform.NA("the server can only be made to shut down over stdio")
	}
	l, _, f := acknowledged(t, t.S, t.S.NextID(), map[string]any{"toolsListChanged": true})
	if f != nil {
		return *f
	}
	if err := conn.CloseStdin(); err != nil {
		return conform.Failed(fmt.Errorf("closing the server's stdin: %w", err))
	}
	ctx, cancel := context.WithTimeout(t.Ctx, t.S.Env().Timeouts.Shutdown)
	defer cancel()
	r, err := t.S.Conn.Inbox().Wait(ctx, l.from, func(r wire.Received) bool {
		return wire.ContainsResponse(r.Msg, l.id) || isCancelOf(r.Msg, l.id)
	})
	if err != nil {
		return conform.Violated("shut down with listen %s open, the server sent no closing result: %v", l.id.Text(), err)
	}
	resp, isResp := wire.FindResponse(r.Msg, l.id)
	if !isResp {
		return conform.Violated("shut down with listen %s open, the server ended it with a cancellation rather than a result: %s", l.id.Text(), show(r.Msg))
	}
	if !resp.HasResult {
		return conform.Violated("shut down, the server answered listen %s with an error: %s", l.id.Text(), show(resp))
	}
	tag, _ := subscriptionTag(resp)
	if id, err := jsonrpc.CanonicalID(tag); err != nil || id != l.id {
		return conform.Violated("the closing result of listen %s is tagged %s: %s", l.id.Text(), string(tag), show(resp))
	}
	return conform.Passed("")
}

// isCancelOf reports whether m is a notifications/cancelled naming id.
func isCancelOf(m jsonrpc.Message, id jsonrpc.ID) bool {
	ref, ok := cancelledID(m)
	return ok && ref == id
}
