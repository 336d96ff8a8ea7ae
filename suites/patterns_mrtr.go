package suites

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/patterns/mrtr, the multi-round-trip pattern (2026-07-28): a server that needs the
// client's input answers tools/call with an InputRequiredResult (inputRequests and/or
// requestState), and the client retries with a new id, its answers (inputResponses) and the
// requestState echoed. The checks drive the target's input tool (--input-tool, inputtool.go).

func init() {
	conform.Register(
		conform.Check{ID: "MRTR-NO-SERVER-REQUESTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the server initiates no JSON-RPC request: anything it needs from the client comes back as an MRTR result instead",
			LevelReason: "Only the prohibition is observable from outside; whether a server that needs client input uses MRTR is judged by the MRTR-* checks.",
			Side:        conform.Server{Connection: conform.Fresh, Run: checkNoServerRequests}},
		conform.Check{ID: "MRTR-AT-LEAST-ONE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "an InputRequiredResult carries inputRequests (an object), requestState (a string), or both",
			Side:    conform.Server{Run: checkAtLeastOne}},
		conform.Check{ID: "MRTR-KEYS-UNIQUE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "no key appears twice in inputRequests, as written on the wire",
			Side:    conform.Server{Run: checkKeysUnique}},
		conform.Check{ID: "MRTR-VALUE-TYPES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every input request is an elicitation/create, sampling/createMessage or roots/list request valid against its schema",
			Side:    conform.Server{Run: checkValueTypes}},
		conform.Check{ID: "MRTR-CAP-GATED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the input tool asks only for kinds of input the request's client capabilities declare",
			LevelReason: "MUST NOT in the spec. Form-mode elicitation counts as declared by an empty elicitation object or one naming form; URL mode needs elicitation.url.",
			Side:        conform.Server{Run: checkCapGated}},
		conform.Check{ID: "MRTR-SUPPORTED-METHODS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "requests other than tools/call, prompts/get and resources/read never get an InputRequiredResult, even from a client declaring every input capability",
			LevelReason: "MUST NOT in the spec. The requests tried are server/discover and the list methods the server's capabilities promise.",
			Side:        conform.Server{Run: checkSupportedMethods}},
		conform.Check{ID: "MRTR-REQUESTSTATE-INTEGRITY", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a retry echoing a altered, truncated or forged requestState is refused (an error or a new InputRequiredResult), never completed",
			LevelReason: "The spec's MUST is conditional on requestState influencing the outcome, which a client cannot see; that an issued requestState does is mcpspec's assumption, so a breach warns (SHOULD), as mcpspec's own policies do. Without a requestState the check does not apply.",
			Side:        conform.Server{Run: checkRequestStateIntegrity}},
		conform.Check{ID: "MRTR-REPLAY-BINDING", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a requestState issued for one call is refused when replayed on a call of the tool with other arguments",
			Side:    conform.Server{Run: checkReplayBinding}},
		conform.Check{ID: "MRTR-MISSING-RESPONSES", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a retry without the requested inputResponses gets a new InputRequiredResult rather than an error",
			Side:    conform.Server{Run: checkMissingResponses}},
		conform.Check{ID: "MRTR-IGNORE-EXTRA", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "an unrequested key in inputResponses changes nothing: the retry ends as it does without it",
			Side:    conform.Server{Run: checkIgnoreExtra}},
		conform.Check{ID: "MRTR-VALIDATE-RESPONSES", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a retry whose input responses are not result objects (a string) gets a JSON-RPC error",
			Side:    conform.Server{Run: checkValidateResponses}},
	)
}

// inputRequestDefs maps the methods an input request may have to their schema definitions.
var inputRequestDefs = map[string]string{
	"elicitation/create":     "ElicitRequest",
	"sampling/createMessage": "CreateMessageRequest",
	"roots/list":             "ListRootsRequest",
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

func checkSupportedMethods(t *conform.T) conform.Finding {
	methods := []string{"server/discover"}
	for _, c := range []struct{ cap, method string }{{"tools", "tools/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"}, {"prompts", "prompts/list"}} {
		if t.S.HasCapability(c.cap) {
			methods = append(methods, c.method)
		}
	}
	meta := map[string]any{harness.MetaProtocolVersion: t.Revision, harness.MetaClientCapabilities: allInputCaps(), harness.MetaClientInfo: harness.ClientInfo}
	for _, method := range methods {
		resp, _, err := statelessRequest(t, method, map[string]any{"_meta": meta}, nil)
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
