package suites

import (
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of client/sampling: the sampling requests a server makes during the calls of its
// tools that sample (the input tool, and tools named for sampling), gathered like the
// elicitations (elicitations.go) on a client declaring sampling without tools or context: at
// the handshake revisions as requests of its own, at 2026-07-28 as input requests.

func init() {
	conform.Register(
		conform.Check{ID: "SAMPLING-TOOLS-CAP", Level: "MUST", Revisions: conform.Since(harness.Rev20251125), Transports: streamTransport,
			Summary:     "to a client declaring sampling without sampling.tools, no sampling request enables tool use (tools offered, or a toolChoice other than none)",
			LevelReason: "MUST NOT in the spec, for tool-enabled requests: an empty tools list or toolChoice mode none enables no tool and passes." + samplingsFrom,
			Side:        conform.Server{HandshakeObserved: true, Run: checkSamplingToolsCap}},
		conform.Check{ID: "SAMPLING-INCLUDECONTEXT", Level: "SHOULD", Revisions: conform.Since(harness.Rev20251125), Transports: streamTransport,
			Summary:     `to a client declaring sampling without sampling.context, a sampling request's includeContext is absent or "none"`,
			LevelReason: "SHOULD in the schema's description of the capability." + samplingsFrom,
			Side:        conform.Server{HandshakeObserved: true, Run: checkSamplingIncludeContext}},
	)
}

// samplingsFrom says where the sampling checks find what they judge.
const samplingsFrom = " The requests are those of the tools that sample (--input-tool, and tools named *sampl*), called declaring sampling without tools or context: at 2025-11-25 the server's sampling/createMessage during a call on a session of the check's own, which the harness answers with a text reply, at 2026-07-28 the calls' input requests. No such tool is na; tools that request no sampling are untestable."

func isSampling(r inputRequest) bool { return r.method == "sampling/createMessage" }

func checkSamplingToolsCap(t *conform.T) conform.Finding {
	samplings, f := gatherSamplings(t)
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
	samplings, f := gatherSamplings(t)
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
