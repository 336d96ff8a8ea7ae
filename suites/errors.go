package suites

import (
	"net/http"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: the error codes the checks expect, names that exist nowhere, and provoking
// an error.

// replies drops what the server sent on its own initiative (requests and notifications, such
// as a list_changed right after initialize): only responses can answer a batch.
func replies(in []wire.Received) []wire.Received {
	var out []wire.Received
	for _, r := range in {
		if r.Msg.Kind != jsonrpc.Request && r.Msg.Kind != jsonrpc.Notification {
			out = append(out, r)
		}
	}
	return out
}

// answers reports whether m is the answer the session expects to a probe request: a result, or
// in the JSON-RPC profile any response. There the harness knows no method of the server's that
// succeeds (its probe, ping, may be unknown), and JSON-RPC §6 asks for one response per
// request, whatever it says.
func answers(s *harness.Session, m jsonrpc.Message) bool {
	return m.HasResult || (s.JSONRPCOnly() && m.HasError)
}

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// Probes from JSON-RPC 2.0 §7.
const (
	brokenJSON       = `{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`
	nonStringMethod  = `{"jsonrpc":"2.0","method":1,"params":"bar"}`
	unknownMethod    = "mcpspec/no-such-method"
	maxErrorMsgChars = 200
)

// flatten returns a message, or the elements of a batch.
func flatten(m jsonrpc.Message) []jsonrpc.Message {
	if m.Kind == jsonrpc.Batch {
		return m.Elems
	}
	return []jsonrpc.Message{m}
}

// Error codes the stateless revision adds.
const (
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// Error codes judged here besides the JSON-RPC ones.
const (
	codeInternalError        = -32603
	codeMissingClientCap     = -32021
	codeRetiredNotFound      = -32002 // resource not found, before 2026-07-28
	codeRetiredURLElicit     = -32042 // URL elicitation required, 2025-11-25
	reservedRangeLow         = -32099 // -32099..-32020: the spec's own codes
	reservedRangeHigh        = -32020
	legacyRangeLow           = -32019 // -32019..-32000: implementations' codes of old
	legacyRangeHigh          = -32000
	jsonrpcReservedLow       = -32768 // -32768..-32000: reserved by JSON-RPC
	unknownResourceURI       = "mcpspec://does-not-exist"
	unknownToolName          = "mcpspec-no-such-tool"
	removedMethodLevelReason = "The changelog removes the method without a keyword; a request for a method that does not exist must be answered with -32601 (JSON-RPC), over HTTP with 404 (HTTP26-METHOD-404)."
)

// legacyInitialize sends initialize as a client of 2025-11-25 would: no stateless _meta, and
// over HTTP no stateless headers.
func legacyInitialize(t *conform.T) (jsonrpc.Message, *wire.Delivery, error) {
	id := t.S.NextID()
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "initialize", harness.InitializeParams(harness.Rev20251125)))
	if err != nil {
		return jsonrpc.Message{}, d, err
	}
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return resp, d, err
}

// dualEra says why a stateless-only requirement does not apply: the server does not serve the
// revision, or it answers a legacy initialize with a result (it serves the handshake too).
func dualEra(t *conform.T, resp jsonrpc.Message) (conform.Finding, bool) {
	if neg := t.Negotiation(t.Revision); neg.Err != nil {
		return conform.NA("the server does not serve revision %s: %v", t.Revision, neg.Err), true
	}
	if _, ok := resp.ResultObject(); ok {
		return conform.NA("the server answers a legacy initialize with a result: it serves the handshake revisions too, and this binds only servers that serve %s alone (%s)", t.Revision, show(resp)), true
	}
	return conform.Finding{}, false
}

// expectRemoved judges a stateless request for a method the revision removed: -32601, over HTTP
// with 404.
func expectRemoved(t *conform.T, method string, params map[string]any) conform.Finding {
	resp, d, err := statelessRequest(t, method, params, nil)
	if err != nil {
		return conform.Violated("a stateless (2026-07-28) %s got no JSON-RPC reply: %v", method, err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("%s at %s: %s", method, t.Revision, why)
	}
	if d != nil && d.CarriesReplies && d.Status != http.StatusNotFound {
		return conform.Violated("%s was answered -32601 with HTTP %d, want 404", method, d.Status)
	}
	return conform.Passed("")
}

// unknownPromptName is a prompt no server has.
const unknownPromptName = "mcpspec-no-such-prompt"
