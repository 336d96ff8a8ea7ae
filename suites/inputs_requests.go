package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the elicitation and sampling requests a server makes. At 2026-07-28 they arrive as
// the inputRequests of the input tool's InputRequiredResult (--input-tool), which the harness
// answers as a willing client would, round after round. At the handshake revisions these rows
// bind server-initiated requests, which mcpspec provokes nowhere: it declares no client
// capability there and answers no server request, so those revisions are not checked.

// inputRounds bounds how many rounds of input requests are followed: a tool may ask for one
// kind of input after another.
const inputRounds = 3

// inputsAtModern says why the checks of this file run at 2026-07-28 only.
const inputsAtModern = " Checked at 2026-07-28 only, on the input tool's input requests: at the handshake revisions the rule binds server-initiated requests, which mcpspec does not provoke."

func init() {
	ready := func(t *conform.T) (conform.Finding, bool) {
		f, ok := needInputTool(t)
		return f, !ok
	}
	conform.Register(
		conform.Check{ID: "ELICIT-SCHEMA-FLAT", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "a form-mode elicitation asks with a flat object schema: each property a string, number, integer, boolean or enum (an array only as a multi-select enum)",
			LevelReason: "A restriction stated without a keyword, which the schema enforces (requestedSchema's properties are primitive schema definitions): a nested or non-primitive property fails." + inputsAtModern,
			Ready:       ready, Run: checkElicitSchemaFlat},
		conform.Check{ID: "ELICIT-NO-SENSITIVE", Level: "SHOULD", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "a form-mode elicitation asks for no field whose name, title or format says password, secret, API key, access token or payment card",
			LevelReason: "MUST NOT in the spec, but a field's name can only suggest that it asks for something sensitive, never prove it: mcpspec warns. URL-mode elicitations, the spec's way to handle secrets, are not judged." + inputsAtModern,
			Ready:       ready, Run: checkElicitNoSensitive},
		conform.Check{ID: "SAMPLING-TOOLS-CAP", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "to a client declaring sampling without sampling.tools, no sampling request enables tool use (tools offered, or a toolChoice other than none)",
			LevelReason: "MUST NOT in the spec, for tool-enabled requests: an empty tools list or toolChoice mode none enables no tool and passes." + inputsAtModern,
			Ready:       ready, Run: checkSamplingToolsCap},
		conform.Check{ID: "SAMPLING-INCLUDECONTEXT", Level: "SHOULD", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     `to a client declaring sampling without sampling.context, a sampling request's includeContext is absent or "none"`,
			LevelReason: "SHOULD in the schema's description of the capability." + inputsAtModern,
			Ready:       ready, Run: checkSamplingIncludeContext},
	)
}

// inputRequest is one input request the input tool made.
type inputRequest struct {
	key, method string
	params      map[string]json.RawMessage
	raw         json.RawMessage
	round       int
}

// gatherInputRequests calls the input tool declaring form-mode elicitation, sampling (neither
// tools nor context) and roots, and follows up to inputRounds rounds, answering every request
// as a willing client would. It returns every input request made, or why there is none.
func gatherInputRequests(t *conform.T) ([]inputRequest, *conform.Finding) {
	var out []inputRequest
	var extra map[string]any
	for round := 1; round <= inputRounds; round++ {
		resp, _, err := callInputTool(t, allInputCaps(), inputArgs(t), extra)
		if err != nil && round == 1 {
			f := conform.CannotTest("the input tool %q got no reply: %v", t.Options().InputTool, err)
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
			out = append(out, inputRequest{key: key, method: r.Method, params: r.Params, raw: ir.requests[key], round: round})
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

// requestsOf gathers the input requests that kind selects, or says why there are none.
func requestsOf(t *conform.T, what string, kind func(inputRequest) bool) ([]inputRequest, *conform.Finding) {
	all, f := gatherInputRequests(t)
	if f != nil {
		return nil, f
	}
	var out []inputRequest
	for _, r := range all {
		if kind(r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		f := conform.CannotTest("the input tool %q, called declaring form-mode elicitation, sampling and roots (and answered for up to %d rounds), asked for no %s", t.Options().InputTool, inputRounds, what)
		return nil, &f
	}
	return out, nil
}

func isFormElicitation(r inputRequest) bool {
	if r.method != "elicitation/create" {
		return false
	}
	mode, _ := jsonString(r.params["mode"])
	return mode == "" || mode == "form"
}

func isSampling(r inputRequest) bool { return r.method == "sampling/createMessage" }

// where names an input request for a finding.
func (r inputRequest) where() string {
	return fmt.Sprintf("input request %q (round %d): %s", r.key, r.round, clip(string(r.raw), 300))
}

// formProperties are a form's requestedSchema and its properties; why is non-empty when the
// schema is not an object schema with an object of properties.
func formProperties(r inputRequest) (props map[string]json.RawMessage, why string) {
	var schema struct {
		Type       json.RawMessage `json:"type"`
		Properties json.RawMessage `json:"properties"`
	}
	raw := r.params["requestedSchema"]
	if jsonKind(raw) != '{' || json.Unmarshal(raw, &schema) != nil {
		return nil, "requestedSchema is not an object"
	}
	if typ, _ := jsonString(schema.Type); typ != "object" {
		return nil, `requestedSchema's type is not "object"`
	}
	if jsonKind(schema.Properties) != '{' || json.Unmarshal(schema.Properties, &props) != nil {
		return nil, "requestedSchema's properties is not an object"
	}
	return props, ""
}

// primitiveTypes are the types a form's property may have.
var primitiveTypes = []string{"string", "number", "integer", "boolean"}

// flatnessFault says why a form property is not primitive, or "".
func flatnessFault(raw json.RawMessage) string {
	var p struct {
		Type       json.RawMessage `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Items      json.RawMessage `json:"items"`
	}
	if jsonKind(raw) != '{' || json.Unmarshal(raw, &p) != nil {
		return "is not a schema object"
	}
	typ, _ := jsonString(p.Type)
	switch {
	case p.Properties != nil || typ == "object":
		return "is a nested object"
	case typ == "array":
		// Only a multi-select enum: items are an enum of strings, not objects or arrays.
		var items struct {
			Type       json.RawMessage `json:"type"`
			Properties json.RawMessage `json:"properties"`
		}
		if jsonKind(p.Items) != '{' || json.Unmarshal(p.Items, &items) != nil {
			return "is an array without an items schema"
		}
		if it, _ := jsonString(items.Type); it == "object" || it == "array" || items.Properties != nil {
			return "is an array of " + it + "s"
		}
		return ""
	case !slices.Contains(primitiveTypes, typ):
		return fmt.Sprintf("has type %s, not a primitive type", clip(string(p.Type), 40))
	}
	return ""
}

func checkElicitSchemaFlat(t *conform.T) conform.Finding {
	forms, f := requestsOf(t, "form-mode elicitation", isFormElicitation)
	if f != nil {
		return *f
	}
	for _, r := range forms {
		props, why := formProperties(r)
		if why != "" {
			return conform.Violated("%s, in %s", why, r.where())
		}
		for _, name := range sortedKeys(props) {
			if why := flatnessFault(props[name]); why != "" {
				return conform.Violated("property %q %s, in %s", name, why, r.where())
			}
		}
	}
	return conform.Passed("")
}

// sensitiveWord matches, in a name with its case folded and everything but letters and digits
// dropped, words that name credentials or payment data.
var sensitiveWord = regexp.MustCompile(`password|passwd|passphrase|secret|apikey|accesstoken|authtoken|bearertoken|refreshtoken|privatekey|creditcard|cardnumber|cvv|cvc|^token$|^pin$|^iban$`)

// sensitive says whether a form property's name, title or format names sensitive data.
func sensitive(name string, raw json.RawMessage) (string, bool) {
	var p struct {
		Title  string `json:"title"`
		Format string `json:"format"`
	}
	_ = json.Unmarshal(raw, &p)
	for _, s := range []string{name, p.Title, p.Format} {
		folded := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				return r
			case r >= 'A' && r <= 'Z':
				return r + 'a' - 'A'
			}
			return -1
		}, s)
		if w := sensitiveWord.FindString(folded); w != "" {
			return s, true
		}
	}
	return "", false
}

func checkElicitNoSensitive(t *conform.T) conform.Finding {
	forms, f := requestsOf(t, "form-mode elicitation", isFormElicitation)
	if f != nil {
		return *f
	}
	for _, r := range forms {
		props, _ := formProperties(r) // a malformed schema is ELICIT-SCHEMA-FLAT's matter
		for _, name := range sortedKeys(props) {
			if said, ok := sensitive(name, props[name]); ok {
				return conform.Violated("form-mode elicitation field %q (%q) looks like it asks for sensitive information, in %s", name, said, r.where())
			}
		}
	}
	return conform.Passed("")
}

func checkSamplingToolsCap(t *conform.T) conform.Finding {
	samplings, f := requestsOf(t, "sampling", isSampling)
	if f != nil {
		return *f
	}
	for _, r := range samplings {
		if why := toolEnabled(r.params); why != "" {
			return conform.Violated("the client declared sampling without tools, yet the sampling request %s, in %s", why, r.where())
		}
	}
	return conform.Passed("")
}

// toolEnabled says how a sampling request's params enable tool use, or "": tools offered (a
// non-empty list) or a toolChoice other than mode "none". An empty list or a choice of no tools
// enables nothing.
func toolEnabled(params map[string]json.RawMessage) string {
	var tools []json.RawMessage
	if raw, ok := params["tools"]; ok && (json.Unmarshal(raw, &tools) != nil || len(tools) > 0) {
		return "offers tools " + clip(string(raw), 80)
	}
	var choice struct {
		Mode string `json:"mode"`
	}
	if raw, ok := params["toolChoice"]; ok && (json.Unmarshal(raw, &choice) != nil || choice.Mode != "none") {
		return "has toolChoice " + clip(string(raw), 80)
	}
	return ""
}

func checkSamplingIncludeContext(t *conform.T) conform.Finding {
	samplings, f := requestsOf(t, "sampling", isSampling)
	if f != nil {
		return *f
	}
	for _, r := range samplings {
		raw, ok := r.params["includeContext"]
		if v, _ := jsonString(raw); ok && v != "none" {
			return conform.Violated("the client declared sampling without context, yet includeContext is %s, in %s", clip(string(raw), 40), r.where())
		}
	}
	return conform.Passed("")
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
