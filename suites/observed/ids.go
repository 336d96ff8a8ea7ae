package observed

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
)

// idChecks: the ids of requests and responses, and every request answered exactly once.
func idChecks() []Check {
	var out []Check
	out = append(out, bothSides("MSG-REQ-ID-TYPE", "MUST", allTransports, "every request id is a string or an integer", judgeIDType)...)
	out = append(out, bothSides("MSG-REQ-ID-NOT-NULL", "MUST", allTransports, "no request has a null id", judgeIDNotNull)...)
	out = append(out, bothSides("MSG-REQ-ID-UNIQUE", "MUST", allTransports, "no request id is used twice in the session (at 2026-07-28: never while a request with it is in flight)", judgeIDUnique)...)
	out = append(out, bothSides("MSG-RESP-SAME-ID", "MUST", allTransports, "every response carries the id of a request the other side sent", judgeEcho)...)
	out = append(out, bothSides("JRPC-REPLY-REQUIRED", "MUST", allTransports, "every request the other side sent is answered exactly once", judgeReplied)...)
	return out
}

// requests are the indices of the requests a side sent (a null id included: it is a request
// in form, and MSG-REQ-ID-NOT-NULL's matter).
func (v *View) requests(side string) []int {
	var out []int
	for i, m := range v.Msgs {
		if m.From == side && m.IsRequest() {
			out = append(out, i)
		}
	}
	return out
}

func judgeIDType(v *View, side string) Finding {
	reqs := v.requests(side)
	if len(reqs) == 0 {
		return notExercised("the " + side + " sent no request")
	}
	for _, i := range reqs {
		m := v.Msgs[i]
		if m.ID.IsNull() {
			continue
		}
		if !m.ID.IsString() && !isInteger(m.ID) {
			return violated("record %d: the %s's %s has an id that is neither a string nor an integer", v.seq(m), side, describe(m))
		}
	}
	return passed("all %d requests the %s sent have string or integer ids", len(reqs), side)
}

func isInteger(id jsonrpc.ID) bool {
	if !id.IsNumber() {
		return false
	}
	var n json.Number = json.Number(id)
	_, err := n.Int64()
	if err == nil {
		return true
	}
	// A large integer is still an integer: only digits and a sign.
	for i, c := range id {
		if !(c >= '0' && c <= '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return true
}

func judgeIDNotNull(v *View, side string) Finding {
	reqs := v.requests(side)
	if len(reqs) == 0 {
		return notExercised("the " + side + " sent no request")
	}
	for _, i := range reqs {
		if m := v.Msgs[i]; m.ID.IsNull() {
			return violated("record %d: the %s sent %s with a null id", v.seq(m), side, m.Method)
		}
	}
	return passed("none of the %d requests the %s sent has a null id", len(reqs), side)
}

func judgeIDUnique(v *View, side string) Finding {
	reqs := v.requests(side)
	if len(reqs) < 2 {
		return notExercised(fmt.Sprintf("the %s sent %d requests", side, len(reqs)))
	}
	stateless := harness.IsStateless(v.Revision)
	var ex exchanges
	if stateless {
		ex = v.pair()
	}
	first := map[jsonrpc.ID]int{}
	for _, i := range reqs {
		m := v.Msgs[i]
		if m.ID.IsNull() {
			continue
		}
		prev, seen := first[m.ID]
		first[m.ID] = i
		if !seen {
			continue
		}
		if stateless {
			// 2026-07-28 forbids only an id in flight: the earlier request answered before
			// this one was sent is no reuse it knows of.
			if as := ex.answers[prev]; len(as) > 0 && v.Msgs[as[0]].Rec < m.Rec {
				continue
			}
		}
		return violated("record %d and record %d: the %s used the id %s for two requests (%s, then %s)",
			v.seq(v.Msgs[prev]), v.seq(m), side, m.ID.Text(), v.Msgs[prev].Method, m.Method)
	}
	return passed("the %d requests the %s sent have distinct ids", len(reqs), side)
}

// judgeEcho judges the responses the side sent: each names a request of the other side.
func judgeEcho(v *View, side string) Finding {
	ex := v.pair()
	n := 0
	for i, m := range v.Msgs {
		if m.From != side || !m.IsResponse() || !m.HasID || m.ID.IsNull() {
			continue // an error without an id answers a request that could not be read
		}
		n++
		if ex.orphans[i] {
			if !v.complete() {
				return untestable("record %d: the %s answered the id %s, whose request may be among the frames not read", v.seq(m), side, m.ID.Text())
			}
			return violated("record %d: the %s sent a response with the id %s, which no request of the %s had", v.seq(m), side, m.ID.Text(), other(side))
		}
	}
	if n == 0 {
		return notExercised("the " + side + " sent no response with an id")
	}
	return passed("each of the %d responses the %s sent answers a request of the %s", n, side, other(side))
}

// judgeReplied judges the side as responder. An answer after a cancellation, or none, is the
// cancellation's matter; a request left unanswered fails only when the conversation went on
// for ReplyBound after it (a recording that ends soon after a request cannot tell silence
// from slowness), and never a server's over HTTP.
func judgeReplied(v *View, side string) Finding {
	reqs := v.requests(other(side))
	if len(reqs) == 0 {
		return notExercised("the " + other(side) + " sent no request")
	}
	ex := v.pair()
	cancels := v.cancelled(other(side))
	end := v.end()
	answered := 0
	for _, i := range reqs {
		m := v.Msgs[i]
		if m.ID.IsNull() {
			continue
		}
		as := ex.answers[i]
		switch {
		case len(as) > 1:
			if _, c := cancels[m.ID]; c {
				continue
			}
			return violated("record %d: the %s answered %s %d times (record %d, record %d)", v.seq(m), side, describe(m), len(as), v.seq(v.Msgs[as[0]]), v.seq(v.Msgs[as[1]]))
		case len(as) == 1:
			answered++
		default:
			if _, c := cancels[m.ID]; c || ex.rejected[i] {
				continue
			}
			if side == Server && v.Transport != "stdio" {
				// A server's answer travels on a stream the client or a relay may cut (and
				// the client then resume, or not): its absence proves nothing. A client's
				// answer is a POST of its own, which the recording would hold.
				continue
			}
			if waited, timed := elapsed(v.Records[m.Rec].At, end); timed && waited > v.opts.ReplyBound && v.complete() {
				return violated("record %d: the %s never answered %s, though the conversation went on for %s after it", v.seq(m), side, describe(m), waited.Round(time.Millisecond))
			}
		}
	}
	if answered == 0 {
		return notExercised("no request of the " + other(side) + " was answered within the recording")
	}
	return passed("the %s answered %d requests, each once", side, answered)
}

// paramID reads a request id from a member of params (requestId of a cancellation).
func paramID(params json.RawMessage, name string) (jsonrpc.ID, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p[name] == nil {
		return "", false
	}
	id, err := jsonrpc.CanonicalID(p[name])
	return id, err == nil
}
