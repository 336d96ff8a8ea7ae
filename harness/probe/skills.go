package probe

import (
	"encoding/json"
	"strings"
)

// ScenarioSkills (2026-07-28; the official suite's sep-2640-client-no-prefetch): the probe
// declares the skills extension (SEP-2640) and resources, and lists two skills, a file of one of
// them and the skills index skill://index.json. Nothing asks the client to load a skill, so a
// client may list the resources and read the index, but reads no skill file.
const ScenarioSkills = "sep-2640-client-no-prefetch"

// SkillsExtension is the skills extension's identifier; SkillsIndexURI the well-known index.
const (
	SkillsExtension = "io.modelcontextprotocol/skills"
	SkillsIndexURI  = "skill://index.json"
)

// probeSkills are the scenario's skills: their SKILL.md texts by name.
var probeSkills = map[string]string{
	"probe-alpha": "---\nname: probe-alpha\ndescription: The first skill of the mcpspec probe.\n---\nSay alpha.\n",
	"probe-beta":  "---\nname: probe-beta\ndescription: The second skill of the mcpspec probe.\n---\nSay beta.\n",
}

// skillFiles are the scenario's skill files by URI, with their mimeType.
func skillFiles() map[string][2]string {
	out := map[string][2]string{"skill://probe-alpha/notes.md": {"text/markdown", "Notes of alpha.\n"}}
	for name, text := range probeSkills {
		out["skill://"+name+"/SKILL.md"] = [2]string{"text/markdown", text}
	}
	return out
}

func skillsIndex() string {
	var entries []map[string]any
	for _, name := range []string{"probe-alpha", "probe-beta"} {
		entries = append(entries, map[string]any{"name": name, "type": "skill-md", "url": "skill://" + name + "/SKILL.md"})
	}
	return string(mustJSON(map[string]any{"skills": entries}))
}

// handleSkills answers the scenario's resources requests; ok is false for any other request.
func (s *server) handleSkills(m message) (resp []byte, ok bool) {
	switch m.Method {
	case "resources/list":
		list := []map[string]any{{"uri": SkillsIndexURI, "name": "skills-index", "mimeType": "application/json"}}
		for _, uri := range []string{"skill://probe-alpha/SKILL.md", "skill://probe-alpha/notes.md", "skill://probe-beta/SKILL.md"} {
			parts := strings.Split(strings.TrimPrefix(uri, "skill://"), "/")
			list = append(list, map[string]any{"uri": uri, "name": parts[0] + "/" + parts[1], "mimeType": "text/markdown"})
		}
		return result(m.ID, map[string]any{"resultType": "complete", "resources": list, "ttlMs": 0, "cacheScope": "public", "_meta": serverMeta()}), true
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(m.Params, &p)
		mime, text := "application/json", skillsIndex()
		if p.URI != SkillsIndexURI {
			f, found := skillFiles()[p.URI]
			if !found {
				return errorResponse(m.ID, -32602, "unknown resource: "+p.URI), true
			}
			mime, text = f[0], f[1]
		}
		return result(m.ID, map[string]any{"resultType": "complete", "contents": []map[string]any{{"uri": p.URI, "mimeType": mime, "text": text}}, "_meta": serverMeta()}), true
	}
	return nil, false
}
