package suites

import (
	"encoding/json"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of server/utilities/caching (2026-07-28): ttlMs and cacheScope on discover, list and read
// results, and list results that do not vary per connection.

func init() {
	conform.Register(
		conform.Check{ID: "CACHE-HINTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "discover and list results carry caching hints: an integer ttlMs of at least 0 and a cacheScope",
			Side:    conform.Server{Run: checkCacheHints}},
		conform.Check{ID: "CACHE-TTL-NONNEG", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "ttlMs is an integer of at least 0 wherever it is sent",
			Side:    conform.Server{Run: checkTTLNonNegative}},
		conform.Check{ID: "CACHE-SCOPE-VALUES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "cacheScope is public or private wherever it is sent",
			LevelReason: "The spec gives the two values in prose and in the schema's enumeration; a value outside it is a schema violation, hence MUST.",
			Side:        conform.Server{Run: checkCacheScopeValues}},
		conform.Check{ID: "CACHE-SCOPE-ALL-PAGES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every page of a paginated list carries the same cacheScope",
			Side:    conform.Server{Run: checkCacheScopeAllPages}},
		conform.Check{ID: "CACHE-NONE-ON-INPUT-REQUIRED", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "an InputRequiredResult carries no caching hints (ttlMs, cacheScope)",
			LevelReason: "Descriptive in the spec (such results are not cacheable and carry no hints), with no keyword: mcpspec warns, as for a SHOULD NOT.",
			Side:        conform.Server{Run: checkNoCacheOnInputRequired}},
	)
}

func checkCacheHints(t *conform.T) conform.Finding {
	results, f := statelessResults(t)
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

// cacheableSamples are the sampled results that carry caching hints (discover and lists).
func cacheableSamples(t *conform.T) ([]sample, *conform.Finding) {
	samples, f := sampleResults(t)
	if f != nil {
		return nil, f
	}
	for _, s := range samples {
		if _, f := resultOf(s); f != nil {
			return nil, f
		}
	}
	return samples, nil
}

func checkTTLNonNegative(t *conform.T) conform.Finding {
	return judgeCacheField(t, "ttlMs", "an integer of at least 0", func(raw json.RawMessage) bool {
		var n int64
		return json.Unmarshal(raw, &n) == nil && n >= 0
	})
}

func checkCacheScopeValues(t *conform.T) conform.Finding {
	return judgeCacheField(t, "cacheScope", "public or private", func(raw json.RawMessage) bool {
		v, _ := jsonString(raw)
		return v == "public" || v == "private"
	})
}

// judgeCacheField checks field wherever a sampled cacheable result carries it; a missing field
// is CACHE-HINTS's to judge.
func judgeCacheField(t *conform.T, field, want string, valid func(json.RawMessage) bool) conform.Finding {
	samples, f := cacheableSamples(t)
	if f != nil {
		return *f
	}
	seen := 0
	for _, s := range samples {
		obj, _ := s.resp.ResultObject()
		raw, ok := obj[field]
		if !ok {
			continue
		}
		seen++
		if !valid(raw) {
			return conform.Violated("the result of %s has %s %s, not %s", s.method, field, clip(string(raw), 60), want)
		}
	}
	if seen == 0 {
		return conform.CannotTest("none of the results sampled carries %s", field)
	}
	return conform.Passed("")
}

func checkCacheScopeAllPages(t *conform.T) conform.Finding {
	var declared []string
	paged := 0
	for _, l := range lists {
		if !t.S.HasCapability(l.cap) {
			continue
		}
		declared = append(declared, l.method)
		w, err := askedList(t, l.method, l.key)
		if err != nil {
			return conform.Violated("%v", err)
		}
		if len(w.pages) < 2 {
			continue
		}
		paged++
		first, _ := w.pages[0].ResultObject()
		for i, p := range w.pages[1:] {
			obj, _ := p.ResultObject()
			if string(obj["cacheScope"]) != string(first["cacheScope"]) {
				return conform.Violated("%s page 1 has cacheScope %s, page %d has %s: %s", l.method, first["cacheScope"], i+2, obj["cacheScope"], show(p))
			}
		}
	}
	switch {
	case len(declared) == 0:
		return conform.NA("the server declares none of tools, resources, prompts: no list to page through")
	case paged == 0:
		return conform.CannotTest("every list (%s) fits one page: there are no pages to compare", strings.Join(declared, ", "))
	}
	return conform.Passed("")
}

func checkNoCacheOnInputRequired(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	for _, hint := range []string{"ttlMs", "cacheScope"} {
		if _, ok := ir.obj[hint]; ok {
			return conform.Violated("the InputRequiredResult carries %s: %s", hint, show(ir.resp))
		}
	}
	return conform.Passed("")
}
