package clientsuite

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// Helpers of the cancellation checks (LIFE-TIMEOUT-CANCEL in lifecycle.go, STDIO26-CANCEL in
// transports_stdio.go, CANCEL-TASKS in patterns_cancellation.go). They judge the request-timeout
// and task-cancel scenarios: the probe holds
// one request past the per-request timeout MCP_CONFORMANCE_CONTEXT gives the client, and notes
// which request it holds, each notifications/cancelled it got, and a late answer it gave.

// held finds the request the probe held past the client's timeout (its id as compact JSON) and
// the index of that note.
func (v *View) held() (at int, id string, f *Finding) {
	for i, r := range v.Records {
		if r.Is(record.EvHeld) {
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
	closed  int    // the index of the note that the client closed the held request's POST stream, -1 if none
}

func (v *View) cancellation(at int) cancellation {
	c := cancellation{lateRec: -1, closed: -1}
	held := v.Records[at].Event.RequestID
	for i, r := range v.Records[at+1:] {
		if r.Is(record.EvAnsweredLate) && c.lateRec < 0 {
			c.lateRec = at + 1 + i
		}
		if r.Is(record.EvStreamClosed) && r.Event.RequestID == held && c.closed < 0 {
			c.closed = at + 1 + i
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

// taskCall finds the client's task-augmented call the probe made a task of.
func (v *View) taskCall() (at int, id string, f *Finding) {
	for i, r := range v.Records {
		if r.Is(record.EvTaskCreated) {
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
