package clientsuite

import (
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// TestUnansweredRequest: a request of the probe's that the client left unanswered while the probe
// waited is a breach of JSON-RPC's reply rule, failing the capability checks whatever their level;
// one it could not answer because it left first is nothing to judge.
func TestUnansweredRequest(t *testing.T) {
	initReq := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe_roots","arguments":{}}}`
	ask := `{"jsonrpc":"2.0","id":"` + probe.RootsID + `","method":"roots/list"}`
	recv := func(b string) probe.Record { return probe.Record{Dir: probe.Recv, Channel: probe.ChanStdin, Body: b} }
	send := func(b string) probe.Record { return probe.Record{Dir: probe.Send, Channel: probe.ChanStdout, Body: b} }
	note := probe.Record{Dir: probe.Note, Body: "no answer to the probe's roots/list (id " + probe.RootsID + ") within 10s",
		Event: &probe.Event{Kind: probe.EvUnanswered, Method: "roots/list", RequestID: `"` + probe.RootsID + `"`}}
	cases := []struct {
		name string
		recs []probe.Record
		want Outcome
	}{
		{"waited out", []probe.Record{recv(initReq), send("{}"), recv(call), send(ask), note}, Violation},
		{"left first", []probe.Record{recv(initReq), send("{}"), recv(call), send(ask)}, Untestable},
	}
	val := schema.New()
	for _, tc := range cases {
		for i := range tc.recs {
			tc.recs[i].Seq = i + 1
		}
		v := NewView(probe.ScenarioTools, "2025-06-18", "stdio", "2025-06-18", tc.recs, val)
		v.InitAnswered = 1
		for name, judge := range map[string]func(*View) Finding{"cap": judgeCap(rootsReq), "result": judgeResult(rootsReq, nil)} {
			f := judge(v)
			if f.Outcome != tc.want || (tc.want == Violation && !f.Severe) {
				t.Errorf("%s, %s: %v (severe %v) %s, want %v", tc.name, name, f.Outcome, f.Severe, f.Message, tc.want)
			}
		}
	}
}
