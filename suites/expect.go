// Package suites holds mcpspec's checks, one file per area of the specification. Each check is a
// plain function over a session that returns a finding; conform turns it into a Ginkgo spec.
package suites

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Revision lists used by several checks.
var (
	handshake = harness.HandshakeRevisions
	// allTransports: every transport, stated where a check runs over all three (never defaulted).
	allTransports = []string{wire.Stdio, wire.HTTP, wire.SSE}
	stdioOnly     = []string{wire.Stdio}
	httpOnly      = []string{wire.HTTP}
)

// show is a message's bytes, cut to fit in a one-line reason.
func show(m jsonrpc.Message) string { return clip(string(m.Raw), 240) }

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// errorCode returns the integer error code of a response, if it has one.
func errorCode(m jsonrpc.Message) (int64, bool) {
	e, ok := m.ErrorObject()
	if !ok || !e.CodeIsInt {
		return 0, false
	}
	return e.CodeInt, true
}

// expectError judges a response that should be a JSON-RPC error with one of the codes.
func expectError(m jsonrpc.Message, codes ...int64) (ok bool, why string) {
	if !m.HasError {
		return false, "expected an error response, got " + show(m)
	}
	// Say what is wrong with the answer as a whole before judging its code: a body such as
	// {"error":"Bad Request"} is not JSON-RPC at all, not an error with a bad code.
	e, _ := m.ErrorObject()
	switch {
	case !e.IsObject && !m.VersionOK():
		return false, "the body is not JSON-RPC (no \"jsonrpc\":\"2.0\", and its error is not an object): " + show(m)
	case !e.IsObject:
		return false, "the error member is not an object: " + show(m)
	case e.Code == nil:
		return false, "the error has no code: " + show(m)
	}
	code, isInt := errorCode(m)
	if !isInt {
		return false, "error code is not an integer: " + show(m)
	}
	for _, c := range codes {
		if code == c {
			return true, ""
		}
	}
	return false, fmt.Sprintf("expected error code %v, got %d: %s", codes, code, show(m))
}

// reply sends frame and waits for the first response whose id is one of ids, or null, or
// absent: the reply to a request whose id the server may not have been able to read.
func reply(t *conform.T, frame []byte, ids ...jsonrpc.ID) (jsonrpc.Message, *wire.Delivery, error) {
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		return jsonrpc.Message{}, d, err
	}
	r, err := awaitProbe(t, d, from, func(r wire.Received) bool {
		m := r.Msg
		if m.Kind != jsonrpc.Response {
			return false
		}
		if !m.HasID || m.ID.IsNull() {
			return true
		}
		for _, id := range ids {
			if m.ID == id {
				return true
			}
		}
		return false
	})
	if err != nil {
		if other, ok := replyWithOtherID(t, from); ok {
			return jsonrpc.Message{}, d, fmt.Errorf("got a reply with a wrong id (want %s): %s", idList(ids), show(other))
		}
		return jsonrpc.Message{}, d, fmt.Errorf("no reply: %w", err)
	}
	return r.Msg, d, nil
}

// replyWithOtherID finds, among the responses since inbox position from, one that answers no
// request mcpspec has open: a reply whose id the server changed, which "no reply" would hide.
func replyWithOtherID(t *conform.T, from int) (jsonrpc.Message, bool) {
	for _, r := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response && m.HasID && !m.ID.IsNull() && !t.S.IsSentinelAnswer(m) && t.S.Env().IDs.Owner(m.ID) == "" {
				return m, true
			}
		}
	}
	return jsonrpc.Message{}, false
}

// idList names ids for a message.
func idList(ids []jsonrpc.ID) string {
	var names []string
	for _, id := range ids {
		names = append(names, id.Text())
	}
	return strings.Join(names, " or ")
}

// stillServes proves the server still answers after what was sent: a ping (at 2026-07-28 a
// server/discover) must come back.
func stillServes(t *conform.T) (conform.Finding, bool) {
	if _, err := t.S.Request(t.Ctx, probeMethod(t.S), nil); err != nil {
		return conform.Crashed("the server stopped serving afterwards: a follow-up %s failed: %v", probeMethod(t.S), err), false
	}
	return conform.Finding{}, true
}

// rawRequest encodes a request frame or panics: the harness builds these from constants.
func rawRequest(id jsonrpc.ID, method string, params any) []byte {
	b, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		panic(err)
	}
	return b
}

func rawNotification(method string, params any) []byte {
	b, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		panic(err)
	}
	return b
}

// invalidParamsProbe picks a request the server's capabilities say it serves, with params that
// miss a required member; ok is false when the server serves none of them.
func invalidParamsProbe(s *harness.Session) (method string, params map[string]any, ok bool) {
	switch {
	case s.HasCapability("tools"):
		return "tools/call", map[string]any{}, true
	case s.HasCapability("resources"):
		return "resources/read", map[string]any{}, true
	case s.HasCapability("prompts"):
		return "prompts/get", map[string]any{}, true
	}
	return "", nil, false
}

// listMethod is a list request the server serves, or probeMethod when it declares none.
func listMethod(s *harness.Session) string {
	for _, c := range []struct{ cap, method string }{{"tools", "tools/list"}, {"resources", "resources/list"}, {"prompts", "prompts/list"}} {
		if s.HasCapability(c.cap) {
			return c.method
		}
	}
	return probeMethod(s)
}

// isEmptyResult reports whether a result object is {} or carries only _meta.
func isEmptyResult(m jsonrpc.Message) bool {
	obj, ok := m.ResultObject()
	if !ok {
		return false
	}
	for k := range obj {
		if k != "_meta" {
			return false
		}
	}
	return true
}

// jsonString decodes a JSON string member, reporting whether it was one.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// contextWithTimeout bounds one wait inside a check.
func contextWithTimeout(t *conform.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Ctx, d)
}

// lateReplyGrace bounds how long a reply is still awaited after the sentinel ping sent behind
// its probe has been answered: a server that answers concurrently may answer the ping first,
// but one that has answered the ping and stays silent for this long is not going to answer at
// all. Other waits for a late message use it whole.
const lateReplyGrace = time.Second

// A probe's grace (probeGrace) is lateReplyGraceRTTs round trips of its sentinel ping, at least
// lateReplyGraceMin and at most lateReplyGrace: what a server is late by beside a ping it
// answered scales with how fast it answers, and a loaded machine slows both alike. Against a
// server that never answers a malformed message (server-everything over stdio) the whole second
// was most of a shared session's run: six such probes on each.
const (
	lateReplyGraceMin  = 250 * time.Millisecond
	lateReplyGraceRTTs = 5
)

// probeGrace is the grace after a sentinel ping that took rtt to be answered.
func probeGrace(rtt time.Duration) time.Duration {
	return min(max(lateReplyGraceMin, lateReplyGraceRTTs*rtt), lateReplyGrace)
}

// awaitProbe waits for a message matching match after a probe was sent (delivery d, inbox
// position from). Over HTTP the probe's own response carries the reply, so the wait ends with it.
// On a stream a sentinel ping follows the probe, so silence costs the grace (probeGrace), not
// the request timeout.
func awaitProbe(t *conform.T, d *wire.Delivery, from int, match func(wire.Received) bool) (wire.Received, error) {
	if d != nil && d.CarriesReplies {
		return t.S.WaitFor(t.Ctx, d, from, match)
	}
	sentAt := time.Now()
	sid, _, err := t.S.Sentinel(t.Ctx)
	if err != nil {
		return wire.Received{}, err
	}
	r, err := t.S.WaitFor(t.Ctx, nil, from, func(r wire.Received) bool {
		return match(r) || (r.Msg.Kind == jsonrpc.Response && r.Msg.ID == sid)
	})
	if err != nil {
		return r, err
	}
	if match(r) {
		return r, nil
	}
	grace := probeGrace(r.At.Sub(sentAt))
	ctx, cancel := context.WithTimeout(t.Ctx, grace)
	defer cancel()
	r, err = t.S.Conn.Inbox().Wait(ctx, from, match)
	if err != nil {
		return r, fmt.Errorf("nothing, though a request sent after it (%s) was answered and %s passed", sentinelMethod(t.S), grace.Round(time.Millisecond))
	}
	return r, nil
}

// rejectedOverHTTP reports whether a message came in the body of an HTTP error status: over
// Streamable HTTP a server may refuse a POST of notifications with a 4xx and an id-less JSON-RPC
// error, which is a transport answer, not a reply to a notification.
func rejectedOverHTTP(r wire.Received) bool {
	return r.Via != nil && r.Via.Status >= 400 && (!r.Msg.HasID || r.Msg.ID.IsNull())
}

// isBase64 reports whether s is standard base64 (RFC 4648 §4), padded or not: the
// encoding of every binary field MCP carries (image, audio, blob).
func isBase64(s string) bool {
	if _, err := base64.StdEncoding.DecodeString(s); err == nil {
		return true
	}
	_, err := base64.RawStdEncoding.DecodeString(s)
	return err == nil
}

// sentinelMethod names the request a session's sentinel sends (see harness.Session.Sentinel).
func sentinelMethod(s *harness.Session) string {
	switch {
	case s.Stateless():
		return "server/discover"
	case s.JSONRPCOnly():
		return harness.SentinelMethod
	}
	return "ping"
}
