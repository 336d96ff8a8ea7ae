package clientsuite

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// Helpers of the checks of the client chapters (client_roots.go, client_sampling.go,
// client_elicitation.go): the probe sends roots/list, sampling/createMessage and
// elicitation/create whether or not the client declared the capability. A client that declared
// it answers with a result of the revision's schema; one that did not must answer with an error,
// not as if it had the capability.

// srvRequest is one request of the probe to the client and the capability that covers it.
type srvRequest struct {
	capability, method, id, tool, result string
}

var (
	rootsReq    = srvRequest{"roots", "roots/list", probe.RootsID, probe.ToolRoots, "ListRootsResult"}
	samplingReq = srvRequest{"sampling", "sampling/createMessage", probe.SamplingID, probe.ToolSampling, "CreateMessageResult"}
	elicitReq   = srvRequest{"elicitation", "elicitation/create", probe.ElicitationID, probe.ToolElicitation, "ElicitResult"}
)

// declared reports whether the client declared the capability: in its initialize, or at the
// stateless revision, which has none, in its requests' _meta (each request declares its own:
// the latest request that declares any counts).
func (v *View) declared(capability string) bool {
	var caps map[string]json.RawMessage
	for _, m := range v.Msgs {
		if m.Method == "initialize" {
			var p struct {
				Params struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				} `json:"params"`
			}
			_ = json.Unmarshal(m.Raw, &p)
			caps = p.Params.Capabilities
			break
		}
		if c, ok := metaCapabilities(m); ok {
			caps = c
		}
	}
	c, ok := caps[capability]
	return ok && string(c) != "null"
}

// metaCapabilities are the capabilities a request declares in its _meta (2026-07-28).
func metaCapabilities(m Msg) (map[string]json.RawMessage, bool) {
	if !m.IsRequest() {
		return nil, false
	}
	var p struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(m.Raw, &p) != nil || json.Unmarshal(p.Params.Meta[harness.MetaClientCapabilities], &caps) != nil || caps == nil {
		return nil, false
	}
	return caps, true
}

// asked reports whether the probe sent the client its request with this id.
func (v *View) asked(id string) bool {
	want, _ := json.Marshal(id)
	for _, r := range v.Records {
		if r.Dir != record.Send || !bytes.Contains([]byte(r.Body), want) {
			continue
		}
		for _, m := range parseMsgs([]byte(r.Body)) {
			if m.IsRequest() && bytes.Equal(m.ID, want) {
				return true
			}
		}
	}
	return false
}

// answerTo is the client's response to the probe's request with this id.
func (v *View) answerTo(id string) (Msg, bool) {
	want, _ := json.Marshal(id)
	for _, m := range v.Msgs {
		if m.IsResponse() && bytes.Equal(m.ID, want) {
			return m, true
		}
	}
	return Msg{}, false
}

// exchange is the common start of the request checks: the client's answer, or why there is
// nothing to judge.
func (v *View) exchange(q srvRequest) (Msg, *Finding) {
	if len(v.After()) == 0 {
		f := v.notProceeded()
		return Msg{}, &f
	}
	if !v.asked(q.id) {
		f := untestable("the client never called %s, so the probe never sent %s (the contract: call every listed tool)", v.toolFor(q), q.method)
		return Msg{}, &f
	}
	m, ok := v.answerTo(q.id)
	if !ok {
		// A request the probe waited out unanswered is evidence, not its absence: the client
		// broke JSON-RPC's rule that every request gets a response, whatever it declared.
		if r, waited := v.waitedOut(q); waited {
			f := violated("the client never answered the probe's %s (id %q): %s (record %d); every request gets a response (JSON-RPC), a result or an error", q.method, q.id, r.Body, r.Seq)
			f.Severe = true
			return Msg{}, &f
		}
		f := untestable("the client never answered the probe's %s (id %q): it left before the probe stopped waiting", q.method, q.id)
		return Msg{}, &f
	}
	return m, nil
}

// waitedOut finds the probe's note that it waited its AnswerWait for the answer to q in vain.
func (v *View) waitedOut(q srvRequest) (record.Record, bool) {
	id, _ := json.Marshal(q.id)
	for _, r := range v.Records {
		if r.Is(record.EvUnanswered) && r.Event.Method == q.method && r.Event.RequestID == string(id) {
			return r, true
		}
	}
	return record.Record{}, false
}

// unansweredElsewhere is the finding of a check that leaves an unanswered request to the one
// check it binds: the capability check when the client declared no capability, the result
// check when it did. One missing answer is one violation, not one per check that reads it.
func unansweredElsewhere(q srvRequest, owner string) Finding {
	return untestable("the client never answered the probe's %s (id %q), a breach judged by the %s check of %s, not by this one", q.method, q.id, owner, q.capability)
}

func judgeCap(q srvRequest) func(*View) Finding {
	return func(v *View) Finding {
		m, f := v.exchange(q)
		if f != nil && f.Outcome == Violation && v.declared(q.capability) {
			return unansweredElsewhere(q, "result")
		}
		if f != nil {
			return *f
		}
		switch {
		case v.declared(q.capability):
			return passed("the client declared the %s capability, and answered %s", q.capability, q.method)
		case m.Error != nil:
			return passed("the client declared no %s capability and answered %s with an error: %s", q.capability, q.method, clip(string(m.Error)))
		}
		return violated("the client declared no %s capability, yet answered the probe's %s with a result as if it had it: %s", q.capability, q.method, clip(string(m.Result)))
	}
}

func judgeResult(q srvRequest, more func(v *View, result json.RawMessage) Finding) func(*View) Finding {
	return func(v *View) Finding {
		m, f := v.exchange(q)
		if f != nil && f.Outcome == Violation {
			switch {
			case !v.declared(q.capability):
				return unansweredElsewhere(q, "capability")
			case more != nil:
				return unansweredElsewhere(q, "result")
			}
		}
		if f != nil {
			return *f
		}
		if !v.declared(q.capability) {
			return untestable("the client declared no %s capability, so it owes %s no result", q.capability, q.method)
		}
		if m.Error != nil || m.Result == nil {
			return untestable("the client answered %s with an error (%s): there is no result to judge", q.method, clip(string(m.Error)))
		}
		if err := v.Validator.Definition(v.Revision, q.result, m.Result); err != nil {
			if more != nil {
				// The schema is the RESULT check's matter; a result it rejects is judged here
				// only as far as it can be read.
				return more(v, m.Result)
			}
			return violated("the answer to %s is not a valid %s at %s: %v", q.method, q.result, v.Revision, err)
		}
		if more != nil {
			return more(v, m.Result)
		}
		return passed("the answer to %s is a valid %s at %s", q.method, q.result, v.Revision)
	}
}

func mustString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
