package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: tool definitions and the read-only sample calls the checks make.

var (
	// failingToolName picks the tool a check expects to fail in execution.
	failingToolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)fail|error|throw`) })
	// toolNameFormat is compiled on first use: its {1,128} costs each process that links the
	// checks (every reference server a run launches) 0.7 ms at start.
	toolNameFormat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })
	mimeTypeFormat = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$`)
	})
)

// toolDef is one tool as listed.
type toolDef struct {
	name string
	raw  json.RawMessage
	obj  map[string]json.RawMessage
}

func (d toolDef) has(member string) bool { return d.obj[member] != nil }

// member is the tool's member name decoded (nil when absent).
func (d toolDef) member(name string) any {
	var v any
	_ = json.Unmarshal(d.obj[name], &v)
	return v
}

// listToolsOn walks every page of tools/list on s.
func listToolsOn(t *conform.T, s *harness.Session) ([]toolDef, listWalk, error) {
	w, err := walkList(t, s, "tools/list", "tools")
	return toolDefs(w, err)
}

// askedTools is the tools list asked once per revision and transport for every check that
// judges what it holds (askedList).
func askedTools(t *conform.T) ([]toolDef, listWalk, error) {
	return toolDefs(askedList(t, "tools/list", "tools"))
}

// toolDefs are the tools of a walk of tools/list.
func toolDefs(w listWalk, err error) ([]toolDef, listWalk, error) {
	if err != nil {
		return nil, w, err
	}
	defs := make([]toolDef, 0, len(w.items))
	for _, it := range w.items {
		d := toolDef{raw: it}
		if json.Unmarshal(it, &d.obj) != nil {
			return nil, w, fmt.Errorf("a tools/list entry is not an object: %s", clip(string(it), 240))
		}
		d.name, _ = jsonString(d.obj["name"])
		defs = append(defs, d)
	}
	return defs, w, nil
}

// listTools is every tool the server lists at the check's revision, across all pages, asked
// once for every check (askedTools; nil when the server declares no tools).
func listTools(t *conform.T) ([]toolDef, error) {
	if !t.S.HasCapability("tools") {
		return nil, nil
	}
	defs, _, err := askedTools(t)
	return defs, err
}

// listedTools is listTools as a finding when it fails.
func listedTools(t *conform.T) ([]toolDef, *conform.Finding) {
	if f, ok := needCapability(t, "tools"); !ok {
		return nil, &f
	}
	defs, _, err := askedTools(t)
	if err != nil {
		f := conform.CannotTest("the tools list could not be read: %v", err)
		return nil, &f
	}
	return defs, nil
}

// readOnlyTools names the listed tools annotated readOnlyHint: true. At 2024-11-05, whose tool
// definitions have no annotations, they are read from the newest revision the server serves.
func readOnlyTools(t *conform.T, defs []toolDef) map[string]bool {
	annotated := defs
	if t.Revision == harness.Rev20241105 {
		annotated = newestAnnotations(t)
	}
	opts := t.Options()
	skip := []string{opts.SlowTool, opts.ListTool, opts.InputTool, opts.LogTool}
	out := map[string]bool{}
	for _, d := range annotated {
		var ann struct {
			ReadOnly bool `json:"readOnlyHint"`
		}
		if json.Unmarshal(d.obj["annotations"], &ann) == nil && ann.ReadOnly && !slices.Contains(skip, d.name) {
			out[d.name] = true
		}
	}
	return out
}

// newestAnnotations lists the tools at the newest revision the server serves after 2024-11-05,
// or nil. At a revision the run tests it is that revision's tools list, asked once for its
// checks and this one alike (askedPagesAt): its exchanges are this check's evidence, and no
// server is started for it. Only a newer revision the run leaves out is asked on a connection
// of its own, once per run and transport.
func newestAnnotations(t *conform.T) []toolDef {
	for _, rev := range slices.Backward(harness.HandshakeRevisions) {
		if rev == harness.Rev20241105 {
			break
		}
		if !t.RunsAt(rev) {
			if defs, _ := t.Memo("tools listed at "+rev+" over "+t.Transport, func() any { return toolsOnOwn(t, rev) }).([]toolDef); defs != nil {
				return defs
			}
			continue
		}
		w, served := askedPagesAt(t, rev, "tools/list")
		if !served {
			continue
		}
		if defs, _, err := toolDefs(listWalkOf(rev, "tools/list", "tools", w.pages, w.err)); err == nil {
			return defs
		}
	}
	return nil
}

// toolsOnOwn lists the tools at rev on a connection of its own: nil where the server does not
// serve rev or the list cannot be read.
func toolsOnOwn(t *conform.T, rev string) []toolDef {
	s, err := t.Open(rev)
	if err != nil || s.Negotiated() != rev {
		return nil
	}
	defs, _, err := listToolsOn(t, s)
	if err != nil {
		return nil
	}
	return defs
}

// sampleArgs builds arguments that satisfy a simple inputSchema: each required property gets
// its default, const or first enum value, or a plain value of its type. ok is false when a
// required property's type is not simple enough to guess.
func sampleArgs(schema json.RawMessage) (map[string]any, bool) {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	args := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		if v, ok := p["default"]; ok {
			args[name] = v
			continue
		}
		if v, ok := p["const"]; ok {
			args[name] = v
			continue
		}
		if e, ok := p["enum"].([]any); ok && len(e) > 0 {
			args[name] = e[0]
			continue
		}
		switch p["type"] {
		case "string":
			args[name] = "mcpspec"
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		default:
			return nil, false
		}
	}
	return args, true
}

// toolCall is a call of a listed tool and its answer.
type toolCall struct {
	def  toolDef
	args map[string]any
	resp jsonrpc.Message
}

// result is the call's result object, when it is one that completed (not an input request).
func (c toolCall) result() (map[string]json.RawMessage, bool) {
	obj, ok := c.resp.ResultObject()
	if !ok {
		return nil, false
	}
	if rt, ok := jsonString(obj["resultType"]); ok && rt != "complete" {
		return nil, false
	}
	return obj, true
}

func (c toolCall) isError() bool {
	obj, _ := c.resp.ResultObject()
	return string(obj["isError"]) == "true"
}

// maxSampleCalls bounds how many tools a check calls.
const maxSampleCalls = 8

// sampleCalls calls, with guessed arguments, the read-only tools that want picks (up to
// maxSampleCalls); the reason says why nothing could be called. Each call is asked once per
// revision and transport for every check that judges its result (askedRequest): the same tool
// with the same arguments, read-only, answers alike whichever check calls it.
func sampleCalls(t *conform.T, want func(toolDef) bool) ([]toolCall, string, *conform.Finding) {
	defs, f := listedTools(t)
	if f != nil {
		return nil, "", f
	}
	safe := readOnlyTools(t, defs)
	var calls []toolCall
	for _, d := range defs {
		if len(calls) == maxSampleCalls {
			break
		}
		if !safe[d.name] || !want(d) {
			continue
		}
		args, ok := sampleArgs(d.obj["inputSchema"])
		if !ok {
			continue
		}
		resp, err := askedRequest(t, "tools/call", map[string]any{"name": d.name, "arguments": args})
		if err != nil {
			f := conform.Violated("tools/call %s got no answer: %v", d.name, err)
			return nil, "", &f
		}
		calls = append(calls, toolCall{def: d, args: args, resp: resp})
	}
	if len(calls) == 0 {
		return nil, fmt.Sprintf("the server lists no such tool annotated readOnlyHint: true whose arguments mcpspec can build (%d tools listed)", len(defs)), nil
	}
	return calls, "", nil
}

func anyTool(toolDef) bool { return true }

func callNames(calls []toolCall) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.def.name
	}
	return strings.Join(names, ", ")
}

// safeTool is a tool mcpspec may call on any server: the slow tool when given, else a listed
// read-only tool whose arguments mcpspec can build (one the tool checks call anyway), so that
// a check needing some tool call needs no flag where the server lists such a tool.
func safeTool(t *conform.T) (taskTarget, *conform.Finding) {
	if o := t.Options(); o.SlowTool != "" {
		return taskTarget{o.SlowTool, o.SlowToolArgs, ""}, nil
	}
	defs, f := listedTools(t)
	if f != nil {
		return taskTarget{}, f
	}
	safe := readOnlyTools(t, defs)
	for _, d := range defs {
		if !safe[d.name] {
			continue
		}
		if args, ok := sampleArgs(d.obj["inputSchema"]); ok {
			raw, err := json.Marshal(args)
			if err != nil {
				continue
			}
			return taskTarget{name: d.name, args: raw}, nil
		}
	}
	f2 := conform.CannotTest("needs a tool that is safe to call: the server lists no tool annotated readOnlyHint: true whose arguments mcpspec can build (%d tools listed); name one with --slow-tool NAME --slow-tool-args JSON", len(defs))
	return taskTarget{}, &f2
}
