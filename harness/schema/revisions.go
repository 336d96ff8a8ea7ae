package schema

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpspec/mcpspec/fixtures"
)

// schemasDir is where package fixtures embeds schemas/<revision>/schema.json.
const schemasDir = "schemas"

// Revisions returns the protocol revisions whose schema is embedded, sorted (oldest first,
// since revisions are dates).
func Revisions() []string {
	entries, err := fs.ReadDir(fixtures.Schemas, schemasDir)
	if err != nil {
		// The directory is embedded at build time; failing to read it is a broken build.
		panic(fmt.Sprintf("schema: reading embedded schemas: %v", err))
	}
	var revisions []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(fixtures.Schemas, schemaPath(e.Name())); err == nil {
			revisions = append(revisions, e.Name())
		}
	}
	slices.Sort(revisions)
	return revisions
}

func schemaPath(revision string) string {
	return path.Join(schemasDir, revision, "schema.json")
}

// schemaURL names a revision's schema inside the compiler. The schemas carry no $id; the
// reserved .invalid domain makes it plain that nothing is ever fetched from there.
func schemaURL(revision string) string {
	return "https://mcpspec.invalid/schemas/" + revision + "/schema.json"
}

// revisionDoc is one revision's schema document, decoded.
type revisionDoc struct {
	doc         any
	definitions map[string]any // the "definitions" (draft-07) or "$defs" (2020-12) object
	defsKey     string         // which of the two the document uses
}

// loadRevision reads and decodes a revision's embedded schema. It returns an error wrapping
// ErrUnknownRevision when the revision is not embedded.
func loadRevision(revision string) (*revisionDoc, error) {
	if !slices.Contains(Revisions(), revision) {
		return nil, fmt.Errorf("%w %q (embedded: %v)", ErrUnknownRevision, revision, Revisions())
	}
	raw, err := fs.ReadFile(fixtures.Schemas, schemaPath(revision))
	if err != nil {
		return nil, fmt.Errorf("schema: reading %s: %w", schemaPath(revision), err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema: decoding %s: %w", schemaPath(revision), err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema: %s is not a JSON object", schemaPath(revision))
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := obj[key].(map[string]any); ok {
			return &revisionDoc{doc: doc, definitions: defs, defsKey: key}, nil
		}
	}
	return nil, fmt.Errorf("schema: %s has neither $defs nor definitions", schemaPath(revision))
}

// pointer is the JSON pointer of a definition inside its document.
func (d *revisionDoc) pointer(name string) string {
	return "#/" + d.defsKey + "/" + escapePointerToken(name)
}

// names returns the definition names, sorted.
func (d *revisionDoc) names() []string {
	names := make([]string, 0, len(d.definitions))
	for name := range d.definitions {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// escapePointerToken escapes a JSON pointer reference token (RFC 6901), then the characters a
// URL fragment cannot hold as they are.
func escapePointerToken(token string) string {
	var b bytes.Buffer
	for _, c := range []byte(token) {
		switch {
		case c == '~':
			b.WriteString("~0")
		case c == '/':
			b.WriteString("~1")
		case c == '%' || c == '#' || c == ' ' || c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// offlineLoader refuses every URL: the MCP schemas are embedded and must never be fetched.
// The JSON Schema meta-schemas they declare are built into the jsonschema library and never
// reach a loader.
type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema: refusing to fetch %s: schemas are embedded and never loaded from elsewhere", url)
}
