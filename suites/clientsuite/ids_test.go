package clientsuite

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/schema"
)

func stdout(seq int, body string) record.Record {
	return record.Record{Seq: seq, Dir: record.Send, Channel: record.ChanStdout, Body: body}
}

// call is a stateless tools/call with id and progress token (token "" for none).
func call(id, token string) string {
	meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	if token != "" {
		meta += `,"progressToken":` + token
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"probe_echo","arguments":{},"_meta":{%s}}}`, id, meta)
}

func answer(id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[]}}`, id)
}

// At 2026-07-28 an id (or a progress token) may come back once its request is over, answered
// or cancelled, never while it is in flight; before, an id never comes back in the session.
func TestIDUniqueAndTokenInFlight(t *testing.T) {
	cancelled := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`
	for _, tc := range []struct {
		name           string
		revision       string
		recs           []record.Record
		wantID, wantPT Outcome
	}{
		{"reused after the answer", "2026-07-28",
			[]record.Record{stdin(1, call("1", `"t"`)), stdout(2, answer("1")), stdin(3, call("1", `"t"`))}, Pass, Pass},
		{"reused after the cancellation", "2026-07-28",
			[]record.Record{stdin(1, call("1", `"t"`)), stdin(2, cancelled), stdin(3, call("1", `"t"`))}, Pass, Pass},
		{"reused in flight", "2026-07-28",
			[]record.Record{stdin(1, call("1", `"t"`)), stdin(2, call("1", `"u"`))}, Violation, Pass},
		{"token reused in flight", "2026-07-28",
			[]record.Record{stdin(1, call("1", `"t"`)), stdin(2, call("2", `"t"`))}, Pass, Violation},
		{"1 and \"1\" differ", "2026-07-28",
			[]record.Record{stdin(1, call("1", `1`)), stdin(2, call(`"1"`, `"1"`))}, Pass, Pass},
		{"reused in flight on a connection since re-established", "2026-07-28",
			[]record.Record{stdin(1, call("1", `"t"`)), {Seq: 2, Dir: record.Note, Event: &record.Event{Kind: record.EvRelaunch}}, stdin(3, call("1", `"t"`))}, Pass, Pass},
		{"legacy: reused after the answer", "2025-11-25",
			[]record.Record{stdin(1, call("1", `"t"`)), stdout(2, answer("1")), stdin(3, call("1", `"t"`))}, Violation, Pass},
	} {
		v := NewView(probe.ScenarioTools, tc.revision, "stdio", tc.revision, tc.recs, nil)
		if f := judgeIDUnique(v); f.Outcome != tc.wantID {
			t.Errorf("%s: MSG-REQ-ID-UNIQUE %v %s, want %v", tc.name, f.Outcome, f.Message, tc.wantID)
		}
		if f := judgeTokenUnique(v); f.Outcome != tc.wantPT {
			t.Errorf("%s: PROG-TOKEN-UNIQUE %v %s, want %v", tc.name, f.Outcome, f.Message, tc.wantPT)
		}
	}
}

// Over Streamable HTTP at 2026-07-28 a request never answered may have been cancelled by its
// stream's end, which the probe does not see: it is left out, never counted in flight.
func TestIDUniqueUnansweredHTTP26(t *testing.T) {
	v := NewView(probe.ScenarioTools, "2026-07-28", "http", "2026-07-28", []record.Record{post(1, call("1", `"t"`), nil), post(2, call("1", `"t"`), nil)}, nil)
	for _, judge := range []func(*View) Finding{judgeIDUnique, judgeTokenUnique} {
		if f := judge(v); f.Outcome != Pass {
			t.Errorf("%v %s, want pass", f.Outcome, f.Message)
		}
	}
}

// A bad id breaks one check: null is MSG-REQ-ID-NOT-NULL's, a fraction MSG-REQ-ID-TYPE's, and
// MSG-JSONRPC judges the rest of the request with a valid id in its place.
func TestBadIDBreaksOneCheck(t *testing.T) {
	val := schema.New()
	for _, tc := range []struct {
		id                string
		wantType, wantNil Outcome
	}{{"null", Pass, Violation}, {"1.5", Violation, Pass}, {"true", Violation, Pass}, {"7", Pass, Pass}, {`"a"`, Pass, Pass}, {"2e1", Pass, Pass}} {
		v := NewView(probe.ScenarioTools, "2026-07-28", "stdio", "2026-07-28", []record.Record{stdin(1, call(tc.id, ""))}, val)
		if f := judgeIDType(v); f.Outcome != tc.wantType {
			t.Errorf("id %s: MSG-REQ-ID-TYPE %v %s", tc.id, f.Outcome, f.Message)
		}
		if f := judgeIDNotNull(v); f.Outcome != tc.wantNil {
			t.Errorf("id %s: MSG-REQ-ID-NOT-NULL %v %s", tc.id, f.Outcome, f.Message)
		}
		if f := judgeSchema(v); f.Outcome != Pass {
			t.Errorf("id %s: MSG-JSONRPC %v %s, want pass", tc.id, f.Outcome, f.Message)
		}
	}
}

// HTTP-POST-BODY judges what one POST holds: a batch only at 2025-03-26, no response at
// 2026-07-28, nothing that is not JSON; HTTP-POST-PER-MESSAGE how a message travels.
func TestPostBodyAndPerMessage(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	batch := `[{"jsonrpc":"2.0","method":"notifications/initialized"},` + list + `]`
	get := record.Record{Seq: 2, Dir: record.Recv, Channel: record.ChanGET, Path: probe.Path, Body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for _, tc := range []struct {
		name, revision string
		recs           []record.Record
		body, per      Outcome
	}{
		{"batch at 2025-03-26", "2025-03-26", []record.Record{post(1, batch, nil)}, Pass, Pass},
		{"batch at 2025-06-18", "2025-06-18", []record.Record{post(1, batch, nil)}, Violation, Pass},
		{"response at 2025-11-25", "2025-11-25", []record.Record{post(1, list, nil), post(2, answer("1"), nil)}, Pass, Pass},
		{"response at 2026-07-28", "2026-07-28", []record.Record{post(1, call("1", ""), nil), post(2, answer("1"), nil)}, Violation, Pass},
		{"not JSON", "2025-06-18", []record.Record{post(1, list, nil), post(2, "hello", nil)}, Violation, Pass},
		{"a message in a GET", "2025-06-18", []record.Record{post(1, list, nil), get}, Pass, Violation},
	} {
		v := NewView(probe.ScenarioTools, tc.revision, "http", tc.revision, tc.recs, nil)
		if f := judgePostBody(v); f.Outcome != tc.body {
			t.Errorf("%s: HTTP-POST-BODY %v %s, want %v", tc.name, f.Outcome, f.Message, tc.body)
		}
		if f := judgePostPerMessage(v); f.Outcome != tc.per {
			t.Errorf("%s: HTTP-POST-PER-MESSAGE %v %s, want %v", tc.name, f.Outcome, f.Message, tc.per)
		}
	}
}

// A scenario added to the probe is judged by the id checks too, unless it is an authorization
// one (a request refused 401 and sent again after authorizing is no reuse).
func TestIDChecksRideEveryScenario(t *testing.T) {
	for _, s := range probe.Known() {
		if s == probe.ScenarioTools || probe.IsAuth(s) {
			continue
		}
		if !slices.Contains(idScenarios, s) {
			t.Errorf("scenario %s is not in idScenarios: the MSG-REQ-ID checks never judge it", s)
		}
	}
}
