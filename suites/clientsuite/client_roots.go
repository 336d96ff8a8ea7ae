package clientsuite

import (
	"encoding/json"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"strings"
)

// The client checks of client/roots.

func init() {
	Register(
		Check{ID: "ROOTS-CLIENT-CAP", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a client that did not declare roots answers roots/list with an error, not with roots",
			Side:    Client{Scenario: probe.ScenarioTools, Capability: "roots", Judge: judgeCap(rootsReq)}},
		Check{ID: "ROOTS-CLIENT-RESULT", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a client that declared roots answers roots/list with a ListRootsResult of the revision's schema",
			Side:    Client{Scenario: probe.ScenarioTools, Capability: "roots", Judge: judgeResult(rootsReq, nil)}},
		Check{ID: "ROOTS-CLIENT-FILE-URI", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "every root the client lists has a file:// URI",
			Side:    Client{Scenario: probe.ScenarioTools, Capability: "roots", Judge: judgeResult(rootsReq, judgeFileURIs)}},
	)
}

func judgeFileURIs(_ *View, result json.RawMessage) Finding {
	var res struct {
		Roots []map[string]json.RawMessage `json:"roots"`
	}
	_ = json.Unmarshal(result, &res)
	n := 0
	for _, r := range res.Roots {
		var uri string
		if json.Unmarshal(r["uri"], &uri) != nil {
			continue // not a string: ROOTS-CLIENT-RESULT's matter
		}
		n++
		if !strings.HasPrefix(uri, "file://") {
			return violated("the client lists a root with the URI %q, not a file:// URI", uri)
		}
	}
	if n == 0 {
		return untestable("the client listed no root with a URI")
	}
	return passed("all %d roots have file:// URIs", n)
}
