package clientsuite

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The tasks extension (io.modelcontextprotocol/tasks, ext-tasks draft) on the client side,
// judged on mcpspec's tasks-extension scenario (the official suite has no client scenario of
// it): the probe declares the extension and answers a call that opts in with a
// CreateTaskResult; and on tasks-extension-undeclared, where it does not declare it.

func init() {
	Register(
		Check{ID: "TASKX-CLIENT-RESULT", Revisions: catalog.AllCatalogued, Transports: stdioHTTP, Level: "MUST",
			Summary:     "a client that takes tasks handles a CreateTaskResult as a task: it asks tasks/get (or tasks/cancel) for the task the result names",
			LevelReason: "A client that negotiated the extension MUST be prepared to handle a CreateTaskResult in response to any supported request; one that never asks about the task has taken the handle for the tool's result.",
			Side:        Client{Scenario: probe.ScenarioTasksExtension, Judge: judgeTaskXResult}},
		Check{ID: "TASKX-CLIENT-POLL-INTERVAL", Revisions: catalog.AllCatalogued, Transports: stdioHTTP, Level: "SHOULD",
			Summary:     "a client polls a task with tasks/get no sooner than the task's pollIntervalMs after the server's last word on it",
			LevelReason: "Clients SHOULD respect pollIntervalMs. The probe measures from before it sends its answer to when the next tasks/get reaches it, a span the client's own wait cannot exceed, so a shorter span is a client that did not wait.",
			Side:        Client{Scenario: probe.ScenarioTasksExtension, Judge: judgeTaskXPollInterval}},
		Check{ID: "TASKX-CLIENT-POLL-TERMINAL", Revisions: catalog.AllCatalogued, Transports: stdioHTTP, Level: "SHOULD",
			Summary:     "a client polls a task until it reaches a terminal status (or cancels it with tasks/cancel): probe_taskx's task, completed after a few polls",
			LevelReason: "Clients SHOULD continue polling until the task reaches a terminal status or until invoking tasks/cancel. Only probe_taskx's task is judged: the stuck task never ends, and a client polling it until the run ends is not at fault.",
			Side:        Client{Scenario: probe.ScenarioTasksExtension, Judge: judgeTaskXPollTerminal}},
		Check{ID: "TASKX-CLIENT-UPDATE", Revisions: catalog.AllCatalogued, Transports: stdioHTTP, Level: "SHOULD",
			Summary:     "a task's inputRequests are answered with tasks/update, whose inputResponses keys are the keys the task asked",
			LevelReason: "The client SHOULD fulfil a task's inputRequests with tasks/update; each inputResponses key MUST correspond to a currently-outstanding inputRequests key (schema: UpdateTaskRequest). The check's level is the SHOULD of answering; a key never asked breaks the MUST and fails.",
			Side:        Client{Scenario: probe.ScenarioTasksExtension, Judge: judgeTaskXUpdate}},
		Check{ID: "TASKX-CLIENT-CANCEL", Revisions: catalog.AllCatalogued, Transports: stdioHTTP, Level: "MUST",
			Summary:     "a task is cancelled with tasks/cancel, never with notifications/cancelled naming the request that created it",
			LevelReason: "notifications/cancelled MUST NOT be used for task cancellation. The probe's stuck task outlives its ttlMs, the backstop after which a client may give it up; a client that gives up no task is na.",
			Side:        Client{Scenario: probe.ScenarioTasksExtension, Judge: judgeTaskXCancel}},
		Check{ID: "TASKX-CLIENT-NAME-HEADER", Revisions: catalog.AllCatalogued, Transports: httpOnly, Level: "MUST",
			Summary: "over Streamable HTTP, tasks/get, tasks/update and tasks/cancel carry Mcp-Name set to params.taskId",
			Side:    Client{Scenario: probe.ScenarioTasksExtension, Judge: judgeTaskXNameHeader}},
		Check{ID: "TASKX-CLIENT-UNDECLARED", Revisions: catalog.AllCatalogued, Transports: stdioHTTP, Level: "MUST",
			Summary:     "a client does not use the tasks extension with a server that did not declare it: no tasks/* request (the extension's reserved prefix), no subscriptions/listen for task notifications",
			LevelReason: "A party whose peer does not support an extension MUST revert to the core protocol (versioning § Extension Negotiation); tasks/ is reserved for the extension. Declaring the extension in a request's capabilities is advertising, not use, so it is not judged.",
			Side:        Client{Scenario: probe.ScenarioTasksUndeclared, Judge: judgeTaskXUndeclared}},
	)
}

// taskX is a task the probe created, as the recording shows it.
type taskX struct {
	rec     int    // index of the creation's note
	id      string // taskId
	request string // the creating tools/call's id, compact JSON
	tool    string // the tool called
}

// tasksX are the tasks the probe created, in order.
func (v *View) tasksX() []taskX {
	var out []taskX
	for i, r := range v.Records {
		if r.Is(record.EvTaskCreated) {
			out = append(out, taskX{rec: i, id: r.Event.TaskID, request: r.Event.RequestID, tool: v.calledTool(r.Event.RequestID)})
		}
	}
	return out
}

// calledTool is the name in the client's tools/call with the id (compact JSON).
func (v *View) calledTool(id string) string {
	for _, m := range v.Msgs {
		if m.IsRequest() && m.Method == "tools/call" && compactJSON(m.ID) == id {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(paramsOf(m.Raw), &p)
			return p.Name
		}
	}
	return ""
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// taskIDOf is a tasks/* request's params.taskId.
func taskIDOf(raw json.RawMessage) string {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(paramsOf(raw), &p)
	return p.TaskID
}

// noTaskX is the finding of a run in which the probe created no task: untestable when the
// client called no task tool, na when it called them without taking tasks.
func (v *View) noTaskX() Finding {
	for _, m := range v.Msgs {
		if m.IsRequest() && m.Method == "tools/call" {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(paramsOf(m.Raw), &p)
			if p.Name == probe.ToolTaskX || p.Name == probe.ToolTaskXStuck {
				return na("the client called %s without declaring %s in the request's capabilities (record %d): it does not take tasks, so every answer was a CallToolResult", p.Name, probe.TasksExtension, v.Records[m.Rec].Seq)
			}
		}
	}
	return untestable("the client called neither %s nor %s", probe.ToolTaskX, probe.ToolTaskXStuck)
}

// taskRequests are the client's requests of method about task id.
func (v *View) taskRequests(id string, methods ...string) []Msg {
	var out []Msg
	for _, m := range v.Msgs {
		if m.IsRequest() && slices.Contains(methods, m.Method) && taskIDOf(m.Raw) == id {
			out = append(out, m)
		}
	}
	return out
}

func judgeTaskXResult(v *View) Finding {
	tasks := v.tasksX()
	if len(tasks) == 0 {
		return v.noTaskX()
	}
	for _, t := range tasks {
		if len(v.taskRequests(t.id, "tasks/get", "tasks/cancel")) == 0 {
			return violated("the probe answered the client's tools/call %s (%s) with a CreateTaskResult for task %s (record %d), and the client never asked tasks/get or tasks/cancel about it: it took the task handle for the result",
				t.request, t.tool, t.id, v.Records[t.rec].Seq)
		}
	}
	return passed("the client asked about each of its %d tasks with tasks/get or tasks/cancel", len(tasks))
}

func judgeTaskXPollInterval(v *View) Finding {
	if len(v.tasksX()) == 0 {
		return v.noTaskX()
	}
	polls := 0
	for _, r := range v.Records {
		if !r.Is(record.EvTaskPolled) {
			continue
		}
		polls++
		if e := r.Event; e.SinceMs < int64(e.PollMs) {
			return violated("the client's tasks/get for task %s reached the probe %dms after the probe's last word on the task (record %d), whose pollIntervalMs is %d",
				e.TaskID, e.SinceMs, r.Seq, e.PollMs)
		}
	}
	if polls == 0 {
		return na("the client polled none of its tasks with tasks/get: no interval to judge")
	}
	return passed("each of the client's %d tasks/get came at least pollIntervalMs after the probe's last word on its task", polls)
}

// terminal reports whether a task status is terminal.
func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

func judgeTaskXPollTerminal(v *View) Finding {
	tasks := v.tasksX()
	if len(tasks) == 0 {
		return v.noTaskX()
	}
	judged := 0
	for _, t := range tasks {
		if t.tool != probe.ToolTaskX {
			continue
		}
		if len(v.taskRequests(t.id, "tasks/get")) == 0 {
			continue // never polled: TASKX-CLIENT-RESULT's matter
		}
		judged++
		if len(v.taskRequests(t.id, "tasks/cancel")) > 0 {
			continue
		}
		last, lastSeq := "working", v.Records[t.rec].Seq
		for _, r := range v.Records {
			if r.Is(record.EvTaskPolled) && r.Event.TaskID == t.id {
				last, lastSeq = r.Event.TaskStatus, r.Seq
			}
		}
		if !terminal(last) {
			return violated("the client stopped polling task %s of %s while it was %s (its last word, record %d), and did not cancel it", t.id, t.tool, last, lastSeq)
		}
	}
	if judged == 0 {
		return na("the client polled no task of %s (never polled at all: TASKX-CLIENT-RESULT's matter)", probe.ToolTaskX)
	}
	return passed("the client polled each task of %s until a terminal status, or cancelled it", probe.ToolTaskX)
}

func judgeTaskXUpdate(v *View) Finding {
	if len(v.tasksX()) == 0 {
		return v.noTaskX()
	}
	asked := map[string][]string{} // task → keys asked
	askedAt := map[string]int{}
	for _, r := range v.Records {
		if r.Is(record.EvTaskPolled) && len(r.Event.Keys) > 0 {
			if _, ok := askedAt[r.Event.TaskID]; !ok {
				askedAt[r.Event.TaskID] = r.Seq
			}
			asked[r.Event.TaskID] = r.Event.Keys
		}
	}
	for _, r := range v.Records {
		if !r.Is(record.EvTaskUpdated) {
			continue
		}
		for _, k := range r.Event.Keys {
			if !slices.Contains(asked[r.Event.TaskID], k) {
				// Each inputResponses key MUST be an outstanding one: a failure at any level.
				f := violated("the client's tasks/update for task %s answers key %q (record %d), which the task never asked (asked: %v): each inputResponses key MUST be an outstanding inputRequests key", r.Event.TaskID, k, r.Seq, asked[r.Event.TaskID])
				f.Severe = true
				return f
			}
		}
	}
	if len(asked) == 0 {
		return na("no task asked the client for input (the probe asks only a call that declared elicitation, and only once the client polls on)")
	}
	for id, keys := range asked {
		var got []string
		for _, r := range v.Records {
			if r.Is(record.EvTaskUpdated) && r.Event.TaskID == id {
				got = append(got, r.Event.Keys...)
			}
		}
		for _, k := range keys {
			if !slices.Contains(got, k) {
				if len(v.taskRequests(id, "tasks/cancel")) > 0 {
					continue // given up: nothing left to answer
				}
				return violated("task %s asked for input %q in inputRequests (record %d), and no tasks/update of the client answered it", id, k, askedAt[id])
			}
		}
	}
	return passed("the client answered every inputRequests key with tasks/update, and no other key")
}

func judgeTaskXCancel(v *View) Finding {
	tasks := v.tasksX()
	if len(tasks) == 0 {
		return v.noTaskX()
	}
	for _, m := range v.Msgs {
		if m.Method != "notifications/cancelled" {
			continue
		}
		named := requestIDOf(m.Raw)
		for _, t := range tasks {
			if named == t.request {
				return violated("the client sent notifications/cancelled naming its tools/call %s (record %d), whose answer was task %s's CreateTaskResult: a task is cancelled with tasks/cancel",
					named, v.Records[m.Rec].Seq, t.id)
			}
		}
	}
	for _, t := range tasks {
		if c := v.taskRequests(t.id, "tasks/cancel"); len(c) > 0 {
			return passed("the client cancelled task %s with tasks/cancel (record %d), and sent no notifications/cancelled for a task", t.id, v.Records[c[0].Rec].Seq)
		}
	}
	return na("the client cancelled none of its tasks")
}

func judgeTaskXNameHeader(v *View) Finding {
	n := 0
	for _, m := range v.Msgs {
		if !m.IsRequest() || (m.Method != "tasks/get" && m.Method != "tasks/update" && m.Method != "tasks/cancel") {
			continue
		}
		n++
		r := v.Records[m.Rec]
		id := taskIDOf(m.Raw)
		got, ok := r.HasHeader("Mcp-Name")
		switch {
		case !ok:
			return violated("the client's %s for task %s (record %d) carries no Mcp-Name header", m.Method, id, r.Seq)
		case decodeHeader(strings.TrimSpace(got)) != id:
			return violated("the client's %s for task %s (record %d) carries Mcp-Name %q, not the taskId", m.Method, id, r.Seq, got)
		}
	}
	if n == 0 {
		if len(v.tasksX()) == 0 {
			return v.noTaskX()
		}
		return na("the client sent no tasks/get, tasks/update or tasks/cancel: no header to judge")
	}
	return passed("each of the client's %d tasks/* requests carried Mcp-Name set to its taskId", n)
}

func judgeTaskXUndeclared(v *View) Finding {
	if v.statelessRequests() == 0 {
		return untestable("the client made no request past discovery")
	}
	for _, m := range v.Msgs {
		if !m.IsRequest() {
			continue
		}
		if strings.HasPrefix(m.Method, "tasks/") {
			return violated("the client sent %s (record %d) to a server that did not declare %s: the tasks/ prefix is the extension's", m.Method, v.Records[m.Rec].Seq, probe.TasksExtension)
		}
		var p struct {
			Notifications struct {
				TaskIDs json.RawMessage `json:"taskIds"`
			} `json:"notifications"`
		}
		if m.Method == "subscriptions/listen" && json.Unmarshal(paramsOf(m.Raw), &p) == nil && p.Notifications.TaskIDs != nil {
			return violated("the client's subscriptions/listen (record %d) asks for task status notifications (notifications.taskIds) from a server that did not declare %s", v.Records[m.Rec].Seq, probe.TasksExtension)
		}
	}
	return passed("the client sent no tasks/* request, and asked no task notifications, of a server that did not declare %s", probe.TasksExtension)
}
