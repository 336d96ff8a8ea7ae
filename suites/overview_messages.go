package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Checks of basic/index (Overview) § Messages, Error Codes and JSON Schema Usage: core support,
// request ids, responses and their results and errors, notifications, resultType, the error code
// ranges, and the JSON Schemas a server publishes.

func init() {
	conform.Register(
		conform.Check{ID: "MSG-JSONRPC", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", Summary: "every message the server sends validates against the negotiated revision's schema", Side: conform.Server{Run: checkSchemaValid}},
		conform.Check{ID: "MSG-CORE-SUPPORT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "the base protocol works: initialize and ping in the handshake revisions; server/discover and a request carrying the required _meta at 2026-07-28",
			Side:    conform.Server{Run: checkCoreSupport}},
		conform.Check{ID: "MSG-NOTIF-NO-ID", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "the server's notifications (those the log tool and the slow tool provoke, and every one of the state session: progress, resource updates, log messages) carry no id member, not even null",
			Side:    conform.Server{Connection: conform.Exclusive, ObservedOverHTTP: true, Waits: true, Run: checkNotificationNoID}},
		conform.Check{ID: "MSG-META-RESERVED", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "_meta keys the server sends under a prefix reserved for MCP are ones the spec defines",
			LevelReason: "The spec reserves the prefixes without a keyword; mcpspec warns on a key under one that the revision does not define.",
			Side:        conform.Server{Run: checkMetaReserved}},
		conform.Check{ID: "SCHEMA-2020-DEFAULT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "tool schemas without $schema are valid JSON Schema 2020-12, the default dialect",
			Side:    conform.Server{Run: checkSchemaDefaultDialect}},
		conform.Check{ID: "SCHEMA-VALID", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "every tool schema is valid under the dialect its $schema declares, or 2020-12 without one",
			Side:    conform.Server{Run: checkSchemaDialectValid}},
		conform.Check{ID: "MSG-RESULTTYPE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every result carries a resultType",
			Side:    conform.Server{Run: checkResultType}},
		conform.Check{ID: "MSG-RESULTTYPE-SET", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "resultType is complete or input_required, or a value of an advertised extension",
			Side:    conform.Server{Run: checkResultTypeSet}},
		conform.Check{ID: "MSG-META-PREFIX", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "every _meta key the server sends has a well-formed prefix, if any: dot-separated labels, then a slash",
			Side:    conform.Server{Run: checkMetaPrefix}},
		conform.Check{ID: "MSG-META-NAME", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "every _meta key the server sends has a well-formed name: empty, or alphanumeric at both ends",
			Side:    conform.Server{Run: checkMetaName}},
		conform.Check{ID: "MSG-META-NO-ASSUMPTIONS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "an unknown _meta key (com.example/x) on a request changes nothing in its result",
			Side:    conform.Server{Run: checkMetaNoAssumptions}},
		conform.Check{ID: "MSG-RESULT-FIELD", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "a successful response carries its result as a JSON object",
			LevelReason: "At 2025-11-25 JRPC-RESULT-XOR-ERROR and the schema check cover this; the JSON-RPC checks do not run at the stateless revision, so this one does.",
			Side:        conform.Server{Run: checkResultField}},
		conform.Check{ID: "MSG-ERROR-FIELD", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "an error response carries an error object with an integer code and a string message",
			LevelReason: "At 2025-11-25 JRPC-ERROR-OBJECT and JRPC-ERROR-CODE-INT cover this; the JSON-RPC checks do not run at the stateless revision, so this one does.",
			Side:        conform.Server{Run: checkErrorField}},
		conform.Check{ID: "MSG-ERROR-ID", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "an error answering a readable request carries that request's id (-32601, -32602, -32022)",
			LevelReason: "At 2025-11-25 JRPC-ID-ECHO and JRPC-METHOD-NOT-FOUND cover this; the JSON-RPC checks do not run at the stateless revision, so this one does.",
			Side:        conform.Server{Run: checkErrorID}},
		conform.Check{ID: "ERR26-RETIRED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the retired codes -32002 and -32042 never appear, even where a resource is not found",
			LevelReason: "MUST NOT: either code in any error fails.",
			Side:        conform.Server{Run: checkRetiredCodes}},
		conform.Check{ID: "ERR26-RESERVED-RANGE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "codes from -32099 to -32020 are only the spec's own, each for its own condition",
			LevelReason: "MUST NOT / MUST: -32020 only for a header mismatch, -32022 only for an unsupported version, -32021 (a missing client capability) wherever the server requires one; any other code of the sub-range fails.",
			Side:        conform.Server{Run: checkReservedRange}},
		conform.Check{ID: "ERR26-LEGACY-RANGE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "no error uses a code from -32019 to -32000",
			LevelReason: "SHOULD NOT: a code from the sub-range warns.",
			Side:        conform.Server{Run: checkLegacyRange}},
		conform.Check{ID: "ERR26-APP-RANGE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the server's own error codes lie outside the JSON-RPC reserved range, -32768 to -32000",
			Side:    conform.Server{Run: checkAppRange}},
	)
}

func checkSchemaValid(t *conform.T) conform.Finding {
	// Judged: the session's opening answer and the answers to this check's own probes. What
	// other checks drew from the server on a shared session is theirs to judge; counting it
	// here would make this verdict depend on which checks happened to share the session.
	from := t.S.Mark()
	// Answers only feed the validation; a missing one is judged by other checks.
	for _, m := range []string{probeMethod(t.S), listMethod(t.S), unknownMethod} {
		_, _ = t.S.Request(t.Ctx, m, nil)
	}
	opening := -1 // inbox position of the session's opening answer
	if init := t.S.InitResponse(); init.Kind == jsonrpc.Response {
		for _, r := range t.S.Conn.Inbox().Since(0) {
			if r.Msg.Kind == jsonrpc.Response && r.Msg.ID == init.ID {
				opening = r.Index
				break
			}
		}
	}
	var judged []harness.SchemaViolation
	for _, v := range t.S.SchemaViolations(0) {
		if v.Index >= from || v.Index == opening {
			judged = append(judged, v)
		}
	}
	if v := judged; len(v) > 0 {
		var lines []string
		for _, x := range v {
			lines = append(lines, fmt.Sprintf("%v\n  in: %s", x.Err, x.Raw))
		}
		return conform.Violated("%d message(s) do not validate against the %s schema:\n%s", len(v), t.S.Revision(), strings.Join(lines, "\n"))
	}
	return conform.Passed("")
}

func checkCoreSupport(t *conform.T) conform.Finding {
	if !t.S.Stateless() {
		if !t.S.InitResponse().HasResult {
			return conform.Violated("initialize was not answered with a result: %s", show(t.S.InitResponse()))
		}
		resp, err := t.S.Request(t.Ctx, "ping", nil)
		if err != nil {
			return conform.Violated("ping after initialize got no reply: %v", err)
		}
		if !resp.HasResult {
			return conform.Violated("ping after initialize was not answered with a result: %s", show(resp))
		}
		return conform.Passed("")
	}
	if _, ok := t.S.InitResponse().ResultObject(); !ok {
		return conform.Violated("server/discover was not answered with a result: %s", show(t.S.InitResponse()))
	}
	// An unsupported version and missing _meta fields are VER26-UNSUPPORTED's and
	// META26-REQUIRED-FIELDS' matter; here a plain request of the revision must be served.
	method := listMethodStateless(t)
	resp, err := t.S.Request(t.Ctx, method, nil)
	if err != nil || !resp.HasResult {
		return conform.Violated("%s with the required _meta was not served: %v %s", method, err, show(resp))
	}
	return conform.Passed("")
}

func checkNotificationNoID(t *conform.T) conform.Finding {
	// The notifications judged: those the slow tool (its progress) provokes on the session of
	// its call with a string token, which the progress checks judge too (askedSlowRun), those
	// of the log tool's server (at debug, which changes the server's state, so not on a session
	// other checks use), and every one the state session saw (progress of the slow tool,
	// resource updates, log messages), so that a run with notifications in its evidence has
	// something to judge without --log-tool. Over Streamable HTTP the check is Observed: T.S is nil.
	var notes []jsonrpc.Message
	caps := t.S
	if caps == nil {
		caps = t.Negotiation(t.Revision).Session
	}
	if t.Options().LogTool != "" && caps != nil && caps.HasCapability("logging") {
		run, f := observeLogTool(t)
		if f != nil {
			return *f
		}
		if run.f != nil {
			return *run.f
		}
		notes = append(notes, run.notes...)
	}
	if _, ok := needSlowTool(t); ok {
		// Only its notifications matter here, whatever became of the call.
		r, f := askedSlowRun(t)
		if f != nil {
			return *f
		}
		notes = append(notes, r.notes...)
	}
	if st, f := observeState(t); f == nil {
		notes = append(notes, st.notifications...)
	}
	for _, m := range notes {
		if m.HasID {
			return conform.Violated("a %s notification carries an id: %s", m.Method, show(m))
		}
	}
	if len(notes) == 0 {
		return conform.CannotTest("the server sent no notification to judge, neither in this check's session nor in the state session (resources, log level, the slow tool's progress); %s", noLogTool)
	}
	return conform.Passed("%d notification(s), none with an id", len(notes))
}

// definedMetaKeys are the _meta keys under reserved prefixes that each revision defines.
var definedMetaKeys = map[string][]string{
	harness.Rev20250618: nil,
	harness.Rev20251125: {"io.modelcontextprotocol/related-task"},
	harness.Rev20260728: {
		"io.modelcontextprotocol/related-task", "io.modelcontextprotocol/protocolVersion",
		"io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo",
		"io.modelcontextprotocol/serverInfo", "io.modelcontextprotocol/logLevel",
		"io.modelcontextprotocol/subscriptionId",
	},
}

// reservedPrefix reports whether key's prefix is reserved for MCP at revision: from 2025-11-25
// on where its second label is modelcontextprotocol or mcp; at 2025-06-18 where either name is
// a label followed by another.
func reservedPrefix(revision, key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	isMCP := func(l string) bool { return l == "modelcontextprotocol" || l == "mcp" }
	if revision == harness.Rev20250618 {
		for _, l := range labels[:len(labels)-1] {
			if isMCP(l) {
				return true
			}
		}
		return false
	}
	return len(labels) >= 2 && isMCP(labels[1])
}

func checkMetaReserved(t *conform.T) conform.Finding {
	replies := []jsonrpc.Message{t.S.InitResponse()}
	for _, l := range offeredLists(t) {
		pages, err := askedPages(t, l.method)
		if err != nil {
			return conform.Violated("%v", err)
		}
		for _, p := range pages {
			replies = append(replies, p.resp)
		}
	}
	keys := map[string]bool{}
	for _, r := range replies {
		var v any
		_ = json.Unmarshal(r.Result, &v)
		metaKeys(v, func(k string, _ any) {
			if !declaredExtensionKey(t, k) {
				keys[k] = true
			}
		})
		if undefined := undefinedReserved(t.Revision, keys); undefined != "" {
			return conform.Violated("the _meta key %q is under a prefix reserved for MCP but not defined at %s: %s", undefined, t.Revision, show(r))
		}
	}
	return conform.Passed("%d _meta key(s) in %d result(s)", len(keys), len(replies))
}

// extensionMetaPrefixes are the _meta key prefixes an extension reserves for itself, under the
// ones reserved for MCP: the skills extension's stable text reserves io.modelcontextprotocol.skills/
// for keys on skill resources.
var extensionMetaPrefixes = map[string]string{skillsExtension: "io.modelcontextprotocol.skills/"}

// declaredExtensionKey reports whether key is under the prefix of an extension the server
// declares, which defines it there rather than the base revision.
func declaredExtensionKey(t *conform.T, key string) bool {
	for ext, prefix := range extensionMetaPrefixes {
		if strings.HasPrefix(key, prefix) {
			if _, ok := conform.ServerExtension(t.S, ext); ok {
				return true
			}
		}
	}
	return false
}

// undefinedReserved is a key of keys under a reserved prefix that revision does not define.
func undefinedReserved(revision string, keys map[string]bool) string {
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		if reservedPrefix(revision, k) && !slices.Contains(definedMetaKeys[revision], k) {
			return k
		}
	}
	return ""
}

// toolSchema is one schema a tool publishes.
type toolSchema struct {
	where  string // e.g. "inputSchema of echo"
	raw    json.RawMessage
	schema map[string]any
}

// toolSchemas gathers the object schemas of every listed tool.
func toolSchemas(t *conform.T) ([]toolSchema, *conform.Finding) {
	if !t.S.HasCapability("tools") {
		f := conform.NA("the server declares no tools")
		return nil, &f
	}
	items, err := listItems(t, pagedList{"tools", "tools/list", "tools"})
	if err != nil {
		f := conform.CannotTest("%v", err)
		return nil, &f
	}
	var out []toolSchema
	for _, raw := range items {
		var tool map[string]json.RawMessage
		if json.Unmarshal(raw, &tool) != nil {
			continue
		}
		name, _ := jsonString(tool["name"])
		for _, member := range []string{"inputSchema", "outputSchema"} {
			var schema map[string]any
			if json.Unmarshal(tool[member], &schema) == nil && schema != nil {
				out = append(out, toolSchema{where: member + " of " + name, raw: tool[member], schema: schema})
			}
		}
	}
	return out, nil
}

// knownDialects are the $schema values the validator has meta-schemas for.
var knownDialects = map[string]*jsonschema.Draft{
	"https://json-schema.org/draft/2020-12/schema": jsonschema.Draft2020,
	"https://json-schema.org/draft/2019-09/schema": jsonschema.Draft2019,
	"http://json-schema.org/draft-07/schema":       jsonschema.Draft7,
	"http://json-schema.org/draft-06/schema":       jsonschema.Draft6,
	"http://json-schema.org/draft-04/schema":       jsonschema.Draft4,
}

// dialectOf is the schema's declared dialect ("" when none), and whether mcpspec knows it.
func dialectOf(s toolSchema) (string, bool) {
	raw, ok := s.schema["$schema"]
	if !ok {
		return "", true
	}
	d, _ := raw.(string)
	_, known := knownDialects[strings.TrimSuffix(d, "#")]
	return d, known
}

// schemaInvalid compiles a schema as compileSchema does and returns the meta-schema violation
// (or the broken pattern), or nil. Errors that say nothing of validity are not judged.
func schemaInvalid(s toolSchema) error {
	_, judged, err := compileSchema(s.where, s.raw)
	if err == nil || !judged {
		return nil
	}
	var invalid *jsonschema.SchemaValidationError
	if errors.As(err, &invalid) {
		var v *jsonschema.ValidationError
		if errors.As(invalid.Err, &v) {
			return deepestCause(v)
		}
		return invalid
	}
	return err
}

// deepestCause is the first leaf of a validation error: where the schema breaks its
// meta-schema, without the tree above it.
func deepestCause(v *jsonschema.ValidationError) error {
	for len(v.Causes) > 0 {
		v = v.Causes[0]
	}
	why := v.Error()
	if out := v.DetailedOutput(); out.Error != nil {
		why = out.Error.String()
	}
	return fmt.Errorf("at %q: %s", "/"+strings.Join(v.InstanceLocation, "/"), why)
}

func checkSchemaDefaultDialect(t *conform.T) conform.Finding {
	schemas, f := toolSchemas(t)
	if f != nil {
		return *f
	}
	judged := 0
	for _, s := range schemas {
		if _, declared := s.schema["$schema"]; declared {
			continue
		}
		judged++
		if err := schemaInvalid(s); err != nil {
			return conform.Violated("the %s has no $schema and is not valid JSON Schema 2020-12: %s (%s)", s.where, clip(err.Error(), 300), clip(string(s.raw), 200))
		}
	}
	if judged == 0 {
		return conform.NA("every tool schema declares its dialect with $schema")
	}
	return conform.Passed("%d schema(s) without $schema, all valid 2020-12", judged)
}

func checkSchemaDialectValid(t *conform.T) conform.Finding {
	schemas, f := toolSchemas(t)
	if f != nil {
		return *f
	}
	judged, unknown := 0, 0
	for _, s := range schemas {
		dialect, known := dialectOf(s)
		if !known {
			unknown++
			continue
		}
		judged++
		if err := schemaInvalid(s); err != nil {
			if dialect == "" {
				dialect = "2020-12 (the default)"
			}
			return conform.Violated("the %s is not valid under %s: %s (%s)", s.where, dialect, clip(err.Error(), 300), clip(string(s.raw), 200))
		}
	}
	if judged == 0 {
		return conform.CannotTest("no tool schema in a dialect mcpspec knows (%d in others)", unknown)
	}
	return conform.Passed("%d schema(s) valid under their dialect%s", judged, map[bool]string{true: fmt.Sprintf("; %d in dialects mcpspec does not know", unknown)}[unknown > 0])
}

func checkResultType(t *conform.T) conform.Finding {
	results, f := statelessResults(t)
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

func checkMetaNoAssumptions(t *conform.T) conform.Finding {
	method, f := declaredList(t)
	if f != nil {
		return *f
	}
	plain := map[string]any{}
	extra := map[string]any{"_meta": map[string]any{unknownMetaKey: "mcpspec"}}
	if t.S.Stateless() {
		plain = map[string]any{"_meta": statelessMeta(t.Revision, nil)}
		extra = map[string]any{"_meta": statelessMeta(t.Revision, map[string]any{unknownMetaKey: "mcpspec"})}
	}
	return compareAnswers(t, method, []string{"without _meta " + unknownMetaKey, "with _meta " + unknownMetaKey}, []map[string]any{plain, extra})
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
			params: map[string]any{"_meta": statelessMeta(bogus, nil)}, header: http.Header{streamhttp.HeaderProtocol: {bogus}}},
		{what: "_meta without clientCapabilities", method: "server/discover", code: codeInvalidParams,
			params: map[string]any{"_meta": statelessMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: nil})}},
	}
	if method, params, ok := invalidParamsProbe(t.S); ok {
		probes = append(probes, errorProbe{what: method + " without its required params", method: method, params: params, code: codeInvalidParams})
	}
	return probes
}

// probeReply sends a probe with an integer id and returns the response that answers it, whatever
// id that response carries (ids the harness gave other requests excepted).
func probeReply(t *conform.T, p errorProbe, id jsonrpc.ID) (jsonrpc.Message, error) {
	frame := rawRequest(id, p.method, t.S.StatelessParams(p.params))
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
		resp, _, err := statelessRequest(t, p.method, p.params, p.header)
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
		{what: "_meta without client capabilities", method: listMethodStateless(t),
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
		resp, _, err := statelessRequest(t, p.method, p.params, p.header)
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
