package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the stateless revision, 2026-07-28: no initialize, _meta on every request.
// streamTransport: the stateless revision has no legacy HTTP+SSE transport.
var streamTransport = []string{wire.Stdio, wire.HTTP}

// Error codes the stateless revision adds.
const (
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

func init() {
	conform.Register(
		conform.Check{ID: "VER26-DISCOVER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "server/discover is served: supported versions (this one among them), capabilities and caching hints",
			Run:     checkDiscover},
		conform.Check{ID: "VER26-UNSUPPORTED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a request at an unsupported protocol version gets -32022 naming the requested and the supported versions",
			Run:     checkUnsupportedVersion},
		conform.Check{ID: "META26-REQUIRED-FIELDS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a request whose _meta lacks the protocol version or the client capabilities is refused with -32602",
			LevelReason: "Over HTTP, with the MCP-Protocol-Version header present but the body's version missing, -32020 (header mismatch) is accepted too: the spec allows reading it either way.",
			Run:         checkRequiredMeta},
		conform.Check{ID: "MSG-RESULTTYPE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every result carries a resultType",
			Run:     checkResultType},
		conform.Check{ID: "CACHE-HINTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "discover and list results carry caching hints: an integer ttlMs of at least 0 and a cacheScope",
			Run:     checkCacheHints},
		conform.Check{ID: "PING-REMOVED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "ping no longer exists: a modern ping is answered with -32601",
			LevelReason: "The changelog removes ping without a keyword; a method that does not exist must be answered with -32601 (JSON-RPC).",
			Run:         checkPingRemoved},
		conform.Check{ID: "HTTP26-METHOD-404", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an unknown method is answered with HTTP 404 carrying the -32601 error",
			Run:     checkMethod404},
		conform.Check{ID: "HTTP26-PROTO-MISMATCH", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an MCP-Protocol-Version header that differs from the body's protocol version is refused with 400 and -32020",
			Run:     checkProtocolMismatch},
		conform.Check{ID: "HTTP26-HEADER-MISMATCH", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Method header that differs from the body's method is refused with 400 and -32020",
			Run:     checkHeaderMismatch},
		conform.Check{ID: "HTTP26-GET-DELETE-405", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "GET and DELETE on the endpoint are refused with 405: the stateless revision has no streams or sessions to open or end",
			Run:     checkGetDelete405},
	)
}

// modernRequest sends method with params (required _meta added unless meta overrides it) and
// the HTTP headers given, and returns the reply and its delivery.
func modernRequest(t *conform.T, method string, params map[string]any, header http.Header) (jsonrpc.Message, *wire.Delivery, error) {
	id := t.S.NextID()
	frame := rawRequest(id, method, t.S.ModernParams(params))
	from := t.S.Mark()
	var d *wire.Delivery
	if hc, ok := t.S.Conn.(*streamhttp.Conn); ok {
		d = hc.Do(t.Ctx, frame, streamhttp.Request{Header: header})
	} else {
		var err error
		if d, err = t.S.Send(t.Ctx, frame); err != nil {
			return jsonrpc.Message{}, d, err
		}
	}
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return resp, d, err
}

func checkDiscover(t *conform.T) conform.Finding {
	resp := t.S.InitResponse()
	obj, ok := resp.ResultObject()
	if !ok {
		return conform.Violated("server/discover was not answered with a result: %s", show(resp))
	}
	var versions []string
	if json.Unmarshal(obj["supportedVersions"], &versions) != nil || !slices.Contains(versions, t.Revision) {
		return conform.Violated("supportedVersions %s does not list %s", string(obj["supportedVersions"]), t.Revision)
	}
	if err := t.S.Env().Validator.Definition(t.Revision, "DiscoverResult", resp.Result); err != nil {
		return conform.Violated("%v", err)
	}
	return conform.Passed("")
}

func checkUnsupportedVersion(t *conform.T) conform.Finding {
	const bogus = "1900-01-01"
	meta := map[string]any{harness.MetaProtocolVersion: bogus, harness.MetaClientCapabilities: map[string]any{}}
	resp, d, err := modernRequest(t, "server/discover", map[string]any{"_meta": meta}, http.Header{streamhttp.HeaderProtocol: {bogus}})
	if err != nil {
		return conform.Violated("a request at %s got no JSON-RPC reply: %v", bogus, err)
	}
	if ok, why := expectError(resp, codeUnsupportedVersion); !ok {
		return conform.Violated("a request at protocol version %s: %s", bogus, why)
	}
	e, _ := resp.ErrorObject()
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if json.Unmarshal(e.Data, &data) != nil || len(data.Supported) == 0 || data.Requested != bogus {
		return conform.Violated("the -32022 error's data must name the requested version and the supported ones: %s", string(e.Data))
	}
	if d != nil && d.CarriesReplies && d.Status != http.StatusBadRequest {
		return conform.Violated("the -32022 error came with HTTP %d, want 400", d.Status)
	}
	return conform.Passed("")
}

func checkRequiredMeta(t *conform.T) conform.Finding {
	for _, missing := range []string{harness.MetaClientCapabilities, harness.MetaProtocolVersion} {
		meta := map[string]any{harness.MetaProtocolVersion: t.Revision, harness.MetaClientCapabilities: map[string]any{}}
		delete(meta, missing)
		resp, d, err := modernRequest(t, listMethodModern(t), map[string]any{"_meta": meta}, nil)
		if err != nil {
			return conform.Violated("a request without %s got no JSON-RPC reply: %v", missing, err)
		}
		codes := []int64{codeInvalidParams}
		if missing == harness.MetaProtocolVersion && d.CarriesReplies {
			codes = append(codes, codeHeaderMismatch)
		}
		if ok, why := expectError(resp, codes...); !ok {
			return conform.Violated("a request without _meta %s: %s", missing, why)
		}
		// Its id was readable, so the refusal must carry it (a null id is for unreadable ones).
		if resp.ID.IsNull() {
			return conform.Violated("a request without _meta %s was refused with a null id instead of its own: %s", missing, show(resp))
		}
		if d.CarriesReplies && d.Status != http.StatusBadRequest {
			return conform.Violated("a request without _meta %s was refused with HTTP %d, want 400", missing, d.Status)
		}
	}
	return conform.Passed("")
}

// listMethodModern is a list method the discovered capabilities promise, or server/discover.
func listMethodModern(t *conform.T) string {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	for _, c := range []struct{ cap, method string }{{"tools", "tools/list"}, {"resources", "resources/list"}, {"prompts", "prompts/list"}} {
		if _, ok := caps[c.cap]; ok {
			return c.method
		}
	}
	return "server/discover"
}

// modernResults gathers the results of discover and of a list method.
func modernResults(t *conform.T) (map[string]jsonrpc.Message, *conform.Finding) {
	out := map[string]jsonrpc.Message{"server/discover": t.S.InitResponse()}
	if m := listMethodModern(t); m != "server/discover" {
		resp, err := t.S.Request(t.Ctx, m, nil)
		if err != nil {
			f := conform.Violated("%s: %v", m, err)
			return nil, &f
		}
		out[m] = resp
	}
	return out, nil
}

func checkResultType(t *conform.T) conform.Finding {
	results, f := modernResults(t)
	if f != nil {
		return *f
	}
	for method, resp := range results {
		obj, ok := resp.ResultObject()
		if !ok {
			return conform.CannotTest("%s was not answered with a result: %s", method, show(resp))
		}
		if _, ok := jsonString(obj["resultType"]); !ok {
			return conform.Violated("the result of %s has no string resultType: %s", method, show(resp))
		}
	}
	return conform.Passed("")
}

func checkCacheHints(t *conform.T) conform.Finding {
	results, f := modernResults(t)
	if f != nil {
		return *f
	}
	for method, resp := range results {
		obj, ok := resp.ResultObject()
		if !ok {
			return conform.CannotTest("%s was not answered with a result: %s", method, show(resp))
		}
		ttl, isInt := jsonrpc.ID(obj["ttlMs"]), false
		var n int64
		if raw := obj["ttlMs"]; raw != nil && json.Unmarshal(raw, &n) == nil {
			isInt = true
		}
		if !isInt || n < 0 {
			return conform.Violated("the result of %s has no integer ttlMs of at least 0 (ttlMs: %s)", method, ttl.Text())
		}
		if _, ok := jsonString(obj["cacheScope"]); !ok {
			return conform.Violated("the result of %s has no cacheScope", method)
		}
	}
	return conform.Passed("")
}

func checkPingRemoved(t *conform.T) conform.Finding {
	resp, _, err := modernRequest(t, "ping", nil, nil)
	if err != nil {
		return conform.Violated("a modern ping got no JSON-RPC reply: %v", err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("ping at %s: %s", t.Revision, why)
	}
	return conform.Passed("")
}

func checkMethod404(t *conform.T) conform.Finding {
	resp, d, err := modernRequest(t, unknownMethod, nil, nil)
	if err != nil {
		return conform.Violated("%s got no JSON-RPC reply (HTTP %d): %v", unknownMethod, d.Status, err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("%s: %s", unknownMethod, why)
	}
	if d.Status != http.StatusNotFound {
		return conform.Violated("%s was answered -32601 with HTTP %d, want 404", unknownMethod, d.Status)
	}
	return conform.Passed("")
}

// expectHeaderMismatch judges a request the server must refuse with 400 and -32020.
func expectHeaderMismatch(t *conform.T, what string, resp jsonrpc.Message, d *wire.Delivery, err error) conform.Finding {
	if d.Status != http.StatusBadRequest {
		return conform.Violated("%s got HTTP %d, want 400", what, d.Status)
	}
	if err != nil {
		return conform.Violated("%s got HTTP 400 without a JSON-RPC error: %v", what, err)
	}
	if ok, why := expectError(resp, codeHeaderMismatch); !ok {
		return conform.Violated("%s: %s", what, why)
	}
	return conform.Passed("")
}

func checkProtocolMismatch(t *conform.T) conform.Finding {
	meta := map[string]any{harness.MetaProtocolVersion: harness.Rev20251125, harness.MetaClientCapabilities: map[string]any{}}
	resp, d, err := modernRequest(t, "server/discover", map[string]any{"_meta": meta}, http.Header{streamhttp.HeaderProtocol: {t.Revision}})
	return expectHeaderMismatch(t, fmt.Sprintf("MCP-Protocol-Version %s with %s in the body", t.Revision, harness.Rev20251125), resp, d, err)
}

func checkHeaderMismatch(t *conform.T) conform.Finding {
	resp, d, err := modernRequest(t, "server/discover", nil, http.Header{streamhttp.HeaderMethod: {"tools/list"}})
	return expectHeaderMismatch(t, "Mcp-Method: tools/list on a server/discover request", resp, d, err)
}

func checkGetDelete405(t *conform.T) conform.Finding {
	hc := httpConn(t)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		d := hc.Do(t.Ctx, nil, streamhttp.Request{Method: method})
		if err := waitReady(t, d); err != nil {
			return conform.Violated("%s: %v", method, err)
		}
		if d.Status != http.StatusMethodNotAllowed {
			return conform.Violated("%s on the endpoint got HTTP %d, want 405", method, d.Status)
		}
	}
	return conform.Passed("")
}
