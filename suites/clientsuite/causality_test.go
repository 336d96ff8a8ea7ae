package clientsuite

import (
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// A pipelining client's POST that arrived before the InitializeResult was on its way cannot
// carry the session id that result's response assigned: it is not judged by it, however late
// the probe recorded it. One that arrived after the answer is judged.
func TestSessionJudgedByCausality(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	post := func(seq, arrived int, body string, header map[string]string) record.Record {
		return record.Record{Seq: seq, Dir: record.Recv, Channel: record.ChanPOST, Path: probe.Path, Body: body, Header: header, Arrived: arrived}
	}
	withSession := map[string]string{"Mcp-Session-Id": "s1", "Mcp-Protocol-Version": "2025-06-18"}
	recs := []record.Record{
		post(1, 1, initialize, nil),
		{Seq: 2, Dir: record.Note, Event: &record.Event{Kind: record.EvSessionAssigned, Session: "s1"}},
		{Seq: 3, Dir: record.Send, Channel: record.ChanPOST, Body: `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`},
		// Arrived while initialize was being answered (next Seq was 2): sent before the answer.
		post(4, 2, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil),
		post(5, 5, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, withSession),
	}
	v := NewView(probe.ScenarioTools, "2025-06-18", "http", "2025-06-18", recs, nil)
	if f := judgeSession(v); f.Outcome != Pass {
		t.Errorf("judgeSession: %v %s, want pass", f.Outcome, f.Message)
	}
	// The same request arriving after the answer (next Seq 4) is judged, and lacks the id.
	recs[3].Arrived = 4
	v = NewView(probe.ScenarioTools, "2025-06-18", "http", "2025-06-18", recs, nil)
	if f := judgeSession(v); f.Outcome != Violation {
		t.Errorf("judgeSession after the answer: %v %s, want a violation", f.Outcome, f.Message)
	}
}
