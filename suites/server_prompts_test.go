package suites

import (
	"encoding/json"
	"testing"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
)

func TestRFC3986URI(t *testing.T) {
	for uri, want := range map[string]bool{
		"mcpspec://reference/hello":  true,
		"file:///a/b%20c.txt":        true,
		"urn:isbn:0451450523":        true,
		"git+ssh://h/x?y=1#f":        true,
		"a:":                         true,
		"::::":                       false,
		"1abc://x":                   false,
		"mcpspec://reference/{x}":    false,
		"mcpspec://reference/a b":    false,
		"mcpspec://reference/%zz":    false,
		"mcpspec://reference/\x01":   false,
		"no-scheme/relative/path":    false,
		"https://example.com/ünï":    false,
		"https://example.com/%C3%BC": true,
	} {
		if got := rfc3986URI().MatchString(uri); got != want {
			t.Errorf("rfc3986URI(%q) = %v, want %v", uri, got, want)
		}
	}
}

func TestIsBase64(t *testing.T) {
	for s, want := range map[string]bool{"iVBORw==": true, "iVBORw": true, "": true, "-_-_": false, "a b=": false, "+/+/": true} {
		if got := isBase64(s); got != want {
			t.Errorf("isBase64(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestEmbeddedProblem(t *testing.T) {
	for text, want := range map[string]bool{
		`{"uri":"x:y","text":"t"}`:               true,
		`{"uri":"x:y","blob":"AAAA"}`:            true,
		`{"uri":"x:y","blob":"-_"}`:              false,
		`{"uri":"x:y","text":"t","blob":"AA=="}`: false,
		`{"uri":"x:y"}`:                          false,
		`{"text":"t"}`:                           false,
		`{"uri":"not a uri","text":"t"}`:         false,
	} {
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			t.Fatal(err)
		}
		if got := embeddedProblem(r) == ""; got != want {
			t.Errorf("embeddedProblem(%s) = %q", text, embeddedProblem(r))
		}
	}
}

func TestEmbeddedResources(t *testing.T) {
	m := jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"user","content":{"type":"text","text":"x"}},{"role":"user","content":{"type":"resource","resource":{"uri":"a:b","text":"t"}}}]}}`))
	if got := embeddedResources(m); len(got) != 1 || string(got[0]["uri"]) != `"a:b"` {
		t.Errorf("embeddedResources = %v", got)
	}
}
