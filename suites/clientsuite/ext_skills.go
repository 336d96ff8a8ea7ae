package clientsuite

import (
	"encoding/json"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// The skills extension (ext-skills, stable) on the client side, judged on the official suite's
// sep-2640-client-no-prefetch scenario: the probe's skills/list gives two skills, each a
// complete manifest, and nothing asks the client to load one.

func init() {
	Register(
		Check{ID: "SKILL-CLIENT-NO-PREFETCH", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a host retrieves no skill file ahead of need: it may list the skills (skills/list, skills/get) and the resources, but reads no file of a skill nothing asked it to load",
			LevelReason: "Lazy Retrieval: hosts MUST NOT retrieve a skill's files ahead of need, not on connection, not on listing, not at approval; a listing entry already carries what a registry needs. Nothing in the scenario asks for a skill, so any read of a skill's file is a prefetch.",
			Side:        Client{Scenario: probe.ScenarioSkills, Judge: judgeSkillNoPrefetch}},
	)
}

func judgeSkillNoPrefetch(v *View) Finding {
	if v.statelessRequests() == 0 {
		return untestable("the client made no request past discovery")
	}
	listed := false
	for _, m := range v.Msgs {
		if !m.IsRequest() {
			continue
		}
		listed = listed || m.Method == "skills/list"
		if m.Method != "resources/read" {
			continue
		}
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(paramsOf(m.Raw), &p)
		if probe.IsSkillFile(p.URI) || strings.HasPrefix(p.URI, "skill://") {
			return violated("the client read %s, a file of a skill nothing asked it to load (record %d)", p.URI, v.Records[m.Rec].Seq)
		}
	}
	if !listed {
		return passed("the client did not call skills/list and read no skill file")
	}
	return passed("the client listed the skills and read no skill file")
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
		Register(Check{ID: c.id, Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports, Summary: c.summary, LevelReason: c.reason,
			Side: Client{Scenario: c.scenario, Judge: judgeSkillVerify}})
	}
}
