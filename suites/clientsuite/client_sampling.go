package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client checks of client/sampling.

func init() {
	Register(
		Check{ID: "SAMPLING-CLIENT-CAP", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST", Scenario: probe.ScenarioTools, Capability: "sampling",
			Summary: "a client that did not declare sampling answers sampling/createMessage with an error, not with a message",
			Judge:   judgeCap(samplingReq)},
		Check{ID: "SAMPLING-CLIENT-RESULT", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST", Scenario: probe.ScenarioTools, Capability: "sampling",
			Summary: "a client that declared sampling answers sampling/createMessage with a CreateMessageResult of the revision's schema",
			Judge:   judgeResult(samplingReq, nil)},
	)
}
