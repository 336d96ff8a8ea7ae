package suites

import (
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/utilities/ping (removed in 2026-07-28).

func init() {
	conform.Register(
		// A server of its own: a connection whose history decides how it answers ping (rmcp
		// answers a fresh stdio connection's ping with a result, one that has seen other
		// requests with -32601) would otherwise judge differently beside other checks.
		conform.Check{ID: "PING-REMOVED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "ping no longer exists: a stateless (2026-07-28) ping is answered with -32601",
			LevelReason: "The changelog removes ping without a keyword; a method that does not exist must be answered with -32601 (JSON-RPC).",
			Side:        conform.Server{Connection: conform.Fresh, Run: checkPingRemoved}},
		conform.Check{
			ID: "PING-RESPOND", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "ping is answered promptly with an empty result, with or without params",
			Side:    conform.Server{Run: checkPingRespond},
		},
	)
}

func checkPingRemoved(t *conform.T) conform.Finding {
	resp, _, err := statelessRequest(t, "ping", nil, nil)
	if err != nil {
		return conform.Violated("a stateless (2026-07-28) ping got no JSON-RPC reply: %v", err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("ping at %s: %s", t.Revision, why)
	}
	return conform.Passed("")
}

func checkPingRespond(t *conform.T) conform.Finding {
	for _, params := range []any{nil, map[string]any{}} {
		resp, err := t.S.Request(t.Ctx, "ping", params)
		if err != nil {
			return conform.Violated("ping (params %v): %v", params, err)
		}
		if !isEmptyResult(resp) {
			return conform.Violated("ping was not answered with an empty result: %s", show(resp))
		}
	}
	return conform.Passed("")
}
