package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"strings"
)

// The client check of basic/patterns/progress.

func init() {
	Register(
		Check{ID: "PROG-TOKEN-UNIQUE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: allTransports,
			Summary: "no two of the client's requests in flight at once carry the same progress token",
			Side:    Client{Scenario: probe.ScenarioTools, Also: toolScenarios, Rides: true, Judge: judgeTokenUnique}},
	)
}

func judgeTokenUnique(v *View) Finding {
	var with []string
	for _, m := range v.clientRequests() {
		if t := progressToken(m.Raw); t != "" {
			with = append(with, t)
		}
	}
	if len(with) == 0 {
		return na("the client sent no progress token (asking for progress is its choice)")
	}
	skipped, f := v.walk(func(m Msg, inFlight []Msg) *Finding {
		t := progressToken(m.Raw)
		if t == "" {
			return nil
		}
		for _, o := range inFlight {
			if progressToken(o.Raw) == t {
				f := violated("the client's %s (record %d) carries progress token %s, that of its %s (record %d), still in flight", m.Method, v.Records[m.Rec].Seq, t, o.Method, v.Records[o.Rec].Seq)
				return &f
			}
		}
		return nil
	}, nil)
	if f != nil {
		return *f
	}
	return passed("the client's %d progress tokens (%s) were never shared by requests in flight at once%s", len(with), strings.Join(clipList(with, 3), ", "), skippedNote(skipped))
}
