package suites

import (
	"encoding/json"
	"testing"
)

func TestFlatnessFault(t *testing.T) {
	for raw, flat := range map[string]bool{
		`{"type":"string","format":"email"}`:                      true,
		`{"type":"integer","minimum":1}`:                          true,
		`{"type":"boolean","default":false}`:                      true,
		`{"type":"string","oneOf":[{"const":"a","title":"A"}]}`:   true,
		`{"type":"array","items":{"type":"string","enum":["a"]}}`: true,
		`{"type":"array","items":{"anyOf":[{"const":"a"}]}}`:      true,
		`{"type":"object","properties":{"x":{"type":"string"}}}`:  false,
		`{"properties":{"x":{"type":"string"}}}`:                  false,
		`{"type":"array","items":{"type":"object"}}`:              false,
		`{"type":"array"}`:                                        false,
		`{"type":"null"}`:                                         false,
		`{"type":["string","null"]}`:                              false,
		`"string"`:                                                false,
	} {
		if got := flatnessFault(json.RawMessage(raw)) == ""; got != flat {
			t.Errorf("%s: flat = %v, want %v", raw, got, flat)
		}
	}
}

func TestSensitive(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		want         bool
	}{
		{"password", `{}`, true},
		{"api_key", `{}`, true},
		{"x", `{"title":"API Key"}`, true},
		{"accessToken", `{}`, true},
		{"token", `{}`, true},
		{"credit-card-number", `{}`, true},
		{"x", `{"format":"password"}`, true},
		{"confirmed", `{"title":"Confirm"}`, false},
		{"maxTokens", `{}`, false},
		{"email", `{"format":"email"}`, false},
		{"spinner", `{}`, false},
	} {
		if _, got := sensitive(c.name, json.RawMessage(c.schema)); got != c.want {
			t.Errorf("%s %s: sensitive = %v, want %v", c.name, c.schema, got, c.want)
		}
	}
}

func TestToolEnabled(t *testing.T) {
	for params, enabled := range map[string]bool{
		`{"maxTokens":1}`:                           false,
		`{"tools":[]}`:                              false,
		`{"toolChoice":{"mode":"none"}}`:            false,
		`{"tools":[{"name":"x","inputSchema":{}}]}`: true,
		`{"toolChoice":{"mode":"auto"}}`:            true,
		`{"toolChoice":{}}`:                         true,
		`{"tools":"x"}`:                             true,
	} {
		var p map[string]json.RawMessage
		_ = json.Unmarshal([]byte(params), &p)
		if got := toolEnabled(p) != ""; got != enabled {
			t.Errorf("%s: tool-enabled = %v, want %v", params, got, enabled)
		}
	}
}
