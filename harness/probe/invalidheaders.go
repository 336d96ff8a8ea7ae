package probe

// ScenarioInvalidToolHeaders (2026-07-28; the official suite's http-invalid-tool-headers): the
// probe lists valid_tool, whose one x-mcp-header mark is valid, and tools whose marks each
// break one constraint of server/tools § x-mcp-header. A client using Streamable HTTP MUST
// exclude such a tool from the result of tools/list, so it never calls one; a client that
// calls every tool it holds calls valid_tool, which shows it read the list. The official tool
// names are kept (the SDKs' conformance clients call valid_tool with region set), and three
// tools of mcpspec's own add the constraints the official list leaves out: a number,
// and marks reachable only through items or a composition keyword.
const ScenarioInvalidToolHeaders = "http-invalid-tool-headers"

// ToolValidHeader is the scenario's valid tool; ValidHeaderDefault its region argument's default.
const (
	ToolValidHeader    = "valid_tool"
	ValidHeaderDefault = "us-west1"
)

// InvalidHeaderTool is a tool of ScenarioInvalidToolHeaders whose x-mcp-header mark breaks a
// constraint, and the constraint, in words.
type InvalidHeaderTool struct {
	Name, Breaks string
	schema       map[string]any
}

func prop(typ, header string) map[string]any {
	return map[string]any{"type": typ, "x-mcp-header": header}
}

func obj(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

// InvalidHeaderTools are the scenario's invalid tools, in the order listed.
var InvalidHeaderTools = []InvalidHeaderTool{
	{"invalid_empty_header", "the x-mcp-header value is empty", obj(map[string]any{"value": prop("string", "")})},
	{"invalid_object_header", "x-mcp-header marks an object, not a primitive", obj(map[string]any{"data": prop("object", "Data")})},
	{"invalid_array_header", "x-mcp-header marks an array, not a primitive", obj(map[string]any{"items": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "x-mcp-header": "Items"}})},
	{"invalid_null_header", "x-mcp-header marks a null, not a primitive", obj(map[string]any{"nil": prop("null", "Nil")})},
	{"invalid_duplicate_same_case", "two marks share the value Region", obj(map[string]any{"field1": prop("string", "Region"), "field2": prop("string", "Region")})},
	{"invalid_duplicate_diff_case", "two marks differ only in case (MyField, myfield)", obj(map[string]any{"field1": prop("string", "MyField"), "field2": prop("string", "myfield")})},
	{"invalid_space_in_name", "the value has a space, not an HTTP token", obj(map[string]any{"value": prop("string", "My Region")})},
	{"invalid_colon_in_name", "the value has a colon, not an HTTP token", obj(map[string]any{"value": prop("string", "Region:Primary")})},
	{"invalid_non_ascii_name", "the value has a non-ASCII letter, not an HTTP token", obj(map[string]any{"value": prop("string", "Région")})},
	{"invalid_control_char_name", "the value has a control character (a tab)", obj(map[string]any{"value": prop("string", "Region\t1")})},
	{"invalid_number_header", "x-mcp-header marks a number, which the text excludes", obj(map[string]any{"ratio": prop("number", "Ratio")})},
	{"invalid_items_header", "the mark is reached through items, not statically reachable", obj(map[string]any{"list": map[string]any{"type": "array", "items": prop("string", "Entry")}})},
	{"invalid_anyof_header", "the mark is reached through anyOf, not statically reachable", map[string]any{"type": "object", "properties": map[string]any{},
		"anyOf": []any{obj(map[string]any{"zone": prop("string", "Zone")})}}},
}

// invalidHeaderTools lists valid_tool first, then the invalid ones.
func invalidHeaderTools() []map[string]any {
	out := []map[string]any{{"name": ToolValidHeader, "description": "A tool whose x-mcp-header mark is valid.",
		"inputSchema": map[string]any{"type": "object", "required": []any{"region"}, "properties": map[string]any{
			"region": map[string]any{"type": "string", "x-mcp-header": "Region", "default": ValidHeaderDefault}}}}}
	for _, t := range InvalidHeaderTools {
		out = append(out, map[string]any{"name": t.Name, "description": "Invalid: " + t.Breaks + "; a client must exclude this tool.", "inputSchema": t.schema})
	}
	return out
}

// invalidHeaderCall answers a call of the scenario's tools, invalid ones too (the probe is
// lenient: the check judges the call); ok is false for any other tool.
func invalidHeaderCall(name string) (text string, ok bool) {
	if name == ToolValidHeader {
		return "valid_tool called", true
	}
	for _, t := range InvalidHeaderTools {
		if t.Name == name {
			return name + " called, though its x-mcp-header mark is invalid", true
		}
	}
	return "", false
}
