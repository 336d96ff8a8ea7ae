package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// The cancellation scenarios. Both give the client a per-request timeout in
// MCP_CONFORMANCE_CONTEXT (requestTimeoutMs) and hold one request past it, so that a client
// applying it cancels on the wire:
const (
	// ScenarioRequestTimeout: the probe lists probe_slow first and never answers a call of it
	// in time; the client cancels the call with notifications/cancelled (at 2026-07-28 over
	// stdio too; over Streamable HTTP at 2026-07-28 by closing the call's stream) and goes on
	// to the next tool. A client that does not time out gets the late answer after the probe's
	// answer wait and goes on then.
	ScenarioRequestTimeout = "request-timeout"
	// ScenarioTaskCancel (2025-11-25): the probe declares task-augmented tools/call and lists
	// probe_task, whose execution requires a task; the task stays "working". A client that
	// uses tasks calls it task-augmented and, when the task has not finished in time, cancels
	// it with tasks/cancel; a client that does not gets an error for the plain call.
	ScenarioTaskCancel = "task-cancel"
)

// The tools of the cancellation scenarios.
const (
	ToolSlow = "probe_slow" // answered only after the probe's answer wait, unless cancelled
	ToolTask = "probe_task" // requires a task-augmented call; its task never finishes by itself
	// TaskID is the id of the task the probe creates for probe_task.
	TaskID = "probe-task-1"
)

// MaxRequestTimeout caps the per-request timeout the context gives the client. A launch of a
// cancellation scenario lasts at least that timeout however fast its client is, so it bounds
// `mcpspec client`'s wall time. The client applies it to every request but initialize, and the
// probe answers every one but the held in milliseconds: what the timeout measures there is the
// client's own scheduling, whose slowest gap from the probe's answer to its next request was
// 0.25 s (the TypeScript SDK client at load 9 on two cores), so 1 s leaves a fourfold margin;
// the late answer, at the default --timeout-request of 10 s, comes ten timeouts later.
const MaxRequestTimeout = time.Second

// RequestTimeout is the per-request timeout the context gives the client: a fifth of the
// probe's answer wait, so that a client applying it has long cancelled when the late answer
// comes, and no more than MaxRequestTimeout.
func (s Script) RequestTimeout() time.Duration { return min(s.AnswerWait/5, MaxRequestTimeout) }

// cancelScenario reports whether the script is one of the cancellation scenarios.
func (s Script) cancelScenario() bool {
	return s.Scenario == ScenarioRequestTimeout || s.Scenario == ScenarioTaskCancel
}

// cancelTools are the tools a cancellation scenario lists: the one held first, so that going on
// after the cancellation is calling the next.
func cancelTools(scenario string) []map[string]any {
	noArgs := map[string]any{"type": "object", "properties": map[string]any{}}
	echo := map[string]any{"name": ToolEcho, "description": "Answers with its text argument.", "inputSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"text": map[string]any{"type": "string", "default": EchoDefault}},
	}}
	if scenario == ScenarioTaskCancel {
		return []map[string]any{{"name": ToolTask, "description": "Starts a task that does not finish by itself.",
			"inputSchema": noArgs, "execution": map[string]any{"taskSupport": "required"}}, echo}
	}
	return []map[string]any{{"name": ToolSlow, "description": "Answers only long after the client's request timeout.", "inputSchema": noArgs}, echo}
}

// ContextTools are the names of the tools the script lists, in order, for
// MCP_CONFORMANCE_CONTEXT.
func (s Script) ContextTools() []string {
	switch {
	case s.cancelScenario():
		var out []string
		for _, t := range cancelTools(s.Scenario) {
			out = append(out, t["name"].(string))
		}
		return out
	case s.Scenario == ScenarioInitialize:
		return []string{} // it lists none
	case s.Scenario == ScenarioSubscriptions, IsAuth(s.Scenario):
		return []string{ToolEcho}
	case s.Scenario == ScenarioElicitDefaults:
		return []string{ToolElicitDefaults}
	}
	return s.toolNames()
}

// intercept answers what the cancellation scenarios serve differently from tools_call; ok is
// false for anything else. It sees every message, notifications included.
func (s *server) intercept(ctx context.Context, m message, emit func([]byte)) (resp []byte, ok bool) {
	if s.script.Scenario == ScenarioSubscriptions {
		return s.interceptSubscriptions(ctx, m, emit)
	}
	if IsTasksX(s.script.Scenario) {
		return s.interceptTasksX(m)
	}
	if !s.script.cancelScenario() {
		return nil, false
	}
	if m.Method == "notifications/cancelled" {
		s.cancelled(m)
		return nil, true
	}
	if !m.isRequest() {
		return nil, false
	}
	switch m.Method {
	case "tools/list":
		res := map[string]any{"tools": cancelTools(s.script.Scenario)}
		if s.script.Stateless() {
			// As listStateless's one page (the empty-cursor rule is tools_call's matter).
			res["resultType"], res["_meta"], res["ttlMs"], res["cacheScope"] = "complete", serverMeta(), 0, "public"
		}
		return result(m.ID, res), true
	case "tools/call":
		var p struct {
			Name string          `json:"name"`
			Task json.RawMessage `json:"task"`
		}
		_ = json.Unmarshal(m.Params, &p)
		switch {
		case p.Name == ToolSlow && s.script.Scenario == ScenarioRequestTimeout:
			return s.hold(ctx, m.ID, func() []byte {
				return s.late(m.ID, textResult("late: the client did not cancel"))
			}), true
		case p.Name == ToolTask && s.script.Scenario == ScenarioTaskCancel:
			if p.Task == nil {
				return errorResponse(m.ID, -32601, ToolTask+" requires a task-augmented tools/call (execution.taskSupport: required)"), true
			}
			return s.createTask(m.ID), true
		}
	case "tasks/get", "tasks/cancel", "tasks/result", "tasks/list":
		if s.script.Scenario == ScenarioTaskCancel {
			return s.taskRequest(ctx, m), true
		}
	}
	return nil, false
}

// hold keeps a request unanswered until the client cancels it or closes its stream (no answer
// then: the stream or line stays silent) or the answer wait passes (then late() answers it).
func (s *server) hold(ctx context.Context, id json.RawMessage, late func() []byte) []byte {
	key := canonicalID(id)
	ch := make(chan struct{})
	s.mu.Lock()
	if s.held == nil {
		s.held = map[string]chan struct{}{}
	}
	s.held[key] = ch
	s.holding++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.held, key)
		if s.holding--; s.holding == 0 && s.settled != nil {
			close(s.settled)
			s.settled = nil
		}
		s.mu.Unlock()
	}()
	s.rec.note(record.Event{Kind: record.EvHeld, RequestID: key}, "holding request "+key)
	t := time.NewTimer(s.script.AnswerWait)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		// Over Streamable HTTP the client closing the request's stream ends it: at 2026-07-28
		// that is the cancellation (LIFE-TIMEOUT-CANCEL reads this note there).
		if errors.Is(context.Cause(ctx), errClientClosed) {
			s.rec.note(record.Event{Kind: record.EvStreamClosed, RequestID: key}, "the client closed the stream of request "+key+" before its answer")
		}
		return nil
	case <-t.C:
		return late()
	}
}

// awaitReleased waits until no request is held, or d passes; it reports whether none is.
func (s *server) awaitReleased(d time.Duration) bool {
	s.mu.Lock()
	if s.holding == 0 {
		s.mu.Unlock()
		return true
	}
	if s.settled == nil {
		s.settled = make(chan struct{})
	}
	ch := s.settled
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// late notes a held request answered after the wait, and returns its answer.
func (s *server) late(id json.RawMessage, res any) []byte {
	s.rec.note(record.Event{Kind: record.EvAnsweredLate, RequestID: canonicalID(id)}, fmt.Sprintf("answered late, uncancelled: %s after %s", canonicalID(id), s.script.AnswerWait))
	if m, ok := res.(map[string]any); ok && s.script.Stateless() {
		m["resultType"], m["_meta"] = "complete", serverMeta()
	}
	return result(id, res)
}

// cancelled notes a notifications/cancelled and releases the request it names, if held.
//
// At 2026-07-28 over Streamable HTTP the notification releases nothing: closing the request's
// stream is the cancellation there, and the probe keeps holding the request to see whether the
// client closes it. Released by the notification, the probe would end the stream itself, and a
// client that closes the stream and notifies at once (the Go SDK does both from two goroutines)
// would be seen closing it or not by which of the two the probe read first.
func (s *server) cancelled(m message) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	key := canonicalID(p.RequestID)
	if s.streamCancels {
		s.rec.note(record.Event{Kind: record.EvCancelled, RequestID: key}, "notifications/cancelled from the client: "+key+" (the request stays held: over Streamable HTTP at "+s.script.Revision+" closing its stream is the cancellation)")
		return
	}
	s.rec.note(record.Event{Kind: record.EvCancelled, RequestID: key}, "cancelled by the client: "+key)
	s.mu.Lock()
	ch := s.held[key]
	delete(s.held, key)
	s.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// canonicalID is a request id as compact JSON: "1" and 1 stay apart.
func canonicalID(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// The probe's one task (ScenarioTaskCancel).
type probeTask struct {
	status  string
	created string
	done    chan struct{} // closed when the task leaves "working"
}

func (s *server) task() *probeTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.theTask
}

func (t *probeTask) json() map[string]any {
	return map[string]any{"taskId": TaskID, "status": t.status, "createdAt": t.created, "lastUpdatedAt": t.created,
		"ttl": 60000, "pollInterval": 100}
}

// createTask answers the task-augmented call of probe_task: the task is working, and stays so
// until cancelled or, after the answer wait, completes.
func (s *server) createTask(id json.RawMessage) []byte {
	t := &probeTask{status: "working", created: time.Now().UTC().Format(time.RFC3339), done: make(chan struct{})}
	s.mu.Lock()
	s.theTask = t
	s.mu.Unlock()
	s.rec.note(record.Event{Kind: record.EvTaskCreated, TaskID: TaskID, RequestID: canonicalID(id)}, "task created: "+TaskID+" for request "+canonicalID(id))
	go func() {
		timer := time.NewTimer(s.script.AnswerWait)
		defer timer.Stop()
		select {
		case <-timer.C:
			s.finishTask("completed")
		case <-t.done:
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	return result(id, map[string]any{"task": t.json()})
}

// finishTask moves the task out of "working", once.
func (s *server) finishTask(status string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.theTask
	if t == nil || t.status != "working" {
		return false
	}
	t.status = status
	close(t.done)
	if status == "completed" {
		s.rec.note(record.Event{Kind: record.EvAnsweredLate, TaskID: TaskID}, "answered late, uncancelled: task "+TaskID+" completed after "+s.script.AnswerWait.String())
	}
	return true
}

func (s *server) taskRequest(ctx context.Context, m message) []byte {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(m.Params, &p)
	t := s.task()
	if m.Method == "tasks/list" {
		tasks := []map[string]any{}
		if t != nil {
			s.mu.Lock()
			tasks = append(tasks, t.json())
			s.mu.Unlock()
		}
		return result(m.ID, map[string]any{"tasks": tasks})
	}
	if t == nil || p.TaskID != TaskID {
		return errorResponse(m.ID, -32602, fmt.Sprintf("no task %q", p.TaskID))
	}
	switch m.Method {
	case "tasks/cancel":
		if !s.finishTask("cancelled") {
			return errorResponse(m.ID, -32602, "task "+TaskID+" is no longer working")
		}
		s.rec.note(record.Event{Kind: record.EvTaskCancelled, TaskID: TaskID}, "task cancelled by tasks/cancel")
	case "tasks/result":
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil
		}
		s.mu.Lock()
		status := t.status
		s.mu.Unlock()
		if status != "completed" {
			return errorResponse(m.ID, -32602, "task "+TaskID+" was "+status)
		}
		return result(m.ID, textResult("late: the task completed uncancelled"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return result(m.ID, t.json())
}

// taskCapabilities are what the probe declares in ScenarioTaskCancel.
func taskCapabilities() map[string]any {
	return map[string]any{"cancel": map[string]any{}, "list": map[string]any{},
		"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
}
