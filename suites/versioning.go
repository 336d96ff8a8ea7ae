package suites

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/versioning (2026-07-28): version and extension negotiation (a server that
// advertises extensions answers a client that declares none of them in the core protocol's
// shapes, or with an error), and its backward compatibility with the handshake revisions.

func init() {
	conform.Register(
		conform.Check{ID: "VER26-UNSUPPORTED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a request at an unsupported protocol version gets -32022 naming the requested and the supported versions",
			Side:    conform.Server{Run: checkUnsupportedVersion}},
		conform.Check{ID: "VER26-EXT-ID", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "extension identifiers in capabilities.extensions are _meta-style keys with a prefix",
			Side:    conform.Server{Run: checkExtensionIDs}},
		conform.Check{ID: "VER26-LEGACY-INIT-ERROR", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a server that serves only the stateless revision answers a legacy initialize with an error naming the versions it supports",
			Side:    conform.Server{Connection: conform.Raw, StatelessOnlyServer: true, Run: checkLegacyInitError}},
		conform.Check{ID: "VER26-EXT-FALLBACK", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a server advertising extensions answers requests that declare none (server/discover and the lists it promises) with core results or errors, never an extension's shape",
			LevelReason: "A core shape is a core resultType and a result valid against the core schema for the method; an error is the other answer the spec allows. Only requests mcpspec can send to any server are tried: tools are not called.",
			Side:        conform.Server{Run: checkExtFallback}},
	)
}

func checkUnsupportedVersion(t *conform.T) conform.Finding {
	const bogus = "1900-01-01"
	meta := map[string]any{harness.MetaProtocolVersion: bogus, harness.MetaClientCapabilities: map[string]any{}}
	resp, d, err := statelessRequest(t, "server/discover", map[string]any{"_meta": meta}, http.Header{streamhttp.HeaderProtocol: {bogus}})
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

func checkExtensionIDs(t *conform.T) conform.Finding {
	ids := extensionIDs(t)
	if len(ids) == 0 {
		return conform.Passed("the server advertises no extensions: no identifier to check")
	}
	for _, id := range ids {
		if !strings.Contains(id, "/") {
			return conform.Violated("the extension identifier %q has no prefix", id)
		}
		for _, part := range []string{"prefix", "name"} {
			if why := metaKeyProblem(id, part); why != "" {
				return conform.Violated("the extension identifier %q: %s", id, why)
			}
		}
	}
	return conform.Passed("")
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

// coreResultDefs are the schema definitions of the results of the requests tried.
var coreResultDefs = map[string]string{
	"server/discover": "DiscoverResult",
	"tools/list":      "ListToolsResult",
	"resources/list":  "ListResourcesResult",
	"prompts/list":    "ListPromptsResult",
}

func checkExtFallback(t *conform.T) conform.Finding {
	ext := extensionIDs(t)
	if len(ext) == 0 {
		return conform.NA("server/discover advertises no extension (capabilities.extensions), so there is nothing to fall back from")
	}
	// The harness's requests declare no extension in their client capabilities.
	samples, f := sampleResults(t)
	if f != nil {
		return *f
	}
	for _, s := range samples {
		if s.resp.HasError {
			continue // rejecting the request is the other answer allowed
		}
		obj, f := resultOf(s)
		if f != nil {
			return *f
		}
		rt, _ := jsonString(obj["resultType"])
		if rt != "" && !slices.Contains(coreResultTypes, rt) {
			return conform.Violated("%s, sent declaring no extension, has resultType %q, outside the core set %v (the server advertises %v): %s", s.method, rt, coreResultTypes, ext, show(s.resp))
		}
		def := coreResultDefs[s.method]
		if rt == "input_required" {
			def = "InputRequiredResult"
		}
		if err := t.S.Env().Validator.Definition(t.Revision, def, s.resp.Result); err != nil {
			return conform.Violated("%s, sent declaring no extension, is not a core %s (the server advertises %v): %v: %s", s.method, def, ext, err, show(s.resp))
		}
	}
	return conform.Passed("advertised %v; tried %d requests", ext, len(samples))
}
