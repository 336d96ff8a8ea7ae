package clientsuite

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/schema"
)

func post(seq int, body string, header map[string]string) record.Record {
	return record.Record{Seq: seq, Dir: record.Recv, Channel: record.ChanPOST, Path: probe.Path, Header: header, Body: body}
}

const statelessCall = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"probe_echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// A client that speaks only the handshake era sends initialize at 2026-07-28, is refused and
// leaves: the checks of that revision are na with the reason, not failures.
func TestStatelessChecksNAForLegacyClient(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	v := NewView(probe.ScenarioTools, "2026-07-28", "http", "2026-07-28", []record.Record{post(1, initialize, nil)}, schema.New())
	for _, id := range []string{"HTTP26-META-HEADERS-CLIENT", "MSG-JSONRPC", "HTTP-POST-ACCEPT"} {
		c, _ := Lookup(id)
		if f := c.Side.Judge(v); f.Outcome != NotApplicable || !strings.Contains(f.Message, "does not speak 2026-07-28") {
			t.Errorf("%s: %v %s, want na", id, f.Outcome, f.Message)
		}
	}
}

func TestMetaHeaders(t *testing.T) {
	good := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?cHJvYmVfZWNobw==?="}
	for _, tc := range []struct {
		name   string
		change map[string]string
		want   Outcome
	}{
		{"base64 name decoded", nil, Pass},
		{"version differs from _meta", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, Violation},
		{"method differs", map[string]string{"Mcp-Method": "tools/list"}, Violation},
		{"name differs", map[string]string{"Mcp-Name": "other"}, Violation},
	} {
		h := map[string]string{}
		for k, v := range good {
			h[k] = v
		}
		for k, v := range tc.change {
			h[k] = v
		}
		v := NewView(probe.ScenarioTools, "2026-07-28", "http", "2026-07-28", []record.Record{post(1, statelessCall, h)}, nil)
		if f := judgeMetaHeaders(v); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
}
