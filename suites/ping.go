package suites

import "github.com/mcpspec/mcpspec/suites/conform"

func init() {
	conform.Register(conform.Check{
		ID: "PING-RESPOND", Revisions: conform.AllCatalogued, Level: "MUST",
		Summary: "ping is answered promptly with an empty result, with or without params",
		Run:     checkPingRespond,
	})
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
