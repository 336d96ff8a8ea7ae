package suites

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"sort"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: driving the target's input tool (--input-tool) through its input requests.

// inputRounds bounds how many rounds of input requests are followed: a tool may ask for one
// kind of input after another.
const inputRounds = 3

// inputRequest is one input request the input tool made.
type inputRequest struct {
	key, method string
	params      map[string]json.RawMessage
	raw         json.RawMessage
	round       int
	// tool is the tool whose call made the request (set where it is not the input tool), and
	// serverRequest says it came as a request of the server's own (handshake revisions).
	tool          string
	serverRequest bool
}

// gatherInputRequestsOf calls the tool name with args declaring form-mode elicitation,
// sampling (neither tools nor context) and roots, and follows up to inputRounds rounds,
// answering every request as a willing client would. It returns every input request made, or
// why there is none.
func gatherInputRequestsOf(t *conform.T, name string, args map[string]any) ([]inputRequest, *conform.Finding) {
	var out []inputRequest
	var extra map[string]any
	for round := 1; round <= inputRounds; round++ {
		resp, _, err := callToolStateless(t, name, allInputCaps(), args, extra)
		if err != nil && round == 1 {
			f := conform.CannotTest("the tool %q got no reply: %v", name, err)
			return nil, &f
		}
		ir, ok := asInputRequired(resp)
		if err != nil || !ok {
			break
		}
		for _, key := range sortedKeys(ir.requests) {
			var r struct {
				Method string                     `json:"method"`
				Params map[string]json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal(ir.requests[key], &r)
			out = append(out, inputRequest{key: key, method: r.Method, params: r.Params, raw: ir.requests[key], round: round, tool: name})
		}
		if len(ir.requests) == 0 {
			break
		}
		extra = map[string]any{"inputResponses": ir.answers()}
		if ir.hasState {
			extra["requestState"] = ir.state
		}
	}
	return out, nil
}

// where names an input request for a finding.
func (r inputRequest) where() string {
	if r.serverRequest {
		return fmt.Sprintf("the %s request sent during the call of %s: %s", r.method, r.tool, clip(string(r.raw), 300))
	}
	return fmt.Sprintf("input request %q (round %d): %s", r.key, r.round, clip(string(r.raw), 300))
}

// sortedKeys are m's keys in order, so that findings do not depend on map order.
func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// inputMethodCapability is the client capability each kind of input request needs.
var inputMethodCapability = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// allInputCaps declares every kind of input the harness can answer (form-mode elicitation).
func allInputCaps() map[string]any {
	return map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}}
}

// inputRequired is an InputRequiredResult as received.
type inputRequired struct {
	resp     jsonrpc.Message
	obj      map[string]json.RawMessage
	requests map[string]json.RawMessage // the input requests by key (nil when absent)
	state    string
	hasState bool
}

// asInputRequired reads resp as an InputRequiredResult; ok is false for anything else.
func asInputRequired(resp jsonrpc.Message) (inputRequired, bool) {
	obj, ok := resp.ResultObject()
	if !ok {
		return inputRequired{}, false
	}
	if rt, _ := jsonString(obj["resultType"]); rt != "input_required" {
		return inputRequired{}, false
	}
	ir := inputRequired{resp: resp, obj: obj}
	_ = json.Unmarshal(obj["inputRequests"], &ir.requests)
	ir.state, ir.hasState = jsonString(obj["requestState"])
	return ir, true
}

// methods lists the methods of the input requests, sorted.
func (ir inputRequired) methods() []string {
	var out []string
	for _, raw := range ir.requests {
		var r struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(raw, &r)
		out = append(out, r.Method)
	}
	sort.Strings(out)
	return out
}

// needInputTool says why a check cannot run without an input tool.
func needInputTool(t *conform.T) (conform.Finding, bool) {
	if t.Options().InputTool == "" {
		return conform.CannotTest("needs a tool that asks for elicitation input; name one with --input-tool NAME --input-tool-args JSON"), false
	}
	if !t.S.HasCapability("tools") {
		return conform.CannotTest("the server declares no tools capability, so --input-tool %q cannot be called", t.Options().InputTool), false
	}
	return conform.Finding{}, true
}

// inputArgs are the input tool's arguments as given (an object, checked by the command line).
func inputArgs(t *conform.T) map[string]any {
	args := map[string]any{}
	if raw := t.Options().InputToolArgs; len(raw) > 0 {
		_ = json.Unmarshal(raw, &args)
	}
	return args
}

// callInputTool calls the input tool with args on the session's connection, its request
// declaring caps, plus the members in extra (requestState, inputResponses). Each call has an
// id of its own, as retries must.
func callInputTool(t *conform.T, caps any, args map[string]any, extra map[string]any) (jsonrpc.Message, *wire.Delivery, error) {
	return callToolStateless(t, t.Options().InputTool, caps, args, extra)
}

// callToolStateless is callInputTool for the tool name.
func callToolStateless(t *conform.T, name string, caps any, args map[string]any, extra map[string]any) (jsonrpc.Message, *wire.Delivery, error) {
	params := map[string]any{
		"name":      name,
		"arguments": args,
		"_meta": map[string]any{
			harness.MetaProtocolVersion:    t.Revision,
			harness.MetaClientCapabilities: caps,
			harness.MetaClientInfo:         harness.ClientInfo,
		},
	}
	maps.Copy(params, extra)
	return statelessRequest(t, "tools/call", params, nil)
}

// askInput calls the input tool declaring every input capability and returns the
// InputRequiredResult it must answer with; a finding when it does not.
func askInput(t *conform.T) (inputRequired, *conform.Finding) {
	if f, ok := needInputTool(t); !ok {
		return inputRequired{}, &f
	}
	resp, _, err := callInputTool(t, allInputCaps(), inputArgs(t), nil)
	if err != nil {
		f := conform.Violated("the input tool %q got no reply: %v", t.Options().InputTool, err)
		return inputRequired{}, &f
	}
	ir, ok := asInputRequired(resp)
	if !ok {
		f := conform.CannotTest("the input tool %q, called declaring elicitation, sampling and roots, did not ask for input: %s", t.Options().InputTool, show(resp))
		return inputRequired{}, &f
	}
	return ir, nil
}

// stateOf is the requestState to echo, or nil when there is none.
func (ir inputRequired) stateOf() *string {
	if !ir.hasState {
		return nil
	}
	return &ir.state
}

// answers fulfils every input request as a willing client would.
func (ir inputRequired) answers() map[string]any {
	out := map[string]any{}
	for key, raw := range ir.requests {
		var r struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(raw, &r)
		switch r.Method {
		case "elicitation/create":
			out[key] = elicitAnswer(r.Params)
		case "sampling/createMessage":
			out[key] = samplingAnswer()
		case "roots/list":
			out[key] = map[string]any{"roots": []any{}}
		default:
			out[key] = map[string]any{}
		}
	}
	return out
}

// samplingAnswer is a CreateMessageResult valid at every revision: the model's text reply.
func samplingAnswer() map[string]any {
	return map[string]any{"role": "assistant", "model": "mcpspec", "stopReason": "endTurn",
		"content": map[string]any{"type": "text", "text": "mcpspec"}}
}

// elicitAnswer accepts an elicitation, filling each field of a form with a value its schema
// allows: the default, the first choice, the minimum, or a plain value of its type.
func elicitAnswer(params json.RawMessage) map[string]any {
	var p struct {
		Mode   string `json:"mode"`
		Schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(params, &p)
	if p.Mode == "url" {
		return map[string]any{"action": "accept"}
	}
	content := map[string]any{}
	for name, raw := range p.Schema.Properties {
		content[name] = fieldValue(raw)
	}
	return map[string]any{"action": "accept", "content": content}
}

func fieldValue(raw json.RawMessage) any {
	var f struct {
		Type    string                `json:"type"`
		Default any                   `json:"default"`
		Enum    []any                 `json:"enum"`
		OneOf   []struct{ Const any } `json:"oneOf"`
		Minimum *float64              `json:"minimum"`
		Items   struct {
			Enum  []any                 `json:"enum"`
			AnyOf []struct{ Const any } `json:"anyOf"`
		} `json:"items"`
	}
	_ = json.Unmarshal(raw, &f)
	switch {
	case f.Default != nil:
		return f.Default
	case len(f.Enum) > 0:
		return f.Enum[0]
	case len(f.OneOf) > 0:
		return f.OneOf[0].Const
	}
	switch f.Type {
	case "boolean":
		return true
	case "number", "integer":
		if f.Minimum != nil {
			return *f.Minimum
		}
		return 1
	case "array":
		switch {
		case len(f.Items.Enum) > 0:
			return []any{f.Items.Enum[0]}
		case len(f.Items.AnyOf) > 0:
			return []any{f.Items.AnyOf[0].Const}
		}
		return []any{}
	}
	return "mcpspec"
}

// callOutcome names how a call ended: complete, input_required, or the error code.
func callOutcome(resp jsonrpc.Message) string {
	if resp.HasError {
		code, _ := errorCode(resp)
		return fmt.Sprintf("error %d", code)
	}
	obj, _ := resp.ResultObject()
	rt, ok := jsonString(obj["resultType"])
	if !ok {
		return "a result without resultType"
	}
	return rt
}

// jsonKind is the first byte of a JSON value, which tells its type.
func jsonKind(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// undeclaredInput names an input request the capabilities caps do not allow, or "".
func undeclaredInput(caps map[string]any, ir inputRequired) string {
	for key, raw := range ir.requests {
		var r struct {
			Method string `json:"method"`
			Params struct {
				Mode       string          `json:"mode"`
				Tools      json.RawMessage `json:"tools"`
				ToolChoice json.RawMessage `json:"toolChoice"`
			} `json:"params"`
		}
		_ = json.Unmarshal(raw, &r)
		capName, known := inputMethodCapability[r.Method]
		if !known {
			continue // judged by MRTR-VALUE-TYPES
		}
		declared, ok := caps[capName].(map[string]any)
		switch {
		case !ok:
			return fmt.Sprintf("input request %q (%s) without the %s capability", key, r.Method, capName)
		case r.Method == "elicitation/create" && r.Params.Mode == "url" && declared["url"] == nil:
			return fmt.Sprintf("input request %q (URL-mode elicitation) without elicitation.url", key)
		case r.Method == "elicitation/create" && r.Params.Mode != "url" && len(declared) > 0 && declared["form"] == nil:
			return fmt.Sprintf("input request %q (form-mode elicitation) without elicitation.form", key)
		case r.Method == "sampling/createMessage" && (r.Params.Tools != nil || r.Params.ToolChoice != nil) && declared["tools"] == nil:
			return fmt.Sprintf("input request %q (sampling with tools) without sampling.tools", key)
		}
	}
	return ""
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
