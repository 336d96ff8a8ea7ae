package suites

import (
	"encoding/json"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of server/utilities/completion: completion/complete, its capability and its limits.

func init() {
	conform.Register(
		conform.Check{ID: "COMP-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a server that answers completion/complete with a result declares the completions capability, and one that declares it does not answer -32601",
			Side:    conform.Server{Run: checkCompletionCap}},
		conform.Check{ID: "COMP-MAX-100", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "a completion result holds at most 100 string values, with an integer total and a boolean hasMore where present",
			LevelReason: "The schema's description says the values must not exceed 100 items; the types are the schema's.",
			Side:        conform.Server{Run: checkCompletionMax}},
		conform.Check{ID: "COMP-INVALID-REF", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "completion/complete for a prompt that does not exist, or without an argument, gets -32602",
			Side:    conform.Server{Run: checkCompletionInvalidRef}},
		conform.Check{ID: "COMP-CONTEXT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "completion/complete accepts context.arguments (already resolved arguments)",
			LevelReason: "context is part of the request's schema from 2025-06-18 on; refusing a request the schema allows fails.",
			Side:        conform.Server{Run: checkCompletionContext}},
		conform.Check{ID: "COMP-NOT-SUPPORTED", Level: "SHOULD",
			Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a server that does not declare completions answers completion/complete with -32601",
			Side: conform.Server{Ready: func(t *conform.T) (conform.Finding, bool) {
				if t.S.HasCapability("completions") {
					return conform.NA("the server declares completions"), true
				}
				return conform.Finding{}, false
			}, Run: checkCompletionNotSupported}},
	)
}

// completionTarget is something the server can complete: a prompt argument or a template
// variable.
type completionTarget struct {
	ref      map[string]any
	argument string
	others   []string // the reference's other arguments, for context
}

// findCompletionTarget looks for a prompt with an argument, then a resource template with a
// variable.
func findCompletionTarget(t *conform.T) (completionTarget, bool) {
	if t.S.HasCapability("prompts") {
		if items, err := listItems(t, pagedList{"prompts", "prompts/list", "prompts"}); err == nil {
			for _, raw := range items {
				var p struct {
					Name      string `json:"name"`
					Arguments []struct {
						Name string `json:"name"`
					} `json:"arguments"`
				}
				if json.Unmarshal(raw, &p) == nil && p.Name != "" && len(p.Arguments) > 0 && p.Arguments[0].Name != "" {
					target := completionTarget{ref: map[string]any{"type": "ref/prompt", "name": p.Name}, argument: p.Arguments[0].Name}
					for _, a := range p.Arguments[1:] {
						target.others = append(target.others, a.Name)
					}
					return target, true
				}
			}
		}
	}
	if t.S.HasCapability("resources") {
		if items, err := listItems(t, pagedList{"resources", "resources/templates/list", "resourceTemplates"}); err == nil {
			for _, raw := range items {
				var r struct {
					URITemplate string `json:"uriTemplate"`
				}
				if json.Unmarshal(raw, &r) != nil {
					continue
				}
				if vars := templateVariables(r.URITemplate); len(vars) > 0 {
					return completionTarget{ref: map[string]any{"type": "ref/resource", "uri": r.URITemplate}, argument: vars[len(vars)-1], others: vars[:len(vars)-1]}, true
				}
			}
		}
	}
	return completionTarget{}, false
}

// templateVariables are the variable names of an RFC 6570 URI template.
func templateVariables(template string) []string {
	var out []string
	for _, expr := range templateVar().FindAllString(template, -1) {
		expr = strings.TrimLeft(strings.Trim(expr, "{}"), "+#./;?&")
		for _, v := range strings.Split(expr, ",") {
			v = strings.TrimRight(v, "*")
			if i := strings.IndexByte(v, ':'); i >= 0 {
				v = v[:i]
			}
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// complete sends completion/complete for target's argument with value, and context when given.
func complete(t *conform.T, target completionTarget, value string, context map[string]any) (jsonrpc.Message, error) {
	params := map[string]any{"ref": target.ref, "argument": map[string]any{"name": target.argument, "value": value}}
	if context != nil {
		params["context"] = context
	}
	return t.S.Request(t.Ctx, "completion/complete", params)
}

// completionPrerequisites returns the target to complete, or why the check cannot run.
func completionPrerequisites(t *conform.T) (completionTarget, *conform.Finding) {
	if t.Revision != harness.Rev20241105 && !t.S.HasCapability("completions") {
		f := conform.NA("the server does not declare completions")
		return completionTarget{}, &f
	}
	target, ok := findCompletionTarget(t)
	if !ok {
		f := conform.CannotTest("the server lists no prompt with an argument and no resource template with a variable, so there is nothing to complete")
		return target, &f
	}
	return target, nil
}

func checkCompletionCap(t *conform.T) conform.Finding {
	declared := t.S.HasCapability("completions")
	target, ok := findCompletionTarget(t)
	if !ok {
		target = completionTarget{ref: map[string]any{"type": "ref/prompt", "name": unknownPromptName}, argument: "name"}
	}
	resp, err := complete(t, target, "", nil)
	if err != nil {
		return conform.Crashed("completion/complete got no reply: %v", err)
	}
	// Any answer but "no such method" keeps the declaration (an unknown prompt gets -32602).
	if declared && methodNotFound(resp) {
		return conform.Violated("completions is declared, but completion/complete is answered as an unknown method: %s", show(resp))
	}
	if declared {
		return conform.Passed("the server declares completions and serves completion/complete")
	}
	if resp.HasResult {
		return conform.Violated("completion/complete was answered with a result, but completions is not declared: %s", show(resp))
	}
	return conform.Passed("completion/complete is not served and completions is not declared")
}

func checkCompletionMax(t *conform.T) conform.Finding {
	target, f := completionPrerequisites(t)
	if f != nil {
		return *f
	}
	resp, err := complete(t, target, "", nil)
	if err != nil {
		return conform.Crashed("completion/complete got no reply: %v", err)
	}
	obj, ok := resp.ResultObject()
	if !ok {
		if t.Revision == harness.Rev20241105 {
			return conform.NA("completion/complete is not served: %s", show(resp))
		}
		return conform.CannotTest("completion/complete for %v was not answered with a result: %s", target.ref, show(resp))
	}
	var c struct {
		Values  []json.RawMessage `json:"values"`
		Total   json.RawMessage   `json:"total"`
		HasMore json.RawMessage   `json:"hasMore"`
	}
	if json.Unmarshal(obj["completion"], &c) != nil || c.Values == nil {
		return conform.Violated("the result has no completion.values array: %s", show(resp))
	}
	if len(c.Values) > 100 {
		return conform.Violated("the completion holds %d values, more than 100", len(c.Values))
	}
	for _, v := range c.Values {
		if _, ok := jsonString(v); !ok {
			return conform.Violated("a completion value is not a string: %s", clip(string(v), 100))
		}
	}
	if c.Total != nil && !jsonrpc.ID(c.Total).IsNumber() {
		return conform.Violated("completion.total is not an integer: %s", string(c.Total))
	}
	if c.HasMore != nil && string(c.HasMore) != "true" && string(c.HasMore) != "false" {
		return conform.Violated("completion.hasMore is not a boolean: %s", string(c.HasMore))
	}
	return conform.Passed("%d value(s) for an empty value", len(c.Values))
}

func checkCompletionInvalidRef(t *conform.T) conform.Finding {
	if !t.S.HasCapability("completions") {
		return conform.NA("the server does not declare completions")
	}
	unknown := completionTarget{ref: map[string]any{"type": "ref/prompt", "name": unknownPromptName}, argument: "name"}
	resp, err := complete(t, unknown, "", nil)
	if err != nil {
		return conform.Crashed("completion/complete for an unknown prompt got no reply: %v", err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("completion/complete for the unknown prompt %q: %s", unknownPromptName, why)
	}
	resp, err = t.S.Request(t.Ctx, "completion/complete", map[string]any{"ref": unknown.ref})
	if err != nil {
		return conform.Crashed("completion/complete without an argument got no reply: %v", err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("completion/complete without an argument: %s", why)
	}
	return conform.Passed("")
}

func checkCompletionContext(t *conform.T) conform.Finding {
	target, f := completionPrerequisites(t)
	if f != nil {
		return *f
	}
	plain, err := complete(t, target, "", nil)
	if err != nil || !plain.HasResult {
		return conform.CannotTest("completion/complete for %v without context was not answered with a result: %v %s", target.ref, err, show(plain))
	}
	resolved := map[string]any{}
	for _, name := range target.others {
		resolved[name] = "mcpspec"
	}
	resp, err := complete(t, target, "", map[string]any{"arguments": resolved})
	if err != nil {
		return conform.Crashed("completion/complete with context got no reply: %v", err)
	}
	if !resp.HasResult {
		return conform.Violated("completion/complete with context.arguments %v was refused, though it was served without: %s", resolved, show(resp))
	}
	return conform.Passed("")
}

func checkCompletionNotSupported(t *conform.T) conform.Finding {
	// A real argument where the server lists one, so that only the missing capability can
	// explain a refusal; otherwise any well-formed reference.
	target, ok := findCompletionTarget(t)
	if !ok {
		target = completionTarget{ref: map[string]any{"type": "ref/prompt", "name": unknownPromptName}, argument: "name"}
	}
	resp, err := complete(t, target, "", nil)
	if err != nil {
		return conform.Violated("completion/complete got no reply: %v", err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("completions is not declared, yet completion/complete was not refused with -32601: %s", why)
	}
	return conform.Passed("")
}
