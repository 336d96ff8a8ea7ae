package suites

import (
	"encoding/json"
	"testing"
)

func TestSampleArgs(t *testing.T) {
	for _, c := range []struct {
		schema, want string
		ok           bool
	}{
		{`{"type":"object"}`, `{}`, true},
		{`{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"integer"},"e":{"enum":["x","y"]},"d":{"type":"number","default":7}},"required":["s","n","e","d"]}`, `{"d":7,"e":"x","n":1,"s":"mcpspec"}`, true},
		{`{"type":"object","properties":{"o":{"type":"object"}},"required":["o"]}`, ``, false},
	} {
		args, ok := sampleArgs(json.RawMessage(c.schema))
		got, _ := json.Marshal(args)
		if ok != c.ok || (ok && string(got) != c.want) {
			t.Errorf("sampleArgs(%s) = %s, %v; want %s, %v", c.schema, got, ok, c.want, c.ok)
		}
	}
}

func TestCompileSchema(t *testing.T) {
	for _, c := range []struct {
		schema         string
		judged, failed bool
	}{
		{`{"type":"object","properties":{"a":{"type":"number"}}}`, true, false},
		{`{"type":"object","properties":{"a":{"type":"numbr"}}}`, true, true},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, true, true},
		{`{"$schema":"https://example.com/dialect","type":"object"}`, false, true},
		{`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, false, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, true, false},
	} {
		_, judged, err := compileSchema("t", json.RawMessage(c.schema))
		if judged != c.judged || (err != nil) != c.failed {
			t.Errorf("compileSchema(%s): judged %v, err %v", c.schema, judged, err)
		}
	}
}

func TestContentTypes(t *testing.T) {
	for rev, n := range map[string]int{"2024-11-05": 3, "2025-03-26": 4, "2025-06-18": 5, "2026-07-28": 5} {
		if got := len(contentTypes(rev)); got != n {
			t.Errorf("%s: %d content types, want %d", rev, got, n)
		}
	}
}

func TestMIMETypeFormat(t *testing.T) {
	for s, want := range map[string]bool{"image/png": true, "audio/wav": true, "text/plain; charset=utf-8": true, "png": false, "image/": false, "": false} {
		if mimeTypeFormat().MatchString(s) != want {
			t.Errorf("%q: want %v", s, want)
		}
	}
}
