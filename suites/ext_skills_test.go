package suites

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSkillEntryProblem(t *testing.T) {
	const digest = `"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"`
	file := func(uri string) string { return `{"uri":"` + uri + `","digest":` + digest + `,"size":12}` }
	entry := func(uri, name, resources string) skillEntry {
		var e skillEntry
		raw := `{"uri":"` + uri + `","frontmatter":{"name":"` + name + `","description":"d"},"resources":` + resources + `}`
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	const md = "skill://acme/billing/refunds/SKILL.md"
	for _, tc := range []struct {
		name string
		e    skillEntry
		want string // a fragment of the problem; "" for none
	}{
		{"nested path, manifest", entry(md, "refunds", `[`+file(md)+`,`+file("skill://acme/billing/refunds/examples/email.md")+`]`), ""},
		{"dynamic", entry("github://o/r/skills/daily/SKILL.md", "daily", `"dynamic"`), ""},
		{"SKILL.md left out", entry(md, "refunds", `[`+file("skill://acme/billing/refunds/a.md")+`]`), "not complete"},
		{"file of another skill", entry(md, "refunds", `[`+file(md)+`,`+file("skill://acme/billing/other/a.md")+`]`), "not a file of the skill"},
		{"listed twice", entry(md, "refunds", `[`+file(md)+`,`+file(md)+`]`), "twice"},
		{"name not the last segment", entry(md, "refund", `"dynamic"`), "ends in"},
		{"bad name", entry("skill://Bad--Name/SKILL.md", "Bad--Name", `"dynamic"`), "naming rules"},
		{"no resources", entry(md, "refunds", `null`), "neither"},
		{"not a SKILL.md", entry("skill://refunds/README.md", "refunds", `"dynamic"`), "not <scheme>"},
		{"bad digest", entry(md, "refunds", `[{"uri":"`+md+`","digest":"sha256:ABC","size":1}]`), "digest"},
		{"no size", entry(md, "refunds", `[{"uri":"`+md+`","digest":`+digest+`}]`), "size"},
	} {
		got := entryProblem(tc.e)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: problem %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A SKILL.md's frontmatter compares with an entry's as JSON carries it: dates stay the text the
// author wrote, nested maps and numbers compare by value.
func TestSkillFrontmatterAsJSON(t *testing.T) {
	fm, err := frontmatter("---\nname: x\ndescription: d\ndate: 2026-01-02\nmetadata:\n  version: 2.1\n---\nbody\n")
	if err != nil {
		t.Fatal(err)
	}
	got, err := yamlAsJSON(fm)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	_ = json.Unmarshal([]byte(`{"name":"x","description":"d","date":"2026-01-02","metadata":{"version":2.1}}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frontmatter as JSON = %v, want %v", got, want)
	}
}
