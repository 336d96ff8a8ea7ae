package suites

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the stateless revision (2026-07-28): the bodies of its HTTP refusals.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP26-MODERN-ERROR-BODY", Level: "SHOULD", Versions: modernOnly, Transports: httpOnly,
			Summary:     "every 400 or 404 a stateless request provokes (unknown method, unsupported version, missing _meta field, header mismatch) carries a JSON-RPC error body",
			LevelReason: "The catalogue files this as guidance: the backward-compatibility section explains why dual-era clients need a readable error body, without a keyword. A plain body breaks their fallback, so it is a warning.",
			Run:         checkModernErrorBody},
	)
}

// errorBodyProbe is one stateless request a server refuses with 400 or 404.
type errorBodyProbe struct {
	what   string
	method string
	params map[string]any
	header http.Header
}

func errorBodyProbes(t *conform.T) []errorBodyProbe {
	const bogus = "1900-01-01"
	return []errorBodyProbe{
		{what: "an unknown method", method: "mcpspec/no-such-method"},
		{what: "an unsupported protocol version", method: "server/discover",
			params: map[string]any{"_meta": modernMeta(bogus, nil)},
			header: http.Header{streamhttp.HeaderProtocol: {bogus}}},
		{what: "_meta without clientCapabilities", method: "server/discover",
			params: map[string]any{"_meta": modernMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: nil})}},
		{what: "an Mcp-Method header that differs from the body", method: "server/discover",
			header: http.Header{"Mcp-Method": {"tools/list"}}},
	}
}

func checkModernErrorBody(t *conform.T) conform.Finding {
	refused := 0
	for _, p := range errorBodyProbes(t) {
		resp, d, err := modernRequest(t, p.method, p.params, p.header)
		if d == nil || (d.Status != http.StatusBadRequest && d.Status != http.StatusNotFound) {
			continue // not a refusal with these statuses: other checks judge the status
		}
		refused++
		if err == nil && resp.HasError {
			continue
		}
		if ferr := d.Finished(t.Ctx); ferr != nil {
			return conform.CannotTest("the HTTP %d body for %s did not end: %v", d.Status, p.what, ferr)
		}
		if !jsonRPCErrorBody(d.Body) {
			return conform.Violated("%s got HTTP %d with a body that is no JSON-RPC error (Content-Type %q): %s",
				p.what, d.Status, d.ContentType, clip(string(d.Body), 240))
		}
	}
	if refused == 0 {
		return conform.CannotTest("none of the probes (unknown method, unsupported version, missing _meta field, header mismatch) got HTTP 400 or 404")
	}
	return conform.Passed("%d refusals with 400/404, each with a JSON-RPC error body", refused)
}

// jsonRPCErrorBody reports whether body is one JSON-RPC error response (any id, null included).
func jsonRPCErrorBody(body []byte) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(string(body))), &m) != nil || m.JSONRPC != "2.0" {
		return false
	}
	var e struct {
		Code    *int64 `json:"code"`
		Message string `json:"message"`
	}
	return json.Unmarshal(m.Error, &e) == nil && e.Code != nil
}
