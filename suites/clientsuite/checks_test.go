package clientsuite

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// A client that speaks 2026-07-28 asks server/discover first and falls back to initialize when
// refused (the Go SDK, mcp-go and the Python SDK do): the discovery request is judged at the
// revision it declares, the rest at the negotiated one, and a message invalid at its own
// revision still fails.
func TestSchemaJudgesDiscoveryAtItsRevision(t *testing.T) {
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	initialize := `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initialized := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	view := func(bodies ...string) *View {
		var recs []record.Record
		for i, b := range bodies {
			recs = append(recs, record.Record{Seq: i + 1, Dir: record.Recv, Channel: record.ChanStdin, Body: b})
		}
		return NewView(probe.ScenarioTools, "2025-11-25", "stdio", "2025-11-25", recs, schema.New())
	}
	if f := judgeSchema(view(discover, initialize, initialized)); f.Outcome != Pass {
		t.Errorf("discovery, then the 2025-11-25 handshake: %v %s", f.Outcome, f.Message)
	}
	// After initialize, server/discover is judged at the negotiated revision, where it does not exist.
	if f := judgeSchema(view(initialize, initialized, discover)); f.Outcome == Pass || !strings.Contains(f.Message, "server/discover") {
		t.Errorf("discovery after the handshake: %v %s, want a violation", f.Outcome, f.Message)
	}
}
