package suites

import (
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: the Run function of the rules that forbid server-initiated requests, shared
// by STDIO26-NO-REQUESTS (transports_stdio.go) and MRTR-NO-SERVER-REQUESTS (patterns_mrtr.go).

// checkNoServerRequests provokes the ordinary exchanges (discover, a list, an error and, given
// a slow tool, a tool call with a progress token) and fails on any request the server sent.
func checkNoServerRequests(t *conform.T) conform.Finding {
	from := t.S.Mark()
	for _, m := range []string{"server/discover", listMethod(t.S), unknownMethod} {
		if _, err := t.S.Request(t.Ctx, m, nil); err != nil {
			return conform.Violated("%s: %v", m, err)
		}
	}
	note := "no --slow-tool: only discover, list and error exchanges were observed"
	if _, ok := needSlowTool(t); ok {
		if _, err := runSlow(t, t.S.NextID()); err != nil {
			return conform.CannotTest("%v", err)
		}
		note = ""
	}
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		return conform.Crashed("%v", err)
	}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Request {
				return conform.Violated("the server sent a request of its own: %s", show(m))
			}
		}
	}
	return conform.Passed("%s", note)
}
