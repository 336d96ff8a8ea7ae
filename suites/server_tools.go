package suites

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Checks of server/tools: the tools capability, tool definitions, calls and their results.
// Calling a foreign server's tools can have effects, so the checks that need results call only
// tools annotated readOnlyHint: true (at 2024-11-05, whose definitions carry no annotations, the
// annotations are read from the newest revision the server serves on another connection), never
// the tools named with --slow-tool, --list-changed-tool, --input-tool or --log-tool (toolcalls.go).

func init() {
	conform.Register(
		conform.Check{ID: "TOOL26-LIST-STABLE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tools/list gives the same tools on another connection and after other requests",
			Side:    conform.Server{Run: listStable("tools")}},
		conform.Check{ID: "TOOL26-ORDER", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tools/list gives its tools in the same order every time (here: with string and with integer request ids)",
			Side:    conform.Server{Run: checkToolOrder}},
		conform.Check{ID: "TOOL-CAP", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a server that serves tools/list declares the tools capability, and one that declares it serves tools/list",
			Side:    conform.Server{Run: checkToolCap}},
		conform.Check{ID: "TOOL-UNKNOWN", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary:     "a call of a tool the server does not have gets a JSON-RPC error, -32602",
			LevelReason: "The spec lists unknown tools among protocol errors and shows -32602 as the example: another code or an isError result warns; a successful result fails.",
			Side:        conform.Server{Run: checkToolUnknown}},
		conform.Check{ID: "TOOL-EXEC-ERRORS-IN-RESULT", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "a tool that fails in execution says so in its result (isError: true), not with a JSON-RPC error",
			LevelReason: "The failing tool is one whose name says it fails (fail, error, throw) and is annotated read-only; " +
				"a server without one makes the check untestable.",
			Side: conform.Server{Run: checkToolExecErrors}},
		conform.Check{ID: "TOOL-INVALID-ARGS", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "arguments missing a required property are refused (-32602, or from 2025-11-25 an isError result); arguments that are not an object get -32602",
			LevelReason: "The spec describes where these errors belong without a keyword: up to 2025-06-18 either -32602 or an isError result passes; " +
				"from 2025-11-25 input validation errors belong in an isError result, so -32602 warns.",
			Side: conform.Server{Run: checkToolInvalidArgs}},
		conform.Check{ID: "TOOL-INPUT-VALIDATION", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a tool refuses arguments of the wrong type or absurdly nested (error or isError result) and the server keeps serving",
			Side:    conform.Server{Run: checkToolInputValidation}},
		conform.Check{ID: "TOOL-LIST-SCHEMA", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", LevelReason: schemaRowReason,
			Summary: "every tools/list page validates against the revision's ListToolsResult, each inputSchema of type object",
			Side:    conform.Server{Run: checkToolListSchema}},
		conform.Check{ID: "TOOL-CALL-RESULT", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", LevelReason: schemaRowReason,
			Summary: "tools/call results validate against the revision's CallToolResult",
			Side:    conform.Server{Run: checkToolCallResult}},
		conform.Check{ID: "TOOL-CONTENT-TYPES", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST", LevelReason: schemaRowReason,
			Summary: "tool result content items are of the types the revision defines",
			Side:    conform.Server{Run: checkToolContentTypes}},
		conform.Check{ID: "TOOL-INPUTSCHEMA-VALID", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "every tool's inputSchema is a JSON Schema that compiles (2020-12 unless it names another dialect)",
			Side:    conform.Server{Run: checkToolInputSchemaValid}},
		conform.Check{ID: "TOOL-NAME-FORMAT", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "tool names are 1 to 128 characters of A-Z, a-z, 0-9, _, - and .",
			Side:    conform.Server{Run: checkToolNameFormat}},
		conform.Check{ID: "TOOL-NAME-UNIQUE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "no two tools share a name, across all pages of tools/list",
			Side:    conform.Server{Run: checkToolNameUnique}},
		conform.Check{ID: "TOOL-STRUCTURED-CONFORM", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a successful call of a tool with an outputSchema returns structuredContent valid against it",
			Side:    conform.Server{Run: checkToolStructuredConform}},
		conform.Check{ID: "TOOL-STRUCTURED-TEXT", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a result with structuredContent also carries it serialized as JSON in a text block",
			Side:    conform.Server{Run: checkToolStructuredText}},
		conform.Check{ID: "TOOL-STRUCTURED-TYPE", Level: "MUST", Revisions: conform.Until(harness.Rev20251125), Transports: allTransports,
			Summary:     "outputSchema has an object root and structuredContent is a JSON object",
			LevelReason: "A schema row: both revisions' schemas type structuredContent as an object. 2026-07-28 allows any JSON value, so the row has nothing to check there.",
			Side:        conform.Server{Run: checkToolStructuredType}},
		conform.Check{ID: "TOOL-ANNOTATIONS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "tool annotations validate against the revision's ToolAnnotations: boolean hints, a string title", LevelReason: schemaRowReason,
			Side: conform.Server{Run: checkToolAnnotations}},
		conform.Check{ID: "TOOL-EMBEDDED-RES-CAP", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a server whose tool results embed resources declares the resources capability",
			Side:    conform.Server{Run: checkToolEmbeddedResCap}},
		conform.Check{ID: "TOOL-LISTCHANGED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "a server that declares tools.listChanged sends notifications/tools/list_changed when its tools list changes (2026-07-28: on a listen stream that asked for it)",
			LevelReason: "Needs a tool whose call changes the list (--list-changed-tool). Over Streamable HTTP a GET stream is opened first where the server offers one, " +
				"so the notification may come on it or on the call's own stream.",
			Side: conform.Server{Connection: conform.Exclusive, StatelessFresh: true, LeavesGetOpen: true, Ready: toolListChangedReady, Run: checkToolListChanged}},
	)
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

const schemaRowReason = "The catalogue lists this as a schema row; a result that does not validate against the revision's schema breaks the protocol, hence MUST."

func checkToolCap(t *conform.T) conform.Finding {
	resp, err := askedFirstPage(t, "tools/list")
	if err != nil {
		return conform.CannotTest("tools/list got no answer: %v", err)
	}
	declared := t.S.HasCapability("tools")
	switch {
	case resp.HasResult && !declared:
		return conform.Violated("tools/list is served but the capabilities declare no tools: %s", clip(string(t.S.InitResult()["capabilities"]), 240))
	case declared && methodNotFound(resp):
		return conform.Violated("tools is declared, but tools/list is answered as an unknown method: %s", show(resp))
	case declared:
		return conform.Passed("the tools capability is declared")
	}
	return conform.Passed("no tools capability, and tools/list is refused: %s", show(resp))
}

func checkToolUnknown(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "tools"); !ok {
		return f
	}
	const name = "mcpspec_no_such_tool"
	resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
	if err != nil {
		return conform.Violated("tools/call %s got no answer: %v", name, err)
	}
	if resp.HasResult {
		obj, _ := resp.ResultObject()
		if string(obj["isError"]) == "true" {
			return conform.Violated("a call of the unknown tool %s got a tool execution error instead of a protocol error: %s", name, show(resp))
		}
		return conform.Finding{Outcome: conform.Violation, Severe: true,
			Message: fmt.Sprintf("a call of the unknown tool %s succeeded: %s", name, show(resp))}
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("tools/call %s: %s", name, why)
	}
	return conform.Passed("")
}

func checkToolExecErrors(t *conform.T) conform.Finding {
	calls, why, f := sampleCalls(t, func(d toolDef) bool { return failingToolName().MatchString(d.name) })
	if f != nil {
		return *f
	}
	if calls == nil {
		return conform.CannotTest("needs a tool that fails in execution (its name says fail, error or throw): %s", why)
	}
	for _, c := range calls {
		switch {
		case c.resp.HasError:
			return conform.Violated("the tool %s failed with a JSON-RPC error instead of a result with isError: true: %s", c.def.name, show(c.resp))
		case c.isError():
			return conform.Passed("%s reported its failure in its result", c.def.name)
		}
	}
	return conform.CannotTest("none of the tools called (%s) failed", callNames(calls))
}

// toolWithRequired finds a read-only tool whose inputSchema requires a property of a simple
// type, returning the property and its type.
func toolWithRequired(t *conform.T) (toolDef, string, string, *conform.Finding) {
	defs, f := listedTools(t)
	if f != nil {
		return toolDef{}, "", "", f
	}
	safe := readOnlyTools(t, defs)
	for _, d := range defs {
		var s struct {
			Properties map[string]struct {
				Type json.RawMessage `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if !safe[d.name] || json.Unmarshal(d.obj["inputSchema"], &s) != nil {
			continue
		}
		for _, r := range s.Required {
			if typ, _ := jsonString(s.Properties[r].Type); slices.Contains([]string{"string", "number", "integer", "boolean"}, typ) {
				return d, r, typ, nil
			}
		}
	}
	c := conform.CannotTest("needs a tool annotated readOnlyHint: true whose inputSchema requires a string, number, integer or boolean property")
	return toolDef{}, "", "", &c
}

func checkToolInvalidArgs(t *conform.T) conform.Finding {
	d, prop, _, f := toolWithRequired(t)
	if f != nil {
		return *f
	}
	resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": d.name, "arguments": map[string]any{}})
	if err != nil {
		return conform.Violated("tools/call %s without its required %s got no answer: %v", d.name, prop, err)
	}
	what := fmt.Sprintf("tools/call %s without its required argument %s", d.name, prop)
	code, isErr := errorCode(resp)
	obj, _ := resp.ResultObject()
	toolError := string(obj["isError"]) == "true"
	switch {
	case toolError:
	case isErr && code == codeInvalidParams && t.Revision < harness.Rev20251125:
	case isErr && code == codeInvalidParams:
		return conform.Violated("%s got -32602; from 2025-11-25 an input validation error belongs in a result with isError: true: %s", what, show(resp))
	default:
		return conform.Violated("%s got neither -32602 nor a result with isError: true: %s", what, show(resp))
	}
	resp, err = t.S.Request(t.Ctx, "tools/call", map[string]any{"name": d.name, "arguments": []any{1}})
	if err != nil {
		return conform.Violated("tools/call %s with arguments [1] got no answer: %v", d.name, err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("tools/call %s with arguments [1], not an object: %s", d.name, why)
	}
	return conform.Passed("")
}

// deepNesting is an array nested depth times.
func deepNesting(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", depth) + strings.Repeat("]", depth))
}

func checkToolInputValidation(t *conform.T) conform.Finding {
	d, prop, typ, f := toolWithRequired(t)
	if f != nil {
		return *f
	}
	wrong := any(12345)
	if typ != "string" {
		wrong = "mcpspec"
	}
	for _, bad := range []any{wrong, deepNesting(64)} {
		args, _ := sampleArgs(d.obj["inputSchema"])
		args[prop] = bad
		sent, _ := json.Marshal(args)
		resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": d.name, "arguments": args})
		if err != nil {
			return conform.Crashed("tools/call %s with arguments %s got no answer: %v", d.name, clip(string(sent), 200), err)
		}
		obj, isResult := resp.ResultObject()
		if isResult && string(obj["isError"]) != "true" {
			return conform.Violated("tools/call %s accepted %s (%s must be of type %s): %s", d.name, clip(string(sent), 200), prop, typ, show(resp))
		}
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("")
}

func checkToolListSchema(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "tools"); !ok {
		return f
	}
	defs, w, err := askedTools(t)
	if err != nil {
		return conform.Violated("%v", err)
	}
	for i, page := range w.pages {
		if err := t.S.Env().Validator.Definition(t.Revision, "ListToolsResult", page.Result); err != nil {
			return conform.Violated("tools/list page %d: %v", i+1, err)
		}
	}
	for _, d := range defs {
		var s struct {
			Type json.RawMessage `json:"type"`
		}
		if json.Unmarshal(d.obj["inputSchema"], &s) != nil || string(s.Type) != `"object"` {
			return conform.Violated("the tool %q has an inputSchema whose type is not \"object\": %s", d.name, clip(string(d.raw), 240))
		}
	}
	return conform.Passed("%d tools on %d page(s)", len(defs), len(w.pages))
}

func checkToolCallResult(t *conform.T) conform.Finding {
	calls, why, f := sampleCalls(t, anyTool)
	if f != nil {
		return *f
	}
	if calls == nil {
		return conform.CannotTest("no tool could be called: %s", why)
	}
	n := 0
	for _, c := range calls {
		if _, ok := c.result(); !ok {
			continue
		}
		n++
		if err := t.S.Env().Validator.Definition(t.Revision, "CallToolResult", c.resp.Result); err != nil {
			return conform.Violated("the result of tools/call %s: %v\n  in: %s", c.def.name, err, show(c.resp))
		}
	}
	if n == 0 {
		return conform.CannotTest("no call of %s was answered with a result", callNames(calls))
	}
	return conform.Passed("%d result(s) validated", n)
}

// contentTypes are the content item types each revision defines for tool results.
func contentTypes(rev string) []string {
	types := []string{"text", "image", "resource"}
	if rev >= harness.Rev20250326 {
		types = append(types, "audio")
	}
	if rev >= harness.Rev20250618 {
		types = append(types, "resource_link")
	}
	return types
}

func checkToolContentTypes(t *conform.T) conform.Finding {
	items, calls, f := sampleContent(t)
	if f != nil {
		return *f
	}
	if len(items) == 0 {
		return conform.CannotTest("the results of %s held no content items", callNames(calls))
	}
	allowed := contentTypes(t.Revision)
	for _, it := range items {
		if !slices.Contains(allowed, it.typ) {
			return conform.Violated("a content item of %s has type %q; %s defines %v: %s", it.tool, it.typ, t.Revision, allowed, clip(string(it.raw), 240))
		}
	}
	return conform.Passed("%d item(s) checked", len(items))
}

func checkToolInputSchemaValid(t *conform.T) conform.Finding {
	defs, f := listedTools(t)
	if f != nil {
		return *f
	}
	if len(defs) == 0 {
		return conform.CannotTest("the server lists no tools")
	}
	for _, d := range defs {
		raw := d.obj["inputSchema"]
		if raw == nil || string(raw) == "null" {
			return conform.Violated("the tool %q has no inputSchema: %s", d.name, clip(string(d.raw), 240))
		}
		if _, judged, err := compileSchema(d.name, raw); judged && err != nil {
			return conform.Violated("the inputSchema of %q is not a valid JSON Schema: %v\n  in: %s", d.name, err, clip(string(raw), 240))
		}
	}
	return conform.Passed("%d inputSchema(s) compiled", len(defs))
}

func checkToolNameFormat(t *conform.T) conform.Finding {
	defs, f := listedTools(t)
	if f != nil {
		return *f
	}
	if len(defs) == 0 {
		return conform.CannotTest("the server lists no tools")
	}
	for _, d := range defs {
		if !toolNameFormat().MatchString(d.name) {
			return conform.Violated("the tool name %q is not 1 to 128 characters of A-Z, a-z, 0-9, _, - and .", d.name)
		}
	}
	return conform.Passed("%d name(s) checked", len(defs))
}

func checkToolNameUnique(t *conform.T) conform.Finding {
	defs, f := listedTools(t)
	if f != nil {
		return *f
	}
	if len(defs) == 0 {
		return conform.CannotTest("the server lists no tools")
	}
	seen := map[string]bool{}
	for _, d := range defs {
		if seen[d.name] {
			return conform.Violated("the tool name %q is listed more than once", d.name)
		}
		seen[d.name] = true
	}
	return conform.Passed("%d distinct name(s)", len(defs))
}

// structuredCalls calls the read-only tools that declare an outputSchema.
func structuredCalls(t *conform.T) ([]toolCall, *conform.Finding) {
	calls, why, f := sampleCalls(t, func(d toolDef) bool { return d.has("outputSchema") })
	if f != nil {
		return nil, f
	}
	if calls == nil {
		c := conform.CannotTest("needs a tool with an outputSchema: %s", why)
		return nil, &c
	}
	return calls, nil
}

// successes are the calls that completed without isError.
func successes(calls []toolCall) []toolCall {
	return slices.DeleteFunc(slices.Clone(calls), func(c toolCall) bool {
		_, ok := c.result()
		return !ok || c.isError()
	})
}

func checkToolStructuredConform(t *conform.T) conform.Finding {
	calls, f := structuredCalls(t)
	if f != nil {
		return *f
	}
	ok := successes(calls)
	if len(ok) == 0 {
		return conform.CannotTest("no call of %s succeeded", callNames(calls))
	}
	for _, c := range ok {
		obj, _ := c.result()
		sc, present := obj["structuredContent"]
		if !present {
			return conform.Violated("%s declares an outputSchema but its result has no structuredContent: %s", c.def.name, show(c.resp))
		}
		sch, judged, err := compileSchema(c.def.name, c.def.obj["outputSchema"])
		if !judged || err != nil {
			return conform.CannotTest("the outputSchema of %s cannot be compiled: %v", c.def.name, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc))
		if err != nil {
			return conform.Violated("the structuredContent of %s is not JSON: %v", c.def.name, err)
		}
		if err := sch.Validate(inst); err != nil {
			return conform.Violated("the structuredContent of %s does not match its outputSchema: %v\n  in: %s", c.def.name, err, show(c.resp))
		}
	}
	return conform.Passed("%d result(s) conform", len(ok))
}

func checkToolStructuredText(t *conform.T) conform.Finding {
	calls, why, f := sampleCalls(t, anyTool)
	if f != nil {
		return *f
	}
	n := 0
	for _, c := range calls {
		obj, ok := c.result()
		if !ok || obj["structuredContent"] == nil {
			continue
		}
		n++
		var want any
		_ = json.Unmarshal(obj["structuredContent"], &want)
		var items []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(obj["content"], &items)
		found := slices.ContainsFunc(items, func(it struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}) bool {
			var got any
			return it.Type == "text" && json.Unmarshal([]byte(it.Text), &got) == nil && canonical(got) == canonical(want)
		})
		if !found {
			return conform.Violated("the result of %s has structuredContent but no text block holding it as JSON: %s", c.def.name, show(c.resp))
		}
	}
	if n == 0 {
		if why == "" {
			why = "no result of " + callNames(calls) + " carried structuredContent"
		}
		return conform.CannotTest("needs a tool result with structuredContent: %s", why)
	}
	return conform.Passed("%d result(s) checked", n)
}

func checkToolStructuredType(t *conform.T) conform.Finding {
	defs, f := listedTools(t)
	if f != nil {
		return *f
	}
	declared := 0
	for _, d := range defs {
		if !d.has("outputSchema") {
			continue
		}
		declared++
		var s struct {
			Type json.RawMessage `json:"type"`
		}
		if json.Unmarshal(d.obj["outputSchema"], &s) != nil || string(s.Type) != `"object"` {
			return conform.Violated("the outputSchema of %q does not have type \"object\" at its root: %s", d.name, clip(string(d.obj["outputSchema"]), 240))
		}
	}
	if declared == 0 {
		return conform.CannotTest("the server lists no tool with an outputSchema")
	}
	calls, f := structuredCalls(t)
	if f != nil {
		return *f
	}
	for _, c := range calls {
		obj, ok := c.result()
		if sc := obj["structuredContent"]; ok && sc != nil && jsonType(sc) != '{' {
			return conform.Violated("the structuredContent of %s is not a JSON object: %s", c.def.name, show(c.resp))
		}
	}
	return conform.Passed("")
}

// jsonType is the first significant byte of a JSON text.
func jsonType(raw json.RawMessage) byte {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func checkToolAnnotations(t *conform.T) conform.Finding {
	defs, f := listedTools(t)
	if f != nil {
		return *f
	}
	n := 0
	for _, d := range defs {
		if !d.has("annotations") {
			continue
		}
		n++
		if err := t.S.Env().Validator.Definition(t.Revision, "ToolAnnotations", d.obj["annotations"]); err != nil {
			return conform.Violated("the annotations of %q: %v\n  in: %s", d.name, err, clip(string(d.obj["annotations"]), 240))
		}
	}
	if n == 0 {
		return conform.CannotTest("no listed tool has annotations")
	}
	return conform.Passed("%d tool(s) with annotations", n)
}

func checkToolEmbeddedResCap(t *conform.T) conform.Finding {
	items, calls, f := sampleContent(t)
	if f != nil {
		return *f
	}
	for _, it := range items {
		if it.typ == "resource" && !t.S.HasCapability("resources") {
			return conform.Violated("%s returned an embedded resource, but the server declares no resources capability: %s", it.tool, clip(string(it.raw), 240))
		}
		if it.typ == "resource" {
			return conform.Passed("")
		}
	}
	return conform.CannotTest("no result of %s embedded a resource", callNames(calls))
}

// toolListChangedReady ends TOOL-LISTCHANGED before it starts when the server does not
// declare tools.listChanged or no list-changed tool was named.
func toolListChangedReady(t *conform.T) (conform.Finding, bool) {
	var caps struct {
		Tools struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	if !caps.Tools.ListChanged {
		return conform.NA("the server does not declare tools.listChanged"), true
	}
	if t.Options().ListTool == "" {
		return conform.CannotTest("%s", noListTool), true
	}
	return conform.Finding{}, false
}

func checkToolListChanged(t *conform.T) conform.Finding {
	if t.S.Stateless() {
		return checkToolListChangedStateless(t)
	}
	if t.Transport == wire.HTTP {
		// Somewhere for a notification unrelated to a request to go; a server without GET
		// streams must use the call's own stream, and the GET's outcome is judged elsewhere.
		_, _ = openGet(t)
	}
	from := t.S.Mark()
	if _, err := changeTools(t); err != nil {
		return conform.CannotTest("%v", err)
	}
	_, err := awaitProbe(t, nil, from, func(r wire.Received) bool {
		return r.Msg.Kind == jsonrpc.Notification && r.Msg.Method == "notifications/tools/list_changed"
	})
	if err != nil {
		return conform.Violated("the tools list was changed twice (with %s) but no notifications/tools/list_changed arrived: %v", t.Options().ListTool, err)
	}
	return conform.Passed("")
}

// checkToolListChangedStateless listens for tool list changes, changes the list and expects the
// notification on the listen stream.
func checkToolListChangedStateless(t *conform.T) conform.Finding {
	l, _, f := acknowledged(t, t.S, t.S.NextID(), map[string]any{"toolsListChanged": true})
	if f != nil {
		return *f
	}
	if !l.hearsToolChanges() {
		return conform.CannotTest("the listen acknowledgment did not take toolsListChanged on: %s", show(l.ack))
	}
	from := t.S.Mark()
	if _, err := changeTools(t); err != nil {
		return conform.CannotTest("%v", err)
	}
	if err := l.awaitToolChanges(t, from, 1); err != nil {
		return conform.Violated("the tools list was changed twice (with %s) but listen %s heard of no change: %v", t.Options().ListTool, l.id.Text(), err)
	}
	return conform.Passed("")
}
