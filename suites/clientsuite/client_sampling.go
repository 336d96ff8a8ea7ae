package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client checks of client/sampling.

func init() {
	Register(
		Check{ID: "SAMPLING-CLIENT-CAP", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a client that did not declare sampling answers sampling/createMessage with an error, not with a message",
			Side:    Client{Scenario: probe.ScenarioTools, Capability: "sampling", Judge: judgeCap(samplingReq)}},
		Check{ID: "SAMPLING-CLIENT-RESULT", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a client that declared sampling answers sampling/createMessage with a CreateMessageResult of the revision's schema",
			Side:    Client{Scenario: probe.ScenarioTools, Capability: "sampling", Judge: judgeResult(samplingReq, nil)}},
	)
}
