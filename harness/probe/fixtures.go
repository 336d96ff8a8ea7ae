package probe

import (
	"fmt"
	"strconv"
)

// The official suite's fixture tools. The SDKs' own conformance clients (the Go SDK's
// conformance/everything-client, the Python SDK's conformance client) look for them by name in
// the official scenarios mcpspec serves under the same names: in tools_call they call
// add_numbers(a=5, b=3), in sse-retry test_reconnection, and the official TypeScript client
// calls the first tool listed. The probe lists each where the official scenario has it, first
// (a client may read no further than the first page, or call only its first tool), with
// defaults for its arguments as the contract asks of every probe tool, so a contract client
// calls it too.
const (
	ToolAddNumbers   = "add_numbers"       // answers a+b
	ToolReconnection = "test_reconnection" // answers plainly; sse-retry cuts its stream as any first call's
)

// officialTool is the fixture tool of a scenario that lists the probe's tools: test_reconnection
// in sse-retry, add_numbers elsewhere.
func officialTool(scenario string) map[string]any {
	if scenario == ScenarioSSERetry {
		return map[string]any{"name": ToolReconnection, "description": "Answers once the client has the response; the probe cuts its first stream (sse-retry).",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}
	}
	return addNumbersTool()
}

func addNumbersTool() map[string]any {
	return map[string]any{"name": ToolAddNumbers, "description": "Adds two numbers.", "inputSchema": map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "number", "description": "The first addend", "default": 5},
			"b": map[string]any{"type": "number", "description": "The second addend", "default": 3},
		},
	}}
}

// fixtureAnswer is the text a fixture tool answers with; ok is false for any other tool.
func fixtureAnswer(name string, args map[string]any) (text string, ok bool) {
	switch name {
	case ToolAddNumbers:
		a, aok := args["a"].(float64)
		b, bok := args["b"].(float64)
		if !aok || !bok {
			return fmt.Sprintf("add_numbers takes two numbers, a and b; got %v", args), true
		}
		return "The sum of " + num(a) + " and " + num(b) + " is " + num(a+b) + ".", true
	case ToolReconnection:
		return "reconnection test complete", true
	}
	return "", false
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
