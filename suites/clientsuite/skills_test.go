package clientsuite

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// Listing the skills is browsing; reading a skill's file unasked is a prefetch.
func TestSkillNoPrefetch(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	read := func(id, uri string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"` + uri + `",` + meta + `}}`
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{` + meta + `}}`
	for _, tc := range []struct {
		name string
		recs []record.Record
		want Outcome
	}{
		{"nothing past discovery", nil, Untestable},
		{"listing only", []record.Record{post(1, list, nil)}, Pass},
		{"a SKILL.md", []record.Record{post(1, list, nil), post(2, read("2", "skill://probe-beta/SKILL.md"), nil)}, Violation},
		{"a supporting file", []record.Record{post(1, list, nil), post(2, read("2", "skill://probe-alpha/notes.md"), nil)}, Violation},
	} {
		v := NewView(probe.ScenarioSkills, "2026-07-28", "http", "2026-07-28", tc.recs, schema.New())
		f := judgeSkillNoPrefetch(v)
		if f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", tc.name, f.Outcome, f.Message, tc.want)
		}
		// The evidence is the read's own record, by its sequence number.
		if tc.want == Violation && !strings.Contains(f.Message, "(record 2)") {
			t.Errorf("%s: %s does not cite record 2", tc.name, f.Message)
		}
	}
}
