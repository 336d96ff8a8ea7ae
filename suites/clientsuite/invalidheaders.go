package clientsuite

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// Invalid x-mcp-header declarations (2026-07-28, server/tools § x-mcp-header): a client using
// Streamable HTTP MUST reject a tool definition whose x-mcp-header marks break a constraint,
// which means excluding it from the result of tools/list; it then never calls it. Judged on
// the official suite's http-invalid-tool-headers scenario, which the probe serves by its name:
// valid_tool, then tools each breaking one constraint. Over stdio a client MAY ignore the
// marks, so the check is Streamable HTTP's.

func judgeInvalidToolHeaders(v *View) Finding {
	breaks := map[string]string{}
	for _, t := range probe.InvalidHeaderTools {
		breaks[t.Name] = t.Breaks
	}
	validCalled := -1
	var called []string
	for _, m := range v.Msgs {
		if !m.IsRequest() || m.Method != "tools/call" {
			continue
		}
		var p struct {
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(m.Raw, &p)
		seq := v.Records[m.Rec].Seq
		if why, bad := breaks[p.Params.Name]; bad {
			called = append(called, fmt.Sprintf("%s (record %d: %s)", p.Params.Name, seq, why))
			delete(breaks, p.Params.Name)
		}
		if p.Params.Name == probe.ToolValidHeader && validCalled < 0 {
			validCalled = seq
		}
	}
	if len(called) > 0 {
		return violated("the client called %d tools it must have excluded from tools/list for their invalid x-mcp-header marks: %s", len(called), strings.Join(called, "; "))
	}
	if validCalled < 0 {
		return untestable("the client never called %s, the one valid tool (the contract: call every tool it holds), so its not calling the invalid ones shows nothing", probe.ToolValidHeader)
	}
	return passed("the client called %s (record %d) and none of the %d tools whose x-mcp-header marks are invalid", probe.ToolValidHeader, validCalled, len(probe.InvalidHeaderTools))
}
