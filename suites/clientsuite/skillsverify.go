package clientsuite

import (
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// Verification of skill content (the skills extension, Integrity and Verification), judged on
// the official suite's sep-2640-client-verify-* scenarios, which the probe serves by their
// names: two skills, probe-guide whose files verify, and pdf-processing whose SKILL.md does
// not (its digest, its size or its frontmatter, one per scenario). A host MUST NOT use content
// that does not verify; a host loading a skill reads its SKILL.md and then the supporting
// files it names, so a read of pdf-processing's supporting file after its SKILL.md shows the
// host went on with the skill. A host that never goes on to a supporting file, even
// probe-guide's, shows nothing by not reading pdf-processing's.

func judgeSkillVerify(v *View) Finding {
	if !v.declaresSkills() {
		return na("the client does not use the skills extension: no request of it declares %s in capabilities.extensions", probe.SkillsExtension)
	}
	loaded, controlSupport := -1, -1
	for _, m := range v.Msgs {
		if !m.IsRequest() || m.Method != "resources/read" {
			continue
		}
		var p struct {
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		_ = json.Unmarshal(m.Raw, &p)
		seq := v.Records[m.Rec].Seq
		switch p.Params.URI {
		case probe.SkillTamperedURI:
			if loaded < 0 {
				loaded = seq
			}
		case probe.SkillTamperedSupport:
			if loaded >= 0 {
				return violated("the client read %s (record %d) after %s (record %d), which does not verify against its entry: it used unverified content", probe.SkillTamperedSupport, seq, probe.SkillTamperedURI, loaded)
			}
		case probe.SkillControlSupport:
			controlSupport = seq
		}
	}
	switch {
	case loaded < 0:
		return untestable("the client never read %s, so it never loaded the skill it was to reject (the contract: load each listed skill)", probe.SkillTamperedURI)
	case controlSupport < 0:
		return untestable("the client read no supporting file of probe-guide, whose files verify, so its not reading pdf-processing's shows nothing of its verification")
	}
	return passed("the client read %s (record %d) and went no further with it, while it read probe-guide's supporting file (record %d)", probe.SkillTamperedURI, loaded, controlSupport)
}

// declaresSkills reports whether one of the client's requests declares the skills extension in
// its _meta's client capabilities.
func (v *View) declaresSkills() bool {
	for _, m := range v.Msgs {
		var p struct {
			Params struct {
				Meta struct {
					Caps struct {
						Extensions map[string]json.RawMessage `json:"extensions"`
					} `json:"io.modelcontextprotocol/clientCapabilities"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if m.IsRequest() && json.Unmarshal(m.Raw, &p) == nil && p.Params.Meta.Caps.Extensions[probe.SkillsExtension] != nil {
			return true
		}
	}
	return false
}
