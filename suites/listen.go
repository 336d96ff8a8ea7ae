package suites

import (
	"encoding/json"
	"fmt"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: opening a subscriptions/listen stream and awaiting what it delivers.

const (
	methodListen       = "subscriptions/listen"
	methodAcknowledged = "notifications/subscriptions/acknowledged"
	methodToolsChanged = "notifications/tools/list_changed"
	metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// listen is one subscriptions/listen request in flight.
type listen struct {
	s    *harness.Session
	id   jsonrpc.ID
	from int            // inbox position before it was sent
	d    *wire.Delivery // over HTTP the POST whose response stream is the listen stream
	ack  jsonrpc.Message
}

// hearsToolChanges reports whether the acknowledgment took tool list changes on.
func (l *listen) hearsToolChanges() bool {
	var p struct {
		Notifications struct {
			ToolsListChanged bool `json:"toolsListChanged"`
		} `json:"notifications"`
	}
	return json.Unmarshal(l.ack.Params, &p) == nil && p.Notifications.ToolsListChanged
}

// awaitToolChanges waits until l has had n tool list changes since position from.
func (l *listen) awaitToolChanges(t *conform.T, from, n int) error {
	seen := 0
	_, err := l.s.WaitFor(t.Ctx, nil, from, func(r wire.Received) bool {
		if l.owns(r) && r.Msg.Kind == jsonrpc.Notification && r.Msg.Method == methodToolsChanged {
			seen++
		}
		return seen >= n
	})
	return err
}

// openListen sends a listen request with id opting in to filter.
func openListen(t *conform.T, s *harness.Session, id jsonrpc.ID, filter map[string]any) (*listen, error) {
	return openListenWith(t, s, id, map[string]any{"notifications": filter})
}

// openListenWith sends a listen request with id and params (their own _meta, or the session's).
func openListenWith(t *conform.T, s *harness.Session, id jsonrpc.ID, params map[string]any) (*listen, error) {
	frame := rawRequest(id, methodListen, s.StatelessParams(params))
	s.Sent(id, methodListen)
	l := &listen{s: s, id: id, from: s.Mark()}
	var err error
	if l.d, err = s.Send(t.Ctx, frame); err != nil {
		return nil, fmt.Errorf("sending %s: %w", methodListen, err)
	}
	return l, nil
}

// subscriptionTag returns the subscriptionId in a notification's params._meta or a result's
// _meta.
func subscriptionTag(m jsonrpc.Message) (json.RawMessage, bool) {
	body := m.Params
	if m.Kind == jsonrpc.Response {
		body = m.Result
	}
	var b struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(body, &b) != nil {
		return nil, false
	}
	raw, ok := b.Meta[metaSubscriptionID]
	return raw, ok
}

// bareID is an id's value without its JSON type, so that a mistyped tag is still recognised
// (and judged) rather than missed.
func bareID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// owns reports whether a message belongs to the listen: its answer, or over HTTP anything on
// its response stream, on stdio any notification tagged with its id (of either JSON type).
func (l *listen) owns(r wire.Received) bool {
	if wire.ContainsResponse(r.Msg, l.id) {
		return true
	}
	if l.d.CarriesReplies {
		return r.Via == l.d
	}
	tag, ok := subscriptionTag(r.Msg)
	return ok && r.Msg.Kind == jsonrpc.Notification && bareID(tag) == bareID(l.id.JSON())
}

// messages are the listen's messages received so far.
func (l *listen) messages() []jsonrpc.Message {
	var out []jsonrpc.Message
	for _, r := range l.s.Conn.Inbox().Since(l.from) {
		if l.owns(r) {
			out = append(out, r.Msg)
		}
	}
	return out
}

// start waits for the listen's first message. A finding ends the check: the server does not
// serve subscriptions/listen, or the stream never started.
func (l *listen) start(t *conform.T) (jsonrpc.Message, *conform.Finding) {
	r, err := l.s.WaitFor(t.Ctx, l.d, l.from, l.owns)
	if err != nil {
		f := conform.CannotTest("%s %s got no acknowledgment or answer: %v", methodListen, l.id.Text(), err)
		if l.d.CarriesReplies && l.d.IsFinished() {
			f = conform.CannotTest("%s was answered with HTTP %d %s and nothing on a stream: %s", methodListen, l.d.Status, l.d.ContentType, clip(string(l.d.Body), 200))
		}
		return jsonrpc.Message{}, &f
	}
	m := r.Msg
	if resp, ok := wire.FindResponse(m, l.id); ok && resp.HasError {
		f := conform.CannotTest("the server does not serve %s: it answered %s", methodListen, show(resp))
		return resp, &f
	}
	return m, nil
}

// acknowledged opens a listen and waits for its acknowledgment; a finding ends the check.
func acknowledged(t *conform.T, s *harness.Session, id jsonrpc.ID, filter map[string]any) (*listen, jsonrpc.Message, *conform.Finding) {
	l, err := openListen(t, s, id, filter)
	if err != nil {
		f := conform.Crashed("%v", err)
		return nil, jsonrpc.Message{}, &f
	}
	first, f := l.start(t)
	if f != nil {
		return l, first, f
	}
	if first.Kind != jsonrpc.Notification || first.Method != methodAcknowledged {
		f := conform.CannotTest("the listen stream did not start with its acknowledgment (judged by SUB-ACK-FIRST): %s", show(first))
		return l, first, &f
	}
	l.ack = first
	return l, first, nil
}

// changeTools calls the target's list-changed tool twice (on and off again); false when no such
// tool was named.
func changeTools(t *conform.T) (bool, error) {
	name := t.Options().ListTool
	if name == "" {
		return false, nil
	}
	args := t.Options().ListToolArgs
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	for range 2 {
		resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": name, "arguments": args})
		if err != nil {
			return true, fmt.Errorf("calling the list-changed tool %q: %w", name, err)
		}
		if !resp.HasResult {
			return true, fmt.Errorf("the list-changed tool %q failed: %s", name, show(resp))
		}
	}
	return true, nil
}

const noListTool = "no tools list change was triggered: name a tool whose call changes it with --list-changed-tool"

// changed is what changeAndAwait did.
type changed struct {
	triggered bool // the list-changed tool was called
	heard     bool // every listen that took tool list changes on heard of both changes
}

// changeAndAwait changes the tools list twice and waits until every listen of ls that took
// tool list changes on has heard of both: then everything the server put on those streams
// before has arrived too. A finding ends the check.
func changeAndAwait(t *conform.T, ls ...*listen) (changed, *conform.Finding) {
	from := t.S.Mark()
	triggered, err := changeTools(t)
	if err != nil {
		f := conform.CannotTest("%v", err)
		return changed{triggered: true}, &f
	}
	c := changed{triggered: triggered, heard: triggered}
	for _, l := range ls {
		if !triggered || !l.hearsToolChanges() {
			c.heard = false
			continue
		}
		if l.awaitToolChanges(t, from, 2) != nil {
			c.heard = false
		}
	}
	return c, nil
}

// settle proves that everything sent so far has been answered and waits the quiet window, so
// notifications caused by it have arrived.
func settle(t *conform.T, from int) *conform.Finding {
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		f := conform.Crashed("the server stopped serving with a listen stream open: %v", err)
		return &f
	}
	return nil
}

// cancelledID is the requestId of a notifications/cancelled.
func cancelledID(m jsonrpc.Message) (jsonrpc.ID, bool) {
	if m.Kind != jsonrpc.Notification || m.Method != "notifications/cancelled" {
		return "", false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.RequestID == nil {
		return jsonrpc.Null, true
	}
	id, _ := jsonrpc.CanonicalID(p.RequestID)
	return id, true
}
