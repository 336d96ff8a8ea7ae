package clientsuite

import (
	"encoding/json"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/schema"
)

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func callOf(seq int, tool, args string) record.Record {
	return post(seq, `{"jsonrpc":"2.0","id":`+itoa(seq)+`,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`,`+statelessMeta+`}}`, nil)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

var statelessList = post(1, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+statelessMeta+`}}`, nil)

// A call of an invalid tool fails; no call of the valid one shows nothing.
func TestInvalidToolHeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []record.Record
		want Outcome
	}{
		{"the valid tool alone", []record.Record{statelessList, callOf(2, probe.ToolValidHeader, `{"region":"us-west1"}`)}, Pass},
		{"an invalid tool too", []record.Record{statelessList, callOf(2, probe.ToolValidHeader, `{}`), callOf(3, "invalid_items_header", `{}`)}, Violation},
		{"no call at all", []record.Record{statelessList}, Untestable},
	} {
		v := NewView(probe.ScenarioInvalidToolHeaders, "2026-07-28", "http", "2026-07-28", tc.recs, schema.New())
		if f := judgeInvalidToolHeaders(v); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
}

// A request to the canary is a dereference, whenever it comes.
func TestRefNoDeref(t *testing.T) {
	canary := record.Record{Seq: 2, Dir: record.Recv, Channel: probe.ChanCanary, Method: "GET", Path: probe.CanaryPath}
	for _, tc := range []struct {
		name string
		recs []record.Record
		want Outcome
	}{
		{"listed, not fetched", []record.Record{statelessList}, Pass},
		{"fetched", []record.Record{statelessList, canary}, Violation},
		{"never listed", nil, Untestable},
	} {
		v := NewView(probe.ScenarioRefNoDeref, "2026-07-28", "http", "2026-07-28", tc.recs, schema.New())
		if f := judgeRefNoDeref(v); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
}

// The echo must keep the revision's keywords; an $anchor is judged from 2026-07-28 only.
func TestSchemaPreserve(t *testing.T) {
	echo := func(mutate func(map[string]any)) string {
		s := probe.PreservationSchema()
		if mutate != nil {
			mutate(s)
		}
		b, _ := json.Marshal(map[string]any{"schema": s})
		return string(b)
	}
	noAnchor := func(s map[string]any) { delete(s["$defs"].(map[string]any)["address"].(map[string]any), "$anchor") }
	for _, tc := range []struct {
		name, rev, args string
		want            Outcome
	}{
		{"verbatim", "2026-07-28", echo(nil), Pass},
		{"verbatim, 2025-11-25", "2025-11-25", echo(nil), Pass},
		{"no additionalProperties", "2025-11-25", echo(func(s map[string]any) { delete(s, "additionalProperties") }), Violation},
		{"no if/then/else at 2026-07-28", "2026-07-28", echo(func(s map[string]any) { delete(s, "if") }), Violation},
		{"no if at 2025-11-25: not judged", "2025-11-25", echo(func(s map[string]any) { delete(s, "if") }), Pass},
		{"no $anchor at 2026-07-28", "2026-07-28", echo(noAnchor), Violation},
		{"no $anchor at 2025-11-25: not judged", "2025-11-25", echo(noAnchor), Pass},
		{"no echo", "2026-07-28", `{}`, Untestable},
	} {
		v := NewView(probe.ScenarioSchemaPreservation, tc.rev, "stdio", tc.rev, []record.Record{statelessList, callOf(2, probe.ToolSchemaEcho, tc.args)}, schema.New())
		if f := judgeSchemaPreserve(v); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
}

// Going on to the tampered skill's supporting file after its SKILL.md fails; a client that
// reads no supporting file at all shows nothing.
func TestSkillVerify(t *testing.T) {
	const declared = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/skills":{}}}}`
	read := func(seq int, uri string) record.Record {
		return post(seq, `{"jsonrpc":"2.0","id":`+itoa(seq)+`,"method":"resources/read","params":{"uri":"`+uri+`",`+declared+`}}`, nil)
	}
	listSkills := post(1, `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{`+declared+`}}`, nil)
	for _, tc := range []struct {
		name string
		recs []record.Record
		want Outcome
	}{
		{"rejected", []record.Record{listSkills, read(2, probe.SkillControlURI), read(3, probe.SkillControlSupport), read(4, probe.SkillTamperedURI)}, Pass},
		{"went on", []record.Record{listSkills, read(2, probe.SkillTamperedURI), read(3, probe.SkillTamperedSupport)}, Violation},
		{"never loaded", []record.Record{listSkills, read(2, probe.SkillControlURI), read(3, probe.SkillControlSupport)}, Untestable},
		{"no supporting file at all", []record.Record{listSkills, read(2, probe.SkillTamperedURI)}, Untestable},
		{"no skills declared", []record.Record{statelessList}, NotApplicable},
	} {
		v := NewView(probe.ScenarioSkillVerifyDigest, "2026-07-28", "http", "2026-07-28", tc.recs, schema.New())
		if f := judgeSkillVerify(v); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
	}
}
