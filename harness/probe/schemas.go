package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/mcpspec/mcpspec/harness/record"
)

// Tool schemas as a client holds them (the official suite's schema scenarios, by their names).
//
// ScenarioRefNoDeref (2026-07-28): the probe lists lookup_user, whose input schema holds a
// same-document $ref and a $ref to an absolute http URL on a loopback listener of the probe's
// own, the canary. A client MUST NOT dereference a $ref that resolves to a network URI
// (basic/index § $ref Resolution): any request to the canary is recorded on ChanCanary.
//
// ScenarioSchemaPreservation (2025-11-25, 2026-07-28): the probe lists
// json_schema_2020_12_tool, whose input schema uses the 2020-12 vocabulary ($schema, $defs with
// an $anchor, additionalProperties, allOf/anyOf, if/then/else), and json_schema_echo, whose
// schema argument a client passes the input schema it holds for the first (the official
// scenario's step): the call shows what the client kept.
const (
	ScenarioRefNoDeref         = "json-schema-ref-no-deref"
	ScenarioSchemaPreservation = "json-schema-2020-12-preservation"
)

// The scenarios' tools, under the names the SDKs' conformance clients look for.
const (
	ToolLookupUser          = "lookup_user"
	ToolSchemaFocal         = "json_schema_2020_12_tool"
	ToolSchemaEcho          = "json_schema_echo"
	CanaryPath              = "/canary/profile-schema.json"
	schemaPreservationSince = "2025-11-25"
)

// ChanCanary is the channel of a request to the canary listener (ScenarioRefNoDeref).
const ChanCanary = "CANARY"

// servesSchemas reports whether the probe serves a schema scenario at revision.
func servesSchemas(scenario, revision string) bool {
	if scenario == ScenarioRefNoDeref {
		return revision >= "2026-07-28"
	}
	return revision >= schemaPreservationSince
}

// PreservationSchema is json_schema_2020_12_tool's input schema: every keyword a client could
// drop while parsing, its arguments' defaults valid against it (channel "email" asks for email).
func PreservationSchema() map[string]any {
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"$defs": map[string]any{
			"address": map[string]any{
				"$anchor":    "postalAddress",
				"type":       "object",
				"properties": map[string]any{"street": map[string]any{"type": "string"}, "city": map[string]any{"type": "string"}},
				"required":   []any{"city"},
			},
		},
		"properties": map[string]any{
			"recipient": map[string]any{"type": "string", "minLength": 1, "default": "Ada"},
			"channel":   map[string]any{"type": "string", "enum": []any{"post", "email"}, "default": "email"},
			"email":     map[string]any{"type": "string", "default": "ada@mcpspec.invalid"},
			"address":   map[string]any{"$ref": "#/$defs/address"},
		},
		"required":             []any{"recipient", "channel"},
		"additionalProperties": false,
		"allOf":                []any{map[string]any{"anyOf": []any{map[string]any{"required": []any{"email"}}, map[string]any{"required": []any{"address"}}}}},
		"if":                   map[string]any{"properties": map[string]any{"channel": map[string]any{"const": "post"}}},
		"then":                 map[string]any{"required": []any{"address"}},
		"else":                 map[string]any{"required": []any{"email"}},
	}
}

// PreservationKeywords are the keywords of PreservationSchema a client must keep at a revision:
// 2025-11-25 made 2020-12 the default dialect (SEP-1613: $schema, $defs, additionalProperties,
// with the schema's plain keywords); 2026-07-28 opened tool schemas to the whole vocabulary
// (SEP-2106: composition, conditionals, $anchor). At 2025-11-25 an $anchor is not judged.
func PreservationKeywords(revision string) []string {
	keys := []string{"$schema", "type", "properties", "required", "$defs", "additionalProperties"}
	if revision >= "2026-07-28" {
		keys = append(keys, "allOf", "if", "then", "else")
	}
	return keys
}

func schemaTools(scenario, canaryURL string) []map[string]any {
	if scenario == ScenarioRefNoDeref {
		return []map[string]any{{"name": ToolLookupUser, "description": "Looks up a user profile by id.", "inputSchema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"$defs":   map[string]any{"userId": map[string]any{"type": "string", "pattern": "^[a-z0-9-]+$"}},
			"properties": map[string]any{
				"id":      map[string]any{"$ref": "#/$defs/userId", "default": "user-1"},
				"profile": map[string]any{"$ref": canaryURL},
			},
			"required": []any{"id"},
		}}}
	}
	return []map[string]any{
		{"name": ToolSchemaFocal, "description": "A tool whose input schema uses the JSON Schema 2020-12 vocabulary.", "inputSchema": PreservationSchema()},
		{"name": ToolSchemaEcho, "description": "Answers with the schema it is given: pass the input schema you hold for " + ToolSchemaFocal + ".",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
				"schema": map[string]any{"type": "object", "description": "The input schema of " + ToolSchemaFocal + " as the client holds it."}},
				"required": []any{"schema"}}},
	}
}

// schemaCall answers a call of a schema scenario's tool; ok is false for any other tool.
func schemaCall(name string, args map[string]any) (text string, ok bool) {
	switch name {
	case ToolLookupUser:
		return fmt.Sprintf("user %v", args["id"]), true
	case ToolSchemaFocal:
		return "ok", true
	case ToolSchemaEcho:
		return "echoed", true
	}
	return "", false
}

// canary is the loopback listener whose URL ScenarioRefNoDeref's $ref names: it records every
// request and answers with a schema, as a dereferencing client would expect.
type canary struct {
	ln   net.Listener
	srv  *http.Server
	wg   sync.WaitGroup
	once sync.Once
}

func startCanary(rec *Recorder) (*canary, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("probe: canary: listen on loopback: %w", err)
	}
	c := &canary{ln: ln}
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := rec.Next()
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBody))
		rec.Add(record.Record{Dir: record.Recv, Channel: ChanCanary, Method: r.Method, Path: r.URL.Path, Header: headerMap(r.Header), Arrived: arrived})
		w.Header().Set("Content-Type", "application/schema+json")
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "object", "properties": map[string]any{"displayName": map[string]any{"type": "string"}}})
	})}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		_ = c.srv.Serve(ln)
	}()
	return c, nil
}

// URL is the canary's absolute URL, the $ref a client must not fetch.
func (c *canary) URL() string { return "http://" + c.ln.Addr().String() + CanaryPath }

func (c *canary) close() {
	c.once.Do(func() {
		_ = c.srv.Close()
		c.wg.Wait()
	})
}
