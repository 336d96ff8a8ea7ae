package suites

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the multi-round-trip pattern (2026-07-28): a server that needs the client's input
// answers tools/call with an InputRequiredResult (inputRequests and/or requestState), and the
// client retries with a new id, its answers (inputResponses) and the requestState echoed. Most
// checks drive the target's input tool (--input-tool), called with the arguments given.

const codeMissingCapability = -32021

// inputRequestDefs maps the methods an input request may have to their schema definitions.
var inputRequestDefs = map[string]string{
	"elicitation/create":     "ElicitRequest",
	"sampling/createMessage": "CreateMessageRequest",
	"roots/list":             "ListRootsRequest",
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

func init() {
	conform.Register(
		conform.Check{ID: "MRTR-AT-LEAST-ONE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "an InputRequiredResult carries inputRequests (an object), requestState (a string), or both",
			Run:     checkAtLeastOne},
		conform.Check{ID: "MRTR-KEYS-UNIQUE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "no key appears twice in inputRequests, as written on the wire",
			Run:     checkKeysUnique},
		conform.Check{ID: "MRTR-VALUE-TYPES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every input request is an elicitation/create, sampling/createMessage or roots/list request valid against its schema",
			Run:     checkValueTypes},
		conform.Check{ID: "MRTR-CAP-GATED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the input tool asks only for kinds of input the request's client capabilities declare",
			LevelReason: "MUST NOT in the spec. Form-mode elicitation counts as declared by an empty elicitation object or one naming form; URL mode needs elicitation.url.",
			Run:         checkCapGated},
		conform.Check{ID: "MRTR-SUPPORTED-METHODS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "requests other than tools/call, prompts/get and resources/read never get an InputRequiredResult, even from a client declaring every input capability",
			LevelReason: "MUST NOT in the spec. The requests tried are server/discover and the list methods the server's capabilities promise.",
			Run:         checkSupportedMethods},
		conform.Check{ID: "MRTR-REQUESTSTATE-INTEGRITY", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a retry echoing a altered, truncated or forged requestState is refused (an error or a new InputRequiredResult), never completed",
			LevelReason: "The spec makes integrity protection conditional on requestState influencing the outcome; mcpspec assumes a requestState that is issued does, as the catalogue does. Without a requestState the check does not apply.",
			Run:         checkRequestStateIntegrity},
		conform.Check{ID: "MRTR-REPLAY-BINDING", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a requestState issued for one call is refused when replayed on a call of the tool with other arguments",
			Run:     checkReplayBinding},
		conform.Check{ID: "MRTR-MISSING-RESPONSES", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a retry without the requested inputResponses gets a new InputRequiredResult rather than an error",
			Run:     checkMissingResponses},
		conform.Check{ID: "MRTR-IGNORE-EXTRA", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "an unrequested key in inputResponses changes nothing: the retry ends as it does without it",
			Run:     checkIgnoreExtra},
		conform.Check{ID: "MRTR-VALIDATE-RESPONSES", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a retry whose input responses are not result objects (a string) gets a JSON-RPC error",
			Run:     checkValidateResponses},
		conform.Check{ID: "META26-MISSING-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the input tool called without the capabilities it needs gets -32021 naming them in data.requiredCapabilities (HTTP 400)",
			Run:     checkMissingCap},
		conform.Check{ID: "STATELESS-NO-PRIOR-CONTEXT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "capabilities declared by an earlier request on the connection are not carried over: a later request declaring none gets no input requests",
			LevelReason: "MUST NOT in the spec; client capabilities are the context probed.",
			Run:         checkNoPriorContext},
		conform.Check{ID: "CACHE-NONE-ON-INPUT-REQUIRED", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "an InputRequiredResult carries no caching hints (ttlMs, cacheScope)",
			LevelReason: "Descriptive in the spec (such results are not cacheable and carry no hints), with no keyword: mcpspec warns, as for a SHOULD NOT.",
			Run:         checkNoCacheOnInputRequired},
	)
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
	params := map[string]any{
		"name":      t.Options().InputTool,
		"arguments": args,
		"_meta": map[string]any{
			harness.MetaProtocolVersion:    t.Revision,
			harness.MetaClientCapabilities: caps,
			harness.MetaClientInfo:         harness.ClientInfo,
		},
	}
	maps.Copy(params, extra)
	return modernRequest(t, "tools/call", params, nil)
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

// retryInput calls the input tool again with args, echoing state (when given) and sending
// responses (when not nil).
func retryInput(t *conform.T, args map[string]any, state *string, responses any) (jsonrpc.Message, error) {
	extra := map[string]any{}
	if state != nil {
		extra["requestState"] = *state
	}
	if responses != nil {
		extra["inputResponses"] = responses
	}
	resp, _, err := callInputTool(t, allInputCaps(), args, extra)
	if err != nil {
		return resp, fmt.Errorf("the retry of the input tool %q got no reply: %w", t.Options().InputTool, err)
	}
	return resp, nil
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
			out[key] = map[string]any{"role": "assistant", "model": "mcpspec", "content": map[string]any{"type": "text", "text": "mcpspec"}}
		case "roots/list":
			out[key] = map[string]any{"roots": []any{}}
		default:
			out[key] = map[string]any{}
		}
	}
	return out
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

func checkAtLeastOne(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	_, hasRequests := ir.obj["inputRequests"]
	if !hasRequests && !ir.hasState {
		if _, present := ir.obj["requestState"]; !present {
			return conform.Violated("the InputRequiredResult has neither inputRequests nor requestState: %s", show(ir.resp))
		}
	}
	if hasRequests && jsonKind(ir.obj["inputRequests"]) != '{' {
		return conform.Violated("inputRequests is not an object: %s", show(ir.resp))
	}
	if _, present := ir.obj["requestState"]; present && !ir.hasState {
		return conform.Violated("requestState is not a string: %s", show(ir.resp))
	}
	return conform.Passed("")
}

// jsonKind is the first byte of a JSON value, which tells its type.
func jsonKind(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// duplicateKeys returns the keys that occur more than once in the JSON object raw, reading it
// token by token (encoding/json would keep only the last value of each).
func duplicateKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	var dups []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if seen[key] && !slices.Contains(dups, key) {
			dups = append(dups, key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return dups, nil
}

func checkKeysUnique(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	raw, ok := ir.obj["inputRequests"]
	if !ok {
		return conform.CannotTest("the InputRequiredResult has no inputRequests: %s", show(ir.resp))
	}
	dups, err := duplicateKeys(raw)
	if err != nil {
		return conform.Violated("inputRequests cannot be read as an object (%v): %s", err, clip(string(raw), 240))
	}
	if len(dups) > 0 {
		return conform.Violated("inputRequests repeats the key(s) %q: %s", dups, clip(string(raw), 240))
	}
	return conform.Passed("")
}

func checkValueTypes(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	if len(ir.requests) == 0 {
		return conform.CannotTest("the InputRequiredResult has no input requests: %s", show(ir.resp))
	}
	for key, raw := range ir.requests {
		var r struct {
			Method json.RawMessage `json:"method"`
		}
		_ = json.Unmarshal(raw, &r)
		method, _ := jsonString(r.Method)
		def, known := inputRequestDefs[method]
		if !known {
			return conform.Violated("input request %q has method %s, not one of elicitation/create, sampling/createMessage, roots/list: %s", key, string(r.Method), clip(string(raw), 240))
		}
		if err := t.S.Env().Validator.Definition(t.Revision, def, raw); err != nil {
			return conform.Violated("input request %q is not a valid %s: %v", key, def, err)
		}
	}
	return conform.Passed("")
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

func checkCapGated(t *conform.T) conform.Finding {
	if f, ok := needInputTool(t); !ok {
		return f
	}
	for _, caps := range []map[string]any{
		{},
		{"elicitation": map[string]any{"form": map[string]any{}}},
		{"sampling": map[string]any{}},
		{"roots": map[string]any{}},
	} {
		resp, _, err := callInputTool(t, caps, inputArgs(t), nil)
		if err != nil {
			return conform.Violated("the input tool, called declaring %s, got no reply: %v", asJSON(caps), err)
		}
		if ir, ok := asInputRequired(resp); ok {
			if why := undeclaredInput(caps, ir); why != "" {
				return conform.Violated("called declaring %s, the input tool sent %s: %s", asJSON(caps), why, show(resp))
			}
		}
	}
	return conform.Passed("")
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func checkSupportedMethods(t *conform.T) conform.Finding {
	methods := []string{"server/discover"}
	for _, c := range []struct{ cap, method string }{{"tools", "tools/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"}, {"prompts", "prompts/list"}} {
		if t.S.HasCapability(c.cap) {
			methods = append(methods, c.method)
		}
	}
	meta := map[string]any{harness.MetaProtocolVersion: t.Revision, harness.MetaClientCapabilities: allInputCaps(), harness.MetaClientInfo: harness.ClientInfo}
	for _, method := range methods {
		resp, _, err := modernRequest(t, method, map[string]any{"_meta": meta}, nil)
		if err != nil {
			return conform.Violated("%s got no reply: %v", method, err)
		}
		if _, ok := asInputRequired(resp); ok {
			return conform.Violated("%s was answered with an InputRequiredResult: %s", method, show(resp))
		}
	}
	return conform.Passed("asked %s", strings.Join(methods, ", "))
}

// tamperings are requestStates a server must not honour, made from a genuine one.
func tamperings(state string) map[string]string {
	flipped := []byte(state)
	i := len(flipped) / 2
	if len(flipped) > 0 {
		if flipped[i] == 'A' {
			flipped[i] = 'B'
		} else {
			flipped[i] = 'A'
		}
	}
	return map[string]string{
		"altered":   string(flipped),
		"truncated": state[:len(state)*3/4],
		"forged":    "mcpspec-forged-request-state",
	}
}

// genuineRetryWorks retries with the genuine state and answers: a refusal there would make any
// other refusal of the check meaningless.
func genuineRetryWorks(t *conform.T, ir inputRequired) (conform.Finding, bool) {
	resp, err := retryInput(t, inputArgs(t), ir.stateOf(), ir.answers())
	if err != nil {
		return conform.Violated("%v", err), false
	}
	if resp.HasError {
		return conform.CannotTest("even the retry with the genuine requestState and mcpspec's answers was refused, so the refusals prove nothing: %s", show(resp)), false
	}
	return conform.Finding{}, true
}

func checkRequestStateIntegrity(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	if !ir.hasState {
		return conform.NA("the InputRequiredResult carries no requestState")
	}
	kinds := tamperings(ir.state)
	for _, kind := range []string{"altered", "truncated", "forged"} {
		state := kinds[kind]
		resp, err := retryInput(t, inputArgs(t), &state, ir.answers())
		if err != nil {
			return conform.Violated("%v", err)
		}
		if callOutcome(resp) == "complete" {
			return conform.Violated("a retry with an %s requestState (%q) completed: %s", kind, clip(state, 80), show(resp))
		}
	}
	if f, ok := genuineRetryWorks(t, ir); !ok {
		return f
	}
	return conform.Passed("")
}

func checkReplayBinding(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	if !ir.hasState {
		return conform.NA("the InputRequiredResult carries no requestState")
	}
	other := inputArgs(t)
	other["mcpspecReplayProbe"] = "other arguments"
	fresh, _, err := callInputTool(t, allInputCaps(), other, nil)
	if err != nil {
		return conform.Violated("the input tool with other arguments got no reply: %v", err)
	}
	if _, ok := asInputRequired(fresh); !ok {
		return conform.CannotTest("the input tool with an extra argument (mcpspecReplayProbe) does not ask for input, so no replay can be tried: %s", show(fresh))
	}
	resp, err := retryInput(t, other, ir.stateOf(), ir.answers())
	if err != nil {
		return conform.Violated("%v", err)
	}
	if callOutcome(resp) == "complete" {
		return conform.Violated("the requestState issued for arguments %s completed a call with arguments %s: %s", asJSON(inputArgs(t)), asJSON(other), show(resp))
	}
	if f, ok := genuineRetryWorks(t, ir); !ok {
		return f
	}
	return conform.Passed("")
}

func checkMissingResponses(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	if len(ir.requests) == 0 {
		return conform.CannotTest("the InputRequiredResult requests nothing that could be missing: %s", show(ir.resp))
	}
	resp, err := retryInput(t, inputArgs(t), ir.stateOf(), nil)
	if err != nil {
		return conform.Violated("%v", err)
	}
	if resp.HasError {
		return conform.Violated("a retry without inputResponses got an error instead of a new InputRequiredResult: %s", show(resp))
	}
	if _, ok := asInputRequired(resp); !ok {
		return conform.Passed("the retry without inputResponses completed: the input was not needed after all")
	}
	return conform.Passed("")
}

func checkIgnoreExtra(t *conform.T) conform.Finding {
	plain, f := askInput(t)
	if f != nil {
		return *f
	}
	want, err := retryInput(t, inputArgs(t), plain.stateOf(), plain.answers())
	if err != nil {
		return conform.Violated("%v", err)
	}
	if want.HasError {
		return conform.CannotTest("the retry with mcpspec's answers was refused, so there is no outcome to compare: %s", show(want))
	}
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	answers := ir.answers()
	answers["mcpspec-unrequested"] = map[string]any{"action": "accept", "content": map[string]any{}}
	got, err := retryInput(t, inputArgs(t), ir.stateOf(), answers)
	if err != nil {
		return conform.Violated("%v", err)
	}
	if callOutcome(got) != callOutcome(want) {
		return conform.Violated("with an unrequested inputResponses key the retry ended %s instead of %s: %s", callOutcome(got), callOutcome(want), show(got))
	}
	return conform.Passed("")
}

func checkValidateResponses(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	if len(ir.requests) == 0 {
		return conform.CannotTest("the InputRequiredResult requests nothing to answer wrongly: %s", show(ir.resp))
	}
	bad := map[string]any{}
	for key := range ir.requests {
		bad[key] = "mcpspec: not a result object"
	}
	resp, err := retryInput(t, inputArgs(t), ir.stateOf(), bad)
	if err != nil {
		return conform.Violated("%v", err)
	}
	if !resp.HasError {
		return conform.Violated("a retry answering with strings instead of result objects was not refused with a JSON-RPC error: %s", show(resp))
	}
	if f, ok := genuineRetryWorks(t, ir); !ok {
		return f
	}
	return conform.Passed("")
}

func checkMissingCap(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	var needed []string
	for _, m := range ir.methods() {
		if c, ok := inputMethodCapability[m]; ok && !slices.Contains(needed, c) {
			needed = append(needed, c)
		}
	}
	if len(needed) == 0 {
		return conform.CannotTest("the input tool asks for no input that needs a capability: %s", show(ir.resp))
	}
	resp, d, err := callInputTool(t, map[string]any{}, inputArgs(t), nil)
	if err != nil {
		return conform.Violated("the input tool, called declaring no capabilities, got no reply: %v", err)
	}
	if callOutcome(resp) == "complete" {
		return conform.CannotTest("the input tool completes without any client capability, so it needs none: %s", show(resp))
	}
	if ok, why := expectError(resp, codeMissingCapability); !ok {
		return conform.Violated("the input tool, needing %v, called declaring none: %s", needed, why)
	}
	e, _ := resp.ErrorObject()
	var data struct {
		Required map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	if json.Unmarshal(e.Data, &data) != nil || data.Required == nil {
		return conform.Violated("the -32021 error has no data.requiredCapabilities object: %s", show(resp))
	}
	if len(data.Required) == 0 {
		return conform.Violated("data.requiredCapabilities names no capability: %s", show(resp))
	}
	// The list must be complete: declaring exactly what it names lets the call proceed. (What
	// the tool asks for given everything may include optional input, so it is not the measure.)
	again, _, err := callInputTool(t, data.Required, inputArgs(t), nil)
	if err != nil {
		return conform.Violated("the input tool, called declaring the requiredCapabilities %s, got no reply: %v", asJSON(data.Required), err)
	}
	if ok, _ := expectError(again, codeMissingCapability); ok {
		return conform.Violated("data.requiredCapabilities does not list every missing capability: declaring exactly %s still gets -32021: %s", asJSON(data.Required), show(again))
	}
	if d != nil && d.CarriesReplies && d.Status != http.StatusBadRequest {
		return conform.Violated("the -32021 error came with HTTP %d, want 400", d.Status)
	}
	return conform.Passed("")
}

func checkNoPriorContext(t *conform.T) conform.Finding {
	if _, f := askInput(t); f != nil {
		return *f
	}
	resp, _, err := callInputTool(t, map[string]any{}, inputArgs(t), nil)
	if err != nil {
		return conform.Violated("the input tool, called declaring no capabilities, got no reply: %v", err)
	}
	if ir, ok := asInputRequired(resp); ok {
		if why := undeclaredInput(map[string]any{}, ir); why != "" {
			return conform.Violated("after a request declaring elicitation, sampling and roots, a request on the same connection declaring none got %s: %s", why, show(resp))
		}
	}
	return conform.Passed("")
}

func checkNoCacheOnInputRequired(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	for _, hint := range []string{"ttlMs", "cacheScope"} {
		if _, ok := ir.obj[hint]; ok {
			return conform.Violated("the InputRequiredResult carries %s: %s", hint, show(ir.resp))
		}
	}
	return conform.Passed("")
}
