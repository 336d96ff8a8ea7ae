package clientsuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Helpers of the rules of the client's request ids and progress tokens (the checks are in
// overview_messages.go and patterns_progress.go), judged over every request it sends in every
// scenario but the authorization ones, at every revision and transport.
//
// How they share out a bad id: MSG-REQ-ID-NOT-NULL judges a null id, MSG-REQ-ID-TYPE any other
// that is neither a string nor an integer, and MSG-JSONRPC validates such a request with a valid
// id in its place, so that one bad id breaks one check. MSG-REQ-ID-UNIQUE judges reuse: before
// 2026-07-28 of any id the client used before in the session; at 2026-07-28 of the id of a
// request still in flight (the MRTR retry's own rule, a new id for the retry of a completed
// request, is MRTR-CLIENT-NEW-ID's). PROG-TOKEN-UNIQUE judges a progress token shared by
// requests in flight at once.
//
// In flight: sent, and neither answered nor cancelled (notifications/cancelled naming it) nor
// ended with its session (the probe expiring it, or a new initialize). Over
// Streamable HTTP at 2026-07-28, where ending a request's stream cancels it unseen by the probe,
// a request never answered is left out of the comparison. A stdio connection re-established
// ends everything in flight on the old one.
//
// The authorization scenarios are left out: a request refused 401 or 403 never reached the MCP
// layer, and sending it again once authorized delivers it, it does not reuse its id.

// idScenarios: every scenario but tools_call, the checks' own, and the authorization ones. The
// checks ride on them: they judge their recordings where another check has them served, and
// never have one served for themselves alone.
var idScenarios = []string{probe.ScenarioVersionUnsupported, probe.ScenarioSessionExpiry, probe.ScenarioSSERetry,
	probe.ScenarioRequestTimeout, probe.ScenarioInitialize, probe.ScenarioElicitDefaults, probe.ScenarioTaskCancel,
	probe.ScenarioSubscriptions, probe.ScenarioSkills, probe.ScenarioInvalidToolHeaders, probe.ScenarioRefNoDeref,
	probe.ScenarioSchemaPreservation, probe.ScenarioSkillVerifyDigest, probe.ScenarioSkillVerifySize, probe.ScenarioSkillVerifyFrontmatter,
	probe.ScenarioTasksExtension, probe.ScenarioTasksUndeclared}

// toolScenarios: those of idScenarios in which the client calls a tool, the request it asks for
// progress in (the contract's clients call every listed tool).
var toolScenarios = slices.DeleteFunc(slices.Clone(idScenarios), func(s string) bool {
	return s == probe.ScenarioVersionUnsupported || s == probe.ScenarioInitialize
})

// clientRequests are the JSON-RPC requests the client sent, in order.
func (v *View) clientRequests() []Msg {
	var out []Msg
	for _, m := range v.Msgs {
		if m.IsRequest() {
			out = append(out, m)
		}
	}
	return out
}

// idKind classifies a request id: "string", "integer", "null" or "other".
func idKind(id json.RawMessage) string {
	t := bytes.TrimSpace(id)
	switch {
	case len(t) == 0:
		return "other"
	case t[0] == '"':
		return "string"
	case string(t) == "null":
		return "null"
	case t[0] == '-' || (t[0] >= '0' && t[0] <= '9'):
		if f, ok := new(big.Float).SetString(string(t)); ok && f.IsInt() {
			return "integer"
		}
	}
	return "other"
}

// validID reports whether a request id is one MCP admits: a string or an integer.
func validID(id json.RawMessage) bool {
	k := idKind(id)
	return k == "string" || k == "integer"
}

// withValidID is a request with its id replaced by 0, for the schema check to judge the rest.
func withValidID(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	m["id"] = json.RawMessage("0")
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

func (v *View) noRequest() Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	return untestable("the client sent no request")
}

// flight is the walk of the recording that tracks the client's requests in flight.
type flight struct {
	v        *View
	inFlight []Msg
	skipped  int // requests left out: never answered over Streamable HTTP at 2026-07-28
}

// walk calls visit for each request the client sent, in order, with the requests in flight
// then, and for each initialize request and re-established connection calls reset (nil: none):
// each begins a new session, which nothing in flight outlives.
func (v *View) walk(visit func(m Msg, inFlight []Msg) *Finding, reset func()) (int, *Finding) {
	fl := flight{v: v}
	unseen := v.Transport == wire.HTTP && harness.IsStateless(v.Revision)
	byRec := map[int][]Msg{}
	for _, m := range v.Msgs {
		byRec[m.Rec] = append(byRec[m.Rec], m)
	}
	for i, r := range v.Records {
		switch {
		case r.Is(record.EvSessionExpired):
			fl.inFlight = nil // the session's requests are over: the request that met it got 404
		case r.Is(record.EvRelaunch):
			fl.inFlight = nil
			if reset != nil {
				reset()
			}
		case r.Dir == record.Send:
			for _, m := range parseMsgs([]byte(r.Body)) {
				if m.IsResponse() {
					fl.end(string(m.ID))
				}
			}
		case r.Dir == record.Recv:
			for _, m := range byRec[i] {
				switch {
				case m.Method == "notifications/cancelled":
					fl.end(requestIDOf(m.Raw))
				case m.IsRequest():
					if m.Method == "initialize" {
						// A new session: the old one's requests are over (a 404 ended it).
						fl.inFlight = nil
						if reset != nil {
							reset()
						}
					}
					if f := visit(m, fl.inFlight); f != nil {
						return fl.skipped, f
					}
					if unseen && !v.answered(m, i) {
						fl.skipped++
						continue
					}
					fl.inFlight = append(fl.inFlight, m)
				}
			}
		}
	}
	return fl.skipped, nil
}

// end takes the request with id out of flight.
func (fl *flight) end(id string) {
	if i := slices.IndexFunc(fl.inFlight, func(m Msg) bool { return string(m.ID) == id }); i >= 0 {
		fl.inFlight = slices.Delete(fl.inFlight, i, i+1)
	}
}

// answered reports whether the probe answered request m (sent in record at) later.
func (v *View) answered(m Msg, at int) bool {
	for _, r := range v.Records[at+1:] {
		if r.Dir != record.Send {
			continue
		}
		for _, resp := range parseMsgs([]byte(r.Body)) {
			if resp.IsResponse() && bytes.Equal(resp.ID, m.ID) {
				return true
			}
		}
	}
	return false
}

func skippedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d never answered, their streams perhaps ended by the client, are left out", n)
}

// progressToken is a request's params._meta.progressToken as compact JSON ("" if none).
func progressToken(raw json.RawMessage) string {
	var r struct {
		Params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Params.Meta.ProgressToken == nil {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, r.Params.Meta.ProgressToken) != nil {
		return string(r.Params.Meta.ProgressToken)
	}
	return b.String()
}

// clipList keeps the first n items, and says how many more there were.
func clipList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(slices.Clone(items[:n]), fmt.Sprintf("%d more", len(items)-n))
}
