package probe

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestOfficialFixturesFirst: the official fixture tool heads the first page of the scenarios the
// SDKs' conformance clients look it up in (they list once, or call the first tool), the first
// page still longer than the second, and add_numbers answers the sum.
func TestOfficialFixturesFirst(t *testing.T) {
	for _, c := range []struct{ scenario, revision, want string }{
		{ScenarioTools, "2025-03-26", ToolAddNumbers},
		{ScenarioTools, "2025-11-25", ToolAddNumbers},
		{ScenarioSessionExpiry, "2025-06-18", ToolAddNumbers},
		{ScenarioSSERetry, "2025-11-25", ToolReconnection},
		{ScenarioTools, "2026-07-28", ToolAddNumbers},
	} {
		names := Script{Scenario: c.scenario, Revision: c.revision}.toolNames()
		if len(names) == 0 || names[0] != c.want {
			t.Errorf("%s at %s lists %v, want %s first", c.scenario, c.revision, names, c.want)
		}
		if sizes := PageSizes(c.scenario, c.revision); c.revision != "2026-07-28" && (len(sizes) != 3 || sizes[0] <= sizes[1] || sizes[2] != 1) {
			t.Errorf("%s at %s: pages %v, want a first page longer than the second, then one", c.scenario, c.revision, sizes)
		}
	}
	s := newServer(Script{Scenario: ScenarioTools, Revision: "2025-11-25"}, NewRecorder(nil))
	call := message{JSONRPC: "2.0", ID: json.RawMessage(`7`), Method: "tools/call", Params: json.RawMessage(`{"name":"add_numbers","arguments":{"a":5,"b":3}}`)}
	if resp := string(s.handle(context.Background(), call, func([]byte) {})); !strings.Contains(resp, "is 8.") {
		t.Errorf("add_numbers(5, 3) = %s, want the sum", resp)
	}
	if !slices.Contains(Script{Scenario: ScenarioSSERetry, Revision: "2025-11-25"}.ContextTools(), ToolReconnection) {
		t.Error("sse-retry's context does not name test_reconnection")
	}
}
