package suites

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/suites/conform"
	"gopkg.in/yaml.v3"
)

// Checks of the skills extension, io.modelcontextprotocol/skills (ext-skills
// specification/stable/skills.mdx): a skill is a directory of resources addressed by the URI of
// its SKILL.md; skills/list (paginated) and skills/get give a Skill entry per skill (the uri,
// the SKILL.md frontmatter verbatim as JSON, and a complete manifest of its files with digest
// and size, or "dynamic"); resources/directory/read (declared as directoryRead) lists a
// directory. Skills are found as the official suite finds them, in skills/list and
// resources/list, so any server's skills are judged, not fixtures'.

func init() {
	conform.Register(
		conform.Check{ID: "SKILL-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "the skills extension's entry in capabilities.extensions is a settings object with its settings inline (no config envelope), directoryRead where given a boolean, and the server declares resources too",
			LevelReason: "An empty object declares the extension with no optional feature; skill files are served by resources/read, so the extension MUST come with the resources capability.",
			Side:        conform.Server{Run: checkSkillCap}},
		conform.Check{ID: "SKILL-LIST", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "skills/list answers with a skills array, resultType complete, ttlMs and cacheScope; its cursors end, and no skill appears on two pages",
			LevelReason: "A server declaring the extension MUST implement skills/list; ListSkillsResult is a CacheableResult, so ttlMs and cacheScope are required; an entry is atomic across pages. An empty listing is allowed.",
			Side:        conform.Server{Run: checkSkillList}},
		conform.Check{ID: "SKILL-ENTRY", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every skills/list entry has a uri ending in <skill-path>/SKILL.md whose last segment is frontmatter.name (Agent Skills naming rules), a frontmatter object with name and description, and resources that are \"dynamic\" or a complete manifest: each file of the skill once, SKILL.md included, each with a sha256:<64 lowercase hex> digest and a size",
			Side:    conform.Server{Run: checkSkillEntry}},
		conform.Check{ID: "SKILL-DIGEST", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "every file of a listed skill's manifest, as resources/read serves it, has the manifest's size in bytes and SHA-256 digest",
			LevelReason: "A digest is the SHA-256 of the file's raw bytes and size their length; a host MUST NOT use a file that does not match, so a wrong manifest makes the skill unusable.",
			Side:        conform.Server{Run: checkSkillDigest}},
		conform.Check{ID: "SKILL-LIMITS", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "no listed skill's manifest exceeds 512 files or 16 MiB (16,777,216 bytes) summed over its sizes",
			LevelReason: "Servers SHOULD NOT serve a skill over either limit: hosts need accept no more, so such a skill may load nowhere. Counted from the entry alone, as a host counts it before reading any file.",
			Side:        conform.Server{Run: checkSkillLimits}},
		conform.Check{ID: "SKILL-FRONTMATTER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every listed entry's frontmatter is identical in content to the YAML frontmatter of the SKILL.md it describes: every field the author wrote, none added",
			Side:    conform.Server{Run: checkSkillFrontmatter}},
		conform.Check{ID: "SKILL-GET", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "skills/get of a listed skill's uri answers with resultType complete, ttlMs, cacheScope, no nextCursor, and a skill that is the listed entry: the same uri, frontmatter and resources",
			LevelReason: "A server declaring the extension MUST implement skills/get; its skill is identical in shape and meaning to the listing's entry, and GetSkillResult is a CacheableResult.",
			Side:        conform.Server{Run: checkSkillGet}},
		conform.Check{ID: "SKILL-GET-UNKNOWN", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "skills/get of a SKILL.md URI that names no skill the server serves gets -32602",
			Side:    conform.Server{Run: checkSkillGetUnknown}},
		conform.Check{ID: "SKILL-MANIFEST", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every listed SKILL.md begins with YAML frontmatter holding name and description; the name follows the Agent Skills naming rules and equals the last segment of the skill path",
			Side:    conform.Server{Run: checkSkillManifest}},
		conform.Check{ID: "SKILL-MANIFEST-META", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a SKILL.md resource in resources/list has the mimeType text/markdown, and the name and description of its frontmatter",
			Side:    conform.Server{Run: checkSkillManifestMeta}},
		conform.Check{ID: "SKILL-META-PREFIX", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "every _meta key of a SKILL.md resource, as listed and as read, carries a reverse-domain prefix (io.modelcontextprotocol.skills/ for the frontmatter fields a server exposes there)",
			LevelReason: "The stable text: _meta keys on skill resources SHOULD use the io.modelcontextprotocol.skills/ prefix, and intermediaries MAY annotate under their own. A key's author is not visible, so, as the official suite does, only a bare key, without any vendor.tld/ prefix, is flagged. No _meta key at all is na, never a pass.",
			Side:        conform.Server{Run: checkSkillMetaPrefix}},
		conform.Check{ID: "SKILL-DIRECTORY", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "with directoryRead declared, resources/directory/read of a skill directory lists its direct children (directories as inode/directory), and of a file gets -32602",
			LevelReason: "The capability is read where the stable text puts it, directoryRead inline on the extension's object (and, as the official suite once read it, under config).",
			Side:        conform.Server{Ready: skillDirectoryReady, Run: checkSkillDirectory}},
	)
	conform.Exclude("SKILL-INDEX", "retired: the stable skills text has no skill://index.json; skills/list enumerates skills (SKILL-LIST, SKILL-ENTRY)")
	conform.Exclude("SKILL-INDEX-ENTRIES", "retired with skill://index.json: an entry's digests are now the manifest of skills/list, judged by SKILL-ENTRY and SKILL-DIGEST")
}

const (
	skillsExtension = "io.modelcontextprotocol/skills"
	skillDirMime    = "inode/directory"
	// skillUnknownURI names a skill no server serves, for skills/get to refuse.
	skillUnknownURI = "skill://mcpspec-no-such-skill-7c1e/SKILL.md"
	// The per-skill limits every host must accept.
	skillMaxFiles = 512
	skillMaxBytes = 16 << 20
	// skillMaxReads bounds the files SKILL-DIGEST reads, whatever a listing holds.
	skillMaxReads = 64
)

var (
	skillDigestRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })
	// The Agent Skills naming rules: 1 to 64 lowercase letters, digits and single hyphens, with
	// no hyphen first or last.
	skillNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })
)

// skillCaps declares the skills extension.
func skillCaps() map[string]any { return extCaps(skillsExtension, nil) }

// manifestSkill is the skill name a <scheme>://<skill-path>/SKILL.md URI ends in; ok is false
// for any other URI. No scheme is privileged, though skill:// is the usual one.
func manifestSkill(uri string) (string, bool) {
	i := strings.Index(uri, "://")
	if i <= 0 {
		return "", false
	}
	parts := strings.Split(strings.Trim(uri[i+3:], "/"), "/")
	if len(parts) < 2 || parts[len(parts)-1] != "SKILL.md" {
		return "", false
	}
	return parts[len(parts)-2], true
}

// skillEntry is one Skill entry of skills/list or skills/get, its members kept raw.
type skillEntry struct {
	URI         json.RawMessage `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

// skillFile is one SkillResource of an entry's manifest.
type skillFile struct {
	URI    string   `json:"uri"`
	Digest *string  `json:"digest"`
	Size   *float64 `json:"size"`
}

func (e skillEntry) uri() string { s, _ := jsonString(e.URI); return s }

// files is the entry's manifest; ok is false when resources is not an array of objects (it
// may be "dynamic").
func (e skillEntry) files() (files []skillFile, ok bool) {
	return files, json.Unmarshal(e.Resources, &files) == nil && jsonType(e.Resources) == '['
}

// skillListing is what skills/list gave, page by page.
type skillListing struct {
	entries []skillEntry
	pages   []map[string]json.RawMessage
}

// listSkills follows skills/list's cursors; a finding when a page is no result with a skills
// array of objects, or the cursors do not end.
func listSkills(t *conform.T) (skillListing, *conform.Finding) {
	var l skillListing
	params := map[string]any{}
	seen := map[string]bool{}
	for page := 1; page <= maxPages; page++ {
		resp, err := extRequest(t, "skills/list", params, skillCaps())
		if err != nil {
			f := conform.Crashed("skills/list got no reply: %v", err)
			return l, &f
		}
		obj, ok := resp.ResultObject()
		var items []skillEntry
		if !ok || json.Unmarshal(obj["skills"], &items) != nil || jsonType(obj["skills"]) != '[' {
			f := conform.Violated("skills/list (page %d) was not answered with a skills array of entries: %s", page, show(resp))
			return l, &f
		}
		l.entries = append(l.entries, items...)
		l.pages = append(l.pages, obj)
		cursor, ok := jsonString(obj["nextCursor"])
		if !ok || cursor == "" {
			return l, nil
		}
		if seen[cursor] {
			f := conform.Violated("skills/list gave the nextCursor %q twice: its pages never end", cursor)
			return l, &f
		}
		seen[cursor] = true
		params = map[string]any{"cursor": cursor}
	}
	f := conform.Violated("skills/list still had a nextCursor after %d pages", maxPages)
	return l, &f
}

// listedSkills is listSkills for the checks that judge entries: a listing SKILL-LIST faults
// makes them cannot-test; an empty one na.
func listedSkills(t *conform.T) ([]skillEntry, *conform.Finding) {
	l, f := listSkills(t)
	switch {
	case f != nil && f.Outcome == conform.Violation:
		g := conform.CannotTest("skills/list is unusable (judged by SKILL-LIST): %s", f.Message)
		return nil, &g
	case f != nil:
		return nil, f
	case len(l.entries) == 0:
		g := conform.NA("skills/list lists no skills (a listing may be empty)")
		return nil, &g
	}
	return l.entries, nil
}

func checkSkillCap(t *conform.T) conform.Finding {
	settings, f := extSettings(t, skillsExtension)
	if f != nil {
		return *f
	}
	for _, key := range []string{"config", "specVersion", "stability", "id"} {
		if settings[key] != nil {
			return conform.Violated("the skills extension's settings carry the envelope key %q: settings sit inline under the identifier", key)
		}
	}
	if raw := settings["directoryRead"]; raw != nil && string(raw) != "true" && string(raw) != "false" {
		return conform.Violated("the skills extension's directoryRead is %s, not a boolean", clip(string(raw), 80))
	}
	if !t.S.HasCapability("resources") {
		return conform.Violated("the server declares the skills extension but not the resources capability its skill files are read through")
	}
	return conform.Passed("")
}

func checkSkillList(t *conform.T) conform.Finding {
	l, f := listSkills(t)
	if f != nil {
		return *f
	}
	for i, p := range l.pages {
		rt, _ := jsonString(p["resultType"])
		switch {
		case rt != "complete":
			return conform.Violated("skills/list page %d has the resultType %q, not complete", i+1, rt)
		case p["ttlMs"] == nil || p["cacheScope"] == nil:
			return conform.Violated("skills/list page %d lacks ttlMs or cacheScope (ttlMs %s, cacheScope %s): ListSkillsResult is a CacheableResult", i+1, clip(string(p["ttlMs"]), 40), clip(string(p["cacheScope"]), 40))
		}
	}
	seen := map[string]bool{}
	for i, e := range l.entries {
		uri := e.uri()
		if uri != "" && seen[uri] {
			return conform.Violated("skills[%d] (%s) is listed twice across the pages: an entry is atomic", i, uri)
		}
		seen[uri] = true
	}
	return conform.Passed("%d skills on %d pages", len(l.entries), len(l.pages))
}

// entryProblem is what is wrong with one entry, or "".
func entryProblem(e skillEntry) string {
	uri, ok := jsonString(e.URI)
	if !ok || uri == "" {
		return "has no string uri"
	}
	dirName, ok := manifestSkill(uri)
	if !ok {
		return "has the uri " + uri + ", not <scheme>://<skill-path>/SKILL.md"
	}
	var fm map[string]any
	if json.Unmarshal(e.Frontmatter, &fm) != nil || fm == nil {
		return fmt.Sprintf("has the frontmatter %s, not an object", clip(string(e.Frontmatter), 80))
	}
	name, _ := fm["name"].(string)
	desc, _ := fm["description"].(string)
	switch {
	case name == "" || desc == "":
		return "has a frontmatter without a name or description string"
	case name != dirName:
		return fmt.Sprintf("has frontmatter.name %q, but its uri's skill path ends in %q", name, dirName)
	case len(name) > 64 || !skillNameRE().MatchString(name):
		return fmt.Sprintf("names the skill %q, which breaks the Agent Skills naming rules (1–64 lowercase letters, digits and single hyphens, none first or last)", name)
	}
	if s, ok := jsonString(e.Resources); ok && s == "dynamic" {
		return ""
	}
	files, ok := e.files()
	if !ok {
		return fmt.Sprintf("has resources %s, neither an array of files nor \"dynamic\"", clip(string(e.Resources), 80))
	}
	root := strings.TrimSuffix(uri, "SKILL.md")
	seen := map[string]bool{}
	for j, f := range files {
		switch {
		case f.URI == "" || !strings.HasPrefix(f.URI, root):
			return fmt.Sprintf("lists resources[%d] %q, not a file of the skill (under %s)", j, f.URI, root)
		case seen[f.URI]:
			return fmt.Sprintf("lists %s twice in its resources", f.URI)
		case f.Digest == nil || !skillDigestRE().MatchString(*f.Digest):
			return fmt.Sprintf("gives %s no digest of the form sha256:<64 lowercase hex>", f.URI)
		case f.Size == nil || *f.Size < 0 || *f.Size != float64(int64(*f.Size)):
			return fmt.Sprintf("gives %s no size in bytes", f.URI)
		}
		seen[f.URI] = true
	}
	if !seen[uri] {
		return "has resources that leave out its own SKILL.md: the manifest is not complete"
	}
	return ""
}

func checkSkillEntry(t *conform.T) conform.Finding {
	entries, f := listedSkills(t)
	if f != nil {
		return *f
	}
	for i, e := range entries {
		if why := entryProblem(e); why != "" {
			return conform.Violated("skills[%d] %s", i, why)
		}
	}
	return conform.Passed("%d entries", len(entries))
}

func checkSkillLimits(t *conform.T) conform.Finding {
	entries, f := listedSkills(t)
	if f != nil {
		return *f
	}
	counted := 0
	for _, e := range entries {
		files, ok := e.files()
		if !ok || entryProblem(e) != "" {
			continue // dynamic (nothing to count), or malformed (SKILL-ENTRY's matter)
		}
		total := 0.0
		for _, file := range files {
			total += *file.Size
		}
		switch {
		case len(files) > skillMaxFiles:
			return conform.Violated("%s lists %d files, over the %d a host must accept", e.uri(), len(files), skillMaxFiles)
		case total > skillMaxBytes:
			return conform.Violated("%s lists %.0f bytes of files, over the %d (16 MiB) a host must accept", e.uri(), total, skillMaxBytes)
		}
		counted++
	}
	if counted == 0 {
		return conform.NA("no listed skill has a manifest to count (all dynamic, or judged by SKILL-ENTRY)")
	}
	return conform.Passed("%d skills within the limits", counted)
}

// readSkillBytes reads a skill file's raw bytes: its text, or its blob decoded.
func readSkillBytes(t *conform.T, uri string) ([]byte, *conform.Finding) {
	c, f := extRead(t, uri, skillCaps())
	if f != nil {
		return nil, f
	}
	obj, _ := c.resp.ResultObject()
	var contents []struct {
		Blob *string `json:"blob"`
	}
	if json.Unmarshal(obj["contents"], &contents) == nil && len(contents) > 0 && contents[0].Blob != nil {
		b, err := base64.StdEncoding.DecodeString(*contents[0].Blob)
		if err != nil {
			g := conform.Violated("resources/read of %s gave a blob that is not base64: %v", uri, err)
			return nil, &g
		}
		return b, nil
	}
	return []byte(c.text), nil
}

func checkSkillDigest(t *conform.T) conform.Finding {
	entries, f := listedSkills(t)
	if f != nil {
		return *f
	}
	read := 0
	for _, e := range entries {
		files, ok := e.files()
		if !ok || entryProblem(e) != "" {
			continue // dynamic, or malformed (SKILL-ENTRY's matter)
		}
		for _, file := range files {
			if read == skillMaxReads {
				return conform.Passed("the first %d files read match their digests and sizes", read)
			}
			b, f := readSkillBytes(t, file.URI)
			if f != nil {
				return *f
			}
			read++
			sum := sha256.Sum256(b)
			got := "sha256:" + hex.EncodeToString(sum[:])
			switch {
			case float64(len(b)) != *file.Size:
				return conform.Violated("%s lists %s with the size %v, but resources/read serves %d bytes: a host must refuse it", e.uri(), file.URI, *file.Size, len(b))
			case got != *file.Digest:
				return conform.Violated("%s lists %s with the digest %s, but the bytes resources/read serves hash to %s: a host must refuse it", e.uri(), file.URI, *file.Digest, got)
			}
		}
	}
	if read == 0 {
		return conform.NA("no listed skill has a well-formed manifest of files (all dynamic, or judged by SKILL-ENTRY)")
	}
	return conform.Passed("%d files match their digests and sizes", read)
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
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		return nil, fmt.Errorf("its frontmatter is not YAML: %v", err)
	}
	v, err := yamlValue(&doc, 0)
	fm, _ := v.(map[string]any)
	if err != nil || fm == nil {
		return nil, fmt.Errorf("its frontmatter is not a YAML mapping (%v)", err)
	}
	return fm, nil
}

// yamlValue is a YAML node's value as JSON would carry it. A timestamp stays the text the author
// wrote (a JSON rendering of the frontmatter has no date type), and keys are strings.
func yamlValue(n *yaml.Node, depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("nested too deep")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		return yamlValue(n.Alias, depth+1)
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := yamlValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			out[n.Content[i].Value] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := yamlValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	if n.ShortTag() == "!!timestamp" {
		return n.Value, nil
	}
	var v any
	return v, n.Decode(&v)
}

// yamlAsJSON is v as JSON would carry it, for comparing YAML values with JSON ones.
func yamlAsJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(b, &out)
}

func checkSkillFrontmatter(t *conform.T) conform.Finding {
	entries, f := listedSkills(t)
	if f != nil {
		return *f
	}
	for _, e := range entries {
		uri := e.uri()
		var want map[string]any
		if uri == "" || json.Unmarshal(e.Frontmatter, &want) != nil || want == nil {
			continue // SKILL-ENTRY's matter
		}
		c, f := extRead(t, uri, skillCaps())
		if f != nil {
			return *f
		}
		fm, err := frontmatter(c.text)
		if err != nil {
			return conform.CannotTest("%s has no frontmatter to compare with (judged by SKILL-MANIFEST): %v", uri, err)
		}
		got, err := yamlAsJSON(fm)
		if err != nil {
			return conform.CannotTest("%s: its frontmatter has no JSON form: %v", uri, err)
		}
		gotMap, _ := got.(map[string]any)
		keys := map[string]bool{}
		for k := range gotMap {
			keys[k] = true
		}
		for k := range want {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if !reflect.DeepEqual(gotMap[k], want[k]) {
				return conform.Violated("%s: the entry's frontmatter.%s is %s, but the SKILL.md's is %s: the entry must carry the frontmatter verbatim", uri, k, clip(string(skillJSON(want[k])), 80), clip(string(skillJSON(gotMap[k])), 80))
			}
		}
	}
	return conform.Passed("%d entries carry their SKILL.md's frontmatter", len(entries))
}

func skillJSON(v any) []byte {
	if v == nil {
		return []byte("(absent)")
	}
	b, _ := json.Marshal(v)
	return b
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func checkSkillGet(t *conform.T) conform.Finding {
	entries, f := listedSkills(t)
	if f != nil {
		return *f
	}
	judged := 0
	for _, e := range entries {
		uri := e.uri()
		if uri == "" || judged == skillMaxReads {
			continue
		}
		resp, err := extRequest(t, "skills/get", map[string]any{"uri": uri}, skillCaps())
		if err != nil {
			return conform.Crashed("skills/get of %s got no reply: %v", uri, err)
		}
		obj, ok := resp.ResultObject()
		if !ok {
			return conform.Violated("skills/get of %s, a skill skills/list lists, was not answered with a result: %s", uri, show(resp))
		}
		rt, _ := jsonString(obj["resultType"])
		var got skillEntry
		switch {
		case rt != "complete":
			return conform.Violated("skills/get of %s has the resultType %q, not complete", uri, rt)
		case obj["ttlMs"] == nil || obj["cacheScope"] == nil:
			return conform.Violated("skills/get of %s lacks ttlMs or cacheScope: GetSkillResult is a CacheableResult", uri)
		case obj["nextCursor"] != nil:
			return conform.Violated("skills/get of %s carries a nextCursor: a single entry is not a list", uri)
		case json.Unmarshal(obj["skill"], &got) != nil || jsonType(obj["skill"]) != '{':
			return conform.Violated("skills/get of %s has no skill object: %s", uri, show(resp))
		case got.uri() != uri:
			return conform.Violated("skills/get of %s answers with the skill %q", uri, got.uri())
		case !sameJSON(got.Frontmatter, e.Frontmatter):
			return conform.Violated("skills/get of %s gives the frontmatter %s, but skills/list gives %s", uri, clip(string(got.Frontmatter), 120), clip(string(e.Frontmatter), 120))
		case !sameJSON(got.Resources, e.Resources):
			return conform.Violated("skills/get of %s gives the resources %s, but skills/list gives %s", uri, clip(string(got.Resources), 120), clip(string(e.Resources), 120))
		}
		judged++
	}
	return conform.Passed("skills/get gives %d listed skills as listed", judged)
}

func checkSkillGetUnknown(t *conform.T) conform.Finding {
	resp, err := extRequest(t, "skills/get", map[string]any{"uri": skillUnknownURI}, skillCaps())
	if err != nil {
		return conform.Crashed("skills/get of an unknown skill got no reply: %v", err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("skills/get of %s, a skill the server does not serve: %s", skillUnknownURI, why)
	}
	return conform.Passed("")
}

// skillManifests are the SKILL.md URIs skills/list gives and resources/list lists, with their
// resources/list entries (nil for one only skills/list names).
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
	l, _ := listSkills(t)
	for _, e := range l.entries {
		if uri := e.uri(); out[uri] == nil {
			if _, ok := manifestSkill(uri); ok {
				out[uri] = nil
			}
		}
	}
	if len(out) == 0 {
		f := conform.CannotTest("no <scheme>://<skill-path>/SKILL.md in skills/list or resources/list")
		return nil, &f
	}
	return out, nil
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
		case len(name) > 64 || !skillNameRE().MatchString(name):
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
			continue // only skills/list names it: no resource metadata to judge
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
		return conform.NA("no SKILL.md is in resources/list (only skills/list names them)")
	}
	return conform.Passed("%d listed skills", judged)
}

// namespacedMetaKey matches a _meta key with a reverse-domain prefix: labels joined by dots,
// at least two, then a slash.
var namespacedMetaKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+/`) })

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
				if !namespacedMetaKey().MatchString(k) {
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
