package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client checks of basic/transports (Streamable HTTP, session management).

func init() {
	Register(
		Check{ID: "HTTP-SESSION-CLIENT", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "every request after the InitializeResult carries the Mcp-Session-Id it assigned",
			Side:    Client{Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Judge: judgeSession}},
		Check{ID: "HTTP-SESSION-EXPIRED-CLIENT", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "answered 404 for its session, the client starts a new session with an InitializeRequest that carries no session id",
			Side:    Client{Scenario: probe.ScenarioSessionExpiry, Judge: judgeSessionExpired}},
	)
}

func judgeSession(v *View) Finding {
	if v.InitAnswered < 0 {
		return untestable("the client sent no initialize the probe could answer")
	}
	reqs := v.RequestsAfter()
	if len(reqs) == 0 {
		return v.notProceeded()
	}
	if sessionAssigned(v) == "" {
		return untestable("the probe assigned no session id")
	}
	n := 0
	for _, i := range reqs {
		r := v.Records[i]
		if isInitialize(r) {
			continue // a new session's start carries none (HTTP-SESSION-EXPIRED-CLIENT)
		}
		// The session in force is the one the probe assigned last before this request: after
		// a re-initialize, the new one.
		want, ended := sessionBefore(v, i)
		if ended {
			continue
		}
		n++
		got, ok := r.HasHeader("Mcp-Session-Id")
		if !ok {
			return violated("%s (record %d) after initialization carries no Mcp-Session-Id", r.Channel, r.Seq)
		}
		if got != want {
			return violated("%s (record %d) carries Mcp-Session-Id %q, not the assigned %q", r.Channel, r.Seq, got, want)
		}
	}
	return passed("all %d requests after initialization carry the session id assigned to them", n)
}

// sessionBefore is the session id the probe assigned last before record i, and whether the
// probe had ended it by then (session-expiry): until a new one is assigned, the client has no
// session to send, and what it does is HTTP-SESSION-EXPIRED-CLIENT's to judge.
func sessionBefore(v *View, i int) (id string, ended bool) {
	for _, r := range v.Records[:i] {
		switch {
		case r.Is(record.EvSessionAssigned):
			id, ended = r.Event.Session, false
		case r.Is(record.EvSessionExpired):
			ended = true
		}
	}
	return id, ended
}

// sessionAssigned is the session id the probe gave (it is in the records of every request
// only as the client echoes it, so the probe notes it).
func sessionAssigned(v *View) string {
	for _, r := range v.Records {
		if r.Is(record.EvSessionAssigned) {
			return r.Event.Session
		}
	}
	return ""
}

func judgeSessionExpired(v *View) Finding {
	at, old := -1, ""
	for i, r := range v.Records {
		if r.Is(record.EvSessionExpired) {
			at, old = i, r.Event.Session
			break
		}
	}
	if at < 0 {
		if len(v.After()) == 0 {
			return v.notProceeded()
		}
		return untestable("the client called no tool, so the probe never expired its session (the contract: call every listed tool)")
	}
	for _, r := range v.Records[at+1:] {
		msgs := parseMsgs([]byte(r.Body))
		if r.Dir != record.Recv || r.Channel != record.ChanPOST || len(msgs) == 0 {
			continue // a GET or DELETE of the old session sends no message
		}
		if msgs[0].Method != "initialize" {
			return violated("after the 404 for session %s the client sent %s (record %d), not a new initialize", old, describe(msgs[0]), r.Seq)
		}
		if sid, ok := r.HasHeader("Mcp-Session-Id"); ok {
			return violated("the client's new initialize (record %d) carries Mcp-Session-Id %q; a new session starts without one", r.Seq, sid)
		}
		return passed("after the 404 for session %s the client sent a new initialize without a session id (record %d)", old, r.Seq)
	}
	return violated("after the 404 for session %s the client never started a new session", old)
}
