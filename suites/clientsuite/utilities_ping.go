package clientsuite

import (
	"bytes"
	"encoding/json"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client check of basic/utilities/ping.

func init() {
	Register(
		Check{ID: "PING-RESPOND", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "the client answers the server's ping promptly with an empty result",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgePing}},
	)
}

func judgePing(v *View) Finding {
	if len(v.After()) == 0 {
		return v.notProceeded()
	}
	if !v.sentPing() {
		return untestable("the client never called %s, so the probe never pinged it (the contract: call every listed tool)", probe.ToolPing)
	}
	want, _ := json.Marshal(probe.PingID)
	for _, m := range v.Msgs {
		if !m.IsResponse() || !bytes.Equal(m.ID, want) {
			continue
		}
		if m.Error != nil {
			return violated("the client answered the ping with an error: %s", m.Error)
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(m.Result, &res); err != nil {
			return violated("the ping's answer has no result object: %s", m.Raw)
		}
		for k := range res {
			if k != "_meta" {
				return violated("the ping's result is not empty: it has %q", k)
			}
		}
		return passed("the ping got an empty result")
	}
	return violated("the client never answered the probe's ping (id %s)", want)
}
