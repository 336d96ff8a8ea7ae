package clientsuite

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// TestUnansweredRequest: a request of the probe's that the client left unanswered while the probe
// waited is a breach of JSON-RPC's reply rule, failed once: by the result check when the client
// declared the capability, by the capability check when it did not; the other checks that read
// the answer leave it to that one. One it could not answer because it left first is nothing to
// judge.
func TestUnansweredRequest(t *testing.T) {
	initReq := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe_roots","arguments":{}}}`
	ask := `{"jsonrpc":"2.0","id":"` + probe.RootsID + `","method":"roots/list"}`
	recv := func(b string) record.Record {
		return record.Record{Dir: record.Recv, Channel: record.ChanStdin, Body: b}
	}
	send := func(b string) record.Record {
		return record.Record{Dir: record.Send, Channel: record.ChanStdout, Body: b}
	}
	note := record.Record{Dir: record.Note, Body: "no answer to the probe's roots/list (id " + probe.RootsID + ") within 10s",
		Event: &record.Event{Kind: record.EvUnanswered, Method: "roots/list", RequestID: `"` + probe.RootsID + `"`}}
	undeclared := strings.Replace(initReq, `{"roots":{}}`, `{}`, 1)
	cases := []struct {
		name string
		recs []record.Record
		want map[string]Outcome
	}{
		{"waited out", []record.Record{recv(initReq), send("{}"), recv(call), send(ask), note},
			map[string]Outcome{"cap": Untestable, "result": Violation, "file-uri": Untestable}},
		{"waited out, undeclared", []record.Record{recv(undeclared), send("{}"), recv(call), send(ask), note},
			map[string]Outcome{"cap": Violation, "result": Untestable, "file-uri": Untestable}},
		{"left first", []record.Record{recv(initReq), send("{}"), recv(call), send(ask)},
			map[string]Outcome{"cap": Untestable, "result": Untestable, "file-uri": Untestable}},
	}
	val := schema.New()
	for _, tc := range cases {
		for i := range tc.recs {
			tc.recs[i].Seq = i + 1
		}
		v := NewView(probe.ScenarioTools, "2025-06-18", "stdio", "2025-06-18", tc.recs, val)
		v.InitAnswered = 1
		judges := map[string]func(*View) Finding{"cap": judgeCap(rootsReq), "result": judgeResult(rootsReq, nil), "file-uri": judgeResult(rootsReq, judgeFileURIs)}
		for name, judge := range judges {
			f, want := judge(v), tc.want[name]
			if f.Outcome != want || (want == Violation && !f.Severe) {
				t.Errorf("%s, %s: %v (severe %v) %s, want %v", tc.name, name, f.Outcome, f.Severe, f.Message, want)
			}
		}
	}
}
