package suites

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of JSON-RPC 2.0 itself: the request, response and error objects, and the codes of
// §5.1. Most of them belong to the JSON-RPC profile too (mcpspec run --jsonrpc).

func init() {
	conform.Register(
		conform.Check{ID: "JRPC-VERSION", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: `every message carries "jsonrpc":"2.0", and a request with another version is rejected with -32600`, Side: conform.Server{JSONRPC: true, Run: checkJSONRPCVersion}},
		conform.Check{ID: "JRPC-REPLY-REQUIRED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "every request gets exactly one response: valid, unknown method or invalid params", Side: conform.Server{JSONRPC: true, Run: checkReplyRequired}},
		conform.Check{ID: "JRPC-NOTIF-NO-REPLY", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "notifications are never answered, known or unknown", Side: conform.Server{JSONRPC: true, Run: checkNotificationNoReply}},
		conform.Check{ID: "JRPC-ID-ECHO", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "a response's id is the request's id, same JSON type and value (\"1\" is not 1)", Side: conform.Server{JSONRPC: true, Connection: conform.Observed, Run: checkIDEcho}},
		conform.Check{ID: "JRPC-ID-NULL-ON-UNREADABLE", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "errors for requests whose id cannot be read carry a null id (or, from 2025-11-25, none; JSON-RPC alone: null)", Side: conform.Server{JSONRPC: true, Run: checkIDNullOnUnreadable}},
		conform.Check{ID: "JRPC-RESULT-XOR-ERROR", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "a response has a result or an error, never both, never neither", Side: conform.Server{JSONRPC: true, Run: checkResultXorError}},
		conform.Check{ID: "JRPC-ERROR-OBJECT", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "an error is an object with a code and a string message", Side: conform.Server{JSONRPC: true, Run: checkErrorObject}},
		conform.Check{ID: "JRPC-ERROR-CODE-INT", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "error codes are JSON integers", Side: conform.Server{JSONRPC: true, Run: checkErrorCodeInt}},
		conform.Check{ID: "JRPC-ERROR-MESSAGE", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD", Summary: "every error message seen is one short sentence", LevelReason: "JSON-RPC asks for a concise single sentence; mcpspec warns on a newline or more than 200 characters in any error the session received, a known method's missing params (a validation error) provoked among them.", Side: conform.Server{JSONRPC: true, Run: checkErrorMessage}},
		conform.Check{ID: "JRPC-PARSE-ERROR", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "invalid JSON is answered with -32700 and the server keeps serving", LevelReason: "JSON-RPC defines the code's meaning and requires a reply to every call it can read; the catalogue's 'MUST (code semantics)'.", Side: conform.Server{JSONRPC: true, Run: checkParseError}},
		conform.Check{ID: "JRPC-INVALID-REQUEST", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "an object that is not a valid request (method not a string, no method) is answered with -32600", LevelReason: "Code semantics from JSON-RPC 2.0 §5.1, as the catalogue records.", Side: conform.Server{JSONRPC: true, Run: checkInvalidRequest}},
		conform.Check{ID: "JRPC-METHOD-NOT-FOUND", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "an unknown method is answered with -32601 and the request's id", LevelReason: "Code semantics from JSON-RPC 2.0 §5.1, as the catalogue records.", Side: conform.Server{JSONRPC: true, Run: checkMethodNotFound}},
		conform.Check{ID: "JRPC-INVALID-PARAMS", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "a known method with missing required params is answered with -32602", LevelReason: "Code semantics from JSON-RPC 2.0 §5.1, as the catalogue records.", Side: conform.Server{Run: checkInvalidParams}},
		// Ids that many JSON parsers cannot carry: an integer beyond a double's exact range, and a
		// number with a fraction. A session no other check uses meanwhile keeps what comes back
		// (an id the MCP schema does not allow) out of the shared session's evidence; each sends
		// one ping and changes nothing, so over stdio they take turns on one process (Exclusive).
		conform.Check{ID: "JRPC-ID-LARGE-INT", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a request with an integer id above 2^53 (" + largeIntID + ") is answered under exactly that id, or refused with a null id",
			LevelReason: "JSON-RPC §5: the response's id MUST be the request's, and every request MUST be answered. RFC 8259 §6 lets a parser hold numbers as doubles, so refusing such an id as unreadable (an error with a null id) passes; an answer under a rounded id answers no request, and silence leaves it unanswered.",
			Side:        conform.Server{JSONRPC: true, Connection: conform.Exclusive, Run: checkIDProbe(largeIntID)}},
		conform.Check{ID: "JRPC-ID-FRACTIONAL", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a request with a fractional id (" + fractionalID + ") is answered under exactly that id, or refused with a null id",
			LevelReason: "JSON-RPC allows number ids and only asks clients to avoid fractions (SHOULD NOT), and MCP asks clients for string or integer ids: both bind the sender. A server may refuse such an id (an error with a null id), but JSON-RPC §5 makes it answer every request under the request's own id (MUST).",
			Side:        conform.Server{JSONRPC: true, Connection: conform.Exclusive, Run: checkIDProbe(fractionalID)}},
		conform.Check{ID: "JRPC-RPC-PREFIX", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "methods starting with rpc. are reserved: a call to one is answered with -32601", Side: conform.Server{JSONRPC: true, Run: checkRPCPrefix}},
		// Handshake revisions only: at 2026-07-28 a request whose params are not an object cannot
		// carry the required _meta, so every server refuses it for that alone and the check could
		// not tell a server that processes such params from one that rejects them.
		conform.Check{ID: "JRPC-PARAMS-STRUCTURED", Revisions: conform.Until(harness.Rev20251125), Transports: allTransports, Level: "MUST",
			LevelReason: "JSON-RPC 2.0 §4.2 makes params a structured value (MUST); a request with other params is not a valid Request, which a server answers with an error (§5.1), never processes.", Summary: "params that are not an object (JSON-RPC alone: not structured) are rejected with -32600 or -32602, not processed", Side: conform.Server{JSONRPC: true, Run: checkParamsStructured}},
	)
}

func checkJSONRPCVersion(t *conform.T) conform.Finding {
	for _, frame := range []string{`{"jsonrpc":"1.0","id":%s,"method":"%s"}`, `{"id":%s,"method":"%s"}`} {
		id := t.S.NextID()
		sent := string(statelessFrame(t.S, []byte(fmt.Sprintf(frame, id, probeMethod(t.S)))))
		resp, _, err := reply(t, []byte(sent), id)
		if err != nil {
			return conform.Violated("%s: %v", sent, err)
		}
		if ok, why := expectError(resp, codeInvalidRequest); !ok {
			return conform.Violated("%s was not rejected as an invalid request: %s", sent, why)
		}
	}
	for _, r := range t.S.Conn.Inbox().Since(0) {
		for _, m := range flatten(r.Msg) {
			if m.Kind != jsonrpc.Invalid && !m.VersionOK() {
				return conform.Violated(`a message without "jsonrpc":"2.0": %s`, show(m))
			}
		}
	}
	return conform.Passed("")
}

func checkReplyRequired(t *conform.T) conform.Finding {
	probes := []struct {
		method string
		params any
	}{{probeMethod(t.S), nil}, {listMethod(t.S), nil}, {unknownMethod, nil}}
	if m, p, ok := invalidParamsProbe(t.S); ok {
		probes = append(probes, struct {
			method string
			params any
		}{m, p})
	}
	from := t.S.Mark()
	var ids []jsonrpc.ID
	for _, p := range probes {
		id := t.S.NextID()
		ids = append(ids, id)
		if _, err := t.S.RequestWithID(t.Ctx, id, p.method, p.params); err != nil {
			return conform.Violated("%s got no response: %v", p.method, err)
		}
	}
	after, err := t.S.Quiet(t.Ctx, from)
	if err != nil {
		return conform.Violated("%v", err)
	}
	for i, id := range ids {
		n := 0
		for _, r := range after {
			for _, m := range flatten(r.Msg) {
				if m.Kind == jsonrpc.Response && m.ID == id {
					n++
				}
			}
		}
		if n != 1 {
			return conform.Violated("%s (id %s) got %d responses, want exactly 1", probes[i].method, id.Text(), n)
		}
	}
	return conform.Passed("")
}

func checkNotificationNoReply(t *conform.T) conform.Finding {
	from := t.S.Mark()
	type note struct {
		method string
		params any
	}
	known := note{"notifications/initialized", nil}
	if t.S.Stateless() {
		// 2026-07-28 has no initialized notification; a cancellation of a request that never
		// existed is a notification of that revision every server must take without a reply.
		known = note{"notifications/cancelled", t.S.StatelessParams(cancelParams(t.S.NextID()))}
	}
	for _, n := range []note{
		known,
		{"notifications/mcpspec/unknown", map[string]any{"x": 1}},
		{"notifications/message", map[string]any{}},
	} {
		if _, err := t.S.Notify(t.Ctx, n.method, n.params); err != nil {
			return conform.Violated("sending %s: %v", n.method, err)
		}
	}
	after, err := t.S.Quiet(t.Ctx, from)
	if err != nil {
		return conform.Crashed("after three notifications: %v", err)
	}
	for _, r := range after {
		if rejectedOverHTTP(r) {
			continue
		}
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response {
				return conform.Violated("a notification was answered: %s", show(m))
			}
		}
	}
	return conform.Passed("")
}

func checkIDNullOnUnreadable(t *conform.T) conform.Finding {
	for _, frame := range []string{brokenJSON, nonStringMethod} {
		resp, err := nextResponse(t, []byte(frame))
		if err != nil {
			return conform.CannotTest("%s got no error reply, so there is no id to judge (see JRPC-PARSE-ERROR and JRPC-INVALID-REQUEST): %v", frame, err)
		}
		if resp.HasID && !resp.ID.IsNull() {
			return conform.Violated("the reply to %s carries id %s; it must be null", frame, resp.ID.Text())
		}
		if !resp.HasID && (t.Revision < "2025-11-25" || t.Revision == harness.RevJSONRPC) {
			return conform.Violated("the reply to %s has no id member; JSON-RPC requires \"id\": null (omitting it is allowed only from 2025-11-25)", frame)
		}
	}
	return conform.Passed("")
}

// nextResponse sends frame and returns the first response that follows, whatever its id: the
// reply to a request whose id the server could not read may carry any id, and that is the point.
func nextResponse(t *conform.T, frame []byte) (jsonrpc.Message, error) {
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		return jsonrpc.Message{}, err
	}
	r, err := awaitProbe(t, d, from, func(r wire.Received) bool {
		return r.Msg.Kind == jsonrpc.Response && !t.S.IsSentinelAnswer(r.Msg) && t.S.Env().IDs.Owner(r.Msg.ID) == ""
	})
	if err != nil {
		return jsonrpc.Message{}, fmt.Errorf("no reply: %w", err)
	}
	return r.Msg, nil
}

// provokeError returns an error response: to an unknown method, or else to a known method
// without its required params. A server that answers neither with a JSON-RPC error leaves the
// error-shape checks nothing to judge (JRPC-METHOD-NOT-FOUND and JRPC-INVALID-PARAMS report it).
func provokeError(t *conform.T) (jsonrpc.Message, *conform.Finding) {
	resp, err := t.S.Request(t.Ctx, unknownMethod, nil)
	if err == nil && resp.HasError {
		return resp, nil
	}
	if method, params, ok := invalidParamsProbe(t.S); ok {
		if r2, err2 := t.S.Request(t.Ctx, method, params); err2 == nil && r2.HasError {
			return r2, nil
		}
	}
	f := conform.CannotTest("the server answered no probe with a JSON-RPC error, so there is no error to judge (see JRPC-METHOD-NOT-FOUND): %v %s", err, show(resp))
	return resp, &f
}

func checkResultXorError(t *conform.T) conform.Finding {
	from := t.S.Mark()
	if _, err := t.S.Request(t.Ctx, probeMethod(t.S), nil); err != nil {
		return conform.Violated("%s: %v", probeMethod(t.S), err)
	}
	if _, f := provokeError(t); f != nil {
		return *f
	}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response && m.HasResult == m.HasError {
				return conform.Violated("a response with both or neither of result and error: %s", show(m))
			}
		}
	}
	return conform.Passed("")
}

func checkErrorObject(t *conform.T) conform.Finding {
	resp, f := provokeError(t)
	if f != nil {
		return *f
	}
	e, ok := resp.ErrorObject()
	switch {
	case !ok:
		return conform.Violated("an unknown method was not answered with an error: %s", show(resp))
	case !e.IsObject:
		return conform.Violated("error is not an object: %s", show(resp))
	case e.Code == nil:
		return conform.Violated("error has no code: %s", show(resp))
	case !e.MessageIsOK:
		return conform.Violated("error has no string message: %s", show(resp))
	}
	return conform.Passed("")
}

func checkErrorCodeInt(t *conform.T) conform.Finding {
	resp, f := provokeError(t)
	if f != nil {
		return *f
	}
	e, ok := resp.ErrorObject()
	if !ok || !e.IsObject || e.Code == nil {
		return conform.CannotTest("the error has no code to judge (see JRPC-ERROR-OBJECT): %s", show(resp))
	}
	if !e.CodeIsInt {
		return conform.Violated("error code %s is not a JSON integer", string(e.Code))
	}
	return conform.Passed("")
}

func checkErrorMessage(t *conform.T) conform.Finding {
	if _, f := provokeError(t); f != nil {
		return *f
	}
	// Validation errors are where long dumps turn up: an MCP session also provokes one with a
	// known method's missing params. Then every error the session has seen is judged.
	if method, params, ok := invalidParamsProbe(t.S); ok && !t.S.JSONRPCOnly() {
		_, _ = t.S.Request(t.Ctx, method, params) // an answer that is no error is JRPC-INVALID-PARAMS's
	}
	judged := 0
	for _, r := range t.S.Conn.Inbox().Since(0) {
		for _, m := range flatten(r.Msg) {
			e, ok := m.ErrorObject()
			if !ok || !e.MessageIsOK {
				continue
			}
			judged++
			if strings.ContainsAny(e.Message, "\r\n") || len([]rune(e.Message)) > maxErrorMsgChars {
				return conform.Violated("error message is not one short sentence (%d characters): %q in %s", len([]rune(e.Message)), clip(e.Message, 120), clip(show(m), 200))
			}
		}
	}
	if judged == 0 {
		return conform.CannotTest("no error had a string message to judge (see JRPC-ERROR-OBJECT)")
	}
	return conform.Passed("")
}

func checkParseError(t *conform.T) conform.Finding {
	resp, err := nextResponse(t, []byte(brokenJSON))
	if err != nil {
		return conform.Violated("invalid JSON got no error reply: %v", err)
	}
	if ok, why := expectError(resp, codeParseError); !ok {
		return conform.Violated("invalid JSON: %s", why)
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("")
}

func checkInvalidRequest(t *conform.T) conform.Finding {
	id := t.S.NextID()
	for _, frame := range []string{nonStringMethod, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"params":{}}`, id)} {
		frame = string(statelessFrame(t.S, []byte(frame)))
		resp, _, err := reply(t, []byte(frame), id)
		if err != nil {
			return conform.Violated("%s got no error reply: %v", frame, err)
		}
		if ok, why := expectError(resp, codeInvalidRequest); !ok {
			return conform.Violated("%s: %s", frame, why)
		}
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("")
}

func checkMethodNotFound(t *conform.T) conform.Finding {
	id := t.S.NextID()
	resp, err := t.S.RequestWithID(t.Ctx, id, unknownMethod, nil)
	if err != nil {
		return conform.Violated("%s: %v", unknownMethod, err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("unknown method: %s", why)
	}
	return conform.Passed("")
}

func checkInvalidParams(t *conform.T) conform.Finding {
	method, params, ok := invalidParamsProbe(t.S)
	if !ok {
		return conform.CannotTest("the server declares none of tools, resources or prompts, so there is no method with required params to probe")
	}
	resp, err := t.S.Request(t.Ctx, method, params)
	if err != nil {
		return conform.Violated("%s with params {}: %v", method, err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("%s without its required params: %s", method, why)
	}
	return conform.Passed("")
}

func checkParamsStructured(t *conform.T) conform.Finding {
	// MCP params are objects, so an array is refused too, by ping. JSON-RPC alone allows arrays
	// (by position), and no method is known to exist there: the probe is an unknown method whose
	// params are a scalar, refused with -32600 or -32602, or with -32601 by a server that reads
	// the method first; a result, silence or a server that stops serving fails.
	method, params, codes := "ping", []string{`"bar"`, `42`, `[1]`}, []int64{codeInvalidRequest, codeInvalidParams}
	if t.S.JSONRPCOnly() {
		method, params, codes = unknownMethod, []string{`"bar"`, `42`}, []int64{codeInvalidRequest, codeInvalidParams, codeMethodNotFound}
	}
	for _, p := range params {
		id := t.S.NextID()
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, p)
		resp, _, err := reply(t, []byte(frame), id)
		if err != nil {
			return conform.Violated("%s: %v", frame, err)
		}
		if ok, why := expectError(resp, codes...); !ok {
			return conform.Violated("params %s were not rejected: %s", p, why)
		}
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("")
}

// Ids of JRPC-ID-LARGE-INT (2^53 + 1, which a double rounds to 2^53) and JRPC-ID-FRACTIONAL.
const (
	largeIntID   = "9007199254740993"
	fractionalID = "1.5"
)

// checkIDProbe sends a request with the literal id and judges what comes back.
func checkIDProbe(literal string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		id := jsonrpc.ID(literal)
		method := probeMethod(t.S)
		if t.S.JSONRPCOnly() {
			method = unknownMethod // answered with an error under the id: enough to judge it
		}
		t.S.Sent(id, method)
		frame := statelessFrame(t.S, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, literal, method)))
		resp, _, err := reply(t, frame, id)
		switch {
		case err != nil:
			return conform.Violated("%s with id %s: %v", method, literal, err)
		case resp.HasID && resp.ID == id:
			return conform.Passed("answered under id %s", literal)
		case resp.HasError:
			return conform.Passed("refused with an id-less error: %s", show(resp))
		}
		return conform.Violated("%s with id %s got a result without its id: %s", method, literal, show(resp))
	}
}

func checkRPCPrefix(t *conform.T) conform.Finding {
	resp, err := t.S.Request(t.Ctx, "rpc.mcpspec", nil)
	if err != nil {
		return conform.Violated("rpc.mcpspec: %v", err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("a reserved rpc. method: %s", why)
	}
	return conform.Passed("")
}

// statelessFrame adds the stateless revision's required _meta to a raw frame a check built itself,
// in a stateless session and when the frame is a request-like object (a method, or params) whose
// params are absent or an object:
// without it a stateless server would refuse the frame for its _meta, not for what the check
// probes. Other frames, and every frame of a handshake session, are sent as written.
func statelessFrame(s *harness.Session, frame []byte) []byte {
	if !s.Stateless() {
		return frame
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil {
		return frame
	}
	_, hasMethod := obj["method"]
	p, has := obj["params"]
	if !hasMethod && !has {
		return frame // not a request: a response, or an object the check keeps bare on purpose
	}
	if _, isObj := p.(map[string]any); has && !isObj {
		return frame
	}
	obj["params"] = s.StatelessParams(p)
	out, err := json.Marshal(obj)
	if err != nil {
		return frame
	}
	return out
}
