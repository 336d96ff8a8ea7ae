package clientsuite

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The client checks of the stateless revision (2026-07-28): there is no initialize, a client
// asks server/discover (or goes straight on), and every request names the revision and the
// client's capabilities in _meta; over HTTP the request metadata headers mirror the body.

var modernOnly = []string{harness.Rev20260728}

func init() {
	Register(
		Check{ID: "HTTP26-META-HEADERS-CLIENT", Level: "MUST", Scenario: probe.ScenarioTools, Transports: httpOnly, Versions: modernOnly,
			Summary: "every POST carries MCP-Protocol-Version and Mcp-Method (and Mcp-Name where the method names something) matching its body",
			Judge:   judgeMetaHeaders},
		Check{ID: "STDIO26-NO-CLIENT-RESPONSES", Level: "MUST", Scenario: probe.ScenarioTools, Transports: []string{wire.Stdio}, Versions: modernOnly,
			Summary: "the client writes no JSON-RPC responses to the server's stdin",
			Judge:   judgeNoClientResponses},
		Check{ID: "PAGE-EMPTY-STRING-CURSOR", Level: "MUST", Scenario: probe.ScenarioTools, Transports: []string{wire.Stdio, wire.HTTP}, Versions: modernOnly,
			Summary: "a nextCursor of \"\" is not taken for the end of the list: the client asks for the page it names",
			Judge:   judgeEmptyCursor},
	)
}

// gateModern makes a check judging a stateless revision na for a client that does not speak
// it: it sent initialize only, which the probe refused, and left.
func gateModern(judge func(*View) Finding) func(*View) Finding {
	return func(v *View) Finding {
		if harness.IsModern(v.Revision) && !v.SpeaksModern() {
			if len(v.Msgs) == 0 {
				return untestable("the client sent no message")
			}
			return na("the client does not speak %s: it sent no server/discover and no request whose _meta names a protocol version (a %s server refuses its initialize)", v.Revision, v.Revision)
		}
		return judge(v)
	}
}

// SpeaksModern reports whether the client says it speaks the stateless revision: it asked
// server/discover, or sent a request whose _meta names a protocol version, which only that
// revision defines. Any other request (a ping before initialize, say) is no such sign: an
// older client is not judged by rules it never claimed to follow.
func (v *View) SpeaksModern() bool {
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

// modernRequests counts the client's requests past discovery (neither initialize nor
// server/discover): at the stateless revision, going on.
func (v *View) modernRequests() int {
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

func judgeMetaHeaders(v *View) Finding {
	n := 0
	for _, m := range v.Msgs {
		if !m.IsRequest() {
			continue
		}
		r := v.Records[m.Rec]
		if r.Channel != probe.ChanPOST {
			continue
		}
		n++
		version, method, name := mirrored(m.Raw)
		got, ok := r.HasHeader("MCP-Protocol-Version")
		switch {
		case !ok:
			return violated("POST of %s (record %d) carries no MCP-Protocol-Version header", method, r.Seq)
		case version != "" && got != version:
			return violated("POST of %s (record %d) has MCP-Protocol-Version %q, but its _meta names %q", method, r.Seq, got, version)
		}
		if got, ok := r.HasHeader("Mcp-Method"); !ok || got != method {
			return violated("POST of %s (record %d) has Mcp-Method %q (present: %v), want the body's method", method, r.Seq, got, ok)
		}
		if name == "" {
			continue
		}
		if got, ok := r.HasHeader("Mcp-Name"); !ok || decodeHeader(got) != name {
			return violated("POST of %s (record %d) has Mcp-Name %q (present: %v), want %q from the body", method, r.Seq, got, ok, name)
		}
	}
	if n == 0 {
		return untestable("the client POSTed no request")
	}
	return passed("all %d POSTed requests carry MCP-Protocol-Version, Mcp-Method and, where due, Mcp-Name matching their bodies", n)
}

func judgeNoClientResponses(v *View) Finding {
	for _, m := range v.Msgs {
		if m.IsResponse() {
			return violated("the client wrote a JSON-RPC response (id %s, record %d) to the server's stdin: %s", m.ID, v.Records[m.Rec].Seq, clip(string(m.Raw)))
		}
	}
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	return passed("none of the client's %d messages is a response", len(v.Msgs))
}

func judgeEmptyCursor(v *View) Finding {
	at := slices.IndexFunc(v.Records, func(r probe.Record) bool { return r.Is(probe.EvEmptyCursor) })
	if at < 0 {
		if !slices.ContainsFunc(v.Msgs, func(m Msg) bool { return m.IsRequest() && m.Method == "tools/list" }) {
			return untestable("the client never listed the tools, so the probe sent no nextCursor \"\"")
		}
		return untestable("the client did not page: it never followed the first page's nextCursor %q, so it never met nextCursor \"\"", probe.ModernPageCursor)
	}
	for _, m := range v.Msgs {
		if m.Rec <= at || m.Method != "tools/list" {
			continue
		}
		var p struct {
			Params struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &p) == nil && p.Params.Cursor != nil && *p.Params.Cursor == "" {
			return passed("the client asked for the page after nextCursor \"\" (record %d)", v.Records[m.Rec].Seq)
		}
	}
	return violated("answered tools/list with nextCursor \"\", the client never asked for that page: it took a valid cursor for the end of the list")
}

// MirroredHeaders is what a stateless request's HTTP headers must say (its protocol version,
// method and the name it acts on), for the observed checks judging recorded traffic by the
// same rule.
func MirroredHeaders(raw json.RawMessage) (version, method, name string) { return mirrored(raw) }

// DecodeHeaderValue undoes the =?base64?…?= form a header value may take.
func DecodeHeaderValue(v string) string { return decodeHeader(v) }
