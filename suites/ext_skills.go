package suites

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/suites/conform"
	"gopkg.in/yaml.v3"
)

// Checks of the skills extension, io.modelcontextprotocol/skills (SEP-2640): a skill is a
// directory of resources, skill://<skill-path>/SKILL.md its manifest, whose YAML frontmatter
// names it; skill://index.json enumerates the skills; resources/directory/read (declared as
// directoryRead) lists a skill directory. Skills are found as the official suite finds them,
// in resources/list and the index, so any server's skills are judged, not fixtures'.

func init() {
	conform.Register(
		conform.Check{ID: "SKILL-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the skills extension's entry in capabilities.extensions is an object, whose directoryRead, where given, is a boolean",
			LevelReason: "directoryRead is read where the official suite reads it: on the object or under its config.",
			Run:         checkSkillCap},
		conform.Check{ID: "SKILL-INDEX", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the server exposes skill://index.json, a JSON object whose skills member is an array",
			LevelReason: "A server may decline the index when its skills cannot be enumerated (the SEP's MAY): an error to resources/read is na, never a pass; an index that is there must be JSON.",
			Run:         checkSkillIndex},
		conform.Check{ID: "SKILL-INDEX-ENTRIES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every skill://index.json entry has a type of skill-md or archive, a name, and a digest sha256:<64 lowercase hex> that matches the SHA-256 of the SKILL.md it points at",
			Run:     checkSkillIndexEntries},
		conform.Check{ID: "SKILL-MANIFEST", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every skill://…/SKILL.md begins with YAML frontmatter holding name and description; the name follows the Agent Skills naming rules and equals the last segment of the skill path",
			Run:     checkSkillManifest},
		conform.Check{ID: "SKILL-MANIFEST-META", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a listed SKILL.md resource has the mimeType text/markdown, and the name and description of its frontmatter",
			Run:     checkSkillManifestMeta},
		conform.Check{ID: "SKILL-META-PREFIX", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "every _meta key of a SKILL.md resource, as listed and as read, carries a reverse-domain prefix (io.modelcontextprotocol.skills/ for the extension's own keys)",
			LevelReason: "SHOULD as the official suite reads SEP-2640: only a bare key, without any vendor.tld/ prefix, is flagged, since a key of another namespace is the shape the rule asks for. No _meta key at all is na, never a pass.",
			Run:         checkSkillMetaPrefix},
		conform.Check{ID: "SKILL-DIRECTORY", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "with directoryRead declared, resources/directory/read of a skill directory lists its direct children (directories as inode/directory), and of a file gets -32602",
			LevelReason: "The capability is read as the official suite reads it: directoryRead on the extension's object or under its config.",
			Ready:       skillDirectoryReady,
			Run:         checkSkillDirectory},
	)
}

const (
	skillsExtension = "io.modelcontextprotocol/skills"
	skillIndexURI   = "skill://index.json"
	skillDirMime    = "inode/directory"
)

var (
	skillDigestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	// The Agent Skills naming rules: 1 to 64 lowercase letters, digits and single hyphens, with
	// no hyphen first or last.
	skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// skillCaps declares the skills extension.
func skillCaps() map[string]any { return extCaps(skillsExtension, nil) }

// manifestSkill is the skill name a skill://<skill-path>/SKILL.md URI ends in; ok is false for
// any other URI.
func manifestSkill(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok {
		return "", false
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if len(parts) < 2 || parts[len(parts)-1] != "SKILL.md" {
		return "", false
	}
	return parts[len(parts)-2], true
}

// skillIndexEntry is one skills[] entry of the index.
type skillIndexEntry struct {
	Name   *string `json:"name"`
	Type   string  `json:"type"`
	URL    string  `json:"url"`
	Digest *string `json:"digest"`
}

// readSkillIndex reads and parses the index; declined is true when resources/read refused it.
func readSkillIndex(t *conform.T) (entries []skillIndexEntry, declined bool, f *conform.Finding) {
	resp, err := extRequest(t, "resources/read", map[string]any{"uri": skillIndexURI}, skillCaps())
	if err != nil {
		g := conform.Crashed("resources/read of %s got no reply: %v", skillIndexURI, err)
		return nil, false, &g
	}
	if resp.HasError {
		return nil, true, nil
	}
	c, f := extRead(t, skillIndexURI, skillCaps())
	if f != nil {
		return nil, false, f
	}
	var doc struct {
		Skills *[]skillIndexEntry `json:"skills"`
	}
	if err := json.Unmarshal([]byte(c.text), &doc); err != nil {
		g := conform.Violated("%s is not JSON: %v: %s", skillIndexURI, err, clip(c.text, 200))
		return nil, false, &g
	}
	if doc.Skills == nil {
		g := conform.Violated("%s has no skills array: %s", skillIndexURI, clip(c.text, 200))
		return nil, false, &g
	}
	return *doc.Skills, false, nil
}

func checkSkillCap(t *conform.T) conform.Finding {
	settings, f := extSettings(t, skillsExtension)
	if f != nil {
		return *f
	}
	var config map[string]json.RawMessage
	_ = json.Unmarshal(settings["config"], &config)
	for where, raw := range map[string]json.RawMessage{"directoryRead": settings["directoryRead"], "config.directoryRead": config["directoryRead"]} {
		if raw != nil && string(raw) != "true" && string(raw) != "false" {
			return conform.Violated("the skills extension's %s is %s, not a boolean", where, clip(string(raw), 80))
		}
	}
	return conform.Passed("")
}

func checkSkillIndex(t *conform.T) conform.Finding {
	entries, declined, f := readSkillIndex(t)
	switch {
	case f != nil:
		return *f
	case declined:
		return conform.NA("the server declines %s (resources/read refused it): a server whose skills cannot be enumerated may", skillIndexURI)
	}
	return conform.Passed("%d skills in the index", len(entries))
}

func checkSkillIndexEntries(t *conform.T) conform.Finding {
	entries, declined, f := readSkillIndex(t)
	switch {
	case f != nil && f.Outcome == conform.Violation:
		return conform.CannotTest("the index is unreadable (judged by SKILL-INDEX): %s", f.Message)
	case f != nil:
		return *f
	case declined:
		return conform.NA("the server declines %s", skillIndexURI)
	case len(entries) == 0:
		return conform.NA("%s lists no skills", skillIndexURI)
	}
	for i, e := range entries {
		switch {
		case e.Type != "skill-md" && e.Type != "archive":
			return conform.Violated("skills[%d] has type %q, neither skill-md nor archive", i, e.Type)
		case e.Name == nil || *e.Name == "":
			return conform.Violated("skills[%d] has no name", i)
		case e.Digest == nil:
			return conform.Violated("skills[%d] (%s) has no digest", i, *e.Name)
		case !skillDigestRE.MatchString(*e.Digest):
			return conform.Violated("skills[%d] (%s) has the digest %q, not sha256: and 64 lowercase hex digits", i, *e.Name, *e.Digest)
		}
		if e.Type != "skill-md" || !strings.HasPrefix(e.URL, "skill://") {
			continue // an archive, or a file outside the skill:// resources: not read
		}
		c, f := extRead(t, e.URL, skillCaps())
		if f != nil {
			return *f
		}
		sum := sha256.Sum256([]byte(c.text))
		if want := "sha256:" + hex.EncodeToString(sum[:]); *e.Digest != want {
			return conform.Violated("skills[%d] (%s) has the digest %s, but %s as served hashes to %s: a host must refuse it", i, *e.Name, *e.Digest, e.URL, want)
		}
	}
	return conform.Passed("%d entries", len(entries))
}

// skillManifests are the SKILL.md resources the server lists or indexes, with their listing
// entries (nil for one only the index names).
func skillManifests(t *conform.T) (map[string]map[string]json.RawMessage, *conform.Finding) {
	out := map[string]map[string]json.RawMessage{}
	if t.S.HasCapability("resources") {
		items, err := extList(t, "resources/list", "resources", skillCaps())
		if err != nil {
			f := conform.CannotTest("%v", err)
			return nil, &f
		}
		for _, it := range items {
			if uri, _ := jsonString(it["uri"]); uri != "" {
				if _, ok := manifestSkill(uri); ok {
					out[uri] = it
				}
			}
		}
	}
	entries, _, _ := readSkillIndex(t)
	for _, e := range entries {
		if _, ok := manifestSkill(e.URL); ok && e.Type == "skill-md" && out[e.URL] == nil {
			out[e.URL] = nil
		}
	}
	if len(out) == 0 {
		f := conform.CannotTest("no skill://<skill-path>/SKILL.md in resources/list or %s", skillIndexURI)
		return nil, &f
	}
	return out, nil
}

// frontmatter parses the YAML frontmatter a SKILL.md begins with.
func frontmatter(text string) (map[string]any, error) {
	body := strings.TrimPrefix(text, "\ufeff")
	body = strings.ReplaceAll(body, "\r\n", "\n")
	rest, ok := strings.CutPrefix(body, "---\n")
	if !ok {
		return nil, fmt.Errorf("it does not begin with a --- line")
	}
	block, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return nil, fmt.Errorf("its frontmatter has no closing --- line")
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil || fm == nil {
		return nil, fmt.Errorf("its frontmatter is not a YAML mapping: %v", err)
	}
	return fm, nil
}

func checkSkillManifest(t *conform.T) conform.Finding {
	manifests, f := skillManifests(t)
	if f != nil {
		return *f
	}
	for _, uri := range sortedURIs(manifests) {
		c, f := extRead(t, uri, skillCaps())
		if f != nil {
			return *f
		}
		fm, err := frontmatter(c.text)
		if err != nil {
			return conform.Violated("%s: %v: %s", uri, err, clip(c.text, 160))
		}
		name, _ := fm["name"].(string)
		desc, _ := fm["description"].(string)
		dir, _ := manifestSkill(uri)
		switch {
		case name == "" || desc == "":
			return conform.Violated("%s: the frontmatter lacks a name or a description string: %v", uri, fm)
		case len(name) > 64 || !skillNameRE.MatchString(name):
			return conform.Violated("%s: the skill name %q breaks the Agent Skills naming rules (1–64 lowercase letters, digits and single hyphens, none first or last)", uri, name)
		case name != dir:
			return conform.Violated("%s: the frontmatter names the skill %q, but the skill path ends in %q", uri, name, dir)
		}
	}
	return conform.Passed("%d skills", len(manifests))
}

func checkSkillManifestMeta(t *conform.T) conform.Finding {
	manifests, f := skillManifests(t)
	if f != nil {
		return *f
	}
	judged := 0
	for _, uri := range sortedURIs(manifests) {
		entry := manifests[uri]
		if entry == nil {
			continue // only the index names it: no listing metadata to judge
		}
		c, f := extRead(t, uri, skillCaps())
		if f != nil {
			return *f
		}
		fm, err := frontmatter(c.text)
		if err != nil {
			return conform.CannotTest("%s has no frontmatter to compare with (judged by SKILL-MANIFEST): %v", uri, err)
		}
		mime, _ := jsonString(entry["mimeType"])
		name, _ := jsonString(entry["name"])
		desc, _ := jsonString(entry["description"])
		switch {
		case mime != "text/markdown":
			return conform.Violated("resources/list gives %s the mimeType %q, not text/markdown", uri, mime)
		case c.mime != "" && c.mime != "text/markdown":
			return conform.Violated("resources/read gives %s the mimeType %q, not text/markdown", uri, c.mime)
		case name != fm["name"]:
			return conform.Violated("resources/list names %s %q, not its frontmatter's name %v", uri, name, fm["name"])
		case desc != fm["description"]:
			return conform.Violated("resources/list describes %s as %q, not with its frontmatter's description %q", uri, desc, fm["description"])
		}
		judged++
	}
	if judged == 0 {
		return conform.NA("no SKILL.md is in resources/list (only the index names them)")
	}
	return conform.Passed("%d listed skills", judged)
}

// namespacedMetaKey matches a _meta key with a reverse-domain prefix: labels joined by dots,
// at least two, then a slash.
var namespacedMetaKey = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/`)

func checkSkillMetaPrefix(t *conform.T) conform.Finding {
	manifests, f := skillManifests(t)
	if f != nil {
		return *f
	}
	var keys int
	for _, uri := range sortedURIs(manifests) {
		c, f := extRead(t, uri, skillCaps())
		if f != nil {
			return *f
		}
		metas := map[string]json.RawMessage{"resources/list": manifests[uri]["_meta"]}
		obj, _ := c.resp.ResultObject()
		var contents []struct {
			Meta json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(obj["contents"], &contents) == nil && len(contents) > 0 {
			metas["resources/read"] = contents[0].Meta
		}
		for _, where := range []string{"resources/list", "resources/read"} {
			var meta map[string]json.RawMessage
			if json.Unmarshal(metas[where], &meta) != nil {
				continue // absent, or not an object (the schema's matter)
			}
			for _, k := range sortedKeys(meta) {
				keys++
				if !namespacedMetaKey.MatchString(k) {
					return conform.Violated("%s gives %s the _meta key %q, with no reverse-domain prefix (the extension's own keys go under io.modelcontextprotocol.skills/)", where, uri, k)
				}
			}
		}
	}
	if keys == 0 {
		return conform.NA("no SKILL.md resource carries _meta keys, as listed or as read")
	}
	return conform.Passed("%d _meta keys", keys)
}

func sortedURIs(m map[string]map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func skillDirectoryReady(t *conform.T) (conform.Finding, bool) {
	raw, _ := conform.ServerExtension(t.S, skillsExtension)
	var settings struct {
		DirectoryRead bool `json:"directoryRead"`
		Config        struct {
			DirectoryRead bool `json:"directoryRead"`
		} `json:"config"`
	}
	_ = json.Unmarshal(raw, &settings)
	if !settings.DirectoryRead && !settings.Config.DirectoryRead {
		return conform.NA("the server does not declare directoryRead for the skills extension"), true
	}
	return conform.Finding{}, false
}

// readDirectory lists a directory resource's children (all pages).
func readDirectory(t *conform.T, uri string) ([]map[string]json.RawMessage, *conform.Finding) {
	var out []map[string]json.RawMessage
	params := map[string]any{"uri": uri}
	for page := 1; page <= maxPages; page++ {
		resp, err := extRequest(t, "resources/directory/read", params, skillCaps())
		if err != nil {
			f := conform.Crashed("resources/directory/read of %s got no reply: %v", uri, err)
			return nil, &f
		}
		obj, ok := resp.ResultObject()
		var items []map[string]json.RawMessage
		if !ok || json.Unmarshal(obj["resources"], &items) != nil {
			f := conform.Violated("resources/directory/read of the directory %s was not answered with a resources array: %s", uri, show(resp))
			return nil, &f
		}
		out = append(out, items...)
		cursor, ok := jsonString(obj["nextCursor"])
		if !ok || cursor == "" {
			return out, nil
		}
		params = map[string]any{"uri": uri, "cursor": cursor}
	}
	f := conform.Violated("resources/directory/read of %s still had a nextCursor after %d pages", uri, maxPages)
	return nil, &f
}

func checkSkillDirectory(t *conform.T) conform.Finding {
	manifests, f := skillManifests(t)
	if f != nil {
		return *f
	}
	manifest := sortedURIs(manifests)[0]
	root := strings.TrimSuffix(manifest, "/SKILL.md")
	children, f := readDirectory(t, root)
	if f != nil {
		return *f
	}
	var uris []string
	for _, c := range children {
		uri, ok := jsonString(c["uri"])
		if !ok {
			return conform.Violated("resources/directory/read of %s lists a child without a string uri: %v", root, c)
		}
		uris = append(uris, uri)
		if mime, _ := jsonString(c["mimeType"]); mime == skillDirMime {
			if _, f := readDirectory(t, uri); f != nil {
				return *f
			}
		}
	}
	if !slices.Contains(uris, manifest) {
		return conform.Violated("resources/directory/read of the skill directory %s does not list its %s (children %v)", root, manifest, uris)
	}
	resp, err := extRequest(t, "resources/directory/read", map[string]any{"uri": manifest}, skillCaps())
	if err != nil {
		return conform.Crashed("resources/directory/read of a file got no reply: %v", err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("resources/directory/read of %s, a file and not a directory: %s", manifest, why)
	}
	return conform.Passed("%s lists %d children", root, len(uris))
}
