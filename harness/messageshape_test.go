package harness

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// Messages share a shape when they differ only in the value of an id of the same JSON type;
// anything else the schema could tell apart gives another shape, or none.
func TestMessageShape(t *testing.T) {
	shape := func(raw string) string { return messageShape(jsonrpc.Parse([]byte(raw))) }
	base := shape(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	if base == "" {
		t.Fatal("a plain response has no shape")
	}
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":987654321987654321987,"result":{"tools":[]}}`,
		`{"id":-4, "jsonrpc":"2.0", "result":{"tools":[]}}`,
	} {
		if got := shape(raw); got != base {
			t.Errorf("%s: shape %q, want that of the same response under id 1", raw, got)
		}
	}
	if a, b := shape(`{"jsonrpc":"2.0","id":"a","result":{}}`), shape(`{"jsonrpc":"2.0","id":"b","result":{}}`); a == "" || a != b {
		t.Errorf("string ids: shapes %q and %q, want one", a, b)
	}
	distinct := map[string]string{base: "the response under id 1"}
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":"1","result":{"tools":[]}}`,  // a string id
		`{"jsonrpc":"2.0","result":{"tools":[]}}`,           // no id
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[ ]}}`,   // other bytes
		`{"jsonrpc":"2.0","id":1,"error":{"tools":[]}}`,     // another member
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`,   // two members
		`{"jsonrpc":"2.0","id":1,"method":"p","params":{}}`, // a request
		`{"jsonrpc":"2.0","id":1,"method":"p"}`,             // without params
		`{"jsonrpc":"2.0","id":1,"method":"p","params":null}`,
		`{"jsonrpc":"2.0","method":"p","params":{}}`,
		`{"id":1,"result":{"tools":[]}}`, // no version
	} {
		got := shape(raw)
		if got == "" {
			t.Errorf("%s: no shape", raw)
			continue
		}
		if other, ok := distinct[got]; ok {
			t.Errorf("%s: the shape of %s", raw, other)
		}
		distinct[got] = raw
	}
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`, // an integer to a schema, but written otherwise
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"extra":1}`, // a member the schema may refuse
		`{"jsonrpc":"2.0","id":1,"method":7}`,            // a method that is no string
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`,         // a batch
		`{"jsonrpc":"2.0","id":1,`,                       // not JSON
	} {
		if got := shape(raw); got != "" {
			t.Errorf("%s: shape %q, want none (validated alone)", raw, got)
		}
	}
}

// A message the validator would not remember gets no shape: it is not copied for nothing.
func TestMessageShapeOfALargeMessage(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", schema.MaxRemembered) + `"}}`
	if got := messageShape(jsonrpc.Parse([]byte(big))); got != "" {
		t.Errorf("a %d-byte message has a shape of %d bytes, want none", len(big), len(got))
	}
}
