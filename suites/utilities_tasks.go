package suites

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/utilities/tasks (2025-11-25; removed in 2026-07-28): task-augmented tools/call and
// the tasks/* methods. Every check but TASK-CAP and TASK-IGNORE-IF-UNDECLARED is na for a server
// that does not declare tasks (tasktool.go).

func init() {
	conform.Register(
		conform.Check{ID: "TASK-CAP", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "a server that answers a task-augmented tools/call with a CreateTaskResult declares tasks.requests.tools.call",
			Side:    conform.Server{Run: checkTaskCap}},
		conform.Check{ID: "TASK-IGNORE-IF-UNDECLARED", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "a server that does not declare task-augmented tools/call serves such a call normally, ignoring params.task",
			Side:    conform.Server{Ready: undeclaredTasksReady, Run: checkTaskIgnored}},
		conform.Check{ID: "TASK-TOOL-FORBIDDEN", Revisions: conform.AllCatalogued, Level: "SHOULD", Transports: taskTransports,
			Summary: "a task-augmented call of a tool without taskSupport (or forbidden) gets -32601",
			Side:    conform.Server{Ready: taskCallsReady, Run: checkTaskToolForbidden}},
		conform.Check{ID: "TASK-TOOL-REQUIRED", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "a plain call of a tool whose taskSupport is required gets -32601",
			Side:    conform.Server{Ready: taskCallsReady, Run: checkTaskToolRequired}},
		conform.Check{ID: "TASK-CREATE-RESULT", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "a task-augmented tools/call is answered with a CreateTaskResult: task with taskId, status, createdAt, lastUpdatedAt, ttl",
			Side:    conform.Server{Ready: taskCallsReady, Run: checkTaskCreateResult}},
		conform.Check{ID: "TASK-ID", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "task ids are strings, different for every task created",
			Side:    conform.Server{Ready: taskCallsReady, Run: checkTaskID}},
		conform.Check{ID: "TASK-STATUS-LIFECYCLE", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "a task starts working, its statuses are known ones, and a terminal status never changes",
			Side:    conform.Server{Waits: true, Ready: taskToolReady, Run: checkTaskLifecycle}},
		conform.Check{ID: "TASK-TIMESTAMPS-TTL", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "tasks/get gives ISO 8601 createdAt and lastUpdatedAt and a ttl that is an integer or null",
			Side:    conform.Server{Ready: taskCallsReady, Run: checkTaskTimestamps}},
		conform.Check{ID: "TASK-RESULT", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "tasks/result on a working task answers only once the task is terminal, with the tool's CallToolResult",
			Side:    conform.Server{Waits: true, Ready: taskToolReady, Run: checkTaskResult}},
		conform.Check{ID: "TASK-RESULT-META", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "the tasks/result result names its task in _meta[\"io.modelcontextprotocol/related-task\"].taskId",
			Side:    conform.Server{Waits: true, Ready: taskToolReady, Run: checkTaskResultMeta}},
		conform.Check{ID: "TASK-CANCEL", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "tasks/cancel of a working task answers it cancelled and it stays cancelled; of a terminal task, -32602",
			Side:    conform.Server{Ready: taskFeatureReady("cancel"), Run: checkTaskCancel}},
		conform.Check{ID: "TASK-PROTOCOL-ERRORS", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "an unknown taskId (tasks/get, tasks/result, tasks/cancel) or tasks/list cursor gets -32602",
			Side:    conform.Server{Ready: tasksReady, Run: checkTaskProtocolErrors}},
		conform.Check{ID: "TASK-LIST-CURSOR", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "tasks/list pages carry nextCursor while tasks remain: every task created appears in the walk",
			Side:    conform.Server{Ready: taskFeatureReady("list"), Run: checkTaskListCursor}},
		conform.Check{ID: "TASK-NO-SSE-ON-GET", Revisions: conform.AllCatalogued, Level: "SHOULD", Transports: []string{wire.HTTP},
			Summary: "over Streamable HTTP, tasks/get is answered as application/json, not as an SSE stream",
			Side:    conform.Server{Ready: taskCallsReady, Run: checkTaskNoSSEOnGet}},
	)
}

// relatedTaskKey is the _meta key naming the task a message belongs to.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

var taskStatuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

func tasksReady(t *conform.T) (conform.Finding, bool) {
	if taskCaps(t.S) == nil {
		return conform.NA("the server declares no tasks capability"), true
	}
	return conform.Finding{}, false
}

// taskFeatureReady gates a check of task-augmented calls that also needs tasks.<feature>
// (cancel, list) declared.
func taskFeatureReady(feature string) func(t *conform.T) (conform.Finding, bool) {
	return func(t *conform.T) (conform.Finding, bool) {
		if f, done := taskCallsReady(t); done {
			return f, true
		}
		if _, ok := taskCaps(t.S)[feature]; !ok {
			return conform.NA("the server does not declare tasks.%s", feature), true
		}
		return conform.Finding{}, false
	}
}

func undeclaredTasksReady(t *conform.T) (conform.Finding, bool) {
	if taskCallsDeclared(t.S) {
		return conform.NA("the server declares task-augmented tools/call"), true
	}
	if !t.S.HasCapability("tools") {
		return conform.NA("the server declares no tools"), true
	}
	return conform.Finding{}, false
}

// startTask picks a tool and creates a task of it.
func startTask(t *conform.T, token jsonrpc.ID) (taskTarget, createdTask, *conform.Finding) {
	tt, f := pickTaskTool(t)
	if f != nil {
		return tt, createdTask{}, f
	}
	ct, f := createTask(t, tt, token)
	return tt, ct, f
}

// taskRequest sends a tasks/* request naming id.
func taskRequest(t *conform.T, method, id string) (jsonrpc.Message, error) {
	return t.S.Request(t.Ctx, method, map[string]any{"taskId": id})
}

// taskStatus is the status of a Task result.
func taskStatus(resp jsonrpc.Message) (string, bool) {
	obj, ok := resp.ResultObject()
	if !ok {
		return "", false
	}
	return jsonString(obj["status"])
}

func isTerminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// awaitTask waits for the task's result with tasks/result.
func awaitTask(t *conform.T, id string) (jsonrpc.Message, *conform.Finding) {
	resp, err := taskRequest(t, "tasks/result", id)
	if err != nil {
		f := conform.CannotTest("tasks/result for task %s got no response: %v", id, err)
		return resp, &f
	}
	return resp, nil
}

func checkTaskCap(t *conform.T) conform.Finding {
	declared := taskCallsDeclared(t.S)
	var tt taskTarget
	if declared {
		var f *conform.Finding
		if tt, f = pickTaskTool(t); f != nil {
			return *f
		}
	} else {
		list, err := taskToolList(t)
		if err != nil {
			return conform.NA("the server declares no task-augmented tools/call, and tools/list failed: %v", err)
		}
		for _, lt := range list {
			if lt.Execution.TaskSupport == "optional" || lt.Execution.TaskSupport == "required" {
				if lt.Name == t.Options().SlowTool || len(lt.InputSchema.Required) == 0 && tt.name == "" {
					tt = taskTarget{lt.Name, json.RawMessage(`{}`), lt.Execution.TaskSupport}
				}
			}
		}
		if tt.name == t.Options().SlowTool && tt.name != "" {
			tt.args = t.Options().SlowToolArgs
		}
		if tt.name == "" && t.Options().SlowTool != "" {
			tt = taskTarget{t.Options().SlowTool, t.Options().SlowToolArgs, ""}
		}
		if tt.name == "" {
			return conform.NA("the server declares no task-augmented tools/call and names no tool that supports tasks")
		}
	}
	resp, err := callTool(t, callParams(tt, true, ""))
	if err != nil {
		return conform.CannotTest("a task-augmented tools/call of %q got no response: %v", tt.name, err)
	}
	obj, _ := resp.ResultObject()
	if _, created := obj["task"]; !created {
		return conform.NA("no CreateTaskResult was returned: %s", show(resp))
	}
	if !declared {
		return conform.Violated("a CreateTaskResult came back, but the capabilities lack tasks.requests.tools.call: %s", show(resp))
	}
	return conform.Passed("tasks.requests.tools.call declared")
}

func checkTaskIgnored(t *conform.T) conform.Finding {
	tt, f := safeTool(t)
	if f != nil {
		return *f
	}
	resp, err := callTool(t, callParams(tt, true, ""))
	if err != nil {
		return conform.Crashed("a tools/call of %q with params.task got no response: %v", tt.name, err)
	}
	obj, ok := resp.ResultObject()
	var content []json.RawMessage
	if !ok || json.Unmarshal(obj["content"], &content) != nil || obj["content"] == nil {
		return conform.Violated("without task support declared, a tools/call carrying params.task was not served as a plain call: %s", show(resp))
	}
	return conform.Passed("")
}

func checkTaskToolForbidden(t *conform.T) conform.Finding {
	list, err := taskToolList(t)
	if err != nil {
		return conform.CannotTest("tools/list: %v", err)
	}
	var pick *listedTool
	for i, lt := range list {
		if lt.Execution.TaskSupport != "" && lt.Execution.TaskSupport != "forbidden" {
			continue
		}
		// A read-only tool first: a server that breaks the rule runs it.
		if pick == nil || lt.Annotations.ReadOnly && !pick.Annotations.ReadOnly {
			pick = &list[i]
		}
	}
	if pick == nil {
		return conform.NA("every listed tool supports tasks")
	}
	resp, err := callTool(t, callParams(taskTarget{name: pick.Name, args: json.RawMessage(`{}`)}, true, ""))
	if err != nil {
		return conform.Crashed("a task-augmented call of %q got no response: %v", pick.Name, err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("a task-augmented call of %q, which does not support tasks: %s", pick.Name, why)
	}
	return conform.Passed("")
}

func checkTaskToolRequired(t *conform.T) conform.Finding {
	list, err := taskToolList(t)
	if err != nil {
		return conform.CannotTest("tools/list: %v", err)
	}
	i := slices.IndexFunc(list, func(lt listedTool) bool { return lt.Execution.TaskSupport == "required" })
	if i < 0 {
		return conform.NA("no listed tool requires tasks")
	}
	resp, err := callTool(t, callParams(taskTarget{name: list[i].Name, args: json.RawMessage(`{}`)}, false, ""))
	if err != nil {
		return conform.Crashed("a plain call of %q got no response: %v", list[i].Name, err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("a plain call of %q, whose taskSupport is required: %s", list[i].Name, why)
	}
	return conform.Passed("")
}

func checkTaskCreateResult(t *conform.T) conform.Finding {
	_, ct, f := startTask(t, "")
	if f != nil {
		return *f
	}
	if why := taskShape(ct.task); why != "" {
		return conform.Violated("the CreateTaskResult's task %s: %s", why, show(ct.resp))
	}
	return conform.Passed("")
}

// taskShape says what a Task lacks ("" when nothing).
func taskShape(task map[string]json.RawMessage) string {
	for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt"} {
		if _, ok := jsonString(task[k]); !ok {
			return fmt.Sprintf("has no string %s", k)
		}
	}
	ttl, ok := task["ttl"]
	if !ok {
		return "has no ttl"
	}
	var n int64
	if string(ttl) != "null" && json.Unmarshal(ttl, &n) != nil {
		return fmt.Sprintf("has ttl %s, neither an integer nor null", ttl)
	}
	return ""
}

func checkTaskID(t *conform.T) conform.Finding {
	tt, a, f := startTask(t, "")
	if f != nil {
		return *f
	}
	b, f := createTask(t, tt, "")
	if f != nil {
		return *f
	}
	if a.id == b.id {
		return conform.Violated("two tasks got the same taskId %q: %s", a.id, show(b.resp))
	}
	return conform.Passed("")
}

func checkTaskLifecycle(t *conform.T) conform.Finding {
	_, ct, f := startTask(t, "")
	if f != nil {
		return *f
	}
	if s, _ := jsonString(ct.task["status"]); s != "working" {
		return conform.Violated("a new task's status is %q, not working: %s", s, show(ct.resp))
	}
	resp, err := taskRequest(t, "tasks/get", ct.id)
	if err != nil {
		return conform.CannotTest("tasks/get got no response: %v", err)
	}
	if s, ok := taskStatus(resp); !ok || !slices.Contains(taskStatuses, s) {
		return conform.Violated("tasks/get gave no known status: %s", show(resp))
	}
	if _, f := awaitTask(t, ct.id); f != nil {
		return *f
	}
	var terminal string
	for i := range 3 {
		resp, err := taskRequest(t, "tasks/get", ct.id)
		if err != nil {
			return conform.CannotTest("tasks/get got no response: %v", err)
		}
		s, _ := taskStatus(resp)
		switch {
		case i == 0 && !isTerminal(s):
			return conform.Violated("after tasks/result answered, tasks/get gives status %q: %s", s, show(resp))
		case i == 0:
			terminal = s
		case s != terminal:
			return conform.Violated("the task was %s, then tasks/get said %q: %s", terminal, s, show(resp))
		}
	}
	return conform.Passed("working, then %s for good", terminal)
}

func checkTaskTimestamps(t *conform.T) conform.Finding {
	_, ct, f := startTask(t, "")
	if f != nil {
		return *f
	}
	resp, err := taskRequest(t, "tasks/get", ct.id)
	if err != nil {
		return conform.CannotTest("tasks/get got no response: %v", err)
	}
	obj, ok := resp.ResultObject()
	if !ok {
		return conform.Violated("tasks/get of a task just created was not answered with a result: %s", show(resp))
	}
	if why := taskShape(obj); why != "" {
		return conform.Violated("the tasks/get result %s: %s", why, show(resp))
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		s, _ := jsonString(obj[k])
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return conform.Violated("%s %q is not an ISO 8601 date-time: %s", k, s, show(resp))
		}
	}
	return conform.Passed("")
}

func checkTaskResult(t *conform.T) conform.Finding {
	_, ct, f := startTask(t, "")
	if f != nil {
		return *f
	}
	resp, f := awaitTask(t, ct.id)
	if f != nil {
		return *f
	}
	get, err := taskRequest(t, "tasks/get", ct.id)
	if err != nil {
		return conform.CannotTest("tasks/get got no response: %v", err)
	}
	s, _ := taskStatus(get)
	if !isTerminal(s) {
		return conform.Violated("tasks/result answered %s while the task was still %q", clip(show(resp), 120), s)
	}
	if s == "cancelled" || resp.HasError {
		return conform.Passed("the task ended %s", s)
	}
	obj, ok := resp.ResultObject()
	var content []json.RawMessage
	if !ok || json.Unmarshal(obj["content"], &content) != nil || obj["content"] == nil {
		return conform.Violated("tasks/result of a tools/call task is no CallToolResult: %s", show(resp))
	}
	return conform.Passed("")
}

func checkTaskResultMeta(t *conform.T) conform.Finding {
	_, ct, f := startTask(t, "")
	if f != nil {
		return *f
	}
	resp, f := awaitTask(t, ct.id)
	if f != nil {
		return *f
	}
	raw := resp.Result
	if resp.HasError {
		return conform.CannotTest("tasks/result answered an error: %s", show(resp))
	}
	var r struct {
		Meta map[string]struct {
			TaskID json.RawMessage `json:"taskId"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(raw, &r)
	if got, _ := jsonString(r.Meta[relatedTaskKey].TaskID); got != ct.id {
		return conform.Violated("the tasks/result result does not name task %q in _meta[%q]: %s", ct.id, relatedTaskKey, show(resp))
	}
	return conform.Passed("")
}

func checkTaskCancel(t *conform.T) conform.Finding {
	tt, ct, f := startTask(t, "")
	if f != nil {
		return *f
	}
	resp, err := taskRequest(t, "tasks/cancel", ct.id)
	if err != nil {
		return conform.Crashed("tasks/cancel got no response: %v", err)
	}
	if resp.HasError {
		get, _ := taskRequest(t, "tasks/get", ct.id)
		if s, _ := taskStatus(get); isTerminal(s) && s != "cancelled" {
			return conform.CannotTest("the task of %q was %s before it could be cancelled: %s", tt.name, s, show(resp))
		}
		return conform.Violated("tasks/cancel of a working task was refused: %s", show(resp))
	}
	if s, _ := taskStatus(resp); s != "cancelled" {
		return conform.Violated("tasks/cancel answered status %q, not cancelled: %s", s, show(resp))
	}
	get, err := taskRequest(t, "tasks/get", ct.id)
	if err != nil {
		return conform.CannotTest("tasks/get got no response: %v", err)
	}
	if s, _ := taskStatus(get); s != "cancelled" {
		return conform.Violated("after tasks/cancel, tasks/get says %q: %s", s, show(get))
	}
	again, err := taskRequest(t, "tasks/cancel", ct.id)
	if err != nil {
		return conform.Crashed("a second tasks/cancel got no response: %v", err)
	}
	if ok, why := expectError(again, codeInvalidParams); !ok {
		return conform.Violated("tasks/cancel of a cancelled (terminal) task: %s", why)
	}
	return conform.Passed("")
}

// neverIssuedTaskID names no task.
const neverIssuedTaskID = "mcpspec-no-such-task"

func checkTaskProtocolErrors(t *conform.T) conform.Finding {
	methods := []string{"tasks/get", "tasks/result"}
	caps := taskCaps(t.S)
	if _, ok := caps["cancel"]; ok {
		methods = append(methods, "tasks/cancel")
	}
	for _, m := range methods {
		resp, err := taskRequest(t, m, neverIssuedTaskID)
		if err != nil {
			return conform.Crashed("%s with an unknown taskId got no response: %v", m, err)
		}
		if ok, why := expectError(resp, codeInvalidParams); !ok {
			return conform.Violated("%s with the unknown taskId %q: %s", m, neverIssuedTaskID, why)
		}
	}
	if _, ok := caps["list"]; ok {
		resp, err := t.S.Request(t.Ctx, "tasks/list", map[string]any{"cursor": neverIssuedCursor})
		if err != nil {
			return conform.Crashed("tasks/list with an unknown cursor got no response: %v", err)
		}
		if ok, why := expectError(resp, codeInvalidParams); !ok {
			return conform.Violated("tasks/list with the cursor %q, which it never issued: %s", neverIssuedCursor, why)
		}
		methods = append(methods, "tasks/list")
	}
	return conform.Passed("%v", methods)
}

func checkTaskListCursor(t *conform.T) conform.Finding {
	tt, f := pickTaskTool(t)
	if f != nil {
		return *f
	}
	var ids []string
	for range 3 {
		ct, f := createTask(t, tt, "")
		if f != nil {
			return *f
		}
		ids = append(ids, ct.id)
	}
	w, err := walkList(t, t.S, "tasks/list", "tasks")
	if err != nil {
		return conform.Violated("%v", err)
	}
	listed := map[string]bool{}
	for _, it := range w.items {
		var task struct {
			ID string `json:"taskId"`
		}
		_ = json.Unmarshal(it, &task)
		listed[task.ID] = true
	}
	for _, id := range ids {
		if !listed[id] {
			return conform.Violated("task %q, just created, is missing from %d page(s) of tasks/list (last: %s)", id, len(w.pages), show(w.pages[len(w.pages)-1]))
		}
	}
	return conform.Passed("%d task(s) on %d page(s)", len(w.items), len(w.pages))
}

func checkTaskNoSSEOnGet(t *conform.T) conform.Finding {
	_, ct, f := startTask(t, "")
	if f != nil {
		return *f
	}
	id := t.S.NextID()
	t.S.Sent(id, "tasks/get")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "tasks/get", map[string]any{"taskId": ct.id}))
	if err != nil {
		return conform.Crashed("tasks/get: %v", err)
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.CannotTest("tasks/get got no response: %v", err)
	}
	if mediaType(d) != "application/json" {
		return conform.Violated("tasks/get was answered with Content-Type %q, not application/json", d.ContentType)
	}
	return conform.Passed("")
}
