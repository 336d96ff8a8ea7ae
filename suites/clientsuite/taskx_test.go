package clientsuite

import (
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// The tasks extension's client checks read the probe's events: a task created for a call, each
// poll with the span since the probe's last word on the task, each tasks/update's keys.
func TestTaskXJudgements(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	call := post(1, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe_taskx","arguments":{},`+meta+`}}`, nil)
	get := func(seq int) record.Record {
		return post(seq, `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"t1",`+meta+`}}`, map[string]string{"Mcp-Name": "t1"})
	}
	note := func(seq int, e record.Event) record.Record {
		return record.Record{Seq: seq, Dir: record.Note, Channel: "probe", Event: &e}
	}
	created := note(2, record.Event{Kind: record.EvTaskCreated, TaskID: "t1", RequestID: "2", PollMs: 200})
	polled := func(seq int, since int64, status string, keys ...string) record.Record {
		return note(seq, record.Event{Kind: record.EvTaskPolled, TaskID: "t1", PollMs: 200, SinceMs: since, TaskStatus: status, Keys: keys})
	}
	updated := func(seq int, keys ...string) record.Record {
		return note(seq, record.Event{Kind: record.EvTaskUpdated, TaskID: "t1", Keys: keys})
	}
	for _, tc := range []struct {
		name  string
		judge func(*View) Finding
		recs  []record.Record
		want  Outcome
	}{
		{"no call", judgeTaskXResult, nil, Untestable},
		{"handle taken for the result", judgeTaskXResult, []record.Record{call, created}, Violation},
		{"polled", judgeTaskXResult, []record.Record{call, created, get(3), polled(4, 250, "working")}, Pass},
		{"polled at the interval", judgeTaskXPollInterval, []record.Record{call, created, get(3), polled(4, 200, "working")}, Pass},
		{"polled early", judgeTaskXPollInterval, []record.Record{call, created, get(3), polled(4, 199, "working")}, Violation},
		{"stopped while working", judgeTaskXPollTerminal, []record.Record{call, created, get(3), polled(4, 250, "working")}, Violation},
		{"polled to the end", judgeTaskXPollTerminal, []record.Record{call, created, get(3), polled(4, 250, "completed")}, Pass},
		{"input never asked", judgeTaskXUpdate, []record.Record{call, created, get(3), polled(4, 250, "completed")}, NotApplicable},
		{"input unanswered", judgeTaskXUpdate, []record.Record{call, created, get(3), polled(4, 250, "input_required", "confirm")}, Violation},
		{"input answered", judgeTaskXUpdate, []record.Record{call, created, get(3), polled(4, 250, "input_required", "confirm"), updated(5, "confirm")}, Pass},
		{"a key never asked", judgeTaskXUpdate, []record.Record{call, created, get(3), polled(4, 250, "input_required", "confirm"), updated(5, "confirm", "other")}, Violation},
		{"cancelled with notifications/cancelled", judgeTaskXCancel, []record.Record{call, created,
			post(3, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, nil)}, Violation},
		{"no cancellation", judgeTaskXCancel, []record.Record{call, created, get(3)}, NotApplicable},
		{"no Mcp-Name", judgeTaskXNameHeader, []record.Record{call, created,
			post(3, `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"t1",`+meta+`}}`, nil)}, Violation},
		{"Mcp-Name", judgeTaskXNameHeader, []record.Record{call, created, get(3)}, Pass},
		{"tasks/get to a server without tasks", judgeTaskXUndeclared, []record.Record{get(1)}, Violation},
		{"task notifications from a server without tasks", judgeTaskXUndeclared, []record.Record{post(1, `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["t1"]},`+meta+`}}`, nil)}, Violation},
		{"no tasks/*", judgeTaskXUndeclared, []record.Record{post(1, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe_taskx","arguments":{},`+meta+`}}`, nil)}, Pass},
	} {
		v := NewView(probe.ScenarioTasksExtension, "2026-07-28", "http", "2026-07-28", tc.recs, nil)
		if f := tc.judge(v); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
}
