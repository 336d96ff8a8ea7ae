package clientsuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The cancellation checks judge the request-timeout and task-cancel scenarios: the probe holds
// one request past the per-request timeout MCP_CONFORMANCE_CONTEXT gives the client, and notes
// which request it holds, each notifications/cancelled it got, and a late answer it gave.

var stdioHTTP = []string{wire.Stdio, wire.HTTP}

func init() {
	Register(
		Check{ID: "LIFE-TIMEOUT-CANCEL", Level: "SHOULD", Scenario: probe.ScenarioRequestTimeout, Transports: stdioHTTP,
			Summary: "a request unanswered within the client's timeout is cancelled with notifications/cancelled naming it, and no longer waited for",
			Judge:   judgeTimeoutCancel},
		Check{ID: "STDIO26-CANCEL", Level: "MUST", Scenario: probe.ScenarioRequestTimeout, Transports: []string{wire.Stdio}, Versions: modernOnly,
			Summary: "the client cancels an in-flight request with a notifications/cancelled whose requestId is the request's id",
			Judge:   judgeStdioCancel},
		Check{ID: "CANCEL-TASKS", Level: "MUST", Scenario: probe.ScenarioTaskCancel, Transports: stdioHTTP, Versions: []string{harness.Rev20251125},
			Summary: "a task-augmented request is cancelled with tasks/cancel, never with notifications/cancelled",
			Judge:   judgeTaskCancel},
	)
}

// held finds the request the probe held past the client's timeout (its id as compact JSON) and
// the index of that note.
func (v *View) held() (at int, id string, f *Finding) {
	for i, r := range v.Records {
		if r.Is(probe.EvHeld) {
			return i, r.Event.RequestID, nil
		}
	}
	nf := untestable("the client never called %s, so the probe held no request past its timeout (the contract: call every listed tool)", probe.ToolSlow)
	if !v.Proceeded() {
		nf = v.notProceeded()
	}
	return -1, "", &nf
}

// cancellation is what the client did with the held request, in the order it did it.
type cancellation struct {
	notice  *Msg   // its notifications/cancelled naming some request, after the hold
	named   string // the requestId that notification named (compact JSON)
	wentOn  *Msg   // the first request it sent after the hold (it stopped waiting)
	lateRec int    // the index of the probe's late answer, -1 if none
}

func (v *View) cancellation(at int) cancellation {
	c := cancellation{lateRec: -1}
	for i, r := range v.Records[at+1:] {
		if r.Is(probe.EvAnsweredLate) && c.lateRec < 0 {
			c.lateRec = at + 1 + i
		}
	}
	for i := range v.Msgs {
		m := &v.Msgs[i]
		if m.Rec <= at {
			continue
		}
		if m.Method == "notifications/cancelled" && c.notice == nil {
			c.notice, c.named = m, requestIDOf(m.Raw)
		}
		if m.IsRequest() && c.wentOn == nil {
			c.wentOn = m
		}
	}
	return c
}

// requestIDOf is a notifications/cancelled's requestId as compact JSON ("" if absent).
func requestIDOf(raw json.RawMessage) string {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &n) != nil || n.Params.RequestID == nil {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, n.Params.RequestID) != nil {
		return string(n.Params.RequestID)
	}
	return b.String()
}

// judgeNotice judges a notifications/cancelled the client sent for the held request id.
func (v *View) judgeNotice(c cancellation, id string) *Finding {
	seq := v.Records[c.notice.Rec].Seq
	if c.named != id {
		f := violated("the client's notifications/cancelled (record %d) names requestId %s, not %s, the id of the request it cancelled", seq, orNone(c.named), id)
		return &f
	}
	if err := v.Validator.Definition(v.Revision, "ClientNotification", c.notice.Raw); err != nil {
		f := violated("the client's notifications/cancelled (record %d) is not a valid ClientNotification at %s: %v", seq, v.Revision, err)
		return &f
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// before reports whether the client message m came before record index rec (-1: never).
func before(m *Msg, rec int) bool { return m != nil && (rec < 0 || m.Rec < rec) }

func judgeTimeoutCancel(v *View) Finding {
	at, id, f := v.held()
	if f != nil {
		return *f
	}
	c := v.cancellation(at)
	switch {
	case before(c.notice, c.lateRec):
		if f := v.judgeNotice(c, id); f != nil {
			return *f
		}
		went := "and sent nothing more"
		if c.wentOn != nil {
			went = fmt.Sprintf("and went on (%s, record %d)", describe(*c.wentOn), v.Records[c.wentOn.Rec].Seq)
		}
		return passed("the client cancelled the timed-out request %s with notifications/cancelled (record %d) %s", id, v.Records[c.notice.Rec].Seq, went)
	case before(c.wentOn, c.lateRec):
		return violated("the client stopped waiting for request %s (it sent %s, record %d) without a notifications/cancelled for it", id, describe(*c.wentOn), v.Records[c.wentOn.Rec].Seq)
	case c.lateRec >= 0:
		return violated("the client never cancelled request %s: it waited past its own timeout until the probe's late answer (%s)", id, v.Records[c.lateRec].Body)
	}
	return violated("the client never cancelled request %s: it left with the request unanswered and no notifications/cancelled", id)
}

func judgeStdioCancel(v *View) Finding {
	at, id, f := v.held()
	if f != nil {
		return *f
	}
	c := v.cancellation(at)
	switch {
	case before(c.notice, c.lateRec):
		if f := v.judgeNotice(c, id); f != nil {
			return *f
		}
		return passed("the client cancelled the in-flight request %s with notifications/cancelled naming it (record %d)", id, v.Records[c.notice.Rec].Seq)
	case before(c.wentOn, c.lateRec):
		return violated("the client abandoned the in-flight request %s (it went on with %s, record %d) without the notifications/cancelled that cancels a request over stdio", id, describe(*c.wentOn), v.Records[c.wentOn.Rec].Seq)
	case c.lateRec >= 0:
		return na("the client did not cancel request %s: it waited for the probe's late answer, so it cancelled nothing", id)
	}
	return na("the client did not cancel request %s: it ended the connection with the request in flight", id)
}

// taskCall finds the client's task-augmented call the probe made a task of.
func (v *View) taskCall() (at int, id string, f *Finding) {
	for i, r := range v.Records {
		if r.Is(probe.EvTaskCreated) {
			return i, r.Event.RequestID, nil
		}
	}
	for _, m := range v.Msgs {
		if m.Method == "tools/call" && strings.Contains(string(m.Raw), `"`+probe.ToolTask+`"`) {
			nf := na("the client called %s without task augmentation (record %d): it does not use tasks, and the rule binds task-augmented requests only", probe.ToolTask, v.Records[m.Rec].Seq)
			return -1, "", &nf
		}
	}
	nf := untestable("the client never called %s (the contract: call every listed tool, task-augmented where the tool requires it)", probe.ToolTask)
	if !v.Proceeded() {
		nf = v.notProceeded()
	}
	return -1, "", &nf
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
