package suites

import (
	"slices"

	"github.com/mcpspec/mcpspec/suites/conform"
)

// Extension fallback (2026-07-28): a server that advertises extensions answers a client that
// declares none of them in the core protocol's shapes, or with an error.

func init() {
	conform.Register(
		conform.Check{ID: "VER26-EXT-FALLBACK", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a server advertising extensions answers requests that declare none (server/discover and the lists it promises) with core results or errors, never an extension's shape",
			LevelReason: "A core shape is a core resultType and a result valid against the core schema for the method; an error is the other answer the spec allows. Only requests mcpspec can send to any server are tried: tools are not called.",
			Run:         checkExtFallback},
	)
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
