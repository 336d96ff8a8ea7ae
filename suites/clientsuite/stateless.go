package clientsuite

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
)

// Helpers of the client checks at the stateless revision (2026-07-28): there is no initialize,
// a client asks server/discover (or goes straight on), and every request names the revision and
// the client's capabilities in _meta; over HTTP the request metadata headers mirror the body.
// The checks live in the files of their pages.

// gateStateless makes a check judging a stateless revision na for a client that does not speak
// it: it sent initialize only, which the probe refused, and left.
func gateStateless(judge func(*View) Finding) func(*View) Finding {
	return func(v *View) Finding {
		if harness.IsStateless(v.Revision) && !v.SpeaksStateless() {
			if len(v.Msgs) == 0 {
				return untestable("the client sent no message")
			}
			return na("the client does not speak %s: it sent no server/discover and no request whose _meta names a protocol version (a %s server refuses its initialize)", v.Revision, v.Revision)
		}
		return judge(v)
	}
}

// SpeaksStateless reports whether the client says it speaks the stateless revision: it asked
// server/discover, or sent a request whose _meta names a protocol version, which only that
// revision defines. Any other request (a ping before initialize, say) is no such sign: an
// older client is not judged by rules it never claimed to follow.
func (v *View) SpeaksStateless() bool {
	return slices.ContainsFunc(v.Msgs, func(m Msg) bool {
		return m.IsRequest() && (m.Method == "server/discover" || metaNamesVersion(m.Raw))
	})
}

// metaNamesVersion reports whether a message's params._meta carries the stateless revision's
// protocol version key.
func metaNamesVersion(raw json.RawMessage) bool {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, ok := m.Params.Meta[harness.MetaProtocolVersion]
	return ok
}

// statelessRequests counts the client's requests past discovery (neither initialize nor
// server/discover): at the stateless revision, going on.
func (v *View) statelessRequests() int {
	n := 0
	for _, m := range v.Msgs {
		if m.IsRequest() && m.Method != "initialize" && m.Method != "server/discover" {
			n++
		}
	}
	return n
}

// mirrored is what a stateless request's headers must say: its protocol version (from
// _meta), its method, and the name it acts on where it has one.
func mirrored(raw json.RawMessage) (version, method, name string) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
			Name string                     `json:"name"`
			URI  string                     `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal(raw, &m)
	_ = json.Unmarshal(m.Params.Meta[harness.MetaProtocolVersion], &version)
	switch m.Method {
	case "tools/call", "prompts/get":
		name = m.Params.Name
	case "resources/read":
		name = m.Params.URI
	}
	return version, m.Method, name
}

// decodeHeader undoes the =?base64?…?= form a header value may take.
func decodeHeader(v string) string {
	if s, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if s, ok = strings.CutSuffix(s, "?="); ok {
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				return string(b)
			}
		}
	}
	return v
}

// MirroredHeaders is what a stateless request's HTTP headers must say (its protocol version,
// method and the name it acts on), for the observed checks judging recorded traffic by the
// same rule.
func MirroredHeaders(raw json.RawMessage) (version, method, name string) { return mirrored(raw) }

// DecodeHeaderValue undoes the =?base64?…?= form a header value may take.
func DecodeHeaderValue(v string) string { return decodeHeader(v) }
