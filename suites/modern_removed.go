package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of 2026-07-28 about what it removed: methods, the handshake (on a modern-only server),
// and error codes; and about the error codes it allows.

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

func init() {
	conform.Register(
		conform.Check{ID: "VER26-LEGACY-INIT-ERROR", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport, Connection: conform.Raw, ModernOnlyServer: true,
			Summary: "a server that serves only the stateless revision answers a legacy initialize with an error naming the versions it supports",
			Run:     checkLegacyInitError},
		conform.Check{ID: "HTTP26-PROTO-HEADER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly, Connection: conform.Raw, ModernOnlyServer: true,
			Summary: "a modern-only server refuses a POST without MCP-Protocol-Version with 400 and -32020",
			Run:     checkProtoHeaderRequired},
		conform.Check{ID: "LOG26-SETLEVEL-REMOVED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "logging/setLevel no longer exists: a modern request for it gets -32601 (over HTTP with 404)", LevelReason: removedMethodLevelReason,
			Run: checkSetLevelRemoved},
		conform.Check{ID: "RES26-SUBSCRIBE-REMOVED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "resources/subscribe and resources/unsubscribe no longer exist: modern requests for them get -32601 (over HTTP with 404)", LevelReason: removedMethodLevelReason,
			Run: checkSubscribeRemoved},
		conform.Check{ID: "RES-NOT-FOUND", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "reading a resource that does not exist gets -32602",
			LevelReason: "The row is a SHOULD of -32002 up to 2025-11-25 and a MUST of -32602 at 2026-07-28; mcpspec checks the 2026-07-28 MUST.",
			Run:         checkResourceNotFound},
		conform.Check{ID: "RES26-NO-EMPTY-CONTENTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "reading a resource that does not exist never gets a result with empty contents",
			LevelReason: "MUST NOT: an empty contents array fails.",
			Run:         checkNoEmptyContents},
		conform.Check{ID: "ERR26-RETIRED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the retired codes -32002 and -32042 never appear, even where a resource is not found",
			LevelReason: "MUST NOT: either code in any error fails.",
			Run:         checkRetiredCodes},
		conform.Check{ID: "ERR26-RESERVED-RANGE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "codes from -32099 to -32020 are only the spec's own, each for its own condition",
			LevelReason: "MUST NOT / MUST: -32020 only for a header mismatch, -32022 only for an unsupported version, -32021 (a missing client capability) wherever the server requires one; any other code of the sub-range fails.",
			Run:         checkReservedRange},
		conform.Check{ID: "ERR26-LEGACY-RANGE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "no error uses a code from -32019 to -32000",
			LevelReason: "SHOULD NOT: a code from the sub-range warns.",
			Run:         checkLegacyRange},
		conform.Check{ID: "ERR26-APP-RANGE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the server's own error codes lie outside the JSON-RPC reserved range, -32768 to -32000",
			Run:     checkAppRange},
	)
}

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

// dualEra says why a modern-only requirement does not apply: the server does not serve the
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

func checkLegacyInitError(t *conform.T) conform.Finding {
	resp, d, err := legacyInitialize(t)
	if f, na := dualEra(t, resp); na {
		return f
	}
	if err != nil {
		// An HTTP refusal without a JSON-RPC error still counts if its body names the version.
		if d != nil && d.CarriesReplies && d.Status >= 400 && strings.Contains(string(d.Body), t.Revision) {
			return conform.Passed("HTTP %d without a JSON-RPC error, naming %s in its body", d.Status, t.Revision)
		}
		return conform.Violated("a legacy initialize got no error naming the supported versions: %v", err)
	}
	e, ok := resp.ErrorObject()
	if !ok {
		return conform.Violated("a legacy initialize was answered with neither a result nor an error: %s", show(resp))
	}
	if !strings.Contains(e.Message, t.Revision) && !strings.Contains(string(e.Data), t.Revision) {
		return conform.Violated("the error to a legacy initialize names no supported version (%s in neither its message nor its data): %s", t.Revision, show(resp))
	}
	return conform.Passed("")
}

func checkProtoHeaderRequired(t *conform.T) conform.Finding {
	resp, _, _ := legacyInitialize(t)
	if f, na := dualEra(t, resp); na {
		return f
	}
	meta := map[string]any{harness.MetaProtocolVersion: t.Revision, harness.MetaClientCapabilities: map[string]any{}, harness.MetaClientInfo: harness.ClientInfo}
	id := t.S.NextID()
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, rawRequest(id, "server/discover", map[string]any{"_meta": meta}),
		streamhttp.Request{NoProtocol: true, NoSession: true, Header: http.Header{streamhttp.HeaderMethod: {"server/discover"}}})
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return expectHeaderMismatch(t, "server/discover POSTed without MCP-Protocol-Version", resp, d, err)
}

// expectRemoved judges a modern request for a method the revision removed: -32601, over HTTP
// with 404.
func expectRemoved(t *conform.T, method string, params map[string]any) conform.Finding {
	resp, d, err := modernRequest(t, method, params, nil)
	if err != nil {
		return conform.Violated("a modern %s got no JSON-RPC reply: %v", method, err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("%s at %s: %s", method, t.Revision, why)
	}
	if d != nil && d.CarriesReplies && d.Status != http.StatusNotFound {
		return conform.Violated("%s was answered -32601 with HTTP %d, want 404", method, d.Status)
	}
	return conform.Passed("")
}

func checkSetLevelRemoved(t *conform.T) conform.Finding {
	// Valid params for the old method, so that a server still serving it answers with a result.
	return expectRemoved(t, "logging/setLevel", map[string]any{"level": "info"})
}

func checkSubscribeRemoved(t *conform.T) conform.Finding {
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		if f := expectRemoved(t, method, map[string]any{"uri": unknownResourceURI}); f.Outcome != conform.Pass {
			return f
		}
	}
	return conform.Passed("")
}

// readUnknownResource reads a resource that does not exist; ok is false (with the finding)
// when the server declares no resources.
func readUnknownResource(t *conform.T) (jsonrpc.Message, conform.Finding, bool) {
	if !t.S.HasCapability("resources") {
		return jsonrpc.Message{}, conform.NA("server/discover declares no resources capability"), false
	}
	resp, _, err := modernRequest(t, "resources/read", map[string]any{"uri": unknownResourceURI}, nil)
	if err != nil {
		return resp, conform.Violated("resources/read of %s got no JSON-RPC reply: %v", unknownResourceURI, err), false
	}
	return resp, conform.Finding{}, true
}

func checkResourceNotFound(t *conform.T) conform.Finding {
	resp, f, ok := readUnknownResource(t)
	if !ok {
		return f
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("resources/read of %s: %s", unknownResourceURI, why)
	}
	return conform.Passed("")
}

func checkNoEmptyContents(t *conform.T) conform.Finding {
	resp, f, ok := readUnknownResource(t)
	if !ok {
		return f
	}
	obj, isResult := resp.ResultObject()
	if !isResult {
		return conform.Passed("")
	}
	var contents []json.RawMessage
	if json.Unmarshal(obj["contents"], &contents) != nil || len(contents) == 0 {
		return conform.Violated("resources/read of %s, which does not exist, was answered with a result without contents: %s", unknownResourceURI, show(resp))
	}
	return conform.Passed("resources/read of %s returned contents; RES-NOT-FOUND judges that", unknownResourceURI)
}

// provokedError is one error a probe drew from the server.
type provokedError struct {
	probe string // what was sent
	code  int64
	cause int64 // the spec's code whose condition the probe creates (0: none of the stateless ones)
	resp  jsonrpc.Message
}

func (p provokedError) String() string {
	return fmt.Sprintf("%s → %d: %s", p.probe, p.code, show(p.resp))
}

// provokeErrors draws a spread of errors from the server: an unknown method, a removed one,
// bad params, an unknown tool and resource where those are declared, an unsupported version, a
// missing client capabilities object, and over HTTP a header mismatch. Probes the server
// answers without an integer error code are left out: other checks judge those answers.
func provokeErrors(t *conform.T) []provokedError {
	type probe struct {
		what, method string
		params       map[string]any
		header       http.Header
		cause        int64
	}
	bogus := "1900-01-01"
	probes := []probe{
		{what: "unknown method " + unknownMethod, method: unknownMethod},
		{what: "removed method ping", method: "ping"},
		{what: "unsupported protocol version " + bogus, method: "server/discover", cause: codeUnsupportedVersion,
			params: map[string]any{"_meta": map[string]any{harness.MetaProtocolVersion: bogus, harness.MetaClientCapabilities: map[string]any{}}},
			header: http.Header{streamhttp.HeaderProtocol: {bogus}}},
		{what: "_meta without client capabilities", method: listMethodModern(t),
			params: map[string]any{"_meta": map[string]any{harness.MetaProtocolVersion: t.Revision}}},
	}
	if method, params, ok := invalidParamsProbe(t.S); ok {
		probes = append(probes, probe{what: method + " without its required params", method: method, params: params})
	}
	if t.S.HasCapability("tools") {
		probes = append(probes, probe{what: "tools/call of an unknown tool", method: "tools/call", params: map[string]any{"name": unknownToolName, "arguments": map[string]any{}}})
	}
	if t.S.HasCapability("resources") {
		probes = append(probes, probe{what: "resources/read of an unknown resource", method: "resources/read", params: map[string]any{"uri": unknownResourceURI}})
	}
	if t.Transport == wire.HTTP {
		probes = append(probes, probe{what: "Mcp-Method differing from the body", method: "server/discover", cause: codeHeaderMismatch,
			header: http.Header{streamhttp.HeaderMethod: {"tools/list"}}})
	}
	var out []provokedError
	for _, p := range probes {
		resp, _, err := modernRequest(t, p.method, p.params, p.header)
		if code, ok := errorCode(resp); err == nil && ok {
			out = append(out, provokedError{probe: p.what, code: code, cause: p.cause, resp: resp})
		}
	}
	return out
}

// judgeCodes provokes the spread of errors and fails on the first whose code bad rejects.
func judgeCodes(t *conform.T, bad func(provokedError) string) conform.Finding {
	errs := provokeErrors(t)
	if len(errs) == 0 {
		return conform.CannotTest("no probe drew an error with an integer code")
	}
	for _, e := range errs {
		if why := bad(e); why != "" {
			return conform.Violated("%s: %s", why, e)
		}
	}
	return conform.Passed("%d errors judged", len(errs))
}

func checkRetiredCodes(t *conform.T) conform.Finding {
	return judgeCodes(t, func(e provokedError) string {
		if e.code == codeRetiredNotFound || e.code == codeRetiredURLElicit {
			return fmt.Sprintf("the retired code %d", e.code)
		}
		return ""
	})
}

func checkReservedRange(t *conform.T) conform.Finding {
	return judgeCodes(t, func(e provokedError) string {
		switch {
		case e.code < reservedRangeLow || e.code > reservedRangeHigh, e.code == codeMissingClientCap:
			return ""
		case e.code == codeHeaderMismatch || e.code == codeUnsupportedVersion:
			if e.code != e.cause {
				return fmt.Sprintf("%d used for another condition than its own", e.code)
			}
			return ""
		}
		return fmt.Sprintf("%d is in the spec's sub-range but not one of its codes", e.code)
	})
}

func checkLegacyRange(t *conform.T) conform.Finding {
	return judgeCodes(t, func(e provokedError) string {
		if e.code >= legacyRangeLow && e.code <= legacyRangeHigh {
			return fmt.Sprintf("%d is in the legacy sub-range %d..%d", e.code, legacyRangeLow, legacyRangeHigh)
		}
		return ""
	})
}

// definedCodes are the codes of the reserved range the spec defines at 2026-07-28.
var definedCodes = map[int64]bool{
	codeParseError: true, codeInvalidRequest: true, codeMethodNotFound: true, codeInvalidParams: true, codeInternalError: true,
	codeHeaderMismatch: true, codeMissingClientCap: true, codeUnsupportedVersion: true,
}

func checkAppRange(t *conform.T) conform.Finding {
	return judgeCodes(t, func(e provokedError) string {
		if e.code >= jsonrpcReservedLow && e.code <= legacyRangeHigh && !definedCodes[e.code] {
			return fmt.Sprintf("%d is a code of the server's own inside the JSON-RPC reserved range", e.code)
		}
		return ""
	})
}
