package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// ID is a request id in canonical JSON text: `"1"` (a string, quotes included) and `1` (a
// number) are different ids, as JSON-RPC demands. The zero value means "no id".
type ID string

// Null is the JSON null id used in replies to unreadable requests.
const Null ID = "null"

// StringID returns the id for the JSON string s.
func StringID(s string) ID { return ID(encodeString(s)) }

// NumberID returns the id for the JSON integer n.
func NumberID(n int64) ID { return ID(strconv.FormatInt(n, 10)) }

// IsString reports whether the id is a JSON string.
func (id ID) IsString() bool { return strings.HasPrefix(string(id), `"`) }

// IsNumber reports whether the id is a JSON number. An id that is an object, array or boolean
// (kept as sent, with a Problem on its message) is none of string, number or null.
func (id ID) IsNumber() bool {
	return id != "" && (id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// IsNull reports whether the id is JSON null.
func (id ID) IsNull() bool { return id == Null }

// JSON returns the id as raw JSON for embedding in a message.
func (id ID) JSON() json.RawMessage { return json.RawMessage(id) }

// Text is a readable form for messages: strings keep their quotes so `"1"` and `1` differ.
func (id ID) Text() string {
	if id == "" {
		return "(absent)"
	}
	return string(id)
}

// CanonicalID turns a raw JSON id into its canonical text. Strings are decoded and re-encoded so
// that "\u00fc" and "ü" compare equal; numbers keep their literal text, because JSON-RPC asks for
// the id to be echoed as sent and a server that turns 1 into 1.0 has changed it.
func CanonicalID(raw json.RawMessage) (ID, error) {
	t := trimJSONSpace(raw)
	if len(t) == 0 {
		return "", errors.New("empty id")
	}
	switch t[0] {
	case '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return ID(t), err
		}
		return StringID(s), nil
	case 'n':
		return Null, nil
	case '{', '[', 't', 'f':
		return ID(t), errors.New("id is neither a string nor a number")
	default:
		var n json.Number
		if err := json.Unmarshal(t, &n); err != nil {
			return ID(t), err
		}
		return ID(t), nil
	}
}

// encodeString encodes s as JSON without escaping <, > and & so ids read as they were written.
func encodeString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return strings.TrimRight(b.String(), "\n")
}
