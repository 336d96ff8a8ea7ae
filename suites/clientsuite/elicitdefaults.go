package clientsuite

import "github.com/mcpspec/mcpspec/harness/probe"

// The official suite's elicitation-sep1034-client-defaults scenario, served under its name: the
// probe's one tool sends elicitation/create with a default for each primitive type, judged by
// the elicitation checks (and the handshake and transport checks, as handshakeOnly says).
var elicitDefaults = []string{probe.ScenarioElicitDefaults}

// toolFor is the tool whose call makes the probe send q in the view's scenario.
func (v *View) toolFor(q srvRequest) string {
	if v.Scenario == probe.ScenarioElicitDefaults && q == elicitReq {
		return probe.ToolElicitDefaults
	}
	return q.tool
}
