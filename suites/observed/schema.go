package observed

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// schemaChecks: every message valid at the negotiated revision, the side deciding which
// definitions a message must match.
func schemaChecks() []Check {
	return bothSides("MSG-JSONRPC", "MUST", allTransports, "every message validates against the negotiated revision's schema: requests, notifications and results by their definitions",
		func(v *View, side string) Finding { return judgeSchema(v, side, true) })
}

// resultDefinitions name the result each request gets, where the revision defines it.
var resultDefinitions = map[string]string{
	"initialize": "InitializeResult", "ping": "EmptyResult",
	"tools/list": "ListToolsResult", "tools/call": "CallToolResult",
	"resources/list": "ListResourcesResult", "resources/read": "ReadResourceResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"prompts/list":             "ListPromptsResult", "prompts/get": "GetPromptResult",
	"completion/complete":    "CompleteResult",
	"sampling/createMessage": "CreateMessageResult", "roots/list": "ListRootsResult",
	"elicitation/create": "ElicitResult",
}

// definitions lists what a message of side must match at revision. Full adds the side's
// request and notification unions and, at the handshake revisions, the result its request
// asked for (at 2026-07-28 a result may be an input request instead, MRTR's matter).
func (v *View) definitions(i int, revision, side string, full bool, ex exchanges) []string {
	m := v.Msgs[i]
	defs := []string{schema.MessageDefinition}
	if !full {
		return defs
	}
	prefix := "Client"
	if side == Server {
		prefix = "Server"
	}
	switch {
	case (m.IsRequest() || m.IsNotification()) && extensionMethod(revision, m.Method):
		// An extension's message (declared in capabilities.extensions): the core unions do not
		// hold it, and the extension's own schema is not embedded.
	case m.IsRequest() && m.Method == "initialize":
		defs = append(defs, "InitializeRequest")
	case m.IsRequest():
		defs = append(defs, prefix+"Request")
	case m.IsNotification():
		defs = append(defs, prefix+"Notification")
	case m.IsResponse() && m.HasResult && harness.IsHandshake(revision):
		if req, ok := ex.request(v, i); ok {
			if taskAugmented(req) {
				defs = append(defs, "result:CreateTaskResult")
			} else if d := resultDefinitions[req.Method]; d != "" {
				defs = append(defs, "result:"+d)
			}
		}
	}
	return defs
}

// extensionMethod reports whether method is one of the extensions' mcpspec knows at revision:
// the tasks extension's (tasks/ and notifications/tasks, core at 2025-11-25 but an extension's
// from 2026-07-28) and the skills extension's skills/list, skills/get and
// resources/directory/read.
func extensionMethod(revision, method string) bool {
	if harness.IsHandshake(revision) {
		return false
	}
	switch method {
	case "notifications/tasks", "resources/directory/read", "skills/list", "skills/get":
		return true
	}
	return strings.HasPrefix(method, "tasks/")
}

// request is the request the response at index i of Msgs answers, if the pairing found one.
func (ex exchanges) request(v *View, i int) (Msg, bool) {
	q, ok := ex.answerOf[i]
	if !ok {
		return Msg{}, false
	}
	return v.Msgs[q], true
}

func judgeSchema(v *View, side string, full bool) Finding {
	// The pairing is needed for the results' definitions and for the revision a response is
	// judged at (revisionOf).
	ex := v.pair()
	n := 0
	for _, r := range v.Records {
		if r.From != side || !carriesMessages(r) {
			continue
		}
		if p := jsonrpc.Parse([]byte(r.Body)); p.Kind == jsonrpc.Invalid && !json.Valid([]byte(r.Body)) && !r.Truncated {
			return violated("record %d: the %s sent a frame that is not JSON: %s", r.Seq, side, clip(r.Body))
		}
	}
	preInit := 0
	for i, m := range v.Msgs {
		if m.From != side || v.Records[m.Rec].Truncated {
			continue
		}
		n++
		rev := v.revisionOf(i, ex)
		revs := []string{rev}
		if rev == preInitialize {
			preInit++
			revs = handshakeRevisions(v.Transport)
		}
		def, err := v.validate(i, revs[0], side, full, ex)
		for _, r := range revs[1:] {
			if err == nil {
				break
			}
			if _, e := v.validate(i, r, side, full, ex); e == nil {
				err = nil
			}
		}
		if err != nil {
			if errors.Is(err, schema.ErrUnknownRevision) {
				return broken("no schema for %s: %v", rev, err)
			}
			at := rev
			if rev == preInitialize {
				at = "any handshake revision (it came before initialize, naming none)"
			}
			return violated("record %d: the %s's %s is not a valid %s at %s: %v", v.seq(m), side, describe(m), def, at, err)
		}
	}
	if n == 0 {
		return notExercised("the " + side + " sent no message")
	}
	if preInit > 0 {
		return passed("the %d messages the %s sent validate at %s (%d of them, before initialize and naming no revision, at a handshake revision)", n, side, v.Revision, preInit)
	}
	return passed("the %d messages the %s sent validate at %s", n, side, v.Revision)
}

// validate validates message i against every definition it must match at revision (those the
// revision has: a definition it lacks holds nothing), naming the first it does not match.
func (v *View) validate(i int, revision, side string, full bool, ex exchanges) (string, error) {
	m := v.Msgs[i]
	raw := withValidID(m)
	for _, d := range v.definitions(i, revision, side, full, ex) {
		inst := raw
		if name, ok := cutPrefix(d, "result:"); ok {
			d, inst = name, m.Result
		}
		if err := v.opts.Validator.Definition(revision, d, inst); err != nil && !errors.Is(err, schema.ErrUnknownDefinition) {
			return d, err
		}
	}
	return "", nil
}

// preInitialize is the revision, in revisionOf's answer, of a request sent before initialize
// that names no revision, and of its answer: nothing has been negotiated, and only the
// handshake era allows a request (a ping) before initialize, so the message is held to the
// rules of the handshake era, at whichever of its revisions it is valid.
const preInitialize = "before initialize"

// handshakeRevisions are the handshake revisions the transport carries, newest first.
func handshakeRevisions(transport string) []string {
	var out []string
	for _, r := range slices.Backward(harness.TransportRevisions(transport)) {
		if harness.IsHandshake(r) {
			out = append(out, r)
		}
	}
	return out
}

// revisionOf is the revision message i is judged at. A conversation with an initialize, or
// judged at --revision, is judged at its revision throughout. One without may mix them:
// mcpspec run's observation before initialize sends a server, over stdio, a bare ping and
// then a 2026-07-28 server/discover, and a dual-era client may do the same. There each client
// request and the answer to it are judged at the revision the request names, and a request
// that names none before any has named one at preInitialize (the run holds the ping's answer
// to an empty result, LIFE-PING-BEFORE-INIT, not to 2026-07-28's resultType). A request
// naming none after one did is judged at the conversation's revision: a stateless client
// that drops _meta there breaks that revision's rules. Every other message (a notification, a
// request of the server's) is judged at the conversation's revision too.
func (v *View) revisionOf(i int, ex exchanges) string {
	if v.Init >= 0 || v.opts.Revision != "" {
		return v.Revision
	}
	q := i
	if v.Msgs[i].IsResponse() {
		var ok bool
		if q, ok = ex.answerOf[i]; !ok {
			return v.Revision
		}
	}
	m := v.Msgs[q]
	if m.From != Client || !m.IsRequest() {
		return v.Revision
	}
	if rev := v.namedRevision(m); rev != "" {
		return rev
	}
	if q < v.firstNamed {
		return preInitialize
	}
	return v.Revision
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}

// withValidID is a message with an id that is null or of another type replaced by 0: the id
// is the id checks' matter (and a null id answers an unreadable request), the schema judges the
// rest.
func withValidID(m Msg) []byte {
	if (!m.HasID && !m.IsResponse()) || (m.HasID && (m.ID.IsString() || isInteger(m.ID))) {
		return m.Raw
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(m.Raw, &obj) != nil {
		return m.Raw
	}
	obj["id"] = json.RawMessage("0")
	b, err := json.Marshal(obj)
	if err != nil {
		return m.Raw
	}
	return b
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// stdioChecks: every line on the wire is a message.
func stdioChecks() []Check {
	line := func(id, side, level, summary string) Check {
		return Check{ID: id, Level: level, Revisions: catalog.AllCatalogued, Summary: summary, Transports: []string{"stdio"},
			Side: Observed{Whose: side, Judge: func(v *View) Finding { return judgeLines(v, side) }}}
	}
	return []Check{
		line("STDIO-STDOUT-ONLY-MCP", Server, "MUST", "every line the server writes to stdout is a JSON-RPC message"),
		line("STDIO-CLIENT-STDIN", Client, "MUST", "every line the client writes to the server's stdin is a JSON-RPC message"),
	}
}

func judgeLines(v *View, side string) Finding {
	ch := recording.ChanStdin
	if side == Server {
		ch = recording.ChanStdout
	}
	n := 0
	for _, r := range v.Records {
		if r.Channel != ch || r.Truncated {
			continue
		}
		n++
		p := jsonrpc.Parse([]byte(r.Body))
		ok := p.Kind != jsonrpc.Invalid
		if p.Kind == jsonrpc.Batch {
			ok = len(p.Elems) > 0
		}
		if !ok {
			return violated("record %d: a line the %s wrote is not a JSON-RPC message (%s): %s", r.Seq, side, p.Problem, clip(r.Body))
		}
	}
	if n == 0 {
		return notExercised("the " + side + " wrote no line")
	}
	return passed("all %d lines the %s wrote are JSON-RPC messages", n, side)
}
