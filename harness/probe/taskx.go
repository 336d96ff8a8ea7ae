package probe

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/record"
)

// The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) from the client's side. The
// official suite has no client scenario of it, hence mcpspec's names.
const (
	// ScenarioTasksExtension: the probe declares the extension in server/discover and lists
	// probe_taskx and probe_taskx_stuck. A tools/call of either whose _meta declares the
	// extension is answered with a CreateTaskResult (resultType "task", pollIntervalMs); any
	// other call gets a plain CallToolResult, as the extension asks. probe_taskx's task is
	// working for two polls, then, when the call declared elicitation, input_required with one
	// elicitation/create in inputRequests until a tasks/update answers it, working for two
	// polls again, and completed. probe_taskx_stuck's task stays working until the probe's answer
	// wait has passed (then it completes); its ttlMs is short, the backstop after which a client
	// may give it up (with tasks/cancel).
	ScenarioTasksExtension = "tasks-extension"
	// ScenarioTasksUndeclared: the same tools, but the probe does not declare the extension:
	// every call gets a plain result, and tasks/* are unknown methods. A client must not use
	// the extension.
	ScenarioTasksUndeclared = "tasks-extension-undeclared"
)

// TasksExtension is the tasks extension's identifier.
const TasksExtension = "io.modelcontextprotocol/tasks"

// The scenarios' tools and the tasks' timing.
const (
	ToolTaskX      = "probe_taskx"       // its task completes after a few polls (and one input)
	ToolTaskXStuck = "probe_taskx_stuck" // its task does not finish within its ttlMs
	// TaskXPollMs is every task's pollIntervalMs: short, so that a client honouring it ends
	// the scenario in about a second.
	TaskXPollMs = 200
	// TaskXStuckTTLMs is the stuck task's ttlMs.
	TaskXStuckTTLMs = 1000
	// TaskXInputKey is the inputRequests key of probe_taskx's elicitation.
	TaskXInputKey = "confirm"
	// taskXPollsPerStep: polls a task stays working before it moves on.
	taskXPollsPerStep = 2
)

// IsTasksX reports whether a scenario is one of the tasks extension's.
func IsTasksX(scenario string) bool {
	return scenario == ScenarioTasksExtension || scenario == ScenarioTasksUndeclared
}

// xTask is one task of the tasks-extension scenario.
type xTask struct {
	id       string
	tool     string
	status   string
	created  time.Time
	lastAns  time.Time // when the probe last told the client the task's state
	polls    int       // tasks/get answered since the last change
	elicit   bool      // the creating call declared elicitation: the task asks for input once
	asked    bool      // the input was asked
	answered bool      // ... and answered by tasks/update
	ttlMs    int
	endBy    time.Time // the stuck task completes then, uncancelled: no client polls forever
}

func taskXTools() []map[string]any {
	noArgs := map[string]any{"type": "object", "properties": map[string]any{}}
	return []map[string]any{
		{"name": ToolTaskX, "description": "Does its work as a task when the client takes tasks (io.modelcontextprotocol/tasks), else at once.", "inputSchema": noArgs},
		{"name": ToolTaskXStuck, "description": "Does its work as a task that never finishes when the client takes tasks, else at once.", "inputSchema": noArgs},
		{"name": ToolEcho, "description": "Answers with its text argument.", "inputSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"text": map[string]any{"type": "string", "default": EchoDefault}},
		}},
	}
}

// interceptTasksX answers what the tasks scenarios serve; ok is false for anything else (the
// tools list, initialize: handleStateless's).
func (s *server) interceptTasksX(m message) (resp []byte, ok bool) {
	if m.Method == "notifications/cancelled" {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		key := canonicalID(p.RequestID)
		s.rec.note(record.Event{Kind: record.EvCancelled, RequestID: key}, "cancelled by the client: "+key)
		return nil, true
	}
	if !m.isRequest() || !s.script.Stateless() {
		return nil, false
	}
	declared := s.script.Scenario == ScenarioTasksExtension
	switch m.Method {
	case "server/discover":
		caps := map[string]any{"tools": map[string]any{}}
		if declared {
			caps["extensions"] = map[string]any{TasksExtension: map[string]any{}}
		}
		return result(m.ID, map[string]any{
			"resultType": "complete", "supportedVersions": []string{s.script.Revision},
			"capabilities": caps, "ttlMs": 0, "cacheScope": "public", "_meta": serverMeta(),
		}), true
	case "tools/call":
		var p struct {
			Name string `json:"name"`
			Meta struct {
				Caps struct {
					Elicitation json.RawMessage            `json:"elicitation"`
					Extensions  map[string]json.RawMessage `json:"extensions"`
				} `json:"io.modelcontextprotocol/clientCapabilities"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Name != ToolTaskX && p.Name != ToolTaskXStuck {
			return nil, false
		}
		_, optIn := p.Meta.Caps.Extensions[TasksExtension]
		if !declared || !optIn {
			res := textResult(p.Name + " done at once: no task (the client did not take tasks on this request)")
			res["resultType"], res["_meta"] = "complete", serverMeta()
			return result(m.ID, res), true
		}
		return s.createTaskX(m.ID, p.Name, p.Meta.Caps.Elicitation != nil), true
	case "tasks/get", "tasks/update", "tasks/cancel":
		if !declared {
			return nil, false // an unknown method here: handleStateless's -32601
		}
		return s.taskXRequest(m), true
	}
	return nil, false
}

// createTaskX makes a task for a call and answers with its CreateTaskResult.
func (s *server) createTaskX(id json.RawMessage, tool string, elicit bool) []byte {
	now := time.Now()
	t := &xTask{id: newSessionID(), tool: tool, status: "working", created: now, lastAns: now, elicit: elicit, ttlMs: 60000}
	if tool == ToolTaskXStuck {
		t.ttlMs, t.endBy = TaskXStuckTTLMs, now.Add(s.script.AnswerWait)
	}
	s.mu.Lock()
	if s.xTasks == nil {
		s.xTasks = map[string]*xTask{}
	}
	s.xTasks[t.id] = t
	res := t.json()
	s.mu.Unlock()
	res["resultType"] = "task"
	s.rec.note(record.Event{Kind: record.EvTaskCreated, TaskID: t.id, RequestID: canonicalID(id), PollMs: TaskXPollMs},
		fmt.Sprintf("task created: %s for request %s (%s), pollIntervalMs %d", t.id, canonicalID(id), tool, TaskXPollMs))
	return result(id, res)
}

// json is the task as the probe tells it (the lock held).
func (t *xTask) json() map[string]any {
	at := t.created.UTC().Format(time.RFC3339Nano)
	out := map[string]any{"taskId": t.id, "status": t.status, "createdAt": at, "lastUpdatedAt": at,
		"ttlMs": t.ttlMs, "pollIntervalMs": TaskXPollMs, "_meta": serverMeta()}
	switch t.status {
	case "input_required":
		out["inputRequests"] = map[string]any{TaskXInputKey: map[string]any{"method": "elicitation/create", "params": map[string]any{
			"mode": "form", "message": "Confirm that the task may go on.",
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "description": "Whether to go on", "default": true}}}}}}
	case "completed":
		out["result"] = textResult(t.tool + " completed")
	}
	return out
}

// advance moves a polled task on (the lock held).
func (t *xTask) advance(now time.Time) {
	if t.status != "working" {
		return
	}
	if t.tool == ToolTaskXStuck {
		if now.After(t.endBy) {
			t.status = "completed"
		}
		return
	}
	t.polls++
	if t.polls < taskXPollsPerStep {
		return
	}
	t.polls = 0
	if t.elicit && !t.asked {
		t.status, t.asked = "input_required", true
		return
	}
	t.status = "completed"
}

func (s *server) taskXRequest(m message) []byte {
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	_ = json.Unmarshal(m.Params, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.xTasks[p.TaskID]
	if t == nil {
		return errorResponse(m.ID, -32602, fmt.Sprintf("Failed to retrieve task: no task %q", p.TaskID))
	}
	ack := map[string]any{"resultType": "complete", "_meta": serverMeta()}
	switch m.Method {
	case "tasks/get":
		now := time.Now()
		since := now.Sub(t.lastAns).Milliseconds()
		t.advance(now)
		t.lastAns = now
		res := t.json()
		res["resultType"] = "complete"
		ev := record.Event{Kind: record.EvTaskPolled, TaskID: t.id, PollMs: TaskXPollMs, SinceMs: since, TaskStatus: t.status}
		if t.status == "input_required" {
			ev.Keys = []string{TaskXInputKey}
		}
		s.rec.note(ev, fmt.Sprintf("tasks/get %s %dms after the probe's last word on it (pollIntervalMs %d): %s", t.id, since, TaskXPollMs, t.status))
		return result(m.ID, res)
	case "tasks/update":
		keys := make([]string, 0, len(p.InputResponses))
		for k := range p.InputResponses {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s.rec.note(record.Event{Kind: record.EvTaskUpdated, TaskID: t.id, Keys: keys}, fmt.Sprintf("tasks/update %s answers %v", t.id, keys))
		if t.status == "input_required" && slices.Contains(keys, TaskXInputKey) {
			t.status, t.polls = "working", 0
		}
	case "tasks/cancel":
		if t.status == "working" || t.status == "input_required" {
			t.status = "cancelled"
		}
		s.rec.note(record.Event{Kind: record.EvTaskCancelled, TaskID: t.id}, "task cancelled by tasks/cancel: "+t.id)
	}
	return result(m.ID, ack)
}

// servesTasksX: the extension is 2026-07-28's.
func servesTasksX(revision string) bool { return harness.IsStateless(revision) }
