package probe

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// The tasks-extension scenario's script: a call that opts in makes a task, polled through one
// input to completion; without the declaration (the client's or the probe's) no task is made.
func TestTasksExtensionScript(t *testing.T) {
	const optIn = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	send := func(s *server, id int, method, params string) map[string]json.RawMessage {
		t.Helper()
		m := message{JSONRPC: "2.0", Method: method, Params: json.RawMessage(params)}
		m.ID, _ = json.Marshal(id)
		var resp struct {
			Result map[string]json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(s.handle(context.Background(), m, func([]byte) {}), &resp); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if resp.Error != nil {
			return map[string]json.RawMessage{"error": nil}
		}
		return resp.Result
	}
	str := func(raw json.RawMessage) string {
		var v string
		_ = json.Unmarshal(raw, &v)
		return v
	}

	rec := NewRecorder(nil)
	s := newServer(Script{Scenario: ScenarioTasksExtension, Revision: "2026-07-28", AnswerWait: time.Minute}, rec)
	if _, ok := send(s, 1, "server/discover", `{}`)["capabilities"]; !ok {
		t.Fatal("server/discover gave no capabilities")
	}
	created := send(s, 2, "tools/call", `{"name":"probe_taskx","arguments":{},`+optIn+`}`)
	if str(created["resultType"]) != "task" || str(created["taskId"]) == "" {
		t.Fatalf("an opted-in call of probe_taskx got %v, want a CreateTaskResult", created)
	}
	id := str(created["taskId"])
	get := `{"taskId":"` + id + `",` + optIn + `}`
	var statuses []string
	for i := 0; i < 2; i++ {
		statuses = append(statuses, str(send(s, 3+i, "tasks/get", get)["status"]))
	}
	send(s, 5, "tasks/update", `{"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},`+optIn+`}`)
	for i := 0; i < 2; i++ {
		statuses = append(statuses, str(send(s, 6+i, "tasks/get", get)["status"]))
	}
	want := []string{"working", "input_required", "working", "completed"}
	for i := range want {
		if statuses[i] != want[i] {
			t.Fatalf("statuses %v, want %v", statuses, want)
		}
	}
	polled, updated := 0, 0
	for _, r := range rec.Records() {
		switch {
		case r.Is(record.EvTaskPolled):
			polled++
			if r.Event.PollMs != TaskXPollMs || r.Event.TaskID != id {
				t.Errorf("poll event %+v", r.Event)
			}
		case r.Is(record.EvTaskUpdated):
			updated++
			if len(r.Event.Keys) != 1 || r.Event.Keys[0] != TaskXInputKey {
				t.Errorf("update event %+v", r.Event)
			}
		}
	}
	if polled != 4 || updated != 1 {
		t.Errorf("%d poll and %d update events, want 4 and 1", polled, updated)
	}

	plain := send(s, 8, "tools/call", `{"name":"probe_taskx","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	if str(plain["resultType"]) != "complete" {
		t.Errorf("a call that did not opt in got %v, want a CallToolResult", plain)
	}
	u := newServer(Script{Scenario: ScenarioTasksUndeclared, Revision: "2026-07-28", AnswerWait: time.Minute}, NewRecorder(nil))
	if res := send(u, 1, "tools/call", `{"name":"probe_taskx","arguments":{},`+optIn+`}`); str(res["resultType"]) != "complete" {
		t.Errorf("without the probe's declaration an opted-in call got %v, want a CallToolResult", res)
	}
	if _, refused := send(u, 2, "tasks/get", get)["error"]; !refused {
		t.Error("without the probe's declaration tasks/get was answered")
	}
}
