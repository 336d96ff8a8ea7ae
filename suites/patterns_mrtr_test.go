package suites

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDuplicateKeys(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want []string
	}{
		{`{"a":1,"b":{"a":2}}`, nil},
		{`{"a":1,"b":2,"a":3}`, []string{"a"}},
		{`{"a":1,"\u0061":2,"b":[1],"b":null,"a":0}`, []string{"a", "b"}},
		{`{}`, nil},
	} {
		got, err := duplicateKeys(json.RawMessage(c.raw))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("duplicateKeys(%s) = %q, %v; want %q", c.raw, got, err, c.want)
		}
	}
	if _, err := duplicateKeys(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array was read as an object")
	}
}

func TestElicitAnswerFillsTheForm(t *testing.T) {
	params := json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{
		"ok":{"type":"boolean"},"n":{"type":"integer","minimum":3},"s":{"type":"string"},
		"e":{"type":"string","enum":["x","y"]},"d":{"type":"string","default":"z"},
		"m":{"type":"array","items":{"enum":["p","q"]}}}}}`)
	got := elicitAnswer(params)
	want := map[string]any{"action": "accept", "content": map[string]any{
		"ok": true, "n": 3.0, "s": "mcpspec", "e": "x", "d": "z", "m": []any{"p"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("elicitAnswer = %v, want %v", got, want)
	}
	if got := elicitAnswer(json.RawMessage(`{"mode":"url","url":"https://example.com","message":"m","elicitationId":"1"}`)); !reflect.DeepEqual(got, map[string]any{"action": "accept"}) {
		t.Errorf("URL mode: %v", got)
	}
}

func TestUndeclaredInput(t *testing.T) {
	ir := inputRequired{requests: map[string]json.RawMessage{
		"e": json.RawMessage(`{"method":"elicitation/create","params":{"mode":"url"}}`),
	}}
	if undeclaredInput(map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}, ir) == "" {
		t.Error("URL-mode elicitation passed with form declared only")
	}
	if why := undeclaredInput(map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}, ir); why != "" {
		t.Error(why)
	}
	if undeclaredInput(map[string]any{}, ir) == "" {
		t.Error("elicitation passed with nothing declared")
	}
}
