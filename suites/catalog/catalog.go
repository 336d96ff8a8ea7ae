// Package catalog is the requirement catalogue as data: every requirement ID mcpspec knows, its
// level as the spec words it, the revisions it applies to and where the spec says it.
package catalog

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed catalog.yaml
var catalogYAML []byte

// Entry is one catalogue row.
type Entry struct {
	ID                string   `yaml:"id"`
	Area              string   `yaml:"area"`
	Level             string   `yaml:"level"`
	Versions          []string `yaml:"versions"`
	VersionsAsWritten string   `yaml:"versionsAsWritten"`
	Source            string   `yaml:"source"`
	// Extension is the code of the extensions table's row the requirement belongs to ("" for
	// the core protocol): it is judged only against a server that declares that extension.
	Extension string `yaml:"extension"`
}

// Extension is one row of the extensions table: an extension of the protocol (SEP-2133), the
// identifier it is negotiated by in capabilities.extensions, the version of its text the rows
// were written from, the base revisions it applies to, and where its text is.
type Extension struct {
	Code      string   `yaml:"ext"`
	ID        string   `yaml:"id"`
	Version   string   `yaml:"version"`
	Revisions []string `yaml:"revisions"`
	Spec      string   `yaml:"spec"`
}

// Area is one row of the areas table: where the newest revision states an area's requirements,
// and so the file that holds its checks (suites/<File>.go, or suites/<File>_<section>.go for one of
// Sections) and its faults (fixtures/reference/faults_<File>.go).
type Area struct {
	Code     string   `yaml:"area"`
	Page     string   `yaml:"page"`
	Section  string   `yaml:"section"`
	File     string   `yaml:"file"`
	Sections []string `yaml:"sections"`
}

// Holds reports whether file (a base name such as "server_tools.go") may hold the area's checks.
func (a Area) Holds(file string) bool {
	name := strings.TrimSuffix(file, ".go")
	if name == a.File {
		return true
	}
	return slices.Contains(a.Sections, strings.TrimPrefix(name, a.File+"_"))
}

var (
	loadOnce sync.Once
	entries  map[string]Entry
	ordered  []Entry
	areas    map[string]Area
	exts     map[string]Extension
	loadErr  error
)

func load() {
	var doc struct {
		Areas        []Area      `yaml:"areas"`
		Extensions   []Extension `yaml:"extensions"`
		Requirements []Entry     `yaml:"requirements"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(catalogYAML)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		loadErr = fmt.Errorf("requirement catalogue: %w", err)
		return
	}
	areas = make(map[string]Area, len(doc.Areas))
	for _, a := range doc.Areas {
		if _, dup := areas[a.Code]; dup || a.Page == "" || a.File == "" {
			loadErr = fmt.Errorf("requirement catalogue: area %q is listed twice or lacks its page or file", a.Code)
			return
		}
		areas[a.Code] = a
	}
	exts = make(map[string]Extension, len(doc.Extensions))
	for _, x := range doc.Extensions {
		if _, dup := exts[x.Code]; dup || x.ID == "" || x.Version == "" || len(x.Revisions) == 0 || x.Spec == "" {
			loadErr = fmt.Errorf("requirement catalogue: extension %q is listed twice or lacks its id, version, revisions or spec", x.Code)
			return
		}
		exts[x.Code] = x
	}
	entries = make(map[string]Entry, len(doc.Requirements))
	for _, e := range doc.Requirements {
		if _, dup := entries[e.ID]; dup {
			loadErr = fmt.Errorf("requirement catalogue: duplicate id %s", e.ID)
			return
		}
		if _, ok := areas[e.Area]; !ok {
			loadErr = fmt.Errorf("requirement catalogue: %s is in area %q, which the areas table lacks", e.ID, e.Area)
			return
		}
		if e.Extension != "" {
			x, ok := exts[e.Extension]
			if !ok {
				loadErr = fmt.Errorf("requirement catalogue: %s belongs to extension %q, which the extensions table lacks", e.ID, e.Extension)
				return
			}
			for _, v := range e.Versions {
				if !slices.Contains(x.Revisions, v) {
					loadErr = fmt.Errorf("requirement catalogue: %s applies to %s, outside the base revisions %v of %s", e.ID, v, x.Revisions, x.ID)
					return
				}
			}
		}
		entries[e.ID] = e
	}
	ordered = doc.Requirements
}

// All returns every entry in catalogue order.
func All() ([]Entry, error) {
	loadOnce.Do(load)
	return ordered, loadErr
}

// Lookup returns the entry for id.
func Lookup(id string) (Entry, bool) {
	loadOnce.Do(load)
	e, ok := entries[id]
	return e, ok
}

// Known reports whether id is in the catalogue.
func Known(id string) bool { _, ok := Lookup(id); return ok }

// AreaOf returns the areas table's row for code.
func AreaOf(code string) (Area, bool) {
	loadOnce.Do(load)
	a, ok := areas[code]
	return a, ok
}

// ExtensionOf returns the extension the requirement belongs to; ok is false for a core one.
func (e Entry) ExtensionOf() (Extension, bool) {
	if e.Extension == "" {
		return Extension{}, false
	}
	loadOnce.Do(load)
	x, ok := exts[e.Extension]
	return x, ok
}

// Extensions returns the extensions table in catalogue order of codes.
func Extensions() []Extension {
	loadOnce.Do(load)
	out := make([]Extension, 0, len(exts))
	for _, x := range exts {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Areas returns the area codes in use, sorted.
func Areas() []string {
	loadOnce.Do(load)
	seen := map[string]bool{}
	for _, e := range ordered {
		seen[e.Area] = true
	}
	var out []string
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

const jsonRPCSpec = "https://www.jsonrpc.org/specification"

var (
	mdxRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:<v>/|\d{4}-\d{2}-\d{2}/|\d{2}-\d{2}/|^|\s)((?:basic|server|client)/[\w/.-]+?)(?:\.mdx)`)
	})
	// pinnedRev is the revision a source names as its own ("26-07/basic/index.mdx § …").
	pinnedRev = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{2}-\d{2})/`) })
	sectRef   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`§\s*([^;⟦(]+)`) })
	jsonRPCs  = map[string]string{"§4": "request_object", "§4.1": "notification", "§4.2": "parameter_structures", "§5": "response_object", "§5.1": "error_object", "§6": "batch", "§7": "examples", "§8": "extensions"}
)

// SpecURL links the requirement's source at revision: the MCP specification page and section of
// that revision, or the JSON-RPC 2.0 section.
func (e Entry) SpecURL(revision string) string {
	// An extension's rows link its own text, which has one version for every base revision.
	if x, ok := e.ExtensionOf(); ok {
		if s := sectRef().FindStringSubmatch(e.Source); s != nil {
			return x.Spec + "#" + slug(s[1])
		}
		return x.Spec
	}
	if strings.HasPrefix(e.Source, "JSON-RPC 2.0") {
		if m := regexp.MustCompile(`§\d(\.\d)?`).FindString(e.Source); m != "" {
			if anchor, ok := jsonRPCs[m]; ok {
				return jsonRPCSpec + "#" + anchor
			}
		}
		return jsonRPCSpec
	}
	// A version outside the requirement's (the JSON-RPC profile's "jsonrpc-2.0") links the
	// newest revision that states it.
	if !slices.Contains(e.Versions, revision) && len(e.Versions) > 0 {
		revision = e.Versions[len(e.Versions)-1]
	}
	// A source that names its one revision cites that revision's text: the link stays on its
	// page, which the other revisions the row applies to may not have (or have elsewhere). One
	// that words each revision apart (segments split by ";") is read per revision below.
	if m := pinnedRev().FindStringSubmatch(e.Source); m != nil && !strings.Contains(e.Source, ";") {
		for _, v := range e.Versions {
			if len(v) >= 7 && v[2:7] == m[1] {
				revision = v
			}
		}
	}
	base := "https://modelcontextprotocol.io/specification/" + revision
	source := e.sourceAt(revision)
	m := mdxRef().FindStringSubmatch(source.page)
	if m == nil {
		return base
	}
	page := strings.TrimSuffix(m[1], "/index")
	url := base + "/" + page
	if s := sectRef().FindStringSubmatch(source.section); s != nil {
		parts := strings.Split(s[1], "›")
		url += "#" + slug(parts[len(parts)-1])
	}
	return url
}

// revPrefix is a source segment's leading revisions, as "25-06", "25-03/25-06" or "25-06, 25-11".
var revPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{2}-\d{2}(?:\s*[,/]\s*\d{2}-\d{2})*)\s+(.*)$`) })

// sourceText is where a source names the page (page) and the section (section) of one revision.
type sourceText struct{ page, section string }

// sourceAt picks, from a source that words each revision apart ("25-06 basic/authorization.mdx
// § A; 25-11 § B; 26-07 basic/authorization/index.mdx § C"), the segment of revision: its section,
// and its page or, where it names none, the page the segments before it named. A source without
// such a segment for revision is taken whole.
func (e Entry) sourceAt(revision string) sourceText {
	whole := sourceText{e.Source, e.Source}
	if len(revision) < 7 {
		return whole
	}
	short := revision[2:7] // 2026-07-28 → 26-07
	var revs []string
	lastPage := ""
	for _, seg := range strings.Split(e.Source, ";") {
		seg = strings.TrimSpace(seg)
		if m := revPrefix().FindStringSubmatch(seg); m != nil {
			revs = regexp.MustCompile(`\d{2}-\d{2}`).FindAllString(m[1], -1)
			seg = m[2]
		}
		if mdxRef().MatchString(seg) {
			lastPage = seg
		}
		if slices.Contains(revs, short) {
			if lastPage == "" {
				return whole
			}
			return sourceText{lastPage, seg}
		}
	}
	return whole
}

// slug turns a heading into the anchor the spec site gives it.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
