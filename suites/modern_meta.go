package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of results, _meta, discover and statelessness, mostly at the stateless revision.

// The _meta keys and values of the stateless revision that these checks read or send.
const (
	metaServerInfo = "io.modelcontextprotocol/serverInfo"
	unknownMetaKey = "com.example/x"
)

// Core resultType values; extensions advertised in capabilities may add more.
var coreResultTypes = []string{"complete", "input_required"}

// A _meta key: an optional prefix (dot-separated labels, then a slash) and a name.
var (
	metaLabel    = `[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	metaPrefixRE = regexp.MustCompile(`^` + metaLabel + `(?:\.` + metaLabel + `)*/$`)
	metaNameRE   = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)
)

// W3C Trace Context and Baggage, as far as a well-formedness check needs them.
var (
	traceparentRE = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
	tracestateRE  = regexp.MustCompile(`^[a-z0-9][_0-9a-z*/@-]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)
	baggageKeyRE  = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// A valid trace context a client may send (the W3C specification's own examples).
const (
	sampleTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	sampleTracestate  = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
	sampleBaggage     = "userId=alice,serverNode=DF%2028,isProduction=false"
)

// maxPages bounds a paginated walk: a server that never stops paging is not followed forever.
const maxPages = 50

// lists are the list methods of the stateless revision, the capability that gates each and the
// member holding its items.
var lists = []struct{ cap, method, key string }{
	{"tools", "tools/list", "tools"}, {"resources", "resources/list", "resources"}, {"prompts", "prompts/list", "prompts"},
}

func init() {
	conform.Register(
		conform.Check{ID: "MSG-RESULTTYPE-SET", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "resultType is complete or input_required, or a value of an advertised extension",
			Run:     checkResultTypeSet},
		conform.Check{ID: "META26-SERVERINFO", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "results carry the server's name and version in _meta io.modelcontextprotocol/serverInfo",
			Run:     checkResultsServerInfo},
		conform.Check{ID: "VER26-DISCOVER-SERVERINFO", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the server/discover result names the server (name and version) in _meta io.modelcontextprotocol/serverInfo",
			Run:     checkDiscoverServerInfo},
		conform.Check{ID: "VER26-DISCOVER-CONSISTENT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "discover tells the truth: each stateless version it lists is accepted, and the capabilities it declares are the lists it serves",
			LevelReason: "Derived, no keyword: supportedVersions and capabilities are what a client negotiates by, so a listed version the server refuses, or a declared list it does not serve, breaks negotiation (MUST). A list served although undeclared fails only when it holds items: an empty answer misleads no client.",
			Run:         checkDiscoverConsistent},
		conform.Check{ID: "VER26-EXT-ID", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "extension identifiers in capabilities.extensions are _meta-style keys with a prefix",
			Run:     checkExtensionIDs},
		conform.Check{ID: "META26-INFO-NOT-BEHAVIOR", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "what the client says about itself (clientInfo, or nothing) does not change a list result",
			Run:     checkInfoNotBehavior},
		conform.Check{ID: "META26-TRACE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a valid traceparent, tracestate and baggage in _meta are accepted, and any the server sends back are well-formed",
			Run:     checkTraceContext},
		conform.Check{ID: "MSG-META-PREFIX", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "every _meta key the server sends has a well-formed prefix, if any: dot-separated labels, then a slash",
			Run:     checkMetaPrefix},
		conform.Check{ID: "MSG-META-NAME", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "every _meta key the server sends has a well-formed name: empty, or alphanumeric at both ends",
			Run:     checkMetaName},
		conform.Check{ID: "MSG-META-NO-ASSUMPTIONS", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "an unknown _meta key (com.example/x) on a request changes nothing in its result",
			Run:     checkMetaNoAssumptions},
		conform.Check{ID: "CACHE-TTL-NONNEG", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "ttlMs is an integer of at least 0 wherever it is sent",
			Run:     checkTTLNonNegative},
		conform.Check{ID: "CACHE-SCOPE-VALUES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "cacheScope is public or private wherever it is sent",
			LevelReason: "The spec gives the two values in prose and in the schema's enumeration; a value outside it is a schema violation, hence MUST.",
			Run:         checkCacheScopeValues},
		conform.Check{ID: "CACHE-SCOPE-ALL-PAGES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every page of a paginated list carries the same cacheScope",
			Run:     checkCacheScopeAllPages},
		conform.Check{ID: "TOOL26-LIST-STABLE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tools/list gives the same tools on another connection and after other requests",
			Run:     listStable("tools")},
		conform.Check{ID: "RES26-LIST-STABLE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "resources/list gives the same resources on another connection and after other requests",
			Run:     listStable("resources")},
		conform.Check{ID: "PROMPT26-LIST-STABLE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "prompts/list gives the same prompts on another connection and after other requests",
			Run:     listStable("prompts")},
		conform.Check{ID: "TOOL26-ORDER", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tools/list gives its tools in the same order every time (here: with string and with integer request ids)",
			Run:     checkToolOrder},
		conform.Check{ID: "STATELESS-NO-SAME-CONN", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a follow-up request (a list cursor) sent on another connection is served",
			LevelReason: "The spec says SHOULD NOT require the same connection; a refused follow-up on a new connection warns.",
			Run:         checkNoSameConnection},
		conform.Check{ID: "MSG-RESULT-FIELD", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "a successful response carries its result as a JSON object",
			LevelReason: "At 2025-11-25 JRPC-RESULT-XOR-ERROR and the schema check cover this; the JSON-RPC checks do not run at the stateless revision, so this one does.",
			Run:         checkResultField},
		conform.Check{ID: "MSG-ERROR-FIELD", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "an error response carries an error object with an integer code and a string message",
			LevelReason: "At 2025-11-25 JRPC-ERROR-OBJECT and JRPC-ERROR-CODE-INT cover this; the JSON-RPC checks do not run at the stateless revision, so this one does.",
			Run:         checkErrorField},
		conform.Check{ID: "MSG-ERROR-ID", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "an error answering a readable request carries that request's id (-32601, -32602, -32022)",
			LevelReason: "At 2025-11-25 JRPC-ID-ECHO and JRPC-METHOD-NOT-FOUND cover this; the JSON-RPC checks do not run at the stateless revision, so this one does.",
			Run:         checkErrorID},
		conform.Check{ID: "STATELESS-EXPLICIT-STATE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "state between requests lives in the identifier the client sends: a cursor replayed, on the same or another connection, gives the same page",
			LevelReason: "mcpspec reads 'referenced by an explicit identifier' as: the identifier alone selects the state, so its replay selects the same page.",
			Run:         checkExplicitState},
	)
}

// sample is one result the server gave, with the request that produced it.
type sample struct {
	method string
	resp   jsonrpc.Message
}

// sampleResults gathers the results of the session's opening (discover or initialize) and of
// every list the server declares.
func sampleResults(t *conform.T) ([]sample, *conform.Finding) {
	first := "initialize"
	if t.S.Modern() {
		first = "server/discover"
	}
	out := []sample{{first, t.S.InitResponse()}}
	for _, l := range lists {
		if !t.S.HasCapability(l.cap) {
			continue
		}
		resp, err := t.S.Request(t.Ctx, l.method, nil)
		if err != nil {
			f := conform.Violated("%s: %v", l.method, err)
			return nil, &f
		}
		out = append(out, sample{l.method, resp})
	}
	return out, nil
}

// resultOf is a sample's result object, or a finding when it is an error.
func resultOf(s sample) (map[string]json.RawMessage, *conform.Finding) {
	obj, ok := s.resp.ResultObject()
	if !ok {
		f := conform.CannotTest("%s was not answered with a result: %s", s.method, show(s.resp))
		return nil, &f
	}
	return obj, nil
}

// extensionIDs are the keys of the discovered capabilities.extensions.
func extensionIDs(t *conform.T) []string {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	ids := make([]string, 0, len(caps.Extensions))
	for id := range caps.Extensions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func checkResultTypeSet(t *conform.T) conform.Finding {
	samples, f := sampleResults(t)
	if f != nil {
		return *f
	}
	for _, s := range samples {
		obj, f := resultOf(s)
		if f != nil {
			return *f
		}
		rt, ok := jsonString(obj["resultType"])
		if !ok || slices.Contains(coreResultTypes, rt) {
			continue // a missing resultType is MSG-RESULTTYPE's to judge
		}
		// The samples declare no extension, so no extension's value applies to them either
		// (VER26-EXT-FALLBACK): an advertised extension does not excuse the value.
		if ext := extensionIDs(t); len(ext) > 0 {
			return conform.Violated("%s has resultType %q, outside the core set %v; the server advertises the extensions %v, but the request declared none of them: %s", s.method, rt, coreResultTypes, ext, show(s.resp))
		}
		return conform.Violated("%s has resultType %q, which is neither a core value %v nor one of an advertised extension (none are advertised): %s", s.method, rt, coreResultTypes, show(s.resp))
	}
	return conform.Passed("")
}

// serverInfoProblem says what is wrong with a result's _meta serverInfo, or "".
func serverInfoProblem(obj map[string]json.RawMessage) string {
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(obj["_meta"], &meta)
	raw, ok := meta[metaServerInfo]
	if !ok {
		return "has no _meta " + metaServerInfo
	}
	var info map[string]json.RawMessage
	if json.Unmarshal(raw, &info) != nil {
		return fmt.Sprintf("has _meta %s that is not an object: %s", metaServerInfo, clip(string(raw), 120))
	}
	for _, field := range []string{"name", "version"} {
		if _, ok := jsonString(info[field]); !ok {
			return fmt.Sprintf("has _meta %s without a string %s: %s", metaServerInfo, field, clip(string(raw), 120))
		}
	}
	return ""
}

func checkResultsServerInfo(t *conform.T) conform.Finding {
	samples, f := sampleResults(t)
	if f != nil {
		return *f
	}
	for _, s := range samples {
		obj, f := resultOf(s)
		if f != nil {
			return *f
		}
		if why := serverInfoProblem(obj); why != "" {
			return conform.Violated("the result of %s %s: %s", s.method, why, show(s.resp))
		}
	}
	return conform.Passed("")
}

func checkDiscoverServerInfo(t *conform.T) conform.Finding {
	obj, f := resultOf(sample{"server/discover", t.S.InitResponse()})
	if f != nil {
		return *f
	}
	if why := serverInfoProblem(obj); why != "" {
		return conform.Violated("the server/discover result %s: %s", why, show(t.S.InitResponse()))
	}
	return conform.Passed("")
}

// modernMeta is the required _meta of a request at version, with extra keys set (nil values
// remove a key).
func modernMeta(version string, extra map[string]any) map[string]any {
	meta := map[string]any{
		harness.MetaProtocolVersion:    version,
		harness.MetaClientCapabilities: map[string]any{},
		harness.MetaClientInfo:         harness.ClientInfo,
	}
	for k, v := range extra {
		if v == nil {
			delete(meta, k)
		} else {
			meta[k] = v
		}
	}
	return meta
}

func checkDiscoverConsistent(t *conform.T) conform.Finding {
	var versions []string
	_ = json.Unmarshal(t.S.InitResult()["supportedVersions"], &versions)
	for _, v := range versions {
		if !harness.IsModern(v) || v == t.Revision {
			continue
		}
		resp, _, err := modernRequest(t, "server/discover", map[string]any{"_meta": modernMeta(v, nil)}, http.Header{streamhttp.HeaderProtocol: {v}})
		if err != nil {
			return conform.Violated("server/discover at the advertised version %s got no JSON-RPC reply: %v", v, err)
		}
		if _, ok := resp.ResultObject(); !ok {
			return conform.Violated("supportedVersions lists %s, but server/discover at %s was refused: %s", v, v, show(resp))
		}
	}
	if f := unsupportedListsSubset(t, versions); f != nil {
		return *f
	}
	for _, l := range lists {
		resp, err := t.S.Request(t.Ctx, l.method, nil)
		if err != nil {
			return conform.Violated("%s: %v", l.method, err)
		}
		obj, served := resp.ResultObject()
		declared := t.S.HasCapability(l.cap)
		switch {
		case declared && !served:
			return conform.Violated("discover declares %s, but %s was refused: %s", l.cap, l.method, show(resp))
		case !declared && served && string(obj[l.key]) != "[]":
			return conform.Violated("discover does not declare %s, but %s lists items: %s", l.cap, l.method, show(resp))
		}
	}
	return conform.Passed("")
}

// unsupportedListsSubset checks that the versions a -32022 error names as supported are among
// those discover lists (when the server answers -32022 at all: VER26-UNSUPPORTED judges that).
func unsupportedListsSubset(t *conform.T, versions []string) *conform.Finding {
	const bogus = "1900-01-01"
	resp, _, err := modernRequest(t, "server/discover", map[string]any{"_meta": modernMeta(bogus, nil)}, http.Header{streamhttp.HeaderProtocol: {bogus}})
	if err != nil {
		return nil
	}
	if code, ok := errorCode(resp); !ok || code != codeUnsupportedVersion {
		return nil
	}
	e, _ := resp.ErrorObject()
	var data struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(e.Data, &data)
	for _, v := range data.Supported {
		if !slices.Contains(versions, v) {
			f := conform.Violated("a -32022 error names %s as supported, but discover's supportedVersions %v does not: %s", v, versions, show(resp))
			return &f
		}
	}
	return nil
}

// metaKeyProblem says what is wrong with a _meta key's prefix (part "prefix") or name, or "".
func metaKeyProblem(key, part string) string {
	prefix, name := "", key
	if i := strings.LastIndex(key, "/"); i >= 0 {
		prefix, name = key[:i+1], key[i+1:]
	}
	switch {
	case part == "prefix" && prefix != "" && !metaPrefixRE.MatchString(prefix):
		return fmt.Sprintf("the prefix %q is not dot-separated labels that start with a letter and end with a letter or digit, then a slash", prefix)
	case part == "name" && !metaNameRE.MatchString(name):
		return fmt.Sprintf("the name %q does not begin and end with a letter or digit (or holds characters other than letters, digits, '-', '_', '.')", name)
	}
	return ""
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

// withoutMeta is a result without its _meta, as canonical JSON (sorted keys), for comparisons:
// _meta may legitimately differ between calls (trace ids, timestamps), and so may the text of
// an opaque cursor, so only whether there is one counts.
func withoutMeta(resp jsonrpc.Message) (string, bool) {
	obj, ok := resp.ResultObject()
	if !ok {
		return "", false
	}
	delete(obj, "_meta")
	if _, more := obj["nextCursor"]; more {
		obj["nextCursor"] = json.RawMessage(`true`)
	}
	return canonical(obj), true
}

// canonical is v as JSON with object keys sorted.
func canonical(v any) string {
	raw, _ := json.Marshal(v)
	var x any
	if json.Unmarshal(raw, &x) != nil {
		return string(raw)
	}
	out, _ := json.Marshal(x)
	return string(out)
}

// declaredList is the first list the server declares, or a not-applicable finding.
func declaredList(t *conform.T) (method string, f *conform.Finding) {
	for _, l := range lists {
		if t.S.HasCapability(l.cap) {
			return l.method, nil
		}
	}
	na := conform.NA("the server declares none of tools, resources, prompts: no list to ask for")
	return "", &na
}

// compareRounds bounds how often compareAnswers asks again when the answers without a variant
// changed between its first and last request (a list may change at any time, by another client
// or another check on the same server).
const compareRounds = 3

// compareAnswers sends method with each params and fails when a result differs from the
// first's. The first params are sent again at the end of each round: only a round in which
// they got the same answer both times is judged, so a list changed meanwhile is no violation.
func compareAnswers(t *conform.T, method string, variants []string, params []map[string]any) conform.Finding {
	ask := func(i int) (string, *conform.Finding) {
		resp, err := t.S.Request(t.Ctx, method, params[i])
		if err != nil {
			f := conform.Violated("%s %s: %v", method, variants[i], err)
			return "", &f
		}
		got, ok := withoutMeta(resp)
		if !ok {
			f := conform.Violated("%s %s was not answered with a result object: %s", method, variants[i], show(resp))
			return "", &f
		}
		return got, nil
	}
	for range compareRounds {
		answers := make([]string, len(params))
		for i := range params {
			got, f := ask(i)
			if f != nil {
				return *f
			}
			answers[i] = got
		}
		again, f := ask(0)
		if f != nil {
			return *f
		}
		if again != answers[0] {
			continue // the list changed during the round
		}
		for i := 1; i < len(answers); i++ {
			if answers[i] != answers[0] {
				return conform.Violated("%s %s gave another result than %s (asked before and after it, with the same answer):\n%s\nversus\n%s", method, variants[i], variants[0], clip(answers[i], 400), clip(answers[0], 400))
			}
		}
		return conform.Passed("")
	}
	return conform.CannotTest("%s %s got a different answer at the start and the end of each of %d rounds: the list kept changing", method, variants[0], compareRounds)
}

func checkInfoNotBehavior(t *conform.T) conform.Finding {
	method, f := declaredList(t)
	if f != nil {
		return *f
	}
	other := map[string]any{"name": "another-client", "version": "9.9.9"}
	return compareAnswers(t, method, []string{"with mcpspec's clientInfo", "with another clientInfo", "without clientInfo"}, []map[string]any{
		{"_meta": modernMeta(t.Revision, nil)},
		{"_meta": modernMeta(t.Revision, map[string]any{harness.MetaClientInfo: other})},
		{"_meta": modernMeta(t.Revision, map[string]any{harness.MetaClientInfo: nil})},
	})
}

func checkMetaNoAssumptions(t *conform.T) conform.Finding {
	method, f := declaredList(t)
	if f != nil {
		return *f
	}
	plain := map[string]any{}
	extra := map[string]any{"_meta": map[string]any{unknownMetaKey: "mcpspec"}}
	if t.S.Modern() {
		plain = map[string]any{"_meta": modernMeta(t.Revision, nil)}
		extra = map[string]any{"_meta": modernMeta(t.Revision, map[string]any{unknownMetaKey: "mcpspec"})}
	}
	return compareAnswers(t, method, []string{"without _meta " + unknownMetaKey, "with _meta " + unknownMetaKey}, []map[string]any{plain, extra})
}

// metaKeys walks v and calls found for every member of every _meta object in it.
func metaKeys(v any, found func(key string, value any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			if meta, ok := child.(map[string]any); ok && k == "_meta" {
				for mk, mv := range meta {
					found(mk, mv)
				}
			}
			metaKeys(child, found)
		}
	case []any:
		for _, child := range x {
			metaKeys(child, found)
		}
	}
}

// checkMetaKeys judges every _meta key in the sampled results by part ("prefix" or "name").
func checkMetaKeys(t *conform.T, part string) conform.Finding {
	samples, f := sampleResults(t)
	if f != nil {
		return *f
	}
	n := 0
	for _, s := range samples {
		var result any
		if json.Unmarshal(s.resp.Result, &result) != nil {
			continue
		}
		var bad string
		metaKeys(result, func(key string, _ any) {
			n++
			if why := metaKeyProblem(key, part); why != "" && bad == "" {
				bad = fmt.Sprintf("the _meta key %q in the result of %s: %s", key, s.method, why)
			}
		})
		if bad != "" {
			return conform.Violated("%s: %s", bad, show(s.resp))
		}
	}
	if n == 0 {
		return conform.Passed("the results sampled (%d) carry no _meta keys", len(samples))
	}
	return conform.Passed("")
}

func checkMetaPrefix(t *conform.T) conform.Finding { return checkMetaKeys(t, "prefix") }

func checkMetaName(t *conform.T) conform.Finding { return checkMetaKeys(t, "name") }

// traceProblem says what is wrong with a trace-context value the server sent, or "".
func traceProblem(key string, v any) string {
	s, ok := v.(string)
	if !ok {
		return fmt.Sprintf("%s is not a string", key)
	}
	switch key {
	case "traceparent":
		if !traceparentRE.MatchString(s) || strings.HasPrefix(s, "ff") {
			return fmt.Sprintf("traceparent %q is not version-traceid-parentid-flags in lower-case hex", s)
		}
	case "tracestate":
		for _, m := range strings.Split(s, ",") {
			if m = strings.Trim(m, " \t"); m != "" && !tracestateRE.MatchString(m) {
				return fmt.Sprintf("tracestate member %q is not key=value", m)
			}
		}
	case "baggage":
		for _, m := range strings.Split(s, ",") {
			kv, _, _ := strings.Cut(m, ";")
			k, _, ok := strings.Cut(kv, "=")
			if !ok || !baggageKeyRE.MatchString(strings.Trim(k, " \t")) {
				return fmt.Sprintf("baggage member %q is not key=value", m)
			}
		}
	}
	return ""
}

func checkTraceContext(t *conform.T) conform.Finding {
	method, f := declaredList(t)
	if f != nil {
		method = "server/discover"
	}
	trace := map[string]any{"traceparent": sampleTraceparent, "tracestate": sampleTracestate, "baggage": sampleBaggage}
	resp, err := t.S.Request(t.Ctx, method, map[string]any{"_meta": modernMeta(t.Revision, trace)})
	if err != nil {
		return conform.Violated("%s with trace context: %v", method, err)
	}
	if _, ok := resp.ResultObject(); !ok {
		return conform.Violated("%s with a valid traceparent, tracestate and baggage was refused: %s", method, show(resp))
	}
	var result any
	_ = json.Unmarshal(resp.Result, &result)
	var bad string
	metaKeys(result, func(key string, v any) {
		if key == "traceparent" || key == "tracestate" || key == "baggage" {
			if why := traceProblem(key, v); why != "" && bad == "" {
				bad = why
			}
		}
	})
	if bad != "" {
		return conform.Violated("the server sent back malformed trace context: %s: %s", bad, show(resp))
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

// listWalk is what a paginated walk of a list gave.
type listWalk struct {
	pages []jsonrpc.Message
	items []json.RawMessage
}

// walkList follows method's cursors on s from the first page to the last.
func walkList(t *conform.T, s *harness.Session, method, key string) (listWalk, error) {
	return walkListWith(t, s, method, key, s.NextID)
}

// walkListWith is walkList with request ids from nextID.
func walkListWith(t *conform.T, s *harness.Session, method, key string, nextID func() jsonrpc.ID) (listWalk, error) {
	var w listWalk
	pages, err := walkPagesOn(t, s, method, nextID)
	if err != nil {
		return w, err
	}
	for i, p := range pages {
		obj, ok := p.resp.ResultObject()
		if !ok {
			return w, fmt.Errorf("%s (page %d) was not answered with a result object: %s", method, i+1, show(p.resp))
		}
		w.pages = append(w.pages, p.resp)
		var items []json.RawMessage
		if json.Unmarshal(obj[key], &items) != nil {
			return w, fmt.Errorf("%s (page %d) has no %s array: %s", method, i+1, key, show(p.resp))
		}
		w.items = append(w.items, items...)
	}
	if _, more, _ := nextCursorOf(s.Revision(), pages[len(pages)-1].resp); more && len(pages) == maxPages {
		return w, fmt.Errorf("%s still had a nextCursor after %d pages", method, maxPages)
	}
	return w, nil
}

// itemSet is the items as a sorted list of canonical JSON texts.
func itemSet(items []json.RawMessage) []string {
	out := make([]string, len(items))
	for i, it := range items {
		var v any
		_ = json.Unmarshal(it, &v)
		out[i] = canonical(v)
	}
	sort.Strings(out)
	return out
}

// firstDifference describes how two item sets differ.
func firstDifference(a, b []string) string {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return "only in the first: " + clip(x, 300)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return "only in the second: " + clip(x, 300)
		}
	}
	return fmt.Sprintf("%d items versus %d", len(a), len(b))
}

// listStableAttempts bounds how often a list comparison is repeated. A server may change its
// lists at any time (that is what list_changed is for), and over a shared HTTP server another
// check may be changing it just then; a list that varies per connection or with the
// connection's own requests differs every time.
const listStableAttempts = 3

// listStable checks that a list is the same on another connection and after other requests.
func listStable(key string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		i := slices.IndexFunc(lists, func(l struct{ cap, method, key string }) bool { return l.key == key })
		l := lists[i]
		if !t.S.HasCapability(l.cap) {
			return conform.NA("the server does not declare %s in its server/discover capabilities", l.cap)
		}
		fresh, err := t.Open(t.Revision)
		if err != nil {
			return conform.Failed(fmt.Errorf("opening another connection: %w", err))
		}
		var diffs []string
		for attempt := 1; attempt <= listStableAttempts; attempt++ {
			diff, f := compareListOnce(t, fresh, l.method, l.key)
			if f != nil {
				return *f
			}
			if diff == "" {
				if attempt > 1 {
					return conform.Passed("the same in attempt %d, after: %s", attempt, strings.Join(diffs, "; "))
				}
				return conform.Passed("")
			}
			diffs = append(diffs, diff)
		}
		return conform.Violated("%s (in each of %d attempts: %s)", diffs[0], listStableAttempts, strings.Join(diffs[1:], "; "))
	}
}

// compareListOnce walks method on t.S, sends the connection's other requests, walks it again
// and walks it on fresh; it returns how the walks differ ("" when they do not).
func compareListOnce(t *conform.T, fresh *harness.Session, method, key string) (string, *conform.Finding) {
	fail := func(format string, args ...any) (string, *conform.Finding) {
		f := conform.Violated(format, args...)
		return "", &f
	}
	before, err := walkList(t, t.S, method, key)
	if err != nil {
		return fail("%v", err)
	}
	// Other requests on the same connection: discover and the other lists.
	for _, other := range append([]string{"server/discover"}, otherLists(t, method)...) {
		if _, err := t.S.Request(t.Ctx, other, nil); err != nil {
			return fail("%s: %v", other, err)
		}
	}
	after, err := walkList(t, t.S, method, key)
	if err != nil {
		return fail("after other requests, %v", err)
	}
	if a, b := itemSet(before.items), itemSet(after.items); !slices.Equal(a, b) {
		return fmt.Sprintf("%s changed after other requests on the connection: %s", method, firstDifference(a, b)), nil
	}
	other, err := walkList(t, fresh, method, key)
	if err != nil {
		return fail("on another connection, %v", err)
	}
	if a, b := itemSet(before.items), itemSet(other.items); !slices.Equal(a, b) {
		return fmt.Sprintf("%s differs on another connection: %s", method, firstDifference(a, b)), nil
	}
	return "", nil
}

// otherLists are the declared list methods other than method.
func otherLists(t *conform.T, method string) []string {
	var out []string
	for _, l := range lists {
		if l.method != method && t.S.HasCapability(l.cap) {
			out = append(out, l.method)
		}
	}
	return out
}

// toolNames are the names of the tools a walk gave, in order.
func toolNames(items []json.RawMessage) []string {
	names := make([]string, len(items))
	for i, it := range items {
		var tool struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(it, &tool)
		names[i] = tool.Name
	}
	return names
}

func checkToolOrder(t *conform.T) conform.Finding {
	if !t.S.HasCapability("tools") {
		return conform.NA("the server does not declare tools in its server/discover capabilities")
	}
	first, err := walkListWith(t, t.S, "tools/list", "tools", t.S.NextID)
	if err != nil {
		return conform.Violated("%v", err)
	}
	second, err := walkListWith(t, t.S, "tools/list", "tools", t.S.NextNumberID)
	if err != nil {
		return conform.Violated("with integer ids, %v", err)
	}
	a, b := toolNames(first.items), toolNames(second.items)
	if !slices.Equal(a, b) {
		return conform.Violated("tools/list gave the tools in the order %v, then %v", a, b)
	}
	return conform.Passed("")
}

// firstCursor finds a declared list whose first page has a nextCursor, asking on s.
func firstCursor(t *conform.T, s *harness.Session) (method, key, cursor string, f *conform.Finding) {
	var declared []string
	for _, l := range lists {
		if !t.S.HasCapability(l.cap) {
			continue
		}
		declared = append(declared, l.method)
		resp, err := s.Request(t.Ctx, l.method, nil)
		if err != nil {
			v := conform.Violated("%s: %v", l.method, err)
			return "", "", "", &v
		}
		obj, ok := resp.ResultObject()
		if !ok {
			continue
		}
		if c, ok := jsonString(obj["nextCursor"]); ok {
			return l.method, l.key, c, nil
		}
	}
	if len(declared) == 0 {
		na := conform.NA("the server declares none of tools, resources, prompts: no list to page through")
		return "", "", "", &na
	}
	ct := conform.CannotTest("every list (%s) fits one page: there is no cursor to send again", strings.Join(declared, ", "))
	return "", "", "", &ct
}

// pageItems is the canonical text of a page's items, or a finding when it was refused.
func pageItems(t *conform.T, s *harness.Session, method, key, cursor, where string) (string, *conform.Finding) {
	resp, err := s.Request(t.Ctx, method, map[string]any{"cursor": cursor})
	if err != nil {
		f := conform.Violated("%s with a cursor %s: %v", method, where, err)
		return "", &f
	}
	obj, ok := resp.ResultObject()
	if !ok {
		f := conform.Violated("%s with the cursor %q %s was refused: %s", method, cursor, where, show(resp))
		return "", &f
	}
	var items any
	_ = json.Unmarshal(obj[key], &items)
	return canonical(items), nil
}

// twoConnections opens two fresh connections at the check's revision.
func twoConnections(t *conform.T) (a, b *harness.Session, err error) {
	if a, err = t.Open(t.Revision); err != nil {
		return nil, nil, fmt.Errorf("opening a connection: %w", err)
	}
	if b, err = t.Open(t.Revision); err != nil {
		return nil, nil, fmt.Errorf("opening a second connection: %w", err)
	}
	return a, b, nil
}

func checkNoSameConnection(t *conform.T) conform.Finding {
	a, b, err := twoConnections(t)
	if err != nil {
		return conform.Failed(err)
	}
	method, key, cursor, f := firstCursor(t, a)
	if f != nil {
		return *f
	}
	if _, f := pageItems(t, b, method, key, cursor, "received on another connection"); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkExplicitState(t *conform.T) conform.Finding {
	a, b, err := twoConnections(t)
	if err != nil {
		return conform.Failed(err)
	}
	method, key, cursor, f := firstCursor(t, a)
	if f != nil {
		return *f
	}
	want, f := pageItems(t, a, method, key, cursor, "on the connection that received it")
	if f != nil {
		return *f
	}
	for _, r := range []struct {
		s     *harness.Session
		where string
	}{{a, "sent again on the same connection"}, {b, "sent again on another connection"}} {
		got, f := pageItems(t, r.s, method, key, cursor, r.where)
		if f != nil {
			return *f
		}
		if got != want {
			return conform.Violated("%s with the same cursor %s gave another page:\n%s\nversus\n%s", method, r.where, clip(got, 300), clip(want, 300))
		}
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
		w, err := walkList(t, t.S, l.method, l.key)
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

func checkResultField(t *conform.T) conform.Finding {
	samples, f := sampleResults(t)
	if f != nil {
		return *f
	}
	for _, s := range samples {
		if s.resp.HasError {
			continue // not a success: nothing to judge here
		}
		if _, ok := s.resp.ResultObject(); !ok {
			return conform.Violated("the successful response to %s has no result object: %s", s.method, show(s.resp))
		}
	}
	return conform.Passed("")
}

// errorProbe is a request the server must refuse, and the code it must refuse it with.
type errorProbe struct {
	what   string
	method string
	params map[string]any
	header http.Header
	code   int64
}

// errorProbes are requests every server of the stateless revision refuses.
func errorProbes(t *conform.T) []errorProbe {
	const bogus = "1900-01-01"
	probes := []errorProbe{
		{what: "an unknown method", method: unknownMethod, code: codeMethodNotFound},
		{what: "an unsupported protocol version", method: "server/discover", code: codeUnsupportedVersion,
			params: map[string]any{"_meta": modernMeta(bogus, nil)}, header: http.Header{streamhttp.HeaderProtocol: {bogus}}},
		{what: "_meta without clientCapabilities", method: "server/discover", code: codeInvalidParams,
			params: map[string]any{"_meta": modernMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: nil})}},
	}
	if method, params, ok := invalidParamsProbe(t.S); ok {
		probes = append(probes, errorProbe{what: method + " without its required params", method: method, params: params, code: codeInvalidParams})
	}
	return probes
}

// probeReply sends a probe with an integer id and returns the response that answers it, whatever
// id that response carries (ids the harness gave other requests excepted).
func probeReply(t *conform.T, p errorProbe, id jsonrpc.ID) (jsonrpc.Message, error) {
	frame := rawRequest(id, p.method, t.S.ModernParams(p.params))
	from := t.S.Mark()
	var d *wire.Delivery
	if hc, ok := t.S.Conn.(*streamhttp.Conn); ok {
		d = hc.Do(t.Ctx, frame, streamhttp.Request{Header: p.header})
	} else {
		var err error
		if d, err = t.S.Send(t.Ctx, frame); err != nil {
			return jsonrpc.Message{}, err
		}
	}
	r, err := t.S.WaitFor(t.Ctx, d, from, func(r wire.Received) bool {
		return r.Msg.Kind == jsonrpc.Response && (r.Msg.ID == id || t.S.Env().IDs.Owner(r.Msg.ID) == "")
	})
	return r.Msg, err
}

func checkErrorField(t *conform.T) conform.Finding {
	for _, p := range errorProbes(t) {
		resp, _, err := modernRequest(t, p.method, p.params, p.header)
		if err != nil {
			return conform.Violated("%s got no reply: %v", p.what, err)
		}
		if !resp.HasError {
			continue // refusing it is another check's business (e.g. VER26-UNSUPPORTED)
		}
		e, ok := resp.ErrorObject()
		var obj map[string]json.RawMessage
		if !ok || json.Unmarshal(resp.Error, &obj) != nil {
			return conform.Violated("the error answering %s is not an object: %s", p.what, show(resp))
		}
		if _, ok := jsonString(obj["message"]); !ok || !e.CodeIsInt {
			return conform.Violated("the error answering %s lacks an integer code or a string message: %s", p.what, show(resp))
		}
	}
	return conform.Passed("")
}

func checkErrorID(t *conform.T) conform.Finding {
	judged := 0
	for _, p := range errorProbes(t) {
		id := t.S.NextNumberID()
		resp, err := probeReply(t, p, id)
		if err != nil {
			return conform.Violated("%s (id %s) got no reply: %v", p.what, id.Text(), err)
		}
		if !resp.HasError {
			continue
		}
		judged++
		if !resp.HasID || resp.ID != id {
			return conform.Violated("the error answering %s (request id %s) carries id %s: %s", p.what, id.Text(), resp.ID.Text(), show(resp))
		}
	}
	if judged == 0 {
		return conform.CannotTest("the server refused none of the probes with an error")
	}
	return conform.Passed("")
}
