package suites

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the tasks extension, io.modelcontextprotocol/tasks (SEP-2663, text in
// github.com/modelcontextprotocol/ext-tasks): at 2026-07-28 a server that declares it may answer
// a tools/call whose request declares it with a CreateTaskResult (resultType "task"), served
// afterwards by tasks/get, tasks/update and tasks/cancel, and by task status notifications on
// subscriptions/listen. The catalogue gates every check on the server declaring the extension;
// the harness declares it only in these checks' own requests, so that everywhere else (and in
// the negotiation checks) it is a client that declares no extension.
//
// The task is the slow tool's (--slow-tool): the server alone decides which calls become tasks,
// and a long call is the one a server is likeliest to run as a task. The input checks use the
// input tool (--input-tool) the same way.

func init() {
	slow := taskxSlowReady
	conform.Register(
		conform.Check{ID: "TASKX-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the tasks extension's entry in capabilities.extensions is an object (empty: no settings are defined)",
			Side:    conform.Server{Run: checkTaskXCap}},
		conform.Check{ID: "TASKX-UNDECLARED-NO-TASK", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a tools/call whose request does not declare the tasks extension is never answered with a CreateTaskResult",
			LevelReason: "The spec words it MUST NOT; the level is MUST as everywhere a prohibition is checked. The call is the slow tool's, which the same server runs as a task when the request declares the extension (TASKX-CREATE); an error is allowed, and must be -32021 naming the extension when it says the call needs one.",
			Side:        conform.Server{Waits: true, Ready: slow, Run: checkTaskXUndeclaredNoTask}},
		conform.Check{ID: "TASKX-UNDECLARED-METHODS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tasks/get, tasks/update and tasks/cancel from a request that does not declare the tasks extension get -32021 (Missing Required Client Capability)",
			Side:    conform.Server{Ready: slow, Run: checkTaskXUndeclaredMethods}},
		conform.Check{ID: "TASKX-CREATE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a CreateTaskResult has resultType \"task\" and the Task's fields at its top level: taskId, status, createdAt, lastUpdatedAt, ttlMs (integer ms or null), pollIntervalMs (integer ms, optional)",
			LevelReason: "The 2025-11-25 shapes (the Task under task, ttl and pollInterval) and a requestState are not the extension's: they are refused as the official suite refuses them.",
			Side:        conform.Server{Ready: slow, Run: checkTaskXCreate}},
		conform.Check{ID: "TASKX-DURABLE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a task is durably created before its CreateTaskResult is sent: a tasks/get sent at once finds it",
			Side:    conform.Server{Ready: slow, Run: checkTaskXDurable}},
		conform.Check{ID: "TASKX-GET", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "tasks/get, polled at the task's pollIntervalMs until it ends, answers resultType \"complete\" with the task and what its status inlines (inputRequests, result, error)",
			LevelReason: "The polls honour pollIntervalMs (clamped to 10 ms … 1 s), as a client SHOULD; a task that does not end within the request timeout is untestable, never a pass.",
			Side:        conform.Server{Waits: true, Ready: slow, Run: checkTaskXGet}},
		conform.Check{ID: "TASKX-GET-UNKNOWN", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tasks/get of a taskId the server never issued gets -32602",
			Side:    conform.Server{Run: checkTaskXGetUnknown}},
		conform.Check{ID: "TASKX-UNKNOWN-UPDATE-CANCEL", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tasks/update and tasks/cancel of a taskId the server never issued get a JSON-RPC error (-32602 suggested)",
			Side:    conform.Server{Run: checkTaskXUnknownUpdateCancel}},
		conform.Check{ID: "TASKX-UPDATE-IGNORE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "tasks/update whose inputResponses answer a key the task never asked for is ignored: acknowledged with an empty result, not refused",
			Side:    conform.Server{Ready: slow, Run: checkTaskXUpdateIgnore}},
		conform.Check{ID: "TASKX-CANCEL", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "tasks/cancel of a task is acknowledged with an empty result (resultType \"complete\")",
			LevelReason: "Cancellation is cooperative: whether and when the task becomes cancelled is the server's, so only the acknowledgement is judged.",
			Side:        conform.Server{Ready: slow, Run: checkTaskXCancel}},
		conform.Check{ID: "TASKX-TOOL-ERROR", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a task whose tool fails in execution (the slow tool given an argument of the wrong type) ends completed with a result whose isError is true, never failed: failed is for protocol errors",
			LevelReason: "Invalid arguments are a tool execution error from 2025-11-25 on; a server that refuses them before creating a task, answers without a task, or accepts them leaves nothing to judge (untestable).",
			Side:        conform.Server{Ready: slow, Run: checkTaskXToolError}},
		conform.Check{ID: "TASKX-INPUT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a task waiting for input shows status input_required with its inputRequests on tasks/get, and tasks/update with the inputResponses is acknowledged with an empty result",
			LevelReason: "The input tool is called declaring the extension and every input capability; input asked before the task is created (InputRequiredResult, multi round-trip) is answered first, as composition asks. A task that never asks for input is untestable.",
			Side:        conform.Server{Ready: taskxInputReady, Run: checkTaskXInput}},
		conform.Check{ID: "TASKX-LISTEN", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "notifications/tasks on subscriptions/listen carry the whole task as tasks/get would return it, and no progress or log notification comes on that stream",
			LevelReason: "Task notifications are a MAY: a server that agrees to none of the listen's taskIds is na. The connection is the check's own, so that the notifications reach no other check.",
			Side:        conform.Server{Ready: slow, Connection: conform.Fresh, Run: checkTaskXListen}},
		conform.Check{ID: "TASKX-LISTEN-UNDECLARED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "subscriptions/listen asking for task notifications without declaring the tasks extension gets -32021",
			Side:    conform.Server{Run: checkTaskXListenUndeclared}},
		conform.Check{ID: "TASKX-V1-REMOVED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the 2025-11-25 task methods tasks/list and tasks/result, which the extension does not have, get -32601",
			LevelReason: "The extension reserves the tasks/ prefix and defines three methods; JSON-RPC answers any other with -32601.",
			Side:        conform.Server{Run: checkTaskXV1Removed}},
		conform.Check{ID: "TASKX-NAME-HEADER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: []string{wire.HTTP},
			Summary:     "Streamable HTTP: tasks/get whose Mcp-Name header differs from params.taskId is refused with -32020 and HTTP 400; a matching one is served",
			LevelReason: "The extension makes Mcp-Name carry the taskId; the transport's rule for a header that differs from the body (HTTP26 checks) then applies to it.",
			Side:        conform.Server{Ready: slow, Run: checkTaskXNameHeader}},
	)
}

// tasksExtension is the extension's identifier.
const tasksExtension = "io.modelcontextprotocol/tasks"

// Task statuses of the extension.
var taskxStatuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

func taskxTerminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// taskxCaps declares the tasks extension, and with input every kind of input the harness answers.
func taskxCaps(input bool) map[string]any {
	caps := map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}
	if input {
		maps.Copy(caps, allInputCaps())
	}
	return caps
}

// taskxRequest sends method with params, its _meta declaring caps (nil: no capability at all).
func taskxRequest(t *conform.T, method string, params map[string]any, caps map[string]any, header http.Header) (jsonrpc.Message, *wire.Delivery, error) {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	if caps == nil {
		caps = map[string]any{}
	}
	p["_meta"] = statelessMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: caps})
	return statelessRequest(t, method, p, header)
}

func taskxSlowReady(t *conform.T) (conform.Finding, bool) {
	if t.Options().SlowTool == "" {
		return conform.CannotTest("needs a tool the server runs as a task: name one with --slow-tool NAME (and --slow-tool-args JSON)"), true
	}
	if !t.S.HasCapability("tools") {
		return conform.CannotTest("the server declares no tools capability, so --slow-tool %q cannot be called", t.Options().SlowTool), true
	}
	return conform.Finding{}, false
}

func taskxInputReady(t *conform.T) (conform.Finding, bool) {
	if f, ok := needInputTool(t); !ok {
		return f, true
	}
	return conform.Finding{}, false
}

// taskxSlowParams are the params of a call of the slow tool.
func taskxSlowParams(t *conform.T) map[string]any {
	args := map[string]any{}
	if raw := t.Options().SlowToolArgs; len(raw) > 0 {
		_ = json.Unmarshal(raw, &args)
	}
	return map[string]any{"name": t.Options().SlowTool, "arguments": args}
}

// xtaskCreated is a CreateTaskResult as received.
type xtaskCreated struct {
	resp jsonrpc.Message
	obj  map[string]json.RawMessage
	id   string
}

// createXTask calls the slow tool declaring the extension and reads the task it creates. A
// finding ends the check: no reply, or no task (the server decides; then nothing to judge).
func createXTask(t *conform.T) (xtaskCreated, *conform.Finding) {
	resp, _, err := taskxRequest(t, "tools/call", taskxSlowParams(t), taskxCaps(false), nil)
	if err != nil {
		f := conform.Crashed("tools/call of %q declaring the tasks extension got no reply: %v", t.Options().SlowTool, err)
		return xtaskCreated{}, &f
	}
	obj, ok := resp.ResultObject()
	if !ok {
		f := conform.CannotTest("tools/call of %q declaring the tasks extension was not answered with a result: %s", t.Options().SlowTool, show(resp))
		return xtaskCreated{}, &f
	}
	if rt, _ := jsonString(obj["resultType"]); rt != "task" {
		f := conform.CannotTest("the slow tool %q, called declaring the tasks extension, created no task (resultType %q): the server decides per request; name a tool it runs as a task with --slow-tool", t.Options().SlowTool, rt)
		return xtaskCreated{}, &f
	}
	id, _ := jsonString(obj["taskId"])
	return xtaskCreated{resp: resp, obj: obj, id: id}, nil
}

// createdXTask is createXTask for checks that need the task's id (TASKX-CREATE judges its shape).
func createdXTask(t *conform.T) (xtaskCreated, *conform.Finding) {
	x, f := createXTask(t)
	if f == nil && x.id == "" {
		g := conform.CannotTest("the CreateTaskResult has no string taskId (judged by TASKX-CREATE): %s", show(x.resp))
		return x, &g
	}
	return x, f
}

// taskxPoll is what polling a task saw.
type taskxPoll struct {
	last   map[string]json.RawMessage
	resp   jsonrpc.Message
	polls  int
	status string
}

// pollXTask polls tasks/get for id at the task's pollIntervalMs until until(status) holds or the
// request timeout has passed; judge looks at every result. A finding ends the check.
func pollXTask(t *conform.T, id string, until func(status string) bool, judge func(obj map[string]json.RawMessage, resp jsonrpc.Message) *conform.Finding) (taskxPoll, *conform.Finding) {
	deadline := time.Now().Add(t.S.Env().Timeouts.Request)
	var p taskxPoll
	for {
		resp, _, err := taskxRequest(t, "tasks/get", map[string]any{"taskId": id}, taskxCaps(false), nil)
		p.polls++
		if err != nil {
			f := conform.Crashed("tasks/get of %s got no reply: %v", id, err)
			return p, &f
		}
		obj, ok := resp.ResultObject()
		if !ok {
			f := conform.Violated("tasks/get of the task %s, which the server created, was not answered with a result: %s", id, show(resp))
			return p, &f
		}
		if judge != nil {
			if f := judge(obj, resp); f != nil {
				return p, f
			}
		}
		p.last, p.resp = obj, resp
		p.status, _ = jsonString(obj["status"])
		if until(p.status) {
			return p, nil
		}
		if time.Now().After(deadline) {
			f := conform.CannotTest("the task %s was still %q after %d polls over %s", id, p.status, p.polls, t.S.Env().Timeouts.Request)
			return p, &f
		}
		if f := taskxWait(t, obj); f != nil {
			return p, f
		}
	}
}

// taskxWait waits the poll interval the task suggests (pollIntervalMs, kept within 10 ms … 1 s;
// 100 ms when it suggests none), or until the check's deadline.
func taskxWait(t *conform.T, obj map[string]json.RawMessage) *conform.Finding {
	interval := 100 * time.Millisecond
	var ms float64
	if json.Unmarshal(obj["pollIntervalMs"], &ms) == nil && ms >= 0 {
		interval = min(max(time.Duration(ms)*time.Millisecond, 10*time.Millisecond), time.Second)
	}
	timer := time.NewTimer(interval)
	defer timer.Stop()
	select {
	case <-t.Ctx.Done():
		f := conform.Failed(fmt.Errorf("the check's deadline passed while polling a task: %w", t.Ctx.Err()))
		return &f
	case <-timer.C:
		return nil
	}
}

// missingCapability says what is wrong with resp as the -32021 refusal naming the extension, or "".
func missingCapability(resp jsonrpc.Message) string {
	if ok, why := expectError(resp, codeMissingClientCap); !ok {
		return why
	}
	e, _ := resp.ErrorObject()
	if !strings.Contains(string(e.Data), tasksExtension) {
		return "the -32021 error's data does not name " + tasksExtension + " in requiredCapabilities: " + show(resp)
	}
	return ""
}

// taskProblem says what is wrong with obj as a Task of id ("" for any id), or "".
func taskProblem(obj map[string]json.RawMessage, id string) string {
	got, ok := jsonString(obj["taskId"])
	switch {
	case !ok || got == "":
		return "has no string taskId"
	case id != "" && got != id:
		return fmt.Sprintf("has taskId %q, not %q", got, id)
	}
	status, _ := jsonString(obj["status"])
	if !slices.Contains(taskxStatuses, status) {
		return fmt.Sprintf("has status %q, none of %v", status, taskxStatuses)
	}
	for _, field := range []string{"createdAt", "lastUpdatedAt"} {
		s, ok := jsonString(obj[field])
		if !ok {
			return "has no string " + field
		}
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return fmt.Sprintf("has %s %q, not an ISO 8601 date-time", field, s)
		}
	}
	raw, ok := obj["ttlMs"]
	if !ok {
		return "has no ttlMs (an integer number of milliseconds, or null)"
	}
	if string(raw) != "null" && !isNonNegativeInteger(raw) {
		return "has ttlMs " + string(raw) + ", neither a non-negative integer nor null"
	}
	if raw, ok := obj["pollIntervalMs"]; ok && !isNonNegativeInteger(raw) {
		return "has pollIntervalMs " + string(raw) + ", not a non-negative integer"
	}
	for _, v1 := range []string{"ttl", "pollInterval", "requestState"} {
		if _, ok := obj[v1]; ok {
			return "carries " + v1 + ", which the extension does not define (2025-11-25 tasks and multi round-trip requests do)"
		}
	}
	return ""
}

func isNonNegativeInteger(raw json.RawMessage) bool {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	i, err := n.Int64()
	return err == nil && i >= 0
}

// detailedProblem says what is wrong with obj as a DetailedTask: the Task and what its status
// inlines.
func detailedProblem(obj map[string]json.RawMessage, id string) string {
	if why := taskProblem(obj, id); why != "" {
		return why
	}
	status, _ := jsonString(obj["status"])
	isObject := func(field string) bool { return jsonObject(obj[field]) }
	switch {
	case status == "input_required" && !nonEmptyObject(obj["inputRequests"]):
		return "is input_required without a non-empty inputRequests object"
	case status == "completed" && !isObject("result"):
		return "is completed without a result object"
	case status == "failed" && !isObject("error"):
		return "is failed without an error object"
	}
	return ""
}

func jsonObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return raw != nil && json.Unmarshal(raw, &m) == nil && m != nil
}

func nonEmptyObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && len(m) > 0
}

// emptyAck says what is wrong with resp as an empty acknowledgement (resultType "complete",
// nothing else but _meta), or "".
func emptyAck(resp jsonrpc.Message) string {
	obj, ok := resp.ResultObject()
	if !ok {
		return "was not answered with a result: " + show(resp)
	}
	if rt, _ := jsonString(obj["resultType"]); rt != "complete" {
		return fmt.Sprintf("was acknowledged with resultType %q, not \"complete\": %s", rt, show(resp))
	}
	var extra []string
	for k := range obj {
		if k != "resultType" && k != "_meta" {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Sprintf("was acknowledged with %v, where the result is an empty acknowledgement: %s", extra, show(resp))
	}
	return ""
}

func checkTaskXCap(t *conform.T) conform.Finding {
	if _, f := extSettings(t, tasksExtension); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkTaskXUndeclaredNoTask(t *conform.T) conform.Finding {
	resp, _, err := taskxRequest(t, "tools/call", taskxSlowParams(t), nil, nil)
	if err != nil {
		return conform.Crashed("tools/call of %q declaring no extension got no reply: %v", t.Options().SlowTool, err)
	}
	if resp.HasError {
		if code, _ := errorCode(resp); code == codeMissingClientCap {
			if why := missingCapability(resp); why != "" {
				return conform.Violated("tools/call declaring no extension: %s", why)
			}
			return conform.Passed("refused with -32021 naming the tasks extension")
		}
		return conform.Passed("answered with an error, not a task: %s", show(resp))
	}
	obj, _ := resp.ResultObject()
	if rt, _ := jsonString(obj["resultType"]); rt == "task" {
		return conform.Violated("tools/call of %q, whose request declares no extension, was answered with a CreateTaskResult: %s", t.Options().SlowTool, show(resp))
	}
	if _, ok := obj["taskId"]; ok {
		return conform.Violated("tools/call of %q, whose request declares no extension, was answered with a task's taskId: %s", t.Options().SlowTool, show(resp))
	}
	return conform.Passed("")
}

func checkTaskXUndeclaredMethods(t *conform.T) conform.Finding {
	x, f := createdXTask(t)
	if f != nil {
		return *f
	}
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/get", map[string]any{"taskId": x.id}},
		{"tasks/update", map[string]any{"taskId": x.id, "inputResponses": map[string]any{}}},
		{"tasks/cancel", map[string]any{"taskId": x.id}},
	} {
		resp, _, err := taskxRequest(t, m.method, m.params, nil, nil)
		if err != nil {
			return conform.Crashed("%s declaring no extension got no reply: %v", m.method, err)
		}
		if why := missingCapability(resp); why != "" {
			return conform.Violated("%s of the task %s, from a request that declares no extension: %s", m.method, x.id, why)
		}
	}
	return conform.Passed("")
}

func checkTaskXCreate(t *conform.T) conform.Finding {
	x, f := createXTask(t)
	if f != nil {
		return *f
	}
	if _, nested := x.obj["task"]; nested {
		return conform.Violated("the CreateTaskResult nests the Task under task (the 2025-11-25 shape) instead of carrying its fields at the top level: %s", show(x.resp))
	}
	if why := taskProblem(x.obj, ""); why != "" {
		return conform.Violated("the CreateTaskResult %s: %s", why, show(x.resp))
	}
	return conform.Passed("")
}

func checkTaskXDurable(t *conform.T) conform.Finding {
	x, f := createdXTask(t)
	if f != nil {
		return *f
	}
	resp, _, err := taskxRequest(t, "tasks/get", map[string]any{"taskId": x.id}, taskxCaps(false), nil)
	if err != nil {
		return conform.Crashed("tasks/get right after the CreateTaskResult got no reply: %v", err)
	}
	if !resp.HasResult {
		return conform.Violated("tasks/get sent as soon as the CreateTaskResult of %s arrived did not find the task: %s", x.id, show(resp))
	}
	return conform.Passed("")
}

func checkTaskXGet(t *conform.T) conform.Finding {
	x, f := createdXTask(t)
	if f != nil {
		return *f
	}
	judge := func(obj map[string]json.RawMessage, resp jsonrpc.Message) *conform.Finding {
		if rt, _ := jsonString(obj["resultType"]); rt != "complete" {
			f := conform.Violated("tasks/get has resultType %q, not \"complete\": %s", rt, show(resp))
			return &f
		}
		if why := detailedProblem(obj, x.id); why != "" {
			f := conform.Violated("the task tasks/get returned %s: %s", why, show(resp))
			return &f
		}
		return nil
	}
	p, f := pollXTask(t, x.id, taskxTerminal, judge)
	if f != nil {
		return *f
	}
	return conform.Passed("the task reached %s after %d polls", p.status, p.polls)
}

// unknownTaskID is a task id no server issued.
func unknownTaskID(t *conform.T) string {
	return "mcpspec-unknown-task-" + strings.NewReplacer(":", "-", "\"", "").Replace(t.S.NextID().Text())
}

func checkTaskXGetUnknown(t *conform.T) conform.Finding {
	resp, _, err := taskxRequest(t, "tasks/get", map[string]any{"taskId": unknownTaskID(t)}, taskxCaps(false), nil)
	if err != nil {
		return conform.Crashed("tasks/get of an unknown task got no reply: %v", err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("tasks/get of a taskId the server never issued: %s", why)
	}
	return conform.Passed("")
}

func checkTaskXUnknownUpdateCancel(t *conform.T) conform.Finding {
	id := unknownTaskID(t)
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}},
		{"tasks/cancel", map[string]any{"taskId": id}},
	} {
		resp, _, err := taskxRequest(t, m.method, m.params, taskxCaps(false), nil)
		if err != nil {
			return conform.Crashed("%s of an unknown task got no reply: %v", m.method, err)
		}
		if !resp.HasError {
			return conform.Violated("%s of a taskId the server never issued was not refused: %s", m.method, show(resp))
		}
	}
	return conform.Passed("")
}

func checkTaskXUpdateIgnore(t *conform.T) conform.Finding {
	x, f := createdXTask(t)
	if f != nil {
		return *f
	}
	answers := map[string]any{"mcpspec-never-asked": map[string]any{"action": "decline"}}
	resp, _, err := taskxRequest(t, "tasks/update", map[string]any{"taskId": x.id, "inputResponses": answers}, taskxCaps(false), nil)
	if err != nil {
		return conform.Crashed("tasks/update got no reply: %v", err)
	}
	if why := emptyAck(resp); why != "" {
		return conform.Violated("tasks/update of the task %s answering a key it never asked for %s", x.id, why)
	}
	return conform.Passed("")
}

func checkTaskXCancel(t *conform.T) conform.Finding {
	x, f := createdXTask(t)
	if f != nil {
		return *f
	}
	resp, _, err := taskxRequest(t, "tasks/cancel", map[string]any{"taskId": x.id}, taskxCaps(false), nil)
	if err != nil {
		return conform.Crashed("tasks/cancel got no reply: %v", err)
	}
	if why := emptyAck(resp); why != "" {
		return conform.Violated("tasks/cancel of the task %s %s", x.id, why)
	}
	return conform.Passed("")
}

// createInputTask calls the input tool declaring the extension and every input capability,
// answering input asked before a task is created, and returns the task's id.
func createInputTask(t *conform.T) (string, *conform.Finding) {
	args := inputArgs(t)
	extra := map[string]any{}
	for round := 0; round <= inputRounds; round++ {
		resp, _, err := callInputTool(t, taskxCaps(true), args, extra)
		if err != nil {
			f := conform.Crashed("the input tool %q got no reply: %v", t.Options().InputTool, err)
			return "", &f
		}
		if ir, ok := asInputRequired(resp); ok {
			extra = map[string]any{"inputResponses": ir.answers()}
			if st := ir.stateOf(); st != nil {
				extra["requestState"] = *st
			}
			continue
		}
		obj, _ := resp.ResultObject()
		id, _ := jsonString(obj["taskId"])
		if rt, _ := jsonString(obj["resultType"]); rt != "task" || id == "" {
			f := conform.CannotTest("the input tool %q, called declaring the tasks extension, created no task: %s", t.Options().InputTool, show(resp))
			return "", &f
		}
		return id, nil
	}
	f := conform.CannotTest("the input tool %q asked for input more than %d times before creating a task", t.Options().InputTool, inputRounds)
	return "", &f
}

func checkTaskXInput(t *conform.T) conform.Finding {
	id, f := createInputTask(t)
	if f != nil {
		return *f
	}
	p, f := pollXTask(t, id, func(s string) bool { return s == "input_required" || taskxTerminal(s) }, nil)
	if f != nil {
		return *f
	}
	if p.status != "input_required" {
		return conform.CannotTest("the input tool's task %s ended (%s) without asking for input", id, p.status)
	}
	ir := inputRequired{resp: p.resp, obj: p.last}
	if json.Unmarshal(p.last["inputRequests"], &ir.requests) != nil || len(ir.requests) == 0 {
		return conform.Violated("tasks/get of the task %s has status input_required without its inputRequests: %s", id, show(p.resp))
	}
	resp, _, err := taskxRequest(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": ir.answers()}, taskxCaps(false), nil)
	if err != nil {
		return conform.Crashed("tasks/update got no reply: %v", err)
	}
	if why := emptyAck(resp); why != "" {
		return conform.Violated("tasks/update answering %v %s", ir.methods(), why)
	}
	p, f = pollXTask(t, id, taskxTerminal, nil)
	if f != nil {
		return *f
	}
	return conform.Passed("answered %v; the task then reached %s", ir.methods(), p.status)
}

func checkTaskXListen(t *conform.T) conform.Finding {
	x, f := createdXTask(t)
	if f != nil {
		return *f
	}
	id := t.S.NextID()
	params := map[string]any{"notifications": map[string]any{"taskIds": []string{x.id}},
		"_meta": statelessMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: taskxCaps(false)})}
	l, err := openListenWith(t, t.S, id, params)
	if err != nil {
		return conform.Crashed("%v", err)
	}
	first, f := l.start(t)
	if f != nil {
		if methodNotFound(first) {
			return conform.NA("the server serves no subscriptions/listen (-32601): task notifications are a MAY of the extension: %s", show(first))
		}
		return *f
	}
	if first.Method != methodAcknowledged {
		return conform.CannotTest("the listen stream did not start with its acknowledgment (judged by SUB-ACK-FIRST): %s", show(first))
	}
	var ack struct {
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	}
	_ = json.Unmarshal(first.Params, &ack)
	if !slices.Contains(ack.Notifications.TaskIDs, x.id) {
		return conform.NA("the server agreed to send no notifications for the task (its acknowledgment lists taskIds %v): task notifications are a MAY", ack.Notifications.TaskIDs)
	}
	var bad *conform.Finding
	_, err = t.S.WaitFor(t.Ctx, l.d, l.from, func(r wire.Received) bool {
		if !l.owns(r) || r.Msg.Kind != jsonrpc.Notification {
			return false
		}
		switch r.Msg.Method {
		case "notifications/progress", "notifications/message":
			f := conform.Violated("%s came on the listen stream for task %s: %s", r.Msg.Method, x.id, show(r.Msg))
			bad = &f
			return true
		case "notifications/tasks":
		default:
			return false
		}
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(r.Msg.Params, &obj)
		delete(obj, "_meta")
		if why := detailedProblem(obj, x.id); why != "" {
			f := conform.Violated("notifications/tasks is not the whole task tasks/get would return: it %s: %s", why, show(r.Msg))
			bad = &f
			return true
		}
		status, _ := jsonString(obj["status"])
		return taskxTerminal(status)
	})
	if bad != nil {
		return *bad
	}
	if err != nil {
		return conform.CannotTest("no notifications/tasks with a terminal status came for the task %s: %v", x.id, err)
	}
	return conform.Passed("")
}

func checkTaskXListenUndeclared(t *conform.T) conform.Finding {
	id := t.S.NextID()
	params := map[string]any{"notifications": map[string]any{"taskIds": []string{unknownTaskID(t)}},
		"_meta": statelessMeta(t.Revision, nil)}
	l, err := openListenWith(t, t.S, id, params)
	if err != nil {
		return conform.Crashed("%v", err)
	}
	first, f := l.start(t)
	if f != nil && !first.HasError {
		return *f
	}
	if resp, ok := wire.FindResponse(first, id); ok {
		why := missingCapability(resp)
		if why == "" {
			return conform.Passed("")
		}
		if methodNotFound(resp) {
			if f, ok := taskxListenNotServed(t); ok {
				return f
			}
		}
		return conform.Violated("subscriptions/listen for task ids, declaring no extension: %s", why)
	}
	cancelListen(t, l)
	return conform.Violated("subscriptions/listen for task ids, declaring no extension, was served instead of refused with -32021: %s", show(first))
}

// taskxListenNotServed asks for the same task notifications declaring the extension: a server
// that answers -32601 to that too serves no subscriptions/listen at all, and task notifications
// are a MAY of the extension, so its -32021 rule has nothing to bind (ok true, the finding na).
func taskxListenNotServed(t *conform.T) (conform.Finding, bool) {
	id := t.S.NextID()
	params := map[string]any{"notifications": map[string]any{"taskIds": []string{unknownTaskID(t)}},
		"_meta": statelessMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: taskxCaps(false)})}
	l, err := openListenWith(t, t.S, id, params)
	if err != nil {
		return conform.Finding{}, false
	}
	first, _ := l.start(t)
	resp, ok := wire.FindResponse(first, id)
	if !ok || !methodNotFound(resp) {
		cancelListen(t, l)
		return conform.Finding{}, false
	}
	return conform.NA("the server serves no subscriptions/listen (-32601 with the tasks extension declared too): task notifications are a MAY, so there are none to refuse"), true
}

// cancelListen ends a listen the check opened (over HTTP the stream closes with the check).
func cancelListen(t *conform.T, l *listen) {
	if _, ok := t.S.Conn.(*streamhttp.Conn); ok {
		return
	}
	_, _ = t.S.Send(t.Ctx, rawNotification("notifications/cancelled", t.S.StatelessParams(map[string]any{"requestId": l.id.JSON(), "reason": "mcpspec: done"})))
}

func checkTaskXV1Removed(t *conform.T) conform.Finding {
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/list", map[string]any{}},
		{"tasks/result", map[string]any{"taskId": unknownTaskID(t)}},
	} {
		resp, _, err := taskxRequest(t, m.method, m.params, taskxCaps(false), nil)
		if err != nil {
			return conform.Crashed("%s got no reply: %v", m.method, err)
		}
		if ok, why := expectError(resp, codeMethodNotFound); !ok {
			return conform.Violated("%s, a 2025-11-25 method the extension does not have: %s", m.method, why)
		}
	}
	return conform.Passed("")
}

func checkTaskXNameHeader(t *conform.T) conform.Finding {
	x, f := createdXTask(t)
	if f != nil {
		return *f
	}
	params := map[string]any{"taskId": x.id}
	resp, d, err := taskxRequest(t, "tasks/get", params, taskxCaps(false), http.Header{streamhttp.HeaderName: {"mcpspec-not-" + x.id}})
	if err != nil && (d == nil || d.Status == 0) {
		return conform.Crashed("tasks/get with a different Mcp-Name got no reply: %v", err)
	}
	if ok, why := expectError(resp, codeHeaderMismatch); !ok {
		return conform.Violated("tasks/get whose Mcp-Name differs from params.taskId: %s", why)
	}
	if d != nil && d.Status != http.StatusBadRequest {
		return conform.Violated("tasks/get whose Mcp-Name differs from params.taskId was refused with HTTP %d, want 400", d.Status)
	}
	resp, _, err = taskxRequest(t, "tasks/get", params, taskxCaps(false), nil)
	if err != nil || !resp.HasResult {
		return conform.Violated("tasks/get with Mcp-Name equal to params.taskId was not served: %v %s", err, show(resp))
	}
	return conform.Passed("")
}

// badSlowArgs are the slow tool's arguments with one of its typed inputSchema properties given
// a value of another type (a number's a string, a string's a number), and that property; ok is
// false when the schema types none of them.
func badSlowArgs(t *conform.T) (args map[string]any, prop string, ok bool) {
	defs, err := listTools(t)
	if err != nil {
		return nil, "", false
	}
	for _, d := range defs {
		if d.name != t.Options().SlowTool {
			continue
		}
		var schema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(d.obj["inputSchema"], &schema)
		args = taskxSlowParams(t)["arguments"].(map[string]any)
		for _, want := range []string{"integer", "number", "boolean", "string"} {
			for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
				if schema.Properties[name].Type != want {
					continue
				}
				args[name] = "mcpspec-not-a-number"
				if want == "string" {
					args[name] = 12345
				}
				return args, name, true
			}
		}
	}
	return nil, "", false
}

func checkTaskXToolError(t *conform.T) conform.Finding {
	args, prop, ok := badSlowArgs(t)
	if !ok {
		return conform.CannotTest("the slow tool %q is not listed with a typed property in its inputSchema, so no argument can be made invalid", t.Options().SlowTool)
	}
	params := map[string]any{"name": t.Options().SlowTool, "arguments": args}
	resp, _, err := taskxRequest(t, "tools/call", params, taskxCaps(false), nil)
	if err != nil {
		return conform.Crashed("tools/call of %q with an invalid %s got no reply: %v", t.Options().SlowTool, prop, err)
	}
	obj, ok := resp.ResultObject()
	if !ok {
		return conform.CannotTest("tools/call of %q with an invalid %s was refused before any task was created (TOOL-INVALID-ARGS judges that): %s", t.Options().SlowTool, prop, show(resp))
	}
	if rt, _ := jsonString(obj["resultType"]); rt != "task" {
		return conform.CannotTest("tools/call of %q with an invalid %s was answered without a task (resultType %q)", t.Options().SlowTool, prop, rt)
	}
	id, _ := jsonString(obj["taskId"])
	if id == "" {
		return conform.CannotTest("the CreateTaskResult has no string taskId (judged by TASKX-CREATE): %s", show(resp))
	}
	p, f := pollXTask(t, id, taskxTerminal, nil)
	if f != nil {
		return *f
	}
	var result struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(p.last["result"], &result)
	switch {
	case p.status == "failed":
		return conform.Violated("the task of %q given an invalid %s, a tool execution error, ended failed, the status of protocol errors; it must end completed with isError: %s", t.Options().SlowTool, prop, show(p.resp))
	case p.status == "completed" && !result.IsError:
		return conform.CannotTest("the task of %q given an invalid %s completed without isError: the server took the argument, so no tool error came: %s", t.Options().SlowTool, prop, show(p.resp))
	case p.status != "completed":
		return conform.CannotTest("the task of %q given an invalid %s ended %s", t.Options().SlowTool, prop, p.status)
	}
	return conform.Passed("an invalid %s ended the task completed with isError", prop)
}
