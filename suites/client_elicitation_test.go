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

func TestEnumFormFault(t *testing.T) {
	cases := []struct {
		rev, schema string
		isEnum      bool
		bad         bool
	}{
		{"2025-06-18", `{"type":"string"}`, false, false},
		{"2025-06-18", `{"type":"string","enum":["a","b"]}`, true, false},
		{"2025-06-18", `{"type":"string","enum":["a","b"],"enumNames":["A","B"]}`, true, false},
		{"2025-06-18", `{"type":"string","enum":["a","b"],"enumNames":["A"]}`, true, true},
		{"2025-06-18", `{"type":"string","oneOf":[{"const":"a","title":"A"}]}`, true, true},
		{"2025-06-18", `{"type":"array","items":{"type":"string","enum":["a"]}}`, true, true},
		{"2025-11-25", `{"type":"string","oneOf":[{"const":"a","title":"A"}]}`, true, false},
		{"2025-11-25", `{"type":"string","oneOf":[{"const":"a"}]}`, true, true},
		{"2025-11-25", `{"type":"string","oneOf":[{"const":"a","title":"A"}],"enum":["a"]}`, true, true},
		{"2025-11-25", `{"type":"array","items":{"type":"string","enum":["a","b"]}}`, true, false},
		{"2025-11-25", `{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}`, true, false},
		{"2026-07-28", `{"type":"array","items":{"anyOf":["a","b"]}}`, true, true},
		{"2026-07-28", `{"type":"array","items":{"type":"integer","enum":[1]}}`, true, true},
		{"2026-07-28", `{"type":"integer","enum":[1,2]}`, true, true},
		{"2026-07-28", `{"type":"string","enum":[1,2]}`, true, true},
	}
	for _, c := range cases {
		isEnum, why := enumFormFault(c.rev, json.RawMessage(c.schema))
		if isEnum != c.isEnum || (why != "") != c.bad {
			t.Errorf("%s %s: enum %v, fault %q", c.rev, c.schema, isEnum, why)
		}
	}
}

func TestDefaultFault(t *testing.T) {
	cases := []struct {
		schema   string
		has, bad bool
	}{
		{`{"type":"string"}`, false, false},
		{`{"type":"string","default":"x"}`, true, false},
		{`{"type":"string","default":1}`, true, true},
		{`{"type":"integer","default":30}`, true, false},
		{`{"type":"integer","default":30.0}`, true, false},
		{`{"type":"integer","default":30.5}`, true, true},
		{`{"type":"integer","default":"30"}`, true, true},
		{`{"type":"number","default":95.5}`, true, false},
		{`{"type":"boolean","default":true}`, true, false},
		{`{"type":"boolean","default":"true"}`, true, true},
		{`{"type":"string","enum":["a","b"],"default":"b"}`, true, false},
		{`{"type":"string","enum":["a","b"],"default":"c"}`, true, true},
		{`{"type":"string","oneOf":[{"const":"a","title":"A"}],"default":"a"}`, true, false},
		{`{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["b"]}`, true, false},
		{`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]},"default":["z"]}`, true, true},
		{`{"type":"array","items":{"type":"string","enum":["a"]},"default":"a"}`, true, true},
	}
	for _, c := range cases {
		has, why := defaultFault(json.RawMessage(c.schema))
		if has != c.has || (why != "") != c.bad {
			t.Errorf("%s: has %v, fault %q", c.schema, has, why)
		}
	}
}
