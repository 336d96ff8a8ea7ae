package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client check of the HTTP+SSE transport (2024-11-05).

func init() {
	Register(
		Check{ID: "SSE-CLIENT-POST", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.SSE},
			Summary: "after the endpoint event every message the client sends is a POST to the endpoint it names",
			Side:    Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgeSSEPost}},
	)
}

func judgeSSEPost(v *View) Finding {
	endpoint, at := "", -1
	for i, r := range v.Records {
		if r.Is(record.EvEndpoint) {
			endpoint, at = r.Event.URL, i
			break
		}
	}
	if at < 0 {
		return untestable("the client never opened the SSE stream, so the probe announced no endpoint")
	}
	n := 0
	for i, r := range v.Records {
		// Only what follows the endpoint event is bound: a client probing for Streamable HTTP
		// first may POST its initialize to the URL it was given.
		if i < at || r.Dir != record.Recv || len(parseMsgs([]byte(r.Body))) == 0 {
			continue
		}
		n++
		if r.Channel != record.ChanPOST || r.Path != endpoint {
			return violated("the client sent a message by %s to %s (record %d), not by POST to the announced endpoint %s", r.Channel, r.Path, r.Seq, endpoint)
		}
	}
	if n == 0 {
		return untestable("the client sent no message after the endpoint event")
	}
	return passed("all %d messages after the endpoint event were POSTed to %s", n, endpoint)
}
