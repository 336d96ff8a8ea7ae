package clientsuite

import (
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// The request-timeout verdicts from recordings: the held call cancelled, abandoned, waited for,
// or cancelled under another id. The reference client's faults show two of these; the rest are
// here.
func TestTimeoutCancelVerdicts(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"probe_slow","arguments":{}}}`
	next := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"probe_echo","arguments":{}}}`
	cancel := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"timeout"}}`
	}
	recv := func(b string) probe.Record { return probe.Record{Dir: probe.Recv, Channel: probe.ChanStdin, Body: b} }
	note := func(k probe.EventKind, id string) probe.Record {
		return probe.Record{Dir: probe.Note, Event: &probe.Event{Kind: k, RequestID: id}}
	}
	cases := []struct {
		name            string
		recs            []probe.Record
		life, stateless Outcome
	}{
		{"cancelled", []probe.Record{recv(call), note(probe.EvHeld, "4"), recv(cancel("4")), note(probe.EvCancelled, "4"), recv(next)}, Pass, Pass},
		{"cancelled after going on", []probe.Record{recv(call), note(probe.EvHeld, "4"), recv(next), recv(cancel("4"))}, Pass, Pass},
		{"another id's type", []probe.Record{recv(call), note(probe.EvHeld, "4"), recv(cancel(`"4"`)), recv(next)}, Violation, Violation},
		// Going on without a notification cancelled nothing: the Timeouts SHOULD's matter, not
		// STDIO26-CANCEL's MUST.
		{"abandoned", []probe.Record{recv(call), note(probe.EvHeld, "4"), recv(next)}, Violation, NotApplicable},
		{"waited", []probe.Record{recv(call), note(probe.EvHeld, "4"), note(probe.EvAnsweredLate, "4"), recv(next)}, Violation, NotApplicable},
		{"left", []probe.Record{recv(call), note(probe.EvHeld, "4")}, Violation, NotApplicable},
		{"never called", []probe.Record{recv(next)}, Untestable, Untestable},
	}
	val := schema.New()
	for _, tc := range cases {
		// Record 1 stands for the probe's answer to initialize.
		tc.recs = append([]probe.Record{{Dir: probe.Send, Channel: probe.ChanStdout, Body: "{}"}}, tc.recs...)
		for i := range tc.recs {
			tc.recs[i].Seq = i + 1
		}
		for _, c := range []struct {
			rev  string
			want Outcome
			fn   func(*View) Finding
		}{{"2025-11-25", tc.life, judgeTimeoutCancel}, {"2026-07-28", tc.stateless, judgeStdioCancel}} {
			v := NewView(probe.ScenarioRequestTimeout, c.rev, "stdio", c.rev, tc.recs, val)
			// A client judged by request-timeout has gone on past the handshake.
			v.InitAnswered = 0
			if f := c.fn(v); f.Outcome != c.want {
				t.Errorf("%s at %s: %v (%s), want %v", tc.name, c.rev, f.Outcome, f.Message, c.want)
			}
		}
	}
}
