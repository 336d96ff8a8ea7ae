package clientsuite

import (
	"encoding/json"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client check of basic/patterns/cancellation: a task is cancelled with tasks/cancel.

func init() {
	Register(
		Check{ID: "CANCEL-TASKS", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: stdioHTTP,
			Summary: "a task-augmented request is cancelled with tasks/cancel, never with notifications/cancelled",
			Side:    Client{Scenario: probe.ScenarioTaskCancel, Judge: judgeTaskCancel}},
	)
}

func judgeTaskCancel(v *View) Finding {
	at, id, f := v.taskCall()
	if f != nil {
		return *f
	}
	var cancel *Msg
	for i := range v.Msgs {
		m := &v.Msgs[i]
		if m.Rec <= at {
			continue
		}
		if m.Method == "notifications/cancelled" && requestIDOf(m.Raw) == id {
			return violated("the client cancelled its task-augmented tools/call (id %s) with notifications/cancelled (record %d); a task is cancelled with tasks/cancel", id, v.Records[m.Rec].Seq)
		}
		if m.Method == "tasks/cancel" && m.IsRequest() && cancel == nil {
			cancel = m
		}
	}
	if cancel == nil {
		return na("the client did not cancel the task %s of its tools/call %s, so it had no cancellation to make", probe.TaskID, id)
	}
	var p struct {
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(cancel.Raw, &p)
	if p.Params.TaskID != probe.TaskID {
		return violated("the client's tasks/cancel (record %d) names task %q, not %q, the task of its tools/call", v.Records[cancel.Rec].Seq, p.Params.TaskID, probe.TaskID)
	}
	return passed("the client cancelled the task %s of its tools/call %s with tasks/cancel (record %d)", probe.TaskID, id, v.Records[cancel.Rec].Seq)
}
