package jsonrpc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestNewRequestRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		id     ID
		method string
		params any
	}{
		{name: "number id, no params", id: NumberID(1), method: "ping"},
		{name: "zero id", id: NumberID(0), method: "ping"},
		{name: "negative id", id: NumberID(-5), method: "ping"},
		{name: "string id", id: StringID("1"), method: "tools/list", params: map[string]any{"cursor": "abc"}},
		{name: "html in string id", id: StringID("spec<1>&x"), method: "ping"},
		{name: "unicode string id", id: StringID("ü-1"), method: "ping"},
		{name: "quote in string id", id: StringID(`a"b\c`), method: "ping"},
		{name: "nested params", id: StringID("t"), method: "tools/call", params: map[string]any{
			"name": "slow", "arguments": map[string]any{"steps": 3}, "_meta": map[string]any{"progressToken": "p1"}}},
		{name: "raw params", id: NumberID(9007199254740991), method: "x", params: json.RawMessage(`[1,2,3]`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frame, err := NewRequest(tt.id, tt.method, tt.params)
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			if strings.ContainsRune(string(frame), '\n') {
				t.Errorf("frame %q contains a newline", frame)
			}
			m := Parse(frame)
			if m.Kind != Request || m.Problem != "" {
				t.Fatalf("Parse(%s) = %v (%q), want a request", frame, m.Kind, m.Problem)
			}
			if !m.VersionOK() {
				t.Errorf("version %s is not \"2.0\"", m.Version)
			}
			if m.ID != tt.id {
				t.Errorf("ID = %s, want %s", m.ID.Text(), tt.id.Text())
			}
			if m.Method != tt.method {
				t.Errorf("Method = %q, want %q", m.Method, tt.method)
			}
			if tt.params == nil {
				if m.Params != nil {
					t.Errorf("nil params encoded as %s, want the member omitted", m.Params)
				}
				return
			}
			wantParams, err := json.Marshal(tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, m.Params, wantParams) {
				t.Errorf("Params = %s, want %s", m.Params, wantParams)
			}
		})
	}
}

func TestNewRequestKeepsHTMLCharacters(t *testing.T) {
	frame, err := NewRequest(StringID("<a&b>"), "ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(frame), `"<a&b>"`) {
		t.Errorf("frame %s escapes the id's HTML characters", frame)
	}
}

func TestNewNotificationAndResult(t *testing.T) {
	n, err := NewNotification("notifications/initialized", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := Parse(n); m.Kind != Notification || m.HasID || m.Method != "notifications/initialized" || m.Params != nil {
		t.Errorf("notification %s parsed as %v id=%v method=%q params=%s", n, m.Kind, m.HasID, m.Method, m.Params)
	}

	r, err := NewResult(StringID("srv-1"), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	m := Parse(r)
	if m.Kind != Response || m.ID != StringID("srv-1") || !m.HasResult || m.HasError {
		t.Errorf("result %s parsed as %v id=%s", r, m.Kind, m.ID.Text())
	}
	if obj, ok := m.ResultObject(); !ok || len(obj) != 0 {
		t.Errorf("result object = %v, %v; want an empty object", obj, ok)
	}

	if _, err := NewRequest(NumberID(1), "x", func() {}); err == nil {
		t.Error("NewRequest with unencodable params succeeded")
	}
}

func TestBatchOf(t *testing.T) {
	a, _ := NewRequest(NumberID(1), "ping", nil)
	b, _ := NewNotification("n", nil)
	batch := BatchOf(a, b)
	m := Parse(batch)
	if m.Kind != Batch || len(m.Elems) != 2 {
		t.Fatalf("BatchOf parsed as %v with %d elements", m.Kind, len(m.Elems))
	}
	if string(m.Elems[0].Raw) != string(a) || string(m.Elems[1].Raw) != string(b) {
		t.Errorf("batch elements %q, %q; want %q, %q", m.Elems[0].Raw, m.Elems[1].Raw, a, b)
	}
	if got := string(BatchOf()); got != "[]" {
		t.Errorf("BatchOf() = %q, want []", got)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("decode %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}
