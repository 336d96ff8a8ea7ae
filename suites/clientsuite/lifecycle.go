package clientsuite

import (
	"fmt"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"slices"
)

// The client checks of basic/lifecycle: the handshake, the version a client speaks, the header
// that carries it, and what a client does with a request left unanswered.

func init() {
	Register(
		Check{ID: "LIFE-INITIALIZED-NOTIF", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "after the InitializeResult the client sends notifications/initialized before any request but ping",
			Side:    Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgeInitialized}},
		Check{ID: "LIFE-CLIENT-VERSION-DISCONNECT", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "a client offered a protocol version it does not support disconnects instead of going on",
			Side:    Client{Scenario: probe.ScenarioVersionUnsupported, Once: true, Judge: judgeVersionDisconnect}},
		Check{ID: "LIFE-HTTP-VERSION-HEADER", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "every HTTP request after initialization carries MCP-Protocol-Version",
			Side:    Client{Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Judge: judgeVersionHeader}},
		Check{ID: "LIFE-PRE-INIT-REQUEST", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "the client sends no request but ping before the server has answered initialize",
			LevelReason: "The spec's SHOULD NOT for a request sent while initialize is unanswered. A request sent before initialize itself " +
				"breaks \"the initialization phase MUST be the first interaction\" and fails. A dual-era client's server/discover before initialize is no breach: " +
				"2026-07-28 asks a client that speaks it to try discovery first and fall back to initialize when refused.",
			Side: Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgePreInit}},
		Check{ID: "LIFE-TIMEOUT-CANCEL", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: stdioHTTP,
			Summary: "a request unanswered within the client's timeout is cancelled (notifications/cancelled naming it; at 2026-07-28 over HTTP, its POST's stream closed), and no longer waited for",
			Side:    Client{Scenario: probe.ScenarioRequestTimeout, Judge: judgeTimeoutCancel}},
	)
}

func judgeInitialized(v *View) Finding {
	after := v.After()
	if len(after) == 0 {
		return v.notProceeded()
	}
	// Judged in the client's own order from its initialize on, not from the moment the probe
	// answered: a notification sent right behind initialize (fire and forget, before the
	// result was read) is sent all the same, and where the probe happened to record it beside
	// its answer must not decide the verdict.
	start := slices.IndexFunc(v.Msgs, func(m Msg) bool { return m.Method == "initialize" && m.IsRequest() })
	for _, m := range v.Msgs[start+1:] {
		switch {
		case m.Method == "notifications/initialized":
			return passed("notifications/initialized came before any request but ping after initialize (record %d)", v.Records[m.Rec].Seq)
		case m.IsRequest() && m.Method != "ping":
			return violated("the client sent %s (record %d) before notifications/initialized", m.Method, v.Records[m.Rec].Seq)
		}
	}
	return violated("the client went on after the InitializeResult without ever sending notifications/initialized")
}

func judgeVersionDisconnect(v *View) Finding {
	if v.InitAnswered < 0 {
		return untestable("the client sent no initialize the probe could answer")
	}
	for _, m := range v.After() {
		return violated("offered protocol version %s, which no client supports, the client went on: it sent %s", v.Offered, describe(m))
	}
	return passed("the client sent nothing more after the probe offered protocol version %s", v.Offered)
}

func judgeVersionHeader(v *View) Finding {
	reqs := v.RequestsAfter()
	if len(reqs) == 0 {
		return v.notProceeded()
	}
	n := 0
	for _, i := range reqs {
		r := v.Records[i]
		if isInitialize(r) {
			continue // a re-initialize negotiates anew
		}
		n++
		if _, ok := r.HasHeader("MCP-Protocol-Version"); !ok {
			return violated("%s (record %d) after initialization at %s carries no MCP-Protocol-Version header", r.Channel, r.Seq, v.Offered)
		}
	}
	return passed("all %d requests after initialization carry MCP-Protocol-Version", n)
}

func judgePreInit(v *View) Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	n := 0
	initSent := false
	for _, m := range v.Msgs {
		if v.InitAnswered >= 0 && m.Rec > v.InitAnswered {
			break
		}
		if !m.IsRequest() {
			continue
		}
		n++
		switch m.Method {
		case "initialize":
			initSent = true
			continue
		case "ping", "server/discover":
			continue
		}
		if !initSent {
			f := violated("the client sent %s (record %d) before initialize: the initialization phase MUST be the first interaction", m.Method, v.Records[m.Rec].Seq)
			f.Severe = true
			return f
		}
		when := "before the probe answered its initialize"
		if v.InitAnswered < 0 {
			when = "and the probe never answered an initialize"
		}
		return violated("the client sent %s (record %d) %s", m.Method, v.Records[m.Rec].Seq, when)
	}
	if v.InitAnswered < 0 {
		return untestable("the client sent no initialize the probe could answer")
	}
	return passed("before the InitializeResult the client sent no request but initialize, ping or server/discover (%d in all)", n)
}

func judgeTimeoutCancel(v *View) Finding {
	at, id, f := v.held()
	if f != nil {
		return *f
	}
	c := v.cancellation(at)
	if harness.IsStateless(v.Revision) && v.Transport == wire.HTTP {
		return v.judgeStreamClose(c, id)
	}
	switch {
	case before(c.notice, c.lateRec):
		if c.named != id && harness.IsStateless(v.Revision) {
			// At 2026-07-28 over stdio how the notification names the request is a MUST of its
			// own, judged there: one fault, one check.
			return na("the client's notifications/cancelled (record %d) names requestId %s, not %s: at %s over stdio that is STDIO26-CANCEL's MUST", v.Records[c.notice.Rec].Seq, orNone(c.named), id, v.Revision)
		}
		if f := v.judgeNotice(c, id); f != nil {
			return *f
		}
		went := "and sent nothing more"
		if c.wentOn != nil {
			went = fmt.Sprintf("and went on (%s, record %d)", describe(*c.wentOn), v.Records[c.wentOn.Rec].Seq)
		}
		return passed("the client cancelled the timed-out request %s with notifications/cancelled (record %d) %s", id, v.Records[c.notice.Rec].Seq, went)
	case before(c.wentOn, c.lateRec):
		return violated("the client stopped waiting for request %s (it sent %s, record %d) without a notifications/cancelled for it", id, describe(*c.wentOn), v.Records[c.wentOn.Rec].Seq)
	case c.lateRec >= 0:
		return violated("the client never cancelled request %s: it waited past its own timeout until the probe's late answer (%s)", id, v.Records[c.lateRec].Body)
	}
	return violated("the client never cancelled request %s: it left with the request unanswered and no notifications/cancelled", id)
}

// judgeStreamClose judges the timed-out request at 2026-07-28 over Streamable HTTP, where closing
// the request's response stream is the cancellation (patterns/cancellation § Timeouts).
func (v *View) judgeStreamClose(c cancellation, id string) Finding {
	switch {
	case c.closed >= 0 && (c.lateRec < 0 || c.closed < c.lateRec):
		// A connection closes when its client exits too: a close after which the client sent
		// nothing cannot be told from the client leaving with the request still open. A
		// request it sent after the held one counts wherever its record falls: the probe
		// learns of a closed connection when its server's reader runs, which on a loaded
		// machine can be after it has served the client's next request on a new one.
		if c.wentOn == nil && !v.exchangedAfter(c.closed) {
			return untestable("the client closed the POST stream of request %s (record %d) and exchanged nothing more with the probe, so its close cannot be told from its leaving (the contract: call every listed tool)", id, v.Records[c.closed].Seq)
		}
		return passed("the client cancelled the timed-out request %s by closing its POST's response stream (record %d)", id, v.Records[c.closed].Seq)
	case before(c.notice, c.lateRec):
		// The notification releases nothing here (the probe holds on to see the close), so the
		// stream stayed open until the late answer, or until the probe stopped.
		until := ""
		if c.lateRec >= 0 {
			until = fmt.Sprintf(" until the probe's late answer (record %d)", v.Records[c.lateRec].Seq)
		}
		return violated("the client sent notifications/cancelled (record %d) for request %s and kept its POST's stream open%s: at %s over Streamable HTTP closing the request's response stream is the cancellation", v.Records[c.notice.Rec].Seq, id, until, v.Revision)
	case before(c.wentOn, c.lateRec):
		return violated("the client stopped waiting for request %s (it sent %s, record %d) and left its POST's response stream open: at %s over Streamable HTTP closing that stream is the cancellation", id, describe(*c.wentOn), v.Records[c.wentOn.Rec].Seq, v.Revision)
	case c.lateRec >= 0:
		return violated("the client never cancelled request %s: it waited past its own timeout until the probe's late answer (%s)", id, v.Records[c.lateRec].Body)
	}
	return violated("the client never cancelled request %s: it left with the request unanswered and its POST's stream open", id)
}

// exchangedAfter reports whether a message of the client, or an answer of the probe, came after
// record index i.
func (v *View) exchangedAfter(i int) bool {
	for _, r := range v.Records[i+1:] {
		if r.Dir == record.Recv || r.Dir == record.Send {
			return true
		}
	}
	return false
}
