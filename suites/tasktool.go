package suites

import (
	"encoding/json"
	"slices"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: picking a task-capable tool and creating tasks.

// taskTTL is the retention mcpspec asks for (ms).
const taskTTL = 60000

// The tasks checks run over stdio and Streamable HTTP: tasks came after the legacy HTTP+SSE transport.
var taskTransports = []string{wire.Stdio, wire.HTTP}

// taskCaps is the server's capabilities.tasks, nil when it declares none.
func taskCaps(s *harness.Session) map[string]json.RawMessage {
	var caps struct {
		Tasks map[string]json.RawMessage `json:"tasks"`
	}
	_ = json.Unmarshal(s.InitResult()["capabilities"], &caps)
	return caps.Tasks
}

// taskCallsDeclared reports whether capabilities.tasks.requests.tools.call is declared.
func taskCallsDeclared(s *harness.Session) bool {
	var req struct {
		Tools map[string]json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(taskCaps(s)["requests"], &req)
	_, ok := req.Tools["call"]
	return ok
}

func taskCallsReady(t *conform.T) (conform.Finding, bool) {
	if !taskCallsDeclared(t.S) {
		return conform.NA("the server does not declare tasks.requests.tools.call"), true
	}
	return conform.Finding{}, false
}

// taskToolReady is taskCallsReady for a check whose Run starts by picking a task tool
// (pickTaskTool): where the server lists none, the check ends at Ready, so that one with a
// session of its own (Waits) does not open it for nothing.
func taskToolReady(t *conform.T) (conform.Finding, bool) {
	if f, done := taskCallsReady(t); done {
		return f, true
	}
	if _, f := pickTaskTool(t); f != nil {
		return *f, true
	}
	return conform.Finding{}, false
}

// listedTool is a tool of tools/list as far as tasks care.
type listedTool struct {
	Name        string `json:"name"`
	InputSchema struct {
		Required []string `json:"required"`
	} `json:"inputSchema"`
	Annotations struct {
		ReadOnly bool `json:"readOnlyHint"`
	} `json:"annotations"`
	Execution struct {
		TaskSupport string `json:"taskSupport"`
	} `json:"execution"`
}

// taskToolList lists the server's tools (all pages).
func taskToolList(t *conform.T) ([]listedTool, error) {
	w, err := askedList(t, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	out := make([]listedTool, 0, len(w.items))
	for _, it := range w.items {
		var lt listedTool
		if json.Unmarshal(it, &lt) == nil {
			out = append(out, lt)
		}
	}
	return out, nil
}

// taskTarget is a tool to call as a task, with its arguments.
type taskTarget struct {
	name    string
	args    json.RawMessage
	support string
}

// pickTaskTool chooses a tool that supports tasks: the slow tool when it does (its arguments
// make it take a while), else the first tool without required arguments that does.
func pickTaskTool(t *conform.T) (taskTarget, *conform.Finding) {
	list, err := taskToolList(t)
	if err != nil {
		f := conform.CannotTest("tools/list: %v", err)
		return taskTarget{}, &f
	}
	supports := func(lt listedTool) bool {
		return slices.Contains([]string{"optional", "required"}, lt.Execution.TaskSupport)
	}
	for _, lt := range list {
		if lt.Name == t.Options().SlowTool && supports(lt) {
			return taskTarget{lt.Name, t.Options().SlowToolArgs, lt.Execution.TaskSupport}, nil
		}
	}
	for _, lt := range list {
		if supports(lt) && len(lt.InputSchema.Required) == 0 {
			return taskTarget{lt.Name, json.RawMessage(`{}`), lt.Execution.TaskSupport}, nil
		}
	}
	f := conform.CannotTest("no listed tool supports tasks (execution.taskSupport optional or required) without required arguments")
	return taskTarget{}, &f
}

// callParams are tools/call params for tt, task-augmented when task, with a progress token
// unless token is "".
func callParams(tt taskTarget, task bool, token jsonrpc.ID) map[string]any {
	p := map[string]any{"name": tt.name}
	if len(tt.args) > 0 {
		p["arguments"] = tt.args
	}
	if task {
		p["task"] = map[string]any{"ttl": taskTTL}
	}
	if token != "" {
		p["_meta"] = map[string]any{"progressToken": token.JSON()}
	}
	return p
}

// callTool sends tools/call without registering its method with the session: a
// CreateTaskResult is no CallToolResult, and is judged here rather than by the schema.
func callTool(t *conform.T, params map[string]any) (jsonrpc.Message, error) {
	id := t.S.NextID()
	return t.S.Exchange(t.Ctx, id, rawRequest(id, "tools/call", params))
}

// createdTask is what a CreateTaskResult said.
type createdTask struct {
	resp jsonrpc.Message
	task map[string]json.RawMessage
	id   string
}

// createTask calls tt as a task and reads the CreateTaskResult; a finding ends the check.
func createTask(t *conform.T, tt taskTarget, token jsonrpc.ID) (createdTask, *conform.Finding) {
	resp, err := callTool(t, callParams(tt, true, token))
	if err != nil {
		f := conform.Crashed("a task-augmented tools/call of %q got no response: %v", tt.name, err)
		return createdTask{}, &f
	}
	obj, ok := resp.ResultObject()
	var task map[string]json.RawMessage
	if !ok || json.Unmarshal(obj["task"], &task) != nil || task == nil {
		f := conform.Violated("a task-augmented tools/call of %q was not answered with a CreateTaskResult: %s", tt.name, show(resp))
		return createdTask{}, &f
	}
	id, ok := jsonString(task["taskId"])
	if !ok {
		f := conform.Violated("the CreateTaskResult's taskId is not a string: %s", show(resp))
		return createdTask{}, &f
	}
	return createdTask{resp, task, id}, nil
}
