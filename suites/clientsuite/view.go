package clientsuite

import (
	"bytes"
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// View is one scenario run as the checks read it: the probe's records, and the messages the
// client sent, parsed.
type View struct {
	Scenario  string
	Revision  string // the revision the run is at
	Transport string
	Offered   string // the protocol version the probe answered initialize with
	Records   []record.Record
	Msgs      []Msg // every message the client sent, in the order the probe read them
	// InitAnswered is the index in Records of the probe's answer to initialize, -1 if none.
	InitAnswered int
	Validator    Validator
}

// Validator validates JSON against a revision's schema definition (harness/schema).
type Validator interface {
	Definition(revision, name string, raw []byte) error
}

// Msg is one message from the client.
type Msg struct {
	Rec    int             // index in View.Records of the record that carried it
	Raw    json.RawMessage // the message itself (one element of a batch)
	Method string
	ID     json.RawMessage // nil for a notification
	Result json.RawMessage
	Error  json.RawMessage
	Batch  bool // it came in an array with others
}

// IsRequest, IsNotification and IsResponse classify the message.
func (m Msg) IsRequest() bool      { return m.Method != "" && m.ID != nil }
func (m Msg) IsNotification() bool { return m.Method != "" && m.ID == nil }
func (m Msg) IsResponse() bool     { return m.Method == "" && m.ID != nil }

// NewView reads the records of one run.
func NewView(scenario, revision, transport, offered string, recs []record.Record, val Validator) *View {
	v := &View{Scenario: scenario, Revision: revision, Transport: transport, Offered: offered, Records: recs, InitAnswered: -1, Validator: val}
	initID := json.RawMessage(nil)
	for i, r := range recs {
		switch {
		case r.Dir == record.Recv && (r.Channel == record.ChanStdin || r.Channel == record.ChanPOST):
			for _, m := range parseMsgs([]byte(r.Body)) {
				m.Rec = i
				if m.Method == "initialize" && initID == nil {
					initID = m.ID
				}
				v.Msgs = append(v.Msgs, m)
			}
		case r.Dir == record.Send && initID != nil && v.InitAnswered < 0:
			for _, m := range parseMsgs([]byte(r.Body)) {
				if m.IsResponse() && bytes.Equal(m.ID, initID) {
					v.InitAnswered = i
				}
			}
		}
	}
	return v
}

// parseMsgs reads one record's body with the harness's JSON-RPC classifier: one message, or the
// members of a batch. Valid JSON that is no JSON-RPC message is kept (the schema check judges
// it); a body that is not JSON at all yields nothing (STDIO-CLIENT-STDIN judges the line).
func parseMsgs(body []byte) []Msg {
	m := jsonrpc.Parse(bytes.TrimSpace(body))
	var ms []jsonrpc.Message
	switch {
	case m.Kind == jsonrpc.Batch:
		ms = m.Elems
	case json.Valid(m.Raw):
		ms = []jsonrpc.Message{m}
	}
	out := make([]Msg, 0, len(ms))
	for _, e := range ms {
		msg := Msg{Raw: e.Raw, Method: e.Method, Result: e.Result, Error: e.Error, Batch: len(ms) > 1}
		if e.HasID {
			msg.ID = e.ID.JSON()
		}
		out = append(out, msg)
	}
	return out
}

// After returns the client's messages that came after the probe answered initialize.
func (v *View) After() []Msg {
	if v.InitAnswered < 0 {
		return nil
	}
	var out []Msg
	for _, m := range v.Msgs {
		if m.Rec > v.InitAnswered {
			out = append(out, m)
		}
	}
	return out
}

// Proceeded reports whether the client went on after the probe answered initialize: it sent
// another message (a DELETE ending the session is leaving, not going on).
// At the stateless revision, where there is no initialize, a request past discovery is going on.
func (v *View) Proceeded() bool {
	return len(v.After()) > 0 || (v.InitAnswered < 0 && v.statelessRequests() > 0)
}

// RequestsAfter are the client's HTTP requests after the probe answered initialize: those that
// arrived once the answer was on its way. A request that arrived before (a pipelining client's,
// recorded after the answer only because its body was read later) could not carry what the
// answer told, the session id or the negotiated version, so it is not judged by it: causality
// decides, not the order in which the probe's goroutines happened to record.
func (v *View) RequestsAfter() []int {
	if v.InitAnswered < 0 {
		return nil
	}
	answered := v.Records[v.InitAnswered].Seq
	var out []int
	for i, r := range v.Records {
		if i > v.InitAnswered && r.Dir == record.Recv && r.Channel != record.ChanStdin && (r.Arrived == 0 || r.Arrived > answered) {
			out = append(out, i)
		}
	}
	return out
}

// notProceeded is the na finding of a run in which the client stopped after initialize.
func (v *View) notProceeded() Finding {
	if v.InitAnswered < 0 {
		return untestable("the client sent no initialize the probe could answer")
	}
	return na("the client did not go on after the probe answered initialize with %s: it does not speak that revision", v.Offered)
}

// sentPing reports whether the probe pinged the client.
func (v *View) sentPing() bool {
	for _, r := range v.Records {
		if r.Dir == record.Send && bytes.Contains([]byte(r.Body), []byte(`"`+probe.PingID+`"`)) {
			for _, m := range parseMsgs([]byte(r.Body)) {
				if m.Method == "ping" {
					return true
				}
			}
		}
	}
	return false
}
