package clientsuite

import (
	"encoding/json"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"sort"
	"strings"
)

// The client checks of client/elicitation.

func init() {
	Register(
		Check{ID: "ELICIT-CLIENT-CAP", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a client that did not declare elicitation answers elicitation/create with an error, not with a form",
			Side:    Client{Scenario: probe.ScenarioTools, Also: elicitDefaults, Capability: "elicitation", Judge: judgeCap(elicitReq)}},
		Check{ID: "ELICIT-CLIENT-RESULT", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a client that declared elicitation answers elicitation/create with an ElicitResult of the revision's schema",
			Side:    Client{Scenario: probe.ScenarioTools, Also: elicitDefaults, Capability: "elicitation", Judge: judgeResult(elicitReq, nil)}},
		Check{ID: "ELICIT-CLIENT-DEFAULTS", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "an accepted form carries the requested schema's defaults for the fields the user left alone",
			Side:    Client{Scenario: probe.ScenarioTools, Also: elicitDefaults, Capability: "elicitation", Judge: judgeResult(elicitReq, judgeDefaults)}},
	)
}

func judgeDefaults(v *View, result json.RawMessage) Finding {
	var res struct {
		Action  string                     `json:"action"`
		Content map[string]json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(result, &res)
	if res.Action != "accept" {
		return untestable("the client did not accept the form (action %q): no content to carry defaults", res.Action)
	}
	defs := probe.ElicitationDefaultsFor(v.Scenario, v.Revision)
	var missing []string
	for k := range defs {
		if _, ok := res.Content[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		return violated("the accepted form lacks the defaulted fields %s (defaults %s)", strings.Join(missing, ", "), mustString(defs))
	}
	return passed("the accepted form carries a value for each of the %d defaulted fields", len(defs))
}
