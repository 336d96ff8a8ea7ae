package suites

import (
	"encoding/json"
	"fmt"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// A pristine session is one server of its own per revision and transport, touched only by an
// ordinary workload. Several checks judge it from different angles: the stdio framing checks
// (everything the server wrote from its first byte), LIFE-OPERATION-NEGOTIATED and
// CANCEL-SAME-DIRECTION (everything it sent unasked), SSE-MESSAGE-EVENTS (the legacy SSE
// stream's events), JRPC-ID-ECHO (ids of unusual types,
// which a shared session could not use without reusing another check's). One server serves
// them all: each needs a server nobody else has touched, not one each.

// echoIDs are request ids of every JSON type and shape a response must echo exactly.
var echoIDs = []jsonrpc.ID{jsonrpc.StringID("1"), jsonrpc.NumberID(1), jsonrpc.NumberID(0), jsonrpc.NumberID(-5), "9007199254740991", jsonrpc.StringID("ü-ÿ 日本 🎉")}

// nonASCIIText goes into a request id, to come back unchanged (STDIO-UTF8).
const nonASCIIText = "ü-ÿ 日本 🎉"

// pristine is what a server of its own did under the ordinary workload.
type pristine struct {
	workErr    error  // the ordinary requests went wrong
	echoErr    string // what went wrong with the unusual ids, or ""
	utf8ID     jsonrpc.ID
	utf8Reply  jsonrpc.Message
	utf8Err    error // the non-ASCII request went unanswered
	quietErr   error // the server did not fall quiet after the workload
	violations []wire.Violation
	received   []wire.Received
	msgs       []jsonrpc.Message // everything received, batches flattened
	caps       json.RawMessage   // the server's capabilities, as initialize declared them
}

// Over stdio and Streamable HTTP the pristine workload runs first on each revision's serial
// session (the one the Exclusive checks then take turns on) instead of on a session (over
// stdio, a process) of its own: it changes nothing and ends quiet, and until it has run that
// session is untouched.
func init() {
	conform.ObserveFirst("pristine", pristineWorkload, "JRPC-ID-ECHO", "LIFE-OPERATION-NEGOTIATED",
		"CANCEL-SAME-DIRECTION", "SSE-MESSAGE-EVENTS", "STDIO-NEWLINE", "STDIO-STDOUT-ONLY-MCP", "STDIO-UTF8")
}

// pristineWorkload is the pristine session's work (T.Observe), from its initialize on.
func pristineWorkload(o *conform.T) any {
	p := &pristine{caps: o.S.InitResult()["capabilities"]}
	from := o.S.Mark()
	// Each part is judged on its own, so each runs whatever came of the others.
	p.workErr = ordinaryRequests(o)
	p.echoErr = echoRequests(o)
	p.utf8ID, p.utf8Reply, p.utf8Err = nonASCIIRequest(o)
	_, p.quietErr = o.S.Quiet(o.Ctx, from)
	p.violations = o.S.Conn.Violations()
	p.received = o.S.Conn.Inbox().Since(0)
	for _, r := range p.received {
		p.msgs = append(p.msgs, flatten(r.Msg)...)
	}
	return p
}

// observePristine returns the one pristine session of the check's revision and transport, or
// the finding that its server stopped answering.
func observePristine(t *conform.T) (*pristine, *conform.Finding) {
	v, f := t.Observe("pristine", conform.Fresh, pristineWorkload)
	if f != nil {
		return nil, f
	}
	p := v.(*pristine)
	// Every check of it judges what the server wrote up to a quiet end.
	if p.quietErr != nil {
		f := conform.Crashed("the server stopped answering: %v", p.quietErr)
		return nil, &f
	}
	return p, nil
}

// ordinaryRequests makes the server write a few ordinary messages: the probe's result, every
// list its capabilities promise, an unknown method's error.
func ordinaryRequests(t *conform.T) error {
	methods := []string{probeMethod(t.S)}
	for _, l := range lists {
		if t.S.HasCapability(l.cap) {
			methods = append(methods, l.method)
		}
	}
	for _, m := range append(methods, unknownMethod) {
		if _, err := t.S.Request(t.Ctx, m, nil); err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
	}
	return nil
}

// echoRequests sends the probe request with each of echoIDs and says which answer, if any,
// did not carry its request's id exactly.
func echoRequests(t *conform.T) string {
	for _, id := range echoIDs {
		from := t.S.Mark()
		d, err := t.S.Send(t.Ctx, probeRequest(t.S, id))
		if err != nil {
			return fmt.Sprintf("sending %s with id %s: %v", probeMethod(t.S), id.Text(), err)
		}
		// The answer to this probe, whatever id it carries; replies to the harness's other
		// requests (ids it allocated) are someone else's.
		r, err := t.S.WaitFor(t.Ctx, d, from, func(r wire.Received) bool {
			return r.Msg.Kind == jsonrpc.Response && (r.Msg.ID == id || t.S.Env().IDs.Owner(r.Msg.ID) == "")
		})
		if err != nil {
			return fmt.Sprintf("%s with id %s got no response: %v", probeMethod(t.S), id.Text(), err)
		}
		if r.Msg.ID != id {
			return fmt.Sprintf("%s with id %s was answered with id %s", probeMethod(t.S), id.Text(), r.Msg.ID.Text())
		}
	}
	return ""
}

// nonASCIIRequest sends the probe request with a non-ASCII id and returns its answer.
func nonASCIIRequest(t *conform.T) (jsonrpc.ID, jsonrpc.Message, error) {
	id := jsonrpc.StringID("mcpspec:utf8:" + nonASCIIText)
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, probeRequest(t.S, id))
	if err != nil {
		return id, jsonrpc.Message{}, fmt.Errorf("sending a %s with a non-ASCII id: %w", probeMethod(t.S), err)
	}
	r, err := t.S.WaitFor(t.Ctx, d, from, func(r wire.Received) bool { return r.Msg.Kind == jsonrpc.Response })
	if err != nil {
		return id, jsonrpc.Message{}, fmt.Errorf("%s with a non-ASCII id got no response: %w", probeMethod(t.S), err)
	}
	return id, r.Msg, nil
}

// workNote says, for a check that judges everything the server wrote, that some ordinary
// request went unanswered: what was written is judged all the same (that request's own check
// judges the silence), or "".
func (p *pristine) workNote() string {
	if p.workErr == nil {
		return ""
	}
	return fmt.Sprintf("judged what the server wrote, though an ordinary request went wrong: %v", p.workErr)
}

// capability reads one of the server's declared capabilities (nil when not declared).
func (p *pristine) capability(name string) map[string]json.RawMessage {
	var caps map[string]map[string]json.RawMessage
	_ = json.Unmarshal(p.caps, &caps)
	if c, ok := caps[name]; ok && c == nil {
		return map[string]json.RawMessage{}
	}
	return caps[name]
}

// capabilityFlag reports whether the server declared capability name with flag true.
func (p *pristine) capabilityFlag(name, flag string) bool {
	var v bool
	return json.Unmarshal(p.capability(name)[flag], &v) == nil && v
}

// answered reports whether the server answered a request with id: one of the client's.
func (p *pristine) answered(id jsonrpc.ID) bool {
	for _, m := range p.msgs {
		if m.Kind == jsonrpc.Response && m.ID == id {
			return true
		}
	}
	return false
}

func checkIDEcho(t *conform.T) conform.Finding {
	p, f := observePristine(t)
	if f != nil {
		return *f
	}
	if p.echoErr != "" {
		return conform.Violated("%s", p.echoErr)
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
