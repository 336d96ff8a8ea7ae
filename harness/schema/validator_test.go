package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	rev20241105 = "2024-11-05"
	rev20250326 = "2025-03-26"
	rev20250618 = "2025-06-18"
	rev20251125 = "2025-11-25"
	rev20260728 = "2026-07-28"
)

var allRevisions = []string{rev20241105, rev20250326, rev20250618, rev20251125, rev20260728}

// except returns every revision but the given ones.
func except(revs ...string) []string {
	return slices.DeleteFunc(slices.Clone(allRevisions), func(r string) bool { return slices.Contains(revs, r) })
}

func TestRevisions(t *testing.T) {
	if got := Revisions(); !slices.Equal(got, allRevisions) {
		t.Fatalf("Revisions() = %v, want %v", got, allRevisions)
	}
}

func TestMessage(t *testing.T) {
	tests := []struct {
		name    string
		message string
		validAt []string // invalid at every other revision
	}{
		{"ping request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, allRevisions},
		{"string id", `{"jsonrpc":"2.0","id":"req-1","method":"tools/list","params":{}}`, allRevisions},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, allRevisions},
		// From 2026-07-28 every result must say its resultType.
		{"ping response", `{"jsonrpc":"2.0","id":1,"result":{}}`, except(rev20260728)},
		{"response with resultType", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, allRevisions},
		{"initialize response", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18",` +
			`"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, except(rev20260728)},
		{"method not found", `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`, allRevisions},
		{"error with data", `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad","data":{"x":[1]}}}`, allRevisions},
		// The id of an error response became optional in 2025-11-25.
		{"error without id", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
			[]string{rev20251125, rev20260728}},
		// JSON-RPC's parse error carries a null id, which no revision's RequestId admits: the
		// harness has to handle that tension itself.
		{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, nil},
		{"error code not integer", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601.5,"message":"x"}}`, nil},
		{"error without message", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`, nil},
		{"batch of requests", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
			[]string{rev20250326}},
		{"batch of responses", `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"x"}}]`,
			[]string{rev20250326}},
		{"batch mixing requests and responses", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"result":{}}]`, nil},
		// No schema forbids a response carrying both result and error (no additionalProperties:
		// false anywhere): the harness must check that rule itself.
		{"both result and error", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"},` +
			`"error":{"code":-32603,"message":"x"}}`, allRevisions},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil},
		{"missing jsonrpc", `{"id":1,"method":"ping"}`, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"result":{"resultType":"complete"}}`, nil},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"result":{"resultType":"complete"}}`, nil},
		// A request with a bad id still matches JSONRPCNotification, which allows any extra
		// member: JSONRPCMessage alone cannot catch it (see TestRequestWithBadID).
		{"request with fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, allRevisions},
		// A big integer id must stay exact, and a fraction beyond float64 precision must not be
		// rounded into an integer.
		{"big integer id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{"resultType":"complete"}}`, allRevisions},
		{"fraction lost in float64", `{"jsonrpc":"2.0","id":9007199254740993.5,"result":{"resultType":"complete"}}`, nil},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, nil},
		{"empty object", `{}`, nil},
		{"scalar", `42`, nil},
	}
	v := New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rev := range allRevisions {
				err := v.Message(rev, []byte(tc.message))
				want := slices.Contains(tc.validAt, rev)
				if want && err != nil {
					t.Errorf("%s: want valid, got %v", rev, err)
				}
				if !want {
					var verr *ValidationError
					if !errors.As(err, &verr) {
						t.Errorf("%s: want a *ValidationError, got %v", rev, err)
					}
				}
			}
		})
	}
}

func TestDefinition(t *testing.T) {
	tests := []struct {
		name, definition, value string
		validAt                 []string
	}{
		{"initialize result", "InitializeResult", `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},` +
			`"serverInfo":{"name":"srv","version":"1.0.0"},"instructions":"be nice"}`,
			except(rev20260728)},
		{"initialize result without serverInfo", "InitializeResult", `{"protocolVersion":"2025-06-18","capabilities":{}}`, nil},
		{"tools list", "ListToolsResult", `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`, except(rev20260728)},
		{"tools list with caching hints", "ListToolsResult", `{"resultType":"complete","ttlMs":0,"cacheScope":"public",` +
			`"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`, allRevisions},
		{"tool input schema not an object schema", "ListToolsResult", `{"tools":[{"name":"x","inputSchema":{"type":"array"}}]}`, nil},
		{"resource with relative uri", "ReadResourceResult", `{"contents":[{"uri":"README.md","text":"x"}]}`, nil},
		{"resource with absolute uri", "ReadResourceResult", `{"contents":[{"uri":"file:///README.md","text":"x"}]}`,
			except(rev20260728)},
	}
	v := New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, rev := range allRevisions {
				err := v.Definition(rev, tc.definition, []byte(tc.value))
				if slices.Contains(tc.validAt, rev) {
					if err != nil {
						t.Errorf("%s: want valid, got %v", rev, err)
					}
				} else if err == nil {
					t.Errorf("%s: want invalid, got nil", rev)
				}
			}
		})
	}
}

func TestRequestWithBadID(t *testing.T) {
	v := New()
	for _, rev := range allRevisions {
		for _, id := range []string{`1.5`, `true`, `null`, `{}`} {
			msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
			if err := v.Definition(rev, "JSONRPCRequest", []byte(msg)); err == nil {
				t.Errorf("%s: JSONRPCRequest accepted id %s", rev, id)
			}
		}
	}
}

func TestErrorKinds(t *testing.T) {
	v := New()

	err := v.Message("2099-01-01", []byte(`{}`))
	var verr *ValidationError
	if !errors.Is(err, ErrUnknownRevision) || errors.As(err, &verr) {
		t.Errorf("unknown revision: got %v", err)
	}

	err = v.Definition(rev20250618, "NoSuchThing", []byte(`{}`))
	if !errors.Is(err, ErrUnknownDefinition) || errors.As(err, &verr) {
		t.Errorf("unknown definition: got %v", err)
	}
	// initialize is gone from the stateless revision.
	if err := v.Definition(rev20260728, "InitializeResult", []byte(`{}`)); !errors.Is(err, ErrUnknownDefinition) {
		t.Errorf("InitializeResult at 2026-07-28: got %v", err)
	}

	for _, raw := range []string{``, `{"jsonrpc":`, `{} {}`, `{"a":1}x`} {
		err := v.Message(rev20250618, []byte(raw))
		if !errors.As(err, &verr) || !strings.Contains(verr.Details[0], "not valid JSON") {
			t.Errorf("%q: want a not-JSON ValidationError, got %v", raw, err)
		}
	}
}

func TestValidationErrorIsReadable(t *testing.T) {
	v := New()
	err := v.Message(rev20250618, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":"x","message":"m"}}`))
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	if verr.Revision != rev20250618 || verr.Definition != MessageDefinition {
		t.Errorf("revision/definition = %q/%q", verr.Revision, verr.Definition)
	}
	// The error-response branch explains the failure, not the request branch's missing method.
	want := []string{"at /error/code: got string, want integer", "at /id: got null, want integer or string"}
	if !slices.Equal(sorted(verr.Details), want) {
		t.Errorf("details = %q, want %q", verr.Details, want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "schema 2025-06-18 JSONRPCMessage: at /") {
		t.Errorf("message not one readable line: %q", msg)
	}
	var lib *jsonschema.ValidationError
	if !errors.As(err, &lib) {
		t.Errorf("the library's full error should be reachable with errors.As")
	}

	many := v.Definition(rev20250618, "ListToolsResult", []byte(`{"tools":[{},{},{}]}`))
	if !strings.Contains(many.Error(), "(and ") {
		t.Errorf("a long list of details should be summarised: %q", many.Error())
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestHasDefinitionAndDefinitions(t *testing.T) {
	v := New()
	for _, rev := range allRevisions {
		if !v.HasDefinition(rev, MessageDefinition) {
			t.Errorf("%s lacks %s", rev, MessageDefinition)
		}
		names, err := v.Definitions(rev)
		if err != nil || !slices.IsSorted(names) || !slices.Contains(names, "ListToolsResult") {
			t.Errorf("%s: Definitions() = %d names, %v", rev, len(names), err)
		}
	}
	if v.HasDefinition(rev20260728, "InitializeResult") || !v.HasDefinition(rev20260728, "DiscoverResult") {
		t.Error("2026-07-28 should have DiscoverResult and no InitializeResult")
	}
	if v.HasDefinition("1999-01-01", MessageDefinition) {
		t.Error("an unknown revision has no definitions")
	}
	if _, err := v.Definitions("1999-01-01"); !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("Definitions of an unknown revision: %v", err)
	}
}

func TestNeverFetches(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"$ref":"https://example.com/remote.json"}`))
	if err != nil {
		t.Fatal(err)
	}
	c := newCompiler()
	if err := c.AddResource("https://mcpspec.invalid/test.json", doc); err != nil {
		t.Fatal(err)
	}
	_, err = c.Compile("https://mcpspec.invalid/test.json")
	if err == nil || !strings.Contains(err.Error(), "refusing to fetch") {
		t.Fatalf("compiling a remote $ref: got %v, want a refusal", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	v := New() // fresh, so compiling races with validating
	definitions := []string{MessageDefinition, "JSONRPCRequest", "JSONRPCNotification", "Implementation"}
	messages := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"name":"x","version":"1"}`,
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Go(func() {
			for i := range 40 {
				rev := allRevisions[(g+i)%len(allRevisions)]
				def := definitions[(g*7+i)%len(definitions)]
				err := v.Definition(rev, def, []byte(messages[i%len(messages)]))
				var verr *ValidationError
				if err != nil && !errors.As(err, &verr) {
					errs <- fmt.Errorf("%s %s: %w", rev, def, err)
					return
				}
				v.HasDefinition(rev, def)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkValidateMessage(b *testing.B) {
	v := New()
	msg := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"hello"},` +
		`{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"isError":false}}`)
	if err := v.Message(rev20250618, msg); err != nil { // compiles once, outside the loop
		b.Fatal(err)
	}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Message(rev20250618, msg); err != nil {
			b.Fatal(err)
		}
	}
}

// What validated is remembered by its exact bytes, and only that: the same result again is
// valid, an invalid one stays invalid however often it is asked about, and a result that differs
// by a byte is validated on its own.
func TestDefinitionRemembersValidResults(t *testing.T) {
	v := New()
	good := []byte(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
	bad := []byte(`{"tools":[{"inputSchema":{"type":"object"}}]}`)             // no name
	badToo := []byte(`{"tools":[{"name":7,"inputSchema":{"type":"object"}}]}`) // a number
	for range 3 {
		if err := v.Definition(rev20250618, "ListToolsResult", good); err != nil {
			t.Fatalf("valid result: %v", err)
		}
		for _, raw := range [][]byte{bad, badToo} {
			if err := v.Definition(rev20250618, "ListToolsResult", raw); err == nil {
				t.Fatalf("%s: accepted, want a violation", raw)
			}
		}
	}
	if err := v.Definition(rev20250618, "ListPromptsResult", good); err == nil {
		t.Error("a result valid as ListToolsResult was taken as a valid ListPromptsResult")
	}
	if len(v.valid) != 1 || v.validBytes != len(good) {
		t.Errorf("cached %d results (%d bytes), want the one valid result", len(v.valid), v.validBytes)
	}
}

// A message is remembered by the shape its caller gives, only once valid, and only under that
// shape: an invalid message is judged each time, and an empty shape keeps nothing.
func TestMessageOfShapeRemembersValidMessages(t *testing.T) {
	v := New()
	good := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	bad := []byte(`{"jsonrpc":"1.0","id":1,"result":{}}`)
	for range 2 {
		if err := v.MessageOfShape(rev20250618, bad, "shape"); err == nil {
			t.Fatal("an invalid message was accepted")
		}
	}
	if err := v.MessageOfShape(rev20250618, good, ""); err != nil || len(v.valid) != 0 {
		t.Fatalf("no shape: err %v, %d kept, want valid and nothing kept", err, len(v.valid))
	}
	if err := v.MessageOfShape(rev20250618, good, "shape"); err != nil {
		t.Fatalf("valid message: %v", err)
	}
	// The caller vouches that a message of the shape validates alike: it is not looked at again.
	if err := v.MessageOfShape(rev20250618, bad, "shape"); err != nil {
		t.Errorf("a message of a remembered shape was validated again: %v", err)
	}
	if err := v.MessageOfShape(rev20250618, bad, "other"); err == nil {
		t.Error("an invalid message of another shape was accepted")
	}
	if err := v.MessageOfShape(rev20251125, bad, "shape"); err == nil {
		t.Error("a shape remembered at one revision was taken as valid at another")
	}
}

// The benchmark's message under a shape, as a session validates a server's repeated answers.
func BenchmarkValidateMessageOfShape(b *testing.B) {
	v := New()
	msg := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"hello"},` +
		`{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"isError":false}}`)
	shape := string(msg) // the caller's shape: any text standing for the message
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.MessageOfShape(rev20250618, msg, shape); err != nil {
			b.Fatal(err)
		}
	}
}
