package main

import (
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// TestClientElicitDefaultsScenario: served by the name of the official suite's client scenario,
// elicitation-sep1034-client-defaults is judged at 2025-11-25 by the elicitation checks and the
// handshake and transport checks; the clean reference client passes them all, and one that
// accepts the form without its defaults warns on ELICIT-CLIENT-DEFAULTS and nothing else.
func TestClientElicitDefaultsScenario(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			for _, fault := range []string{"", "ELICIT-CLIENT-DEFAULTS"} {
				d := newRunDir(t)
				r, run := runClientScenarios(t, d, transport, "elicitation-sep1034-client-defaults", fault)
				seen := map[string]bool{}
				for _, res := range run.Results {
					seen[res.ID] = true
					if res.Version != "2025-11-25" {
						t.Errorf("%s %s: the scenario exists at 2025-11-25 only", res.ID, res.Version)
					}
					want := reports.Pass
					if res.ID == fault {
						want = reports.Warn
					}
					if res.Status != want {
						t.Errorf("fault %q: %s: %s, want %s: %s", fault, res.ID, res.Status, want, res.Message)
					}
				}
				for _, id := range []string{"ELICIT-CLIENT-DEFAULTS", "ELICIT-CLIENT-RESULT", "ELICIT-CLIENT-CAP", "LIFE-INITIALIZED-NOTIF", "MSG-JSONRPC"} {
					if !seen[id] {
						t.Errorf("fault %q: %s has no result", fault, id)
					}
				}
				if r.code != reports.ExitOK {
					t.Errorf("fault %q: exit %d, want 0 (a SHOULD warns)\nstderr:\n%s", fault, r.code, r.stderr)
				}
				assertNoLeftovers(t, d)
			}
		})
	}
}
