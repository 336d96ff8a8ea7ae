package probe

// Custom headers from tool parameters (2026-07-28): a tool's input schema may mark a property
// with x-mcp-header, and a client calling it over Streamable HTTP mirrors the argument into
// an Mcp-Param-{Name} header, in the =?base64?…?= form where the value cannot travel as plain
// ASCII (non-ASCII, control characters, leading or trailing whitespace). The probe lists one
// such tool; its defaults (which the contract has the client send) cover each case.

// ToolParamHeaders is the probe's tool whose arguments are mirrored into headers.
const ToolParamHeaders = "probe_headers"

// ParamHeader is one x-mcp-header mark of ToolParamHeaders.
type ParamHeader struct {
	Prop, Header, Type string
	Default            any
}

// ParamHeaders are ToolParamHeaders' marked properties.
var ParamHeaders = []ParamHeader{
	{"region", "Region", "string", "eu-west-2"},
	{"priority", "Priority", "integer", 7},
	{"verbose", "Verbose", "boolean", true},
	{"greeting", "Greeting", "string", "Grüße, 世界"}, // non-ASCII: Base64
	{"padded", "Padded", "string", " padded "},      // surrounding whitespace: Base64
	{"spaced", "Spaced", "string", "a b c"},         // inner spaces only: plain
	{"kind", "Method", "string", "probe-kind"},      // Mcp-Param-Method, which is not Mcp-Method
}

// paramHeadersTool is ToolParamHeaders' definition: the marked properties, and one unmarked.
func paramHeadersTool() map[string]any {
	props := map[string]any{"note": map[string]any{"type": "string", "default": "not mirrored"}}
	for _, p := range ParamHeaders {
		props[p.Prop] = map[string]any{"type": p.Type, "default": p.Default, "x-mcp-header": p.Header}
	}
	return map[string]any{"name": ToolParamHeaders, "description": "Answers with its arguments; some of them travel in Mcp-Param headers too.",
		"inputSchema": map[string]any{"type": "object", "properties": props}}
}
