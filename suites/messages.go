package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the base message rules the server can be seen to keep: core support, notification
// ids, reserved _meta prefixes, and the JSON Schemas it publishes.

func init() {
	conform.Register(
		conform.Check{ID: "MSG-CORE-SUPPORT", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "the base protocol works: initialize and ping in the handshake revisions; server/discover and a request carrying the required _meta at 2026-07-28",
			Run:     checkCoreSupport},
		conform.Check{ID: "MSG-NOTIF-NO-ID", Level: "MUST", Revisions: conform.AllCatalogued, Connection: conform.Fresh,
			Summary: "the server's notifications (here: those the log tool provokes) carry no id member, not even null",
			Ready:   notificationsReady, Run: checkNotificationNoID},
		conform.Check{ID: "MSG-META-RESERVED", Level: "SHOULD", Revisions: conform.AllCatalogued,
			Summary:     "_meta keys the server sends under a prefix reserved for MCP are ones the spec defines",
			LevelReason: "The spec reserves the prefixes without a keyword; mcpspec warns on a key under one that the revision does not define.",
			Run:         checkMetaReserved},
		conform.Check{ID: "SCHEMA-2020-DEFAULT", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "tool schemas without $schema are valid JSON Schema 2020-12, the default dialect",
			Run:     checkSchemaDefaultDialect},
		conform.Check{ID: "SCHEMA-VALID", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "every tool schema is valid under the dialect its $schema declares, or 2020-12 without one",
			Run:     checkSchemaDialectValid},
	)
}

func checkCoreSupport(t *conform.T) conform.Finding {
	if !t.S.Modern() {
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
	method := listMethodModern(t)
	resp, err := t.S.Request(t.Ctx, method, nil)
	if err != nil || !resp.HasResult {
		return conform.Violated("%s with the required _meta was not served: %v %s", method, err, show(resp))
	}
	return conform.Passed("")
}

// notificationsReady ends MSG-NOTIF-NO-ID before its server is started when no log tool was
// named: nothing else makes a server send notifications it can be judged on.
func notificationsReady(t *conform.T) (conform.Finding, bool) {
	if t.Options().LogTool == "" {
		return conform.CannotTest("%s", noLogTool), true
	}
	return conform.Finding{}, false
}

func checkNotificationNoID(t *conform.T) conform.Finding {
	if t.S.HasCapability("logging") {
		if _, f := logsAt(t, "debug"); f != nil {
			return *f
		}
	}
	seen := 0
	for _, r := range t.S.Conn.Inbox().Since(0) {
		for _, m := range flatten(r.Msg) {
			if !m.HasMethod || !strings.HasPrefix(m.Method, "notifications/") {
				continue
			}
			if m.HasID {
				return conform.Violated("a %s notification carries an id: %s", m.Method, show(m))
			}
			seen++
		}
	}
	if seen == 0 {
		return conform.CannotTest("the server sent no notification to judge (it declares no logging, or --log-tool wrote nothing)")
	}
	return conform.Passed("%d notification(s), none with an id", seen)
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
		pages, err := walkPages(t, l)
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
		metaKeys(v, func(k string, _ any) { keys[k] = true })
		if undefined := undefinedReserved(t.Revision, keys); undefined != "" {
			return conform.Violated("the _meta key %q is under a prefix reserved for MCP but not defined at %s: %s", undefined, t.Revision, show(r))
		}
	}
	return conform.Passed("%d _meta key(s) in %d result(s)", len(keys), len(replies))
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
