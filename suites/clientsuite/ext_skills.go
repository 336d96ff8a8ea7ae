package clientsuite

import (
	"encoding/json"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// The skills extension (SEP-2640) on the client side, judged on the official suite's
// sep-2640-client-no-prefetch scenario: the probe offers two skills and asks for none.

func init() {
	Register(
		Check{ID: "SKILL-CLIENT-NO-PREFETCH", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "SHOULD", Scenario: probe.ScenarioSkills,
			Summary:     "a client reads no skill file it was not asked to load: listing the resources and reading skill://index.json is all it does unasked",
			LevelReason: "SEP-2640 loads skills progressively: the index and the listing say what there is, a skill's files are read when it is used. Nothing in the scenario asks for a skill, so any read of a skill:// file but the index is a prefetch.",
			Judge:       judgeSkillNoPrefetch},
	)
}

func judgeSkillNoPrefetch(v *View) Finding {
	if v.modernRequests() == 0 {
		return untestable("the client made no request past discovery")
	}
	listed := false
	for _, m := range v.Msgs {
		if !m.IsRequest() {
			continue
		}
		listed = listed || m.Method == "resources/list"
		if m.Method != "resources/read" {
			continue
		}
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(paramsOf(m.Raw), &p)
		if strings.HasPrefix(p.URI, "skill://") && p.URI != probe.SkillsIndexURI {
			return violated("the client read %s, a file of a skill nothing asked it to load (record %d)", p.URI, m.Rec)
		}
	}
	if !listed {
		return passed("the client did not list the resources: it fetched no skill")
	}
	return passed("the client listed the resources and read no skill file")
}

// paramsOf is a message's params.
func paramsOf(raw json.RawMessage) json.RawMessage {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Params
}

// The checks of verification (skillsverify.go), one per official scenario.
func init() {
	for _, c := range []struct{ id, scenario, summary, reason string }{
		{"SKILL-CLIENT-VERIFY-DIGEST", probe.ScenarioSkillVerifyDigest,
			"a host does not use a skill file whose content does not match its entry's digest: it goes no further with pdf-processing once its SKILL.md fails the digest",
			"Hosts MUST verify a retrieved file against its entry's digest and MUST NOT use unverified content."},
		{"SKILL-CLIENT-VERIFY-SIZE", probe.ScenarioSkillVerifySize,
			"a host does not use a skill file whose length differs from its entry's size, even when the digest matches: it goes no further with pdf-processing",
			"A read whose byte length differs from the entry's size is a verification failure equal to a digest mismatch, whether or not the host computes the digest; the probe's entry carries the served file's digest, so only the size betrays it."},
		{"SKILL-CLIENT-VERIFY-FRONTMATTER", probe.ScenarioSkillVerifyFrontmatter,
			"a host compares a fetched SKILL.md's frontmatter with its entry's field by field and does not load the skill on a discrepancy: it goes no further with pdf-processing",
			"Hosts MUST parse the fetched SKILL.md's frontmatter and compare it with the entry's; any discrepancy is a verification failure and the skill MUST NOT be loaded. Digest and size match the served file here, so only the comparison betrays it."},
	} {
		Register(Check{ID: c.id, Level: "MUST", Scenario: c.scenario, Revisions: catalog.AllCatalogued, Transports: allTransports, Summary: c.summary, LevelReason: c.reason,
			Judge: judgeSkillVerify})
	}
}
