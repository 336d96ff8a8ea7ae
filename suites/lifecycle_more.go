package suites

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of what a server of the handshake revisions may send, and when: nothing before
// initialize, requests only once initialized, only what was negotiated, and cancellations only
// of its own requests.

func init() {
	conform.Register(
		conform.Check{ID: "LIFE-INIT-FIRST", Revisions: conform.AllCatalogued, Level: "MUST", Connection: conform.Raw, Once: true, Transports: stdioOnly,
			Summary:     "the server sends nothing of its own (a ping aside) before the client has initialized: its first words answer the client",
			LevelReason: "The server's part of initialization coming first is that it speaks only when spoken to until initialize. A ping, allowed before initialize, is the point of observation. Over HTTP a server can speak only in answer to a request, so the check runs on stdio.",
			Run:         checkInitFirst},
		conform.Check{ID: "LIFE-VERSION-ECHO", Revisions: conform.AllCatalogued, Level: "MUST", Connection: conform.Raw, Once: true, Transports: streamTransport,
			Summary:     "initialize asking for a revision the server supports is answered with that same revision",
			LevelReason: "A revision counts as supported when the server echoes it, offers it in answer to another, or lists it in server/discover (a dual-era server). The legacy HTTP+SSE transport carries no server/discover, so the check runs over stdio and Streamable HTTP.",
			Run:         checkVersionEcho},
		conform.Check{ID: "LIFE-SERVER-WAIT-INITIALIZED", Revisions: conform.AllCatalogued, Level: "SHOULD", Connection: conform.Raw,
			Summary: "between initialize and notifications/initialized the server sends no request but ping, even to a client declaring roots, sampling and elicitation",
			Run:     checkServerWaitsInitialized},
		// The next two judge the pristine session (pristine.go): everything the server sent.
		conform.Check{ID: "LIFE-OPERATION-NEGOTIATED", Revisions: conform.AllCatalogued, Level: "SHOULD", Connection: conform.Observed,
			Summary:     "the server sends only what was negotiated: no sampling, roots or elicitation requests to a client declaring none, and list-change, resource-update and log notifications only with the capability that announces them",
			LevelReason: "SHOULD at 2024-11-05 and 2025-03-26, MUST from 2025-06-18: a violation warns at the first two and fails from 2025-06-18 on. Respecting the negotiated revision's schema is MSG-JSONRPC's to judge.",
			Run:         checkOperationNegotiated},
		conform.Check{ID: "CANCEL-SAME-DIRECTION", Revisions: conform.Until(harness.Rev20251125), Level: "MUST", Connection: conform.Observed,
			Summary:     "a notifications/cancelled from the server names a request the server itself issued, never one of the client's",
			LevelReason: "At 2026-07-28 the rule is that server cancellations name an open subscriptions/listen, which CANCEL26-SERVER-LISTEN-ONLY checks; this check covers the handshake revisions.",
			Run:         checkCancelSameDirection},
	)
}

func checkInitFirst(t *conform.T) conform.Finding {
	id := t.S.NextID()
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "ping", nil))
	if err != nil {
		return conform.Crashed("sending a ping before initialize: %v", err)
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.CannotTest("a ping before initialize got no answer, so there is no moment before initialize to observe from: %v", err)
	}
	// Everything so far came before the client sent initialize.
	for _, r := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response || (m.Kind == jsonrpc.Request && m.Method == "ping") {
				continue
			}
			return conform.Violated("before the client sent initialize the server sent: %s", show(m))
		}
	}
	return conform.Passed("")
}

// supportEvidence says, for each handshake revision the server gives a sign of serving other
// than echoing it, what that sign is: offered in answer to another request, or listed by
// server/discover.
func supportEvidence(t *conform.T) map[string]string {
	out := map[string]string{}
	for _, u := range t.Revisions() {
		if n := t.Negotiation(u); n.Err == nil && n.Answered != "" && n.Answered != u {
			out[n.Answered] = fmt.Sprintf("the server offered it when asked for %s", u)
		}
	}
	ms, err := harness.OpenModern(t.Ctx, t.S.Conn, t.S.Env(), harness.Rev20260728, t.Check.ID)
	if err != nil {
		return out // not a server of the stateless revision: no list to read
	}
	var versions []string
	_ = json.Unmarshal(ms.InitResult()["supportedVersions"], &versions)
	for _, v := range versions {
		if harness.IsHandshake(v) {
			out[v] = "server/discover lists it in supportedVersions " + string(ms.InitResult()["supportedVersions"])
		}
	}
	return out
}

func checkVersionEcho(t *conform.T) conform.Finding {
	evidence := supportEvidence(t)
	var echoed, other []string
	for _, v := range t.Revisions() {
		n := t.Negotiation(v)
		switch {
		case n.Err != nil:
			other = append(other, v+" (no result)")
		case n.Answered == v:
			echoed = append(echoed, v)
		case evidence[v] != "":
			return conform.Violated("initialize asking for %s was answered with %q, yet the server supports %s: %s. The answer: %s", v, n.Answered, v, evidence[v], clip(string(n.Response), 240))
		default:
			other = append(other, fmt.Sprintf("%s (answered %s)", v, n.Answered))
		}
	}
	if len(echoed) == 0 {
		return conform.CannotTest("the server echoed none of %v, so no revision is known to be supported: %s", t.Revisions(), strings.Join(other, ", "))
	}
	return conform.Passed("echoed %s; not served: %s", strings.Join(echoed, ", "), strings.Join(other, ", "))
}

// everyInputCapability declares each client capability a server could send requests for.
func everyInputCapability(revision string) map[string]any {
	caps := map[string]any{"roots": map[string]any{"listChanged": true}, "sampling": map[string]any{}}
	if revision >= harness.Rev20250618 {
		caps["elicitation"] = map[string]any{}
	}
	return caps
}

func checkServerWaitsInitialized(t *conform.T) conform.Finding {
	params := harness.InitializeParams(t.Revision)
	params["capabilities"] = everyInputCapability(t.Revision)
	id := t.S.NextID()
	t.S.Sent(id, "initialize")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "initialize", params))
	if err != nil {
		return conform.Crashed("sending initialize: %v", err)
	}
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	if err != nil || !resp.HasResult {
		return conform.CannotTest("initialize did not succeed: %v %s", err, show(resp))
	}
	if hc, ok := t.S.Conn.(*streamhttp.Conn); ok {
		hc.SetSession(d.Header.Get(streamhttp.HeaderSession))
	}
	if err := t.S.Adopt(resp); err != nil {
		return conform.CannotTest("%v", err)
	}
	// The sentinel ping is the one request a client may send now; whatever the server sends
	// until it is answered and the quiet window has passed came before initialized.
	after, quietErr := t.S.Quiet(t.Ctx, from)
	for _, r := range after {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Request && m.Method != "ping" {
				return conform.Violated("before the client sent notifications/initialized the server sent the request: %s", show(m))
			}
		}
	}
	if quietErr != nil {
		select {
		case <-t.S.Conn.Done():
			return conform.Crashed("before notifications/initialized the server went away: %v", quietErr)
		default:
		}
		// Some servers answer nothing until initialized; without the ping's answer the
		// silence that follows proves nothing either way.
		return conform.CannotTest("the ping sent before notifications/initialized was not answered, so the server's silence cannot be proven: %v", quietErr)
	}
	if _, err := t.S.Notify(t.Ctx, "notifications/initialized", nil); err != nil {
		return conform.Crashed("notifications/initialized: %v", err)
	}
	return conform.Passed("")
}

// unnegotiated says why a message the server sent was not negotiated, or "" when it was. The
// harness declares no client capabilities.
func (ex *pristine) unnegotiated(m jsonrpc.Message) string {
	switch m.Kind {
	case jsonrpc.Request:
		if c, ok := inputMethodCapability[m.Method]; ok {
			return fmt.Sprintf("a %s request, though the client declared no %s capability", m.Method, c)
		}
	case jsonrpc.Notification:
		for _, area := range []string{"tools", "resources", "prompts"} {
			if m.Method == "notifications/"+area+"/list_changed" && !ex.capabilityFlag(area, "listChanged") {
				return fmt.Sprintf("%s, though the server did not declare %s.listChanged", m.Method, area)
			}
		}
		switch {
		case m.Method == "notifications/resources/updated" && !ex.capabilityFlag("resources", "subscribe"):
			return m.Method + ", though the server did not declare resources.subscribe"
		case m.Method == "notifications/message" && ex.capability("logging") == nil:
			return m.Method + ", though the server did not declare logging"
		}
	}
	return ""
}

func checkOperationNegotiated(t *conform.T) conform.Finding {
	ex, f := observePristine(t)
	if f != nil {
		return *f
	}
	for _, m := range ex.msgs {
		if why := ex.unnegotiated(m); why != "" {
			v := conform.Violated("the server sent %s: %s", why, show(m))
			v.Severe = t.Revision >= harness.Rev20250618 // MUST from 2025-06-18
			return v
		}
	}
	return conform.Passed("")
}

func checkCancelSameDirection(t *conform.T) conform.Finding {
	ex, f := observePristine(t)
	if f != nil {
		return *f
	}
	var issued []jsonrpc.ID // the server's own requests, in order
	for _, m := range ex.msgs {
		if m.Kind == jsonrpc.Request && m.HasID {
			issued = append(issued, m.ID)
		}
		id, ok := cancelledID(m)
		if !ok || slices.Contains(issued, id) {
			continue
		}
		what := "no request the server issued"
		if ex.answered(id) {
			what = "a request the client issued"
		}
		return conform.Violated("the server's cancellation names %s, %s: %s", id.Text(), what, show(m))
	}
	return conform.Passed("")
}
