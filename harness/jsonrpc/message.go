// Package jsonrpc classifies raw JSON-RPC 2.0 frames without losing anything a check needs:
// the exact bytes, the JSON type of ids, and whether members are absent, null or malformed.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Kind is what a frame is, judged only by its shape.
type Kind int

const (
	// Invalid is anything that is not one JSON-RPC object or array: bad JSON, a scalar, an
	// object that is neither request, notification nor response.
	Invalid Kind = iota
	Request
	Notification
	Response
	Batch
)

func (k Kind) String() string {
	switch k {
	case Request:
		return "request"
	case Notification:
		return "notification"
	case Response:
		return "response"
	case Batch:
		return "batch"
	default:
		return "invalid"
	}
}

// Message is one classified frame. Raw is always the bytes as received.
type Message struct {
	Raw     []byte
	Kind    Kind
	Problem string // why the frame is Invalid, or "" when it is well formed

	// Request, notification and response members. The Has flags sit together: a judge keeps
	// one Message for every message of a long recording, and each flag alone would be padded
	// to a word.
	HasVersion bool
	HasID      bool
	HasMethod  bool
	HasResult  bool
	HasError   bool
	HasOther   bool            // a member other than jsonrpc, id, method, params, result and error
	Version    json.RawMessage // the "jsonrpc" member as sent
	ID         ID
	Method     string
	Params     json.RawMessage
	Result     json.RawMessage
	Error      json.RawMessage

	// Elems are the classified elements of a Batch.
	Elems []Message
}

// Parse classifies one frame. It never fails: a frame that is not JSON comes back as Invalid
// with the reason in Problem.
func Parse(raw []byte) Message {
	m := Message{Raw: raw}
	trimmed := trimJSONSpace(raw)
	if len(trimmed) == 0 {
		m.Problem = "empty frame"
		return m
	}
	// An array or object is checked by the decoding itself, which fails on invalid JSON alone
	// (every element or member decodes as raw JSON): scanning it with json.Valid first would
	// read every frame twice.
	switch trimmed[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			m.Problem = "not valid JSON"
			return m
		}
		m.Kind = Batch
		m.Elems = make([]Message, len(elems))
		for i, e := range elems {
			m.Elems[i] = Parse(e)
		}
		return m
	case '{':
		return parseObject(m, trimmed)
	default:
		m.Problem = "a JSON value that is neither an object nor an array"
		if !json.Valid(trimmed) {
			m.Problem = "not valid JSON"
		}
		return m
	}
}

func parseObject(m Message, obj []byte) Message {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(obj, &members); err != nil {
		m.Problem = "not valid JSON"
		return m
	}
	if v, ok := members["jsonrpc"]; ok {
		m.HasVersion, m.Version = true, v
	}
	if v, ok := members["id"]; ok {
		m.HasID = true
		id, err := CanonicalID(v)
		if err != nil {
			m.Problem = fmt.Sprintf("id: %v", err)
		}
		m.ID = id
	}
	if v, ok := members["method"]; ok {
		m.HasMethod = true
		if err := json.Unmarshal(v, &m.Method); err != nil {
			m.Problem = "method is not a string"
		}
	}
	if v, ok := members["params"]; ok {
		m.Params = v
	}
	if v, ok := members["result"]; ok {
		m.HasResult, m.Result = true, v
	}
	if v, ok := members["error"]; ok {
		m.HasError, m.Error = true, v
	}
	known := 0
	for _, k := range [...]string{"jsonrpc", "id", "method", "params", "result", "error"} {
		if _, ok := members[k]; ok {
			known++
		}
	}
	m.HasOther = len(members) > known
	switch {
	case m.HasMethod && m.HasID:
		m.Kind = Request
	case m.HasMethod:
		m.Kind = Notification
	case m.HasResult || m.HasError:
		m.Kind = Response
	default:
		m.Kind = Invalid
		if m.Problem == "" {
			m.Problem = "object has neither method nor result nor error"
		}
	}
	return m
}

// VersionOK reports whether the "jsonrpc" member is exactly the string "2.0".
func (m Message) VersionOK() bool {
	return m.HasVersion && string(trimJSONSpace(m.Version)) == `"2.0"`
}

// ErrorObject is the error member of a response, decoded loosely so that a malformed one can be
// described rather than rejected.
type ErrorObject struct {
	Code        json.RawMessage
	CodeInt     int64
	CodeIsInt   bool
	Message     string
	HasMessage  bool
	MessageIsOK bool // present and a string
	Data        json.RawMessage
	IsObject    bool
}

// ErrorObject decodes the error member. ok is false when the message has no error member.
func (m Message) ErrorObject() (ErrorObject, bool) {
	if !m.HasError {
		return ErrorObject{}, false
	}
	var e ErrorObject
	var members map[string]json.RawMessage
	if err := json.Unmarshal(m.Error, &members); err != nil || members == nil {
		return e, true
	}
	e.IsObject = true
	if c, ok := members["code"]; ok {
		e.Code = c
		e.CodeInt, e.CodeIsInt = jsonInteger(c)
	}
	if msg, ok := members["message"]; ok {
		e.HasMessage = true
		e.MessageIsOK = json.Unmarshal(msg, &e.Message) == nil
	}
	e.Data = members["data"]
	return e, true
}

// jsonInteger reports whether raw is a JSON number with no fraction or exponent, and its value.
func jsonInteger(raw json.RawMessage) (int64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || strings.ContainsAny(s, ".eE\"") {
		return 0, false
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		return 0, false
	}
	return n, true
}

// ResultObject decodes the result member into a map; ok is false when it is not a JSON object.
func (m Message) ResultObject() (map[string]json.RawMessage, bool) {
	if !m.HasResult {
		return nil, false
	}
	t := trimJSONSpace(m.Result)
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t, &obj); err != nil {
		return nil, false
	}
	return obj, true
}

// jsonSpace is the whitespace JSON allows around a value (RFC 8259 § 2). bytes.TrimSpace would
// also drop form feeds and Unicode spaces, and so pass a frame that is not valid JSON.
const jsonSpace = " \t\r\n"

func trimJSONSpace(b []byte) []byte { return bytes.Trim(b, jsonSpace) }
