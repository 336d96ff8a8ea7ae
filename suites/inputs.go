package suites

import (
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of what a server may ask of the client or offer it without a capability: completion
// when completions is not declared, and the elicitation and sampling requests its input tool
// makes (inputs_requests.go).

func init() {
	conform.Register(
		conform.Check{ID: "COMP-NOT-SUPPORTED", Level: "SHOULD",
			Revisions: conform.AllCatalogued,
			Summary:   "a server that does not declare completions answers completion/complete with -32601",
			Ready: func(t *conform.T) (conform.Finding, bool) {
				if t.S.HasCapability("completions") {
					return conform.NA("the server declares completions"), true
				}
				return conform.Finding{}, false
			},
			Run: checkCompletionNotSupported},
	)
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
