package clientsuite

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// Tool schemas as a client holds them (basic/index § JSON Schema Usage), judged on the official
// suite's two schema scenarios, which the probe serves by their names: json-schema-ref-no-deref
// (a $ref to a loopback canary URL the client must not fetch) and json-schema-2020-12-preservation
// (the client echoes the input schema it holds through json_schema_echo).

func judgeRefNoDeref(v *View) Finding {
	for _, r := range v.Records {
		if r.Dir == record.Recv && r.Channel == probe.ChanCanary {
			return violated("the client fetched the $ref URL %s of %s's input schema: %s %s (record %d)", probe.CanaryPath, probe.ToolLookupUser, r.Method, r.Path, r.Seq)
		}
	}
	for _, m := range v.Msgs {
		if m.IsRequest() && m.Method == "tools/list" {
			return passed("the client listed the tools (record %d), whose %s has a $ref to the probe's canary URL, and never fetched it", v.Records[m.Rec].Seq, probe.ToolLookupUser)
		}
	}
	return untestable("the client never listed the tools, so it never saw the schema with the network $ref")
}

func judgeSchemaPreserve(v *View) Finding {
	echoed, rec, found := echoedSchema(v)
	if !found {
		return untestable("the client did not call %s with a schema object: only the echo of the input schema it holds for %s shows what it kept (the official scenario's step)", probe.ToolSchemaEcho, probe.ToolSchemaFocal)
	}
	want := probe.PreservationSchema()
	wantJSON, _ := json.Marshal(want)
	var norm map[string]any
	_ = json.Unmarshal(wantJSON, &norm) // numbers as float64, as the echo decodes them
	stateless := harness.IsStateless(v.Revision)
	var lost []string
	for _, k := range probe.PreservationKeywords(v.Revision) {
		got, ok := echoed[k]
		w := norm[k]
		if !stateless { // an $anchor is 2026-07-28's vocabulary in a tool schema
			got, w = withoutKey(got, "$anchor"), withoutKey(w, "$anchor")
		}
		switch {
		case !ok:
			lost = append(lost, k+" dropped")
		case !reflect.DeepEqual(got, w):
			b, _ := json.Marshal(got)
			lost = append(lost, k+" altered to "+string(b))
		}
	}
	if len(lost) > 0 {
		return violated("the schema the client echoed for %s (record %d) lost what the server gave: %s", probe.ToolSchemaFocal, rec, strings.Join(lost, "; "))
	}
	return passed("the schema the client echoed for %s (record %d) keeps %s as the server gave them", probe.ToolSchemaFocal, rec, strings.Join(probe.PreservationKeywords(v.Revision), ", "))
}

// echoedSchema finds the client's call of json_schema_echo and its schema argument.
func echoedSchema(v *View) (schema map[string]any, rec int, found bool) {
	for _, m := range v.Msgs {
		if !m.IsRequest() || m.Method != "tools/call" {
			continue
		}
		var p struct {
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Schema map[string]any `json:"schema"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &p) == nil && p.Params.Name == probe.ToolSchemaEcho && p.Params.Arguments.Schema != nil {
			return p.Params.Arguments.Schema, v.Records[m.Rec].Seq, true
		}
	}
	return nil, 0, false
}

// withoutKey is a JSON value with key removed from every object in it.
func withoutKey(v any, key string) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if k != key {
				out[k] = withoutKey(x, key)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = withoutKey(x, key)
		}
		return out
	}
	return v
}
