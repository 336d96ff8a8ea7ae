package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParse checks Parse's promises on any input: it never panics, keeps the bytes as received,
// says why a frame is invalid, and classifies each element of a batch.
// The seed corpus in testdata/fuzz/FuzzParse holds realistic MCP traffic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"1","result":{}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"\u00fc","error":{"code":1.5,"message":7}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"id":{}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkParsed(t, raw, Parse(raw), 0)
	})
}

func checkParsed(t *testing.T, raw []byte, m Message, depth int) {
	t.Helper()
	if !bytes.Equal(m.Raw, raw) {
		t.Fatalf("Raw = %q, want the input %q", m.Raw, raw)
	}
	switch m.Kind {
	case Invalid:
		if m.Problem == "" {
			t.Fatalf("invalid frame %q without a Problem", raw)
		}
	case Request:
		if !m.HasMethod || !m.HasID {
			t.Fatalf("request %q without method or id", raw)
		}
	case Notification:
		if !m.HasMethod || m.HasID {
			t.Fatalf("notification %q without method or with an id", raw)
		}
	case Response:
		if m.HasMethod || !(m.HasResult || m.HasError) {
			t.Fatalf("response %q with a method or without result and error", raw)
		}
	case Batch:
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			t.Fatalf("batch %q is not a JSON array: %v", raw, err)
		}
		if len(m.Elems) != len(elems) {
			t.Fatalf("batch %q has %d Elems, want the array length %d", raw, len(m.Elems), len(elems))
		}
		for i, e := range m.Elems {
			if !bytes.Equal(bytes.TrimSpace(e.Raw), bytes.TrimSpace(elems[i])) {
				t.Fatalf("Elems[%d].Raw = %q, want %q", i, e.Raw, elems[i])
			}
			checkParsed(t, e.Raw, e, depth+1)
		}
	default:
		t.Fatalf("unknown kind %d", m.Kind)
	}
	if m.Kind != Batch && len(m.Elems) > 0 {
		t.Fatalf("%v frame %q has Elems", m.Kind, raw)
	}
	if m.HasID && m.Problem == "" {
		checkCanonical(t, m.ID)
	}
	if m.HasError {
		_, _ = m.ErrorObject()
	}
	_, _ = m.ResultObject()
	_ = m.VersionOK()
}

// checkCanonical asserts an id that parsed without a problem is canonical: parsing it again
// yields itself, and it has exactly one JSON type.
func checkCanonical(t *testing.T, id ID) {
	t.Helper()
	again, err := CanonicalID(id.JSON())
	if err != nil || again != id {
		t.Fatalf("id %s re-canonicalises to %s (%v)", id, again, err)
	}
	types := 0
	for _, is := range []bool{id.IsString(), id.IsNumber(), id.IsNull()} {
		if is {
			types++
		}
	}
	if types != 1 {
		t.Fatalf("id %s has %d JSON types", id, types)
	}
}

func BenchmarkParse(b *testing.B) {
	frames := map[string][]byte{
		"request":  []byte(`{"jsonrpc":"2.0","id":"mcpspec-42","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`),
		"response": []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{}},"serverInfo":{"name":"reference","version":"1.0.0"}}}`),
		"batch":    []byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":3}}]`),
		"invalid":  []byte(`{"jsonrpc":"2.0","id":1,"method":`),
	}
	for name, frame := range frames {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				Parse(frame)
			}
		})
	}
}
