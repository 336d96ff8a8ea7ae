package clientsuite

import (
	"strconv"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

func stdin(seq int, body string) record.Record {
	return record.Record{Seq: seq, Dir: record.Recv, Channel: record.ChanStdin, Body: body}
}

// At 2026-07-28 there is no initialize: a client declares its capabilities in each request's
// _meta, and the capability checks read them there; with an initialize, its capabilities hold.
func TestDeclaredReadsMetaCapabilities(t *testing.T) {
	withMeta := func(id int, caps string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	}
	for _, tc := range []struct {
		name   string
		bodies []string
		want   map[string]bool
	}{
		{"meta declares elicitation", []string{withMeta(1, `{"elicitation":{}}`)}, map[string]bool{"elicitation": true, "roots": false}},
		{"the latest request counts", []string{withMeta(1, `{"roots":{}}`), withMeta(2, `{"sampling":{}}`)}, map[string]bool{"roots": false, "sampling": true}},
		{"null is no declaration", []string{withMeta(1, `{"roots":null}`)}, map[string]bool{"roots": false}},
		{"no _meta, nothing declared", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, map[string]bool{"roots": false}},
		{"initialize wins over later _meta", []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`,
			withMeta(2, `{"sampling":{}}`)}, map[string]bool{"roots": true, "sampling": false}},
	} {
		var recs []record.Record
		for i, b := range tc.bodies {
			recs = append(recs, stdin(i+1, b))
		}
		v := NewView(probe.ScenarioTools, "2026-07-28", "stdio", "2026-07-28", recs, nil)
		for capability, want := range tc.want {
			if got := v.declared(capability); got != want {
				t.Errorf("%s: declared(%s) = %v, want %v", tc.name, capability, got, want)
			}
		}
	}
}

func TestPreInitAndBatchedInit(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	answer := record.Record{Seq: 3, Dir: record.Send, Channel: record.ChanStdout, Body: `{"jsonrpc":"2.0","id":2,"result":{}}`}
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	view := func(recs ...record.Record) *View {
		return NewView(probe.ScenarioTools, "2025-03-26", "stdio", "2025-03-26", recs, nil)
	}
	for _, tc := range []struct {
		name string
		v    *View
		pre  Outcome
		bat  Outcome
	}{
		{"discovery, then initialize", view(stdin(1, discover), stdin(2, initialize), answer), Pass, Pass},
		{"tools/list first", view(stdin(1, list), stdin(2, initialize), answer), Violation, Pass},
		{"initialize in an array of one", view(stdin(1, "["+initialize+"]"), answer), Pass, Violation},
		{"tools/list after the answer", view(stdin(1, initialize), answer, stdin(4, list)), Pass, Pass},
	} {
		if f := judgePreInit(tc.v); f.Outcome != tc.pre {
			t.Errorf("%s: LIFE-PRE-INIT-REQUEST %v %s, want %v", tc.name, f.Outcome, f.Message, tc.pre)
		}
		if f := judgeInitNotInBatch(tc.v); f.Outcome != tc.bat {
			t.Errorf("%s: BATCH-INIT-NOT-IN-BATCH %v %s, want %v", tc.name, f.Outcome, f.Message, tc.bat)
		}
	}
}

func TestParamHeaders(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"probe_headers","arguments":{"region":"eu-west-2","priority":7,"verbose":true,"greeting":"Grüße, 世界","padded":" padded ","spaced":"a b c","kind":"probe-kind"}}}`
	good := map[string]string{"Mcp-Param-Region": "eu-west-2", "Mcp-Param-Priority": "7", "Mcp-Param-Verbose": "true",
		"Mcp-Param-Greeting": "=?base64?R3LDvMOfZSwg5LiW55WM?=", "Mcp-Param-Padded": "=?base64?IHBhZGRlZCA=?=", "Mcp-Param-Spaced": "a b c", "Mcp-Param-Method": "probe-kind"}
	for _, tc := range []struct {
		name   string
		change map[string]string
		drop   string
		want   Outcome
	}{
		{"all mirrored", nil, "", Pass},
		{"integer as 7.0", map[string]string{"Mcp-Param-Priority": "7.0"}, "", Pass},
		{"plain value Base64-wrapped", map[string]string{"Mcp-Param-Region": "=?base64?ZXUtd2VzdC0y?="}, "", Pass},
		{"header missing", nil, "Mcp-Param-Region", Violation},
		{"value differs", map[string]string{"Mcp-Param-Verbose": "false"}, "", Violation},
		{"non-ASCII sent raw", map[string]string{"Mcp-Param-Greeting": "Grüße, 世界"}, "", Violation},
		{"Mcp-Param-Method missing", nil, "Mcp-Param-Method", Violation},
	} {
		h := map[string]string{}
		for k, v := range good {
			h[k] = v
		}
		for k, v := range tc.change {
			h[k] = v
		}
		delete(h, tc.drop)
		v := NewView(probe.ScenarioTools, "2026-07-28", "http", "2026-07-28", []record.Record{post(1, call, h)}, nil)
		if f := judgeParamHeaders(v); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
	// A null argument must not be mirrored.
	null := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"probe_headers","arguments":{"region":null}}}`
	v := NewView(probe.ScenarioTools, "2026-07-28", "http", "2026-07-28", []record.Record{post(1, null, map[string]string{"Mcp-Param-Region": "x"})}, nil)
	if f := judgeParamHeaders(v); f.Outcome != Violation {
		t.Errorf("a header for a null argument: %v %s, want a violation", f.Outcome, f.Message)
	}
}
