package probe

import (
	"encoding/json"
	"strings"
)

// ScenarioSkills (2026-07-28; the official suite's sep-2640-client-no-prefetch): the probe
// declares the skills extension (ext-skills, stable) and resources; skills/list and skills/get
// give two skills as Skill entries (frontmatter, and a manifest of their files with digest and
// size), and resources/list and resources/read serve their files. Nothing asks the client to
// load a skill: a host has what it needs from the entries and MUST NOT retrieve a skill's
// files ahead of need, so it reads no skill file.
const ScenarioSkills = "sep-2640-client-no-prefetch"

// SkillsExtension is the skills extension's identifier.
const SkillsExtension = "io.modelcontextprotocol/skills"

// probeSkills are the scenario's skills: their SKILL.md texts by name.
var probeSkills = map[string]string{
	"probe-alpha": "---\nname: probe-alpha\ndescription: The first skill of the mcpspec probe.\n---\nSay alpha; see notes.md.\n",
	"probe-beta":  "---\nname: probe-beta\ndescription: The second skill of the mcpspec probe.\n---\nSay beta.\n",
}

const probeAlphaNotes = "skill://probe-alpha/notes.md"

// skillFiles are the scenario's skill files by URI: their texts.
func skillFiles() map[string]string {
	out := map[string]string{probeAlphaNotes: "Notes of alpha.\n"}
	for name, text := range probeSkills {
		out["skill://"+name+"/SKILL.md"] = text
	}
	return out
}

// IsSkillFile reports whether uri is a file of one of the no-prefetch scenario's skills.
func IsSkillFile(uri string) bool {
	_, ok := skillFiles()[uri]
	return ok
}

// skillsEntries are the scenario's Skill entries.
func skillsEntries() []map[string]any {
	files := skillFiles()
	var out []map[string]any
	for _, name := range []string{"probe-alpha", "probe-beta"} {
		uri := "skill://" + name + "/SKILL.md"
		manifest := []any{skillResource(uri, files[uri])}
		if name == "probe-alpha" {
			manifest = append(manifest, skillResource(probeAlphaNotes, files[probeAlphaNotes]))
		}
		desc := strings.TrimPrefix(strings.Split(files[uri], "\n")[2], "description: ")
		out = append(out, map[string]any{"uri": uri, "frontmatter": map[string]any{"name": name, "description": desc}, "resources": manifest})
	}
	return out
}

// handleSkills answers the scenario's skills and resources requests; ok is false for any other
// request.
func (s *server) handleSkills(m message) (resp []byte, ok bool) {
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(m.Params, &p)
	cache := func(r map[string]any) map[string]any {
		r["resultType"], r["ttlMs"], r["cacheScope"], r["_meta"] = "complete", 0, "public", serverMeta()
		return r
	}
	switch m.Method {
	case "skills/list":
		return result(m.ID, cache(map[string]any{"skills": skillsEntries()})), true
	case "skills/get":
		for _, e := range skillsEntries() {
			if e["uri"] == p.URI {
				return result(m.ID, cache(map[string]any{"skill": e})), true
			}
		}
		return errorResponse(m.ID, -32602, "no skill is served at "+p.URI), true
	case "resources/list":
		var list []map[string]any
		for _, uri := range []string{"skill://probe-alpha/SKILL.md", probeAlphaNotes, "skill://probe-beta/SKILL.md"} {
			list = append(list, map[string]any{"uri": uri, "name": strings.TrimPrefix(uri, "skill://"), "mimeType": "text/markdown"})
		}
		return result(m.ID, cache(map[string]any{"resources": list})), true
	case "resources/read":
		text, found := skillFiles()[p.URI]
		if !found {
			return errorResponse(m.ID, -32602, "unknown resource: "+p.URI), true
		}
		return result(m.ID, cache(map[string]any{"contents": []map[string]any{{"uri": p.URI, "mimeType": "text/markdown", "text": text}}})), true
	}
	return nil, false
}
