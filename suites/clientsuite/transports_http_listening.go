package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client check of basic/transports (Streamable HTTP, listening for messages from the server).

func init() {
	Register(
		Check{ID: "HTTP-GET-ACCEPT", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "every GET lists text/event-stream in Accept",
			Side:    Client{Scenario: probe.ScenarioTools, Also: everyExchange, Rides: true, Judge: judgeGetAccept}},
	)
}

func judgeGetAccept(v *View) Finding {
	gets := v.requests(record.ChanGET)
	if len(gets) == 0 {
		return na("the client opened no GET stream (a client may not)")
	}
	for _, i := range gets {
		r := v.Records[i]
		if a, _ := r.HasHeader("Accept"); !accepts(a, "text/event-stream") {
			return violated("GET (record %d) has Accept: %q, which does not list text/event-stream", r.Seq, a)
		}
	}
	return passed("all %d GETs accept text/event-stream", len(gets))
}
