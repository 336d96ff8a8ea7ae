package probe

import "github.com/mcpspec/mcpspec/harness"

// ScenarioElicitDefaults is the official suite's client scenario of that name (SEP-1034, from
// 2025-11-25): the probe lists one tool, and calling it makes the probe send elicitation/create
// with a form whose every field is optional and has a default: a string, an integer, a number,
// an enum and a boolean. A client that accepts it should send the defaults back
// (ELICIT-CLIENT-DEFAULTS). Served only when asked for by name: tools_call's probe_elicitation
// asks the same of a client.
const ScenarioElicitDefaults = "elicitation-sep1034-client-defaults"

// ToolElicitDefaults is the scenario's tool, under the name the SDKs' conformance clients call.
const ToolElicitDefaults = "test_client_elicitation_defaults"

// elicitDefaultsRevision is the one revision the scenario exists at: SEP-1034's defaults for
// every primitive came with 2025-11-25, and 2026-07-28 sends no server requests.
const elicitDefaultsRevision = harness.Rev20251125

// ElicitationDefaultsFor are the defaults of the form the probe elicits in a scenario.
func ElicitationDefaultsFor(scenario, revision string) map[string]any {
	if scenario == ScenarioElicitDefaults {
		// The number field's default is whole: 2025-11-25's ElicitResult admits string,
		// integer and boolean values only, so a fraction a client faithfully sends back would
		// fail ELICIT-CLIENT-RESULT by the schema's own tension, not the client's fault.
		return map[string]any{"name": "Ada Lovelace", "age": 36, "score": 87, "status": "active", "verified": false}
	}
	return ElicitationDefaults(revision)
}

// elicitDefaultsSchema is the scenario's form: every field optional, each with its default.
func elicitDefaultsSchema() map[string]any {
	defs := ElicitationDefaultsFor(ScenarioElicitDefaults, elicitDefaultsRevision)
	props := map[string]any{
		"name":     map[string]any{"type": "string", "description": "A name"},
		"age":      map[string]any{"type": "integer", "description": "An age"},
		"score":    map[string]any{"type": "number", "description": "A score"},
		"status":   map[string]any{"type": "string", "description": "A status", "enum": []string{"active", "paused", "closed"}},
		"verified": map[string]any{"type": "boolean", "description": "Whether it is verified"},
	}
	for k, d := range defs {
		props[k].(map[string]any)["default"] = d
	}
	return map[string]any{"type": "object", "properties": props, "required": []string{}}
}

func elicitDefaultsTools() []map[string]any {
	return []map[string]any{{"name": ToolElicitDefaults, "description": "Asks the client to accept a form of defaults.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}
}
