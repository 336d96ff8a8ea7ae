package clientsuite

import (
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
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
	recv := func(b string) record.Record {
		return record.Record{Dir: record.Recv, Channel: record.ChanStdin, Body: b}
	}
	note := func(k record.EventKind, id string) record.Record {
		return record.Record{Dir: record.Note, Event: &record.Event{Kind: k, RequestID: id}}
	}
	cases := []struct {
		name            string
		recs            []record.Record
		life, stateless Outcome
	}{
		{"cancelled", []record.Record{recv(call), note(record.EvHeld, "4"), recv(cancel("4")), note(record.EvCancelled, "4"), recv(next)}, Pass, Pass},
		{"cancelled after going on", []record.Record{recv(call), note(record.EvHeld, "4"), recv(next), recv(cancel("4"))}, Pass, Pass},
		{"another id's type", []record.Record{recv(call), note(record.EvHeld, "4"), recv(cancel(`"4"`)), recv(next)}, Violation, Violation},
		// Going on without a notification cancelled nothing: the Timeouts SHOULD's matter, not
		// STDIO26-CANCEL's MUST.
		{"abandoned", []record.Record{recv(call), note(record.EvHeld, "4"), recv(next)}, Violation, NotApplicable},
		{"waited", []record.Record{recv(call), note(record.EvHeld, "4"), note(record.EvAnsweredLate, "4"), recv(next)}, Violation, NotApplicable},
		{"left", []record.Record{recv(call), note(record.EvHeld, "4")}, Violation, NotApplicable},
		{"never called", []record.Record{recv(next)}, Untestable, Untestable},
	}
	val := schema.New()
	for _, tc := range cases {
		// Record 1 stands for the probe's answer to initialize.
		tc.recs = append([]record.Record{{Dir: record.Send, Channel: record.ChanStdout, Body: "{}"}}, tc.recs...)
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

// At 2026-07-28 over stdio a notification naming the request wrongly is STDIO26-CANCEL's MUST
// alone: the Timeouts SHOULD is na for it.
func TestTimeoutCancelStdioWrongID(t *testing.T) {
	recs := []record.Record{
		{Dir: record.Send, Channel: record.ChanStdout, Body: "{}"},
		{Dir: record.Recv, Channel: record.ChanStdin, Body: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"probe_slow","arguments":{}}}`},
		{Dir: record.Note, Event: &record.Event{Kind: record.EvHeld, RequestID: "4"}},
		{Dir: record.Recv, Channel: record.ChanStdin, Body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"4"}}`},
	}
	for i := range recs {
		recs[i].Seq = i + 1
	}
	v := NewView(probe.ScenarioRequestTimeout, "2026-07-28", "stdio", "2026-07-28", recs, schema.New())
	v.InitAnswered = 0
	if f := judgeTimeoutCancel(v); f.Outcome != NotApplicable {
		t.Errorf("%v (%s), want na", f.Outcome, f.Message)
	}
}

// At 2026-07-28 over Streamable HTTP the cancellation is closing the held request's POST
// stream: the probe notes the close, and a notifications/cancelled does not stand for it.
func TestTimeoutCancelByStreamClose(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"probe_slow","arguments":{}}}`
	next := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"probe_echo","arguments":{}}}`
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`
	post := func(b string) record.Record {
		return record.Record{Dir: record.Recv, Channel: record.ChanPOST, Body: b}
	}
	answer := record.Record{Dir: record.Send, Channel: record.ChanPOST, Body: "{}"}
	note := func(k record.EventKind, id string) record.Record {
		return record.Record{Dir: record.Note, Event: &record.Event{Kind: k, RequestID: id}}
	}
	cases := []struct {
		name string
		recs []record.Record
		want Outcome
	}{
		{"closed", []record.Record{post(call), note(record.EvHeld, "4"), note(record.EvStreamClosed, "4"), post(next), answer}, Pass},
		{"closed as it went on", []record.Record{post(call), note(record.EvHeld, "4"), post(next), note(record.EvStreamClosed, "4"), answer}, Pass},
		// The probe learns of a closed connection when its server's reader runs: on a loaded
		// machine after the client's next call on a new connection was served. Still a close
		// before the late answer by a client that went on.
		{"closed, learnt after the next call", []record.Record{post(call), note(record.EvHeld, "4"), post(next), answer, note(record.EvStreamClosed, "4")}, Pass},
		// A connection closes when its client exits: a close after which the client sent
		// nothing shows nothing.
		{"closed on leaving", []record.Record{post(call), note(record.EvHeld, "4"), note(record.EvStreamClosed, "4")}, Untestable},
		// At 2026-07-28 over HTTP the probe keeps holding a request its client notified
		// about, so a close that came with the notification is recorded in either order.
		{"notified and closed", []record.Record{post(call), note(record.EvHeld, "4"), post(cancel), note(record.EvCancelled, "4"), note(record.EvStreamClosed, "4"), post(next), answer}, Pass},
		{"closed and notified", []record.Record{post(call), note(record.EvHeld, "4"), note(record.EvStreamClosed, "4"), post(cancel), note(record.EvCancelled, "4"), post(next), answer}, Pass},
		{"another request's stream", []record.Record{post(call), note(record.EvHeld, "4"), note(record.EvStreamClosed, "5"), post(next), answer}, Violation},
		{"notified, stream open", []record.Record{post(call), note(record.EvHeld, "4"), post(cancel), note(record.EvCancelled, "4"), post(next), answer, note(record.EvAnsweredLate, "4")}, Violation},
		{"abandoned", []record.Record{post(call), note(record.EvHeld, "4"), post(next), answer, note(record.EvAnsweredLate, "4")}, Violation},
		{"waited", []record.Record{post(call), note(record.EvHeld, "4"), note(record.EvAnsweredLate, "4"), post(next), answer}, Violation},
	}
	val := schema.New()
	for _, tc := range cases {
		tc.recs = append([]record.Record{answer}, tc.recs...)
		for i := range tc.recs {
			tc.recs[i].Seq = i + 1
		}
		v := NewView(probe.ScenarioRequestTimeout, "2026-07-28", "http", "2026-07-28", tc.recs, val)
		v.InitAnswered = 0
		if f := judgeTimeoutCancel(v); f.Outcome != tc.want {
			t.Errorf("%s: %v (%s), want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
}
