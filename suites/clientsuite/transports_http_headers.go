package clientsuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"strconv"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// Custom headers from tool parameters (2026-07-28): a POSTed tools/call of a tool whose input
// schema marks properties with x-mcp-header carries each marked argument's value in
// Mcp-Param-{Name}, Base64-wrapped (=?base64?…?=) where the value is not plain ASCII or has
// surrounding whitespace, and no such header for an argument that is null or absent. The probe
// lists one such tool (probe.ToolParamHeaders), whose defaults cover each encoding.

func init() {
	Register(Check{ID: "HTTP26-PARAM-HEADER-CLIENT", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
		Summary: "a POSTed tools/call mirrors each x-mcp-header argument into Mcp-Param-{Name}, Base64-wrapped where the value needs it",
		Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeParamHeaders}})
}

func judgeParamHeaders(v *View) Finding {
	n := 0
	for _, m := range v.Msgs {
		r := v.Records[m.Rec]
		if m.Method != "tools/call" || !m.IsRequest() || r.Channel != record.ChanPOST {
			continue
		}
		var p struct {
			Params struct {
				Name      string                     `json:"name"`
				Arguments map[string]json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &p) != nil || p.Params.Name != probe.ToolParamHeaders {
			continue
		}
		n++
		for _, ph := range probe.ParamHeaders {
			if why := paramHeaderFault(r, ph, p.Params.Arguments[ph.Prop]); why != "" {
				return violated("tools/call of %s (record %d): %s", probe.ToolParamHeaders, r.Seq, why)
			}
		}
	}
	if n == 0 {
		return untestable("the client never called %s, whose arguments travel in Mcp-Param headers (the contract: call every listed tool)", probe.ToolParamHeaders)
	}
	return passed("each of the client's %d calls of %s carries every x-mcp-header argument in its Mcp-Param header, encoded as due", n, probe.ToolParamHeaders)
}

// paramHeaderFault says what is wrong with one marked argument's header, "" if nothing.
func paramHeaderFault(r record.Record, ph probe.ParamHeader, raw json.RawMessage) string {
	name := "Mcp-Param-" + ph.Header
	got, sent := r.HasHeader(name)
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		if sent {
			return fmt.Sprintf("%s: %q is sent, but the argument %s is null or absent, so the header must be omitted", name, got, ph.Prop)
		}
		return ""
	}
	want, numeric := headerText(raw)
	if !sent {
		return fmt.Sprintf("no %s header for the argument %s = %s", name, ph.Prop, raw)
	}
	wrapped := strings.HasPrefix(got, "=?base64?") && strings.HasSuffix(got, "?=")
	if needsBase64(want) && !wrapped {
		return fmt.Sprintf("%s: %q is not in the =?base64?…?= form, which the value %q needs (non-ASCII, a control character or surrounding whitespace)", name, got, want)
	}
	dec := decodeHeader(got)
	if numeric {
		a, errA := strconv.ParseFloat(dec, 64)
		b, errB := strconv.ParseFloat(want, 64)
		if errA == nil && errB == nil && a == b {
			return ""
		}
	}
	if dec != want {
		return fmt.Sprintf("%s: %q (decoded %q) does not match the argument %s = %s", name, got, dec, ph.Prop, raw)
	}
	return ""
}

// headerText is an argument's value as a header carries it: a string as it is, a number in
// decimal, a boolean as true or false; numeric reports a number.
func headerText(raw json.RawMessage) (text string, numeric bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	t := string(bytes.TrimSpace(raw))
	return t, t != "true" && t != "false"
}

// needsBase64 reports whether a value cannot travel as a plain header value: non-ASCII,
// control characters (tab included), or leading or trailing whitespace.
func needsBase64(s string) bool {
	if s != strings.TrimSpace(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return false
}

func init() {
	Register(
		Check{ID: "HTTP26-XMCPHEADER-CLIENT", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary:     "a client excludes a tool whose x-mcp-header marks break a constraint (empty, not a token, duplicate, not a primitive, not statically reachable): it never calls one, and still calls the valid tool",
			LevelReason: "The text says clients using Streamable HTTP MUST reject such tool definitions, rejection meaning the tool is excluded from the result of tools/list. A call shows the client kept the tool. The contract has a client call every tool it holds, so it calls valid_tool: a client that did not shows nothing about which tools it kept (untestable).",
			Side:        Client{Scenario: probe.ScenarioInvalidToolHeaders, Judge: judgeInvalidToolHeaders}},
		Check{ID: "HTTP-PROTO-HEADER-NEGOTIATED", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,
			Summary: "the MCP-Protocol-Version the client sends is the negotiated revision",
			Side:    Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgeVersionNegotiated}},
		Check{ID: "HTTP26-META-HEADERS-CLIENT", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "every POST carries MCP-Protocol-Version and Mcp-Method (and Mcp-Name where the method names something) matching its body",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeMetaHeaders}},
	)
}

func judgeVersionNegotiated(v *View) Finding {
	reqs := v.RequestsAfter()
	if len(reqs) == 0 {
		return v.notProceeded()
	}
	n := 0
	for _, i := range reqs {
		r := v.Records[i]
		got, ok := r.HasHeader("MCP-Protocol-Version")
		if !ok {
			continue
		}
		n++
		if got != v.Offered {
			return violated("%s (record %d) carries MCP-Protocol-Version %s, not the negotiated %s", r.Channel, r.Seq, got, v.Offered)
		}
	}
	if n == 0 {
		return na("the client sent no MCP-Protocol-Version header (LIFE-HTTP-VERSION-HEADER judges that)")
	}
	return passed("all %d MCP-Protocol-Version headers name the negotiated %s", n, v.Offered)
}

func judgeMetaHeaders(v *View) Finding {
	n := 0
	for _, m := range v.Msgs {
		if !m.IsRequest() {
			continue
		}
		r := v.Records[m.Rec]
		if r.Channel != record.ChanPOST {
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
