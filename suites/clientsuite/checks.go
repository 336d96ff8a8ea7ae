package clientsuite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/harness/wire"
)

var httpOnly = []string{wire.HTTP}

// Streamable HTTP exists from 2025-03-26 on; the HTTP checks run at its handshake revisions,
// those whose rule holds in both eras at 2026-07-28 too.
var (
	httpRevisions   = []string{harness.Rev20250326, harness.Rev20250618, harness.Rev20251125}
	httpRevisions26 = append(slices.Clone(httpRevisions), harness.Rev20260728)
)

// handshakeOnly: the official suite's initialize scenario, whose exchange (initialize,
// notifications/initialized, perhaps tools/list) is enough for the checks that read the
// handshake and the transport; and its elicitation-sep1034-client-defaults, which holds one too.
var handshakeOnly = []string{probe.ScenarioInitialize, probe.ScenarioElicitDefaults}

// everyExchange: the scenarios besides tools_call whose every exchange the transport rules bind
// (a resumption GET, a cancellation POST, the requests after a re-initialize): each is judged
// in every recording another check has served, not only in tools_call's (the checks ride: a
// scenario is never launched for them alone).
var everyExchange = []string{probe.ScenarioInitialize, probe.ScenarioElicitDefaults, probe.ScenarioSessionExpiry,
	probe.ScenarioSSERetry, probe.ScenarioRequestTimeout, probe.ScenarioTaskCancel, probe.ScenarioSubscriptions}

// allRevisions: the checks whose rule holds in both eras.
var allRevisions = harness.Revisions

func init() {
	Register(
		Check{ID: "LIFE-INITIALIZED-NOTIF", Level: "MUST", Scenario: probe.ScenarioTools, Also: handshakeOnly,
			Summary: "after the InitializeResult the client sends notifications/initialized before any request but ping",
			Judge:   judgeInitialized},
		Check{ID: "LIFE-CLIENT-VERSION-DISCONNECT", Level: "SHOULD", Scenario: probe.ScenarioVersionUnsupported, Once: true,
			Summary: "a client offered a protocol version it does not support disconnects instead of going on",
			Judge:   judgeVersionDisconnect},
		Check{ID: "PING-RESPOND", Level: "MUST", Scenario: probe.ScenarioTools,
			Summary: "the client answers the server's ping promptly with an empty result",
			Judge:   judgePing},
		Check{ID: "MSG-JSONRPC", Level: "MUST", Scenario: probe.ScenarioTools, Also: handshakeOnly, Versions: allRevisions,
			Summary: "every message the client sends validates against the negotiated revision's schema",
			Judge:   judgeSchema},
		Check{ID: "STDIO-CLIENT-STDIN", Level: "MUST", Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Versions: allRevisions, Transports: []string{wire.Stdio},
			Summary: "every line the client writes to the server's stdin is a JSON-RPC message",
			Judge:   judgeStdin},
		Check{ID: "HTTP-POST-ACCEPT", Level: "MUST", Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Transports: httpOnly, Versions: httpRevisions26,
			Summary: "every POST lists both application/json and text/event-stream in Accept",
			Judge:   judgePostAccept},
		Check{ID: "HTTP-GET-ACCEPT", Level: "MUST", Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Transports: httpOnly,
			Summary: "every GET lists text/event-stream in Accept",
			Judge:   judgeGetAccept},
		Check{ID: "HTTP-POST-PER-MESSAGE", Level: "MUST", Scenario: probe.ScenarioTools, Also: handshakeOnly, Transports: httpOnly, Versions: httpRevisions26,
			Summary: "every message the client sends travels by POST to the MCP endpoint, never in another request's body (a POST's body is HTTP-POST-BODY's matter)",
			Judge:   judgePostPerMessage},
		Check{ID: "HTTP-SESSION-CLIENT", Level: "MUST", Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Transports: httpOnly,
			Summary: "every request after the InitializeResult carries the Mcp-Session-Id it assigned",
			Judge:   judgeSession},
		Check{ID: "LIFE-HTTP-VERSION-HEADER", Level: "MUST", Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Transports: httpOnly,
			Summary: "every HTTP request after initialization carries MCP-Protocol-Version",
			Judge:   judgeVersionHeader},
		Check{ID: "HTTP-RESUME-CLIENT-LAST-EVENT-ID", Level: "SHOULD", Scenario: probe.ScenarioSSERetry, Transports: httpOnly, Versions: httpRevisions,
			Summary: "after a request's SSE stream breaks, the client resumes it with GET and the last event id in Last-Event-ID",
			Judge:   judgeResume},
		Check{ID: "HTTP-RETRY-CLIENT-WAIT", Level: "MUST", Scenario: probe.ScenarioSSERetry, Transports: httpOnly, Versions: []string{harness.Rev20251125},
			Summary: "the client waits the retry field's milliseconds before it reconnects to a stream the server closed",
			Judge:   judgeRetryWait},
		Check{ID: "HTTP-SESSION-EXPIRED-CLIENT", Level: "MUST", Scenario: probe.ScenarioSessionExpiry, Transports: httpOnly,
			Summary: "answered 404 for its session, the client starts a new session with an InitializeRequest that carries no session id",
			Judge:   judgeSessionExpired},
		Check{ID: "SSE-CLIENT-POST", Level: "MUST", Scenario: probe.ScenarioTools, Also: handshakeOnly, Transports: []string{wire.SSE},
			Summary: "after the endpoint event every message the client sends is a POST to the endpoint it names",
			Judge:   judgeSSEPost},
		Check{ID: "HTTP-PROTO-HEADER-NEGOTIATED", Level: "SHOULD", Scenario: probe.ScenarioTools, Also: handshakeOnly, Transports: httpOnly,
			Summary: "the MCP-Protocol-Version the client sends is the negotiated revision",
			Judge:   judgeVersionNegotiated},
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

func describe(m Msg) string {
	switch {
	case m.Method != "":
		return m.Method
	case m.IsResponse():
		return "a response (id " + string(m.ID) + ")"
	}
	return "a message"
}

func judgePing(v *View) Finding {
	if len(v.After()) == 0 {
		return v.notProceeded()
	}
	if !v.sentPing() {
		return untestable("the client never called %s, so the probe never pinged it (the contract: call every listed tool)", probe.ToolPing)
	}
	want, _ := json.Marshal(probe.PingID)
	for _, m := range v.Msgs {
		if !m.IsResponse() || !bytes.Equal(m.ID, want) {
			continue
		}
		if m.Error != nil {
			return violated("the client answered the ping with an error: %s", m.Error)
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(m.Result, &res); err != nil {
			return violated("the ping's answer has no result object: %s", m.Raw)
		}
		for k := range res {
			if k != "_meta" {
				return violated("the ping's result is not empty: it has %q", k)
			}
		}
		return passed("the ping got an empty result")
	}
	return violated("the client never answered the probe's ping (id %s)", want)
}

func judgeSchema(v *View) Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	initialized := false
	for _, m := range v.Msgs {
		// A client that speaks 2026-07-28 may ask server/discover before it falls back to
		// initialize (the probe refuses it at older revisions): such a message is judged at the
		// revision it declares, not at the one negotiated after it.
		rev := v.Revision
		initialized = initialized || m.Method == "initialize"
		if !initialized && m.Method == "server/discover" {
			rev = declaredRevision(m.Raw)
		}
		defs := []string{"JSONRPCMessage"}
		switch {
		case m.Method == "initialize" && harness.IsModern(rev):
			// A dual-era client's fallback: the revision defines no initialize, so only its
			// JSON-RPC shape is judged here.
		case m.Method == "initialize":
			defs = append(defs, "InitializeRequest")
		case m.IsRequest():
			defs = append(defs, "ClientRequest")
		case m.IsNotification():
			defs = append(defs, "ClientNotification")
		}
		raw := m.Raw
		if m.IsRequest() && !validID(m.ID) {
			raw = withValidID(raw) // the id is MSG-REQ-ID-TYPE's or MSG-REQ-ID-NOT-NULL's matter
		}
		for _, d := range defs {
			// Each message of a batch is judged on its own; the batch itself is
			// HTTP-POST-BODY's matter.
			if err := v.Validator.Definition(rev, d, raw); err != nil {
				if errors.Is(err, schema.ErrUnknownDefinition) {
					// mcpspec's own lookup failed (initialize has no definition at 2026-07-28):
					// a harness error, not the client's failure.
					return broken("record %d: %s cannot be judged at %s: %v", v.Records[m.Rec].Seq, describe(m), rev, err)
				}
				return violated("record %d: %s is not a valid %s at %s: %v", v.Records[m.Rec].Seq, describe(m), d, rev, err)
			}
		}
		if m.IsResponse() && m.Result != nil && strings.Contains(string(m.ID), probe.PingID) {
			if err := v.Validator.Definition(rev, "EmptyResult", m.Result); err != nil {
				return violated("the answer to the probe's ping is not a valid EmptyResult at %s: %v", rev, err)
			}
		}
	}
	return passed("%d messages validate against the %s schema", len(v.Msgs), v.Revision)
}

// declaredRevision is the revision a server/discover request names in its _meta when mcpspec
// knows its schema, else 2026-07-28, the revision that defines server/discover.
func declaredRevision(raw json.RawMessage) string {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	var rev string
	if json.Unmarshal(raw, &m) == nil && json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &rev) == nil && harness.IsModern(rev) && slices.Contains(harness.Revisions, rev) {
		return rev
	}
	return harness.Rev20260728
}

func judgeStdin(v *View) Finding {
	n := 0
	for _, r := range v.Records {
		if r.Dir != probe.Recv || r.Channel != probe.ChanStdin {
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

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// posts are the indices of the client's POSTs to the endpoint.
func (v *View) requests(channel string) []int {
	var out []int
	for i, r := range v.Records {
		if r.Dir == probe.Recv && r.Channel == channel {
			out = append(out, i)
		}
	}
	return out
}

// accepts reports whether an Accept header lists the media type by name.
func accepts(accept, media string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && strings.EqualFold(mt, media) {
			return true
		}
	}
	return false
}

func judgePostAccept(v *View) Finding {
	posts := v.requests(probe.ChanPOST)
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

func judgeGetAccept(v *View) Finding {
	gets := v.requests(probe.ChanGET)
	if len(gets) == 0 {
		return na("the client opened no GET stream (a client may not)")
	}
	for _, i := range gets {
		r := v.Records[i]
		if a, _ := r.HasHeader("Accept"); !accepts(a, "text/event-stream") {
			return violated("GET (record %d) has Accept: %q, which does not list text/event-stream", r.Seq, a)
		}
	}
	return passed("all %d GETs accept text/event-stream", len(gets))
}

func judgePostPerMessage(v *View) Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	for _, r := range v.Records {
		if r.Dir == probe.Recv && r.Path != probe.Path && len(parseMsgs([]byte(r.Body))) > 0 {
			return violated("the client sent a message with %s to %s, not by POST to the MCP endpoint %s", r.Channel, r.Path, probe.Path)
		}
		if r.Dir == probe.Recv && r.Channel != probe.ChanPOST && r.Channel != probe.ChanStdin && len(parseMsgs([]byte(r.Body))) > 0 {
			return violated("the client sent a message in the body of a %s request, not a POST", r.Channel)
		}
	}
	// What one POST's body holds (a single message, or a batch at 2025-03-26) is HTTP-POST-BODY's.
	return passed("each of the client's %d messages came in a POST to %s", len(v.Msgs), probe.Path)
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
		case r.Is(probe.EvSessionAssigned):
			id, ended = r.Event.Session, false
		case r.Is(probe.EvSessionExpired):
			ended = true
		}
	}
	return id, ended
}

// isInitialize reports whether an HTTP request's body holds an initialize request.
func isInitialize(r probe.Record) bool {
	return slices.ContainsFunc(parseMsgs([]byte(r.Body)), func(m Msg) bool { return m.Method == "initialize" && m.IsRequest() })
}

// sessionAssigned is the session id the probe gave (it is in the records of every request
// only as the client echoes it, so the probe notes it).
func sessionAssigned(v *View) string {
	for _, r := range v.Records {
		if r.Is(probe.EvSessionAssigned) {
			return r.Event.Session
		}
	}
	return ""
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

func judgeVersionNegotiated(v *View) Finding {
	reqs := v.RequestsAfter()
	if len(reqs) == 0 {
		return v.notProceeded()
	}
	n := 0
	for _, i := range reqs {
		r := v.Records[i]
		got, ok := r.HasHeader("MCP-Protocol-Version")
		if !ok {
			continue
		}
		n++
		if got != v.Offered {
			return violated("%s (record %d) carries MCP-Protocol-Version %s, not the negotiated %s", r.Channel, r.Seq, got, v.Offered)
		}
	}
	if n == 0 {
		return na("the client sent no MCP-Protocol-Version header (LIFE-HTTP-VERSION-HEADER judges that)")
	}
	return passed("all %d MCP-Protocol-Version headers name the negotiated %s", n, v.Offered)
}

func judgeSSEPost(v *View) Finding {
	endpoint, at := "", -1
	for i, r := range v.Records {
		if r.Is(probe.EvEndpoint) {
			endpoint, at = r.Event.URL, i
			break
		}
	}
	if at < 0 {
		return untestable("the client never opened the SSE stream, so the probe announced no endpoint")
	}
	n := 0
	for i, r := range v.Records {
		// Only what follows the endpoint event is bound: a client probing for Streamable HTTP
		// first may POST its initialize to the URL it was given.
		if i < at || r.Dir != probe.Recv || len(parseMsgs([]byte(r.Body))) == 0 {
			continue
		}
		n++
		if r.Channel != probe.ChanPOST || r.Path != endpoint {
			return violated("the client sent a message by %s to %s (record %d), not by POST to the announced endpoint %s", r.Channel, r.Path, r.Seq, endpoint)
		}
	}
	if n == 0 {
		return untestable("the client sent no message after the endpoint event")
	}
	return passed("all %d messages after the endpoint event were POSTed to %s", n, endpoint)
}

func judgeSessionExpired(v *View) Finding {
	at, old := -1, ""
	for i, r := range v.Records {
		if r.Is(probe.EvSessionExpired) {
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
		if r.Dir != probe.Recv || r.Channel != probe.ChanPOST || len(msgs) == 0 {
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

// cut finds the probe's note of the stream it closed before the response (ScenarioSSERetry).
func (v *View) cut() (at int, id string, retryMs int, f *Finding) {
	for i, r := range v.Records {
		if r.Is(probe.EvStreamCut) {
			return i, r.Event.EventID, r.Event.RetryMs, nil
		}
	}
	nf := untestable("the client called no tool, so the probe never closed a stream before its response (the contract: call every listed tool)")
	if len(v.After()) == 0 {
		nf = v.notProceeded()
	}
	return -1, "", 0, &nf
}

func judgeResume(v *View) Finding {
	at, id, _, f := v.cut()
	if f != nil {
		return *f
	}
	// What the client did instead: the first request with Last-Event-ID, or the first
	// tools/call it sent after the cut (the same one again, most likely).
	var other []string
	for _, r := range v.Records[at+1:] {
		if r.Dir != probe.Recv {
			continue
		}
		last, has := r.HasHeader("Last-Event-ID")
		switch {
		case r.Channel == probe.ChanGET && has && last == id:
			return passed("the client resumed the stream cut after event id %s with GET and Last-Event-ID %s (record %d)", id, last, r.Seq)
		case has && !slices.ContainsFunc(other, func(s string) bool { return strings.Contains(s, "Last-Event-ID") }):
			other = append(other, fmt.Sprintf("a %s with Last-Event-ID %q (record %d)", r.Channel, last, r.Seq))
		case r.Channel == probe.ChanPOST && !slices.ContainsFunc(other, func(s string) bool { return strings.Contains(s, "tools/call") }):
			for _, m := range parseMsgs([]byte(r.Body)) {
				if m.Method == "tools/call" {
					other = append(other, fmt.Sprintf("a tools/call by POST (record %d)", r.Seq))
					break
				}
			}
		}
	}
	if len(other) == 0 {
		return violated("the stream of the client's tools/call closed after event id %s before the response, and the client never resumed it with GET and Last-Event-ID", id)
	}
	return violated("the stream of the client's tools/call closed after event id %s before the response; instead of a GET with Last-Event-ID %s the client sent %s", id, id, strings.Join(other, " and "))
}

func judgeRetryWait(v *View) Finding {
	at, id, retry, f := v.cut()
	if f != nil {
		return *f
	}
	if retry <= 0 {
		return na("the probe sent no retry field at %s", v.Revision)
	}
	closed := v.Records[at]
	for _, r := range v.Records[at+1:] {
		if r.Dir != probe.Recv || r.Channel != probe.ChanGET {
			continue
		}
		waited := r.AtMs - closed.AtMs
		// Both times are whole milliseconds since the recording began: their difference can
		// fall short of the true wait by up to one.
		if waited+1 < int64(retry) {
			return violated("the client reconnected (GET, record %d) %d ms after the stream closed after event id %s with retry %d ms", r.Seq, waited, id, retry)
		}
		return passed("the client reconnected (GET, record %d) %d ms after the stream closed with retry %d ms", r.Seq, waited, retry)
	}
	return na("the client did not reconnect after the stream closed, so it had no reconnection to delay")
}
