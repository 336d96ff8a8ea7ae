package observed

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// flowChecks: capabilities, cancellation, progress and batches.
func flowChecks() []Check {
	out := []Check{
		{ID: "SRVREQ-CAP-GATED", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "the server sends no request for a client capability the client did not declare",
			Side:    Observed{Whose: Server, ShouldUntil: harness.Rev20250326, Judge: judgeServerRequestsDeclared}},
		{ID: "LIFE-OPERATION-NEGOTIATED", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "the client sends no request for a server capability the server did not declare",
			Side:    Observed{Whose: Client, ShouldUntil: harness.Rev20250326, Judge: judgeClientRequestsDeclared}},
		{ID: "PROG-KNOWN-TOKEN", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "progress notifications name only a progress token a request of the client gave",
			Side:    Observed{Whose: Server, Judge: judgeProgressKnown}},
		{ID: "PROG-MONOTONIC", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "the progress value of a token increases with every notification",
			Side:    Observed{Whose: Server, Judge: judgeProgressMonotonic}},
		{ID: "PROG-STOP", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "no progress notification for a request after its response",
			Side:    Observed{Whose: Server, Judge: judgeProgressStop}},
		{ID: "BATCH-INIT-NOT-IN-BATCH", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "initialize is never sent in a batch",
			Side:    Observed{Whose: Client, Judge: judgeInitNotBatched}},
	}
	out = append(out, bothSides("CANCEL-STOP-NO-RESPONSE", "SHOULD", allTransports,
		"no response to a cancelled request once the cancellation has arrived (a response already in flight within the grace is allowed)", judgeCancelStop)...)
	out = append(out, bothSides("BATCH-REMOVED", "MUST", allTransports, "no batch (JSON array) is sent at a revision that removed them", judgeNoBatch)...)
	return out
}

// clientCapFor and serverCapFor name the capability a request needs of the receiver.
var clientCapFor = map[string]string{"sampling/createMessage": "sampling", "roots/list": "roots", "elicitation/create": "elicitation"}

func serverCapFor(method string) string {
	switch {
	case strings.HasPrefix(method, "tools/"):
		return "tools"
	case strings.HasPrefix(method, "resources/"):
		return "resources"
	case strings.HasPrefix(method, "prompts/"):
		return "prompts"
	case method == "logging/setLevel":
		return "logging"
	case method == "completion/complete":
		return "completions"
	}
	return ""
}

func judgeServerRequestsDeclared(v *View) Finding {
	return v.declared(Server, v.ClientCaps, func(m string) string { return clientCapFor[m] })
}

func judgeClientRequestsDeclared(v *View) Finding {
	return v.declared(Client, v.ServerCaps, func(method string) string {
		c := serverCapFor(method)
		if c == "completions" && v.Revision < harness.Rev20250326 {
			return "" // 2024-11-05 had completion/complete but no capability for it
		}
		return c
	})
}

func (v *View) declared(side string, caps map[string]json.RawMessage, need func(string) string) Finding {
	if v.InitAnswer < 0 {
		return notExercised("no initialize was answered: no capabilities were negotiated")
	}
	n := 0
	for _, m := range v.Msgs[v.InitAnswer+1:] {
		if m.From != side || !m.IsRequest() {
			continue
		}
		c := need(m.Method)
		if c == "" {
			continue
		}
		n++
		if _, ok := caps[c]; !ok {
			return violated("record %d: the %s sent %s, but the %s declared no %s capability", v.seq(m), side, describe(m), other(side), c)
		}
	}
	if n == 0 {
		return notExercised("the " + side + " sent no request that needs a capability")
	}
	return passed("the %d capability requests the %s sent are all of declared capabilities", n, side)
}

// progressOf reads a progress notification's token and value.
func progressOf(m Msg) (token jsonrpc.ID, progress float64, ok bool) {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress *float64        `json:"progress"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Token == nil || p.Progress == nil {
		return "", 0, false
	}
	id, err := jsonrpc.CanonicalID(p.Token)
	return id, *p.Progress, err == nil
}

// tokenOf is the progress token a request gave in _meta.
func tokenOf(m Msg) (jsonrpc.ID, bool) {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Meta.Token == nil {
		return "", false
	}
	id, err := jsonrpc.CanonicalID(p.Meta.Token)
	return id, err == nil
}

// progress lists the server's progress notifications.
func (v *View) progress() []int {
	var out []int
	for i, m := range v.Msgs {
		if m.From == Server && m.IsNotification() && m.Method == "notifications/progress" {
			out = append(out, i)
		}
	}
	return out
}

func judgeProgressKnown(v *View) Finding {
	notes := v.progress()
	if len(notes) == 0 {
		return notExercised("the server sent no progress notification")
	}
	isNote := map[int]bool{}
	for _, i := range notes {
		isNote[i] = true
	}
	known := map[jsonrpc.ID]bool{}
	for i, m := range v.Msgs {
		if m.From == Client && m.IsRequest() {
			if t, ok := tokenOf(m); ok {
				known[t] = true
			}
		}
		if !isNote[i] {
			continue
		}
		t, _, ok := progressOf(m)
		if !ok {
			continue // malformed: the schema check's matter
		}
		if !known[t] {
			if !v.complete() {
				return untestable("record %d: the token %s may be in a request among the frames not read", v.seq(m), t.Text())
			}
			return violated("record %d: the server sent progress for the token %s, which no earlier request of the client gave", v.seq(m), t.Text())
		}
	}
	return passed("the %d progress notifications name tokens the client gave", len(notes))
}

func judgeProgressMonotonic(v *View) Finding {
	notes := v.progress()
	if len(notes) == 0 {
		return notExercised("the server sent no progress notification")
	}
	last := map[jsonrpc.ID]int{}
	for _, i := range notes {
		m := v.Msgs[i]
		t, p, ok := progressOf(m)
		if !ok {
			continue
		}
		if j, seen := last[t]; seen {
			_, q, _ := progressOf(v.Msgs[j])
			if p <= q {
				return violated("record %d then record %d: the progress of token %s went from %v to %v", v.seq(v.Msgs[j]), v.seq(m), t.Text(), q, p)
			}
		}
		last[t] = i
	}
	return passed("the progress of each of %d tokens increased with every notification", len(last))
}

// judgeProgressStop: a progress notification after the response to the request that gave its
// token. Only an order the recording is sure of counts: on stdio one pipe carries both; over
// HTTP both on the same response stream.
func judgeProgressStop(v *View) Finding {
	notes := v.progress()
	if len(notes) == 0 {
		return notExercised("the server sent no progress notification")
	}
	byToken := map[jsonrpc.ID][]int{}
	for _, i := range notes {
		if t, _, ok := progressOf(v.Msgs[i]); ok {
			byToken[t] = append(byToken[t], i)
		}
	}
	ex := v.pair()
	judged := 0
	for q, as := range ex.answers {
		req := v.Msgs[q]
		if req.From != Client {
			continue
		}
		t, ok := tokenOf(req)
		if !ok || len(as) == 0 || taskAugmented(req) {
			continue // a task's token outlives the response that created the task
		}
		resp := v.Msgs[as[0]]
		for _, i := range byToken[t] {
			m := v.Msgs[i]
			if v.Records[m.Rec].Seq < v.Records[req.Rec].Seq {
				continue
			}
			judged++
			if !v.sameStream(resp, m) {
				continue
			}
			if v.Records[m.Rec].Seq > v.Records[resp.Rec].Seq {
				return violated("record %d: the server sent progress for token %s after it answered the request (record %d)", v.seq(m), t.Text(), v.seq(resp))
			}
		}
	}
	if judged == 0 {
		return notExercised("no progress notification belongs to an answered request")
	}
	return passed("no progress came after the response of its request")
}

// sameStream reports whether two messages travelled one ordered channel.
func (v *View) sameStream(a, b Msg) bool {
	ra, rb := v.Records[a.Rec], v.Records[b.Rec]
	if v.Transport == "stdio" {
		return ra.Channel == rb.Channel
	}
	return ra.Exchange != 0 && ra.Exchange == rb.Exchange
}

// judgeCancelStop judges the side as receiver of cancellations. A response recorded more than
// CancelGrace after the cancellation crossed the wire cannot have been in flight: the side
// had read the cancellation for that long. One within the grace may have been, and is not
// judged; no response at all, with the conversation going on past the grace, passes.
func judgeCancelStop(v *View, side string) Finding {
	ex := v.pair()
	grace := v.opts.CancelGrace
	end := v.end()
	cancels, judged := 0, 0
	latest := map[jsonrpc.ID]int{} // the latest request of the canceller with each id, so far
	for ci, cancel := range v.Msgs {
		if cancel.From == other(side) && cancel.IsRequest() {
			latest[cancel.ID] = ci
			continue
		}
		if cancel.From != other(side) || cancel.Method != "notifications/cancelled" || !cancel.IsNotification() {
			continue
		}
		id, ok := paramID(cancel.Params, "requestId")
		if !ok {
			continue
		}
		cancels++
		// The request cancelled is the latest with that id sent before the cancellation.
		reqIdx, ok := latest[id]
		if !ok {
			continue
		}
		cancelAt := v.Records[cancel.Rec].At
		answered := false
		for _, a := range ex.answers[reqIdx] {
			resp := v.Msgs[a]
			answered = true
			if v.Records[resp.Rec].Seq < v.Records[cancel.Rec].Seq {
				continue // answered before the cancellation: nothing to stop
			}
			if d, timed := elapsed(cancelAt, v.Records[resp.Rec].At); timed && d > grace {
				return violated("record %d: the %s answered the cancelled %s %s after the cancellation (record %d), past the %s allowed for a response in flight",
					v.seq(resp), side, describe(v.Msgs[reqIdx]), d.Round(time.Millisecond), v.seq(cancel), grace)
			}
		}
		if d, timed := elapsed(cancelAt, end); !answered && timed && d > grace {
			judged++
		}
	}
	if cancels == 0 {
		return notExercised("the " + other(side) + " cancelled nothing")
	}
	if judged == 0 {
		return notExercised("no cancelled request could be watched for the grace after its cancellation")
	}
	return passed("%d cancelled requests got no response once the cancellation had arrived", judged)
}

func judgeNoBatch(v *View, side string) Finding {
	n := 0
	for _, r := range v.Records {
		if r.From != side || !carriesMessages(r) {
			continue
		}
		n++
		if b := strings.TrimSpace(r.Body); strings.HasPrefix(b, "[") {
			return violated("record %d: the %s sent a batch, which %s does not have: %s", r.Seq, side, v.Revision, clip(b))
		}
	}
	if n == 0 {
		return notExercised("the " + side + " sent no message")
	}
	return passed("none of the %d frames the %s sent is a batch", n, side)
}

func judgeInitNotBatched(v *View) Finding {
	if v.Init < 0 {
		return notExercised("the client sent no initialize")
	}
	for _, m := range v.Msgs {
		if m.From == Client && m.Method == "initialize" && m.Batch {
			return violated("record %d: the client sent initialize in a batch", v.seq(m))
		}
	}
	return passed("initialize travelled alone")
}

// taskAugmented reports whether a request asked to run as a task (params.task): its response
// creates the task, and the task goes on.
func taskAugmented(m Msg) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(m.Params, &p) == nil && p.Task != nil
}
