package jsonrpc

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseKinds(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		kind       Kind
		id         ID
		method     string
		hasResult  bool
		hasError   bool
		problem    string // a substring of Problem; "" means Problem must be empty
		versionOK  bool
		elemsCount int
	}{
		{name: "request", raw: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, kind: Request, id: "1", method: "ping", versionOK: true},
		{name: "request with params", raw: `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"x"}}`, kind: Request, id: `"a"`, method: "tools/list", versionOK: true},
		{name: "notification", raw: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kind: Notification, method: "notifications/initialized", versionOK: true},
		{name: "response with result", raw: `{"jsonrpc":"2.0","id":7,"result":{}}`, kind: Response, id: "7", hasResult: true, versionOK: true},
		{name: "response with error", raw: `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope"}}`, kind: Response, id: "7", hasError: true, versionOK: true},
		{name: "response with both", raw: `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`, kind: Response, id: "7", hasResult: true, hasError: true, versionOK: true},
		{name: "response with neither", raw: `{"jsonrpc":"2.0","id":7}`, kind: Invalid, id: "7", problem: "neither method nor result nor error", versionOK: true},
		{name: "null result still counts", raw: `{"jsonrpc":"2.0","id":7,"result":null}`, kind: Response, id: "7", hasResult: true, versionOK: true},
		{name: "wrong version", raw: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, kind: Request, id: "1", method: "ping"},
		{name: "version as number", raw: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, kind: Request, id: "1", method: "ping"},
		{name: "no version", raw: `{"id":1,"method":"ping"}`, kind: Request, id: "1", method: "ping"},
		{name: "method not a string", raw: `{"jsonrpc":"2.0","id":1,"method":5}`, kind: Request, id: "1", problem: "method is not a string", versionOK: true},
		{name: "batch", raw: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]`, kind: Batch, elemsCount: 2},
		{name: "empty batch", raw: `[]`, kind: Batch},
		{name: "batch with whitespace around", raw: " \n[ 1 , {} ]\r\n", kind: Batch, elemsCount: 2},
		{name: "invalid JSON", raw: `{"jsonrpc":"2.0",`, kind: Invalid, problem: "not valid JSON"},
		{name: "two values", raw: `{} {}`, kind: Invalid, problem: "not valid JSON"},
		{name: "batch then garbage", raw: `[{}] x`, kind: Invalid, problem: "not valid JSON"},
		{name: "unterminated batch", raw: `[{"jsonrpc":"2.0"}`, kind: Invalid, problem: "not valid JSON"},
		{name: "invalid member", raw: `{"jsonrpc":"2.0","id":01,"method":"ping"}`, kind: Invalid, problem: "not valid JSON"},
		{name: "invalid scalar", raw: `4 2`, kind: Invalid, problem: "not valid JSON"},
		{name: "empty", raw: ``, kind: Invalid, problem: "empty frame"},
		{name: "whitespace only", raw: " \t\r\n", kind: Invalid, problem: "empty frame"},
		{name: "number scalar", raw: `42`, kind: Invalid, problem: "neither an object nor an array"},
		{name: "string scalar", raw: `"ping"`, kind: Invalid, problem: "neither an object nor an array"},
		{name: "null scalar", raw: `null`, kind: Invalid, problem: "neither an object nor an array"},
		{name: "bool scalar", raw: `true`, kind: Invalid, problem: "neither an object nor an array"},
		{name: "empty object", raw: `{}`, kind: Invalid, problem: "neither method nor result nor error"},
		{name: "form feed is not JSON whitespace (fuzz find)", raw: "\f[]", kind: Invalid, problem: "not valid JSON"},
		{name: "no-break space is not JSON whitespace", raw: "\u00a0{\"jsonrpc\":\"2.0\",\"method\":\"n\"}", kind: Invalid, problem: "not valid JSON"},
		{name: "vertical tab only", raw: "\v", kind: Invalid, problem: "not valid JSON"},
		{name: "byte order mark", raw: "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"n\"}", kind: Invalid, problem: "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := []byte(tt.raw)
			m := Parse(raw)
			if !bytes.Equal(m.Raw, raw) {
				t.Errorf("Raw = %q, want the input %q", m.Raw, raw)
			}
			if m.Kind != tt.kind {
				t.Errorf("Kind = %v, want %v (problem %q)", m.Kind, tt.kind, m.Problem)
			}
			if m.ID != tt.id {
				t.Errorf("ID = %s, want %s", m.ID.Text(), tt.id.Text())
			}
			if m.HasID != (tt.id != "") {
				t.Errorf("HasID = %v with id %s", m.HasID, tt.id.Text())
			}
			if m.Method != tt.method {
				t.Errorf("Method = %q, want %q", m.Method, tt.method)
			}
			if m.HasResult != tt.hasResult || m.HasError != tt.hasError {
				t.Errorf("HasResult, HasError = %v, %v; want %v, %v", m.HasResult, m.HasError, tt.hasResult, tt.hasError)
			}
			if tt.problem == "" && m.Problem != "" {
				t.Errorf("Problem = %q, want none", m.Problem)
			}
			if tt.problem != "" && !strings.Contains(m.Problem, tt.problem) {
				t.Errorf("Problem = %q, want it to mention %q", m.Problem, tt.problem)
			}
			if m.VersionOK() != tt.versionOK {
				t.Errorf("VersionOK = %v, want %v", m.VersionOK(), tt.versionOK)
			}
			if len(m.Elems) != tt.elemsCount {
				t.Errorf("len(Elems) = %d, want %d", len(m.Elems), tt.elemsCount)
			}
		})
	}
}

func TestParseBatchElements(t *testing.T) {
	raw := []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"jsonrpc":"2.0","id":"1","result":{}}, 3, [], {"jsonrpc":"2.0","method":"n"}]`)
	m := Parse(raw)
	if m.Kind != Batch {
		t.Fatalf("Kind = %v, want batch", m.Kind)
	}
	want := []struct {
		kind Kind
		id   ID
		raw  string
	}{
		{Request, NumberID(1), `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{Response, StringID("1"), `{"jsonrpc":"2.0","id":"1","result":{}}`},
		{Invalid, "", `3`},
		{Batch, "", `[]`}, // classified by shape; a nested array is the checks' concern
		{Notification, "", `{"jsonrpc":"2.0","method":"n"}`},
	}
	if len(m.Elems) != len(want) {
		t.Fatalf("len(Elems) = %d, want %d", len(m.Elems), len(want))
	}
	for i, w := range want {
		e := m.Elems[i]
		if e.Kind != w.kind || e.ID != w.id || string(e.Raw) != w.raw {
			t.Errorf("Elems[%d] = %v %s %q, want %v %s %q", i, e.Kind, e.ID.Text(), e.Raw, w.kind, w.id.Text(), w.raw)
		}
	}
}

func TestParseIDs(t *testing.T) {
	tests := []struct {
		name     string
		rawID    string
		want     ID
		isString bool
		isNumber bool
		isNull   bool
		problem  bool
	}{
		{name: "string one", rawID: `"1"`, want: `"1"`, isString: true},
		{name: "number one", rawID: `1`, want: `1`, isNumber: true},
		{name: "zero", rawID: `0`, want: `0`, isNumber: true},
		{name: "negative", rawID: `-5`, want: `-5`, isNumber: true},
		{name: "max safe integer", rawID: `9007199254740991`, want: `9007199254740991`, isNumber: true},
		{name: "beyond int64", rawID: `123456789012345678901234567890`, want: `123456789012345678901234567890`, isNumber: true},
		{name: "fraction keeps its text", rawID: `1.0`, want: `1.0`, isNumber: true},
		{name: "exponent keeps its text", rawID: `1e3`, want: `1e3`, isNumber: true},
		{name: "escaped string canonicalised", rawID: `"\u00fc"`, want: `"ü"`, isString: true},
		{name: "plain unicode string", rawID: `"ü"`, want: `"ü"`, isString: true},
		{name: "escaped solidus canonicalised", rawID: `"a\/b"`, want: `"a/b"`, isString: true},
		{name: "html characters kept", rawID: `"<&>"`, want: `"<&>"`, isString: true},
		{name: "empty string", rawID: `""`, want: `""`, isString: true},
		{name: "null", rawID: `null`, want: Null, isNull: true},
		{name: "object", rawID: `{"a":1}`, want: `{"a":1}`, problem: true},
		{name: "array", rawID: `[1]`, want: `[1]`, problem: true},
		{name: "boolean", rawID: `true`, want: `true`, problem: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Parse([]byte(`{"jsonrpc":"2.0","id":` + tt.rawID + `,"method":"ping"}`))
			if m.Kind != Request || !m.HasID {
				t.Fatalf("Kind = %v, HasID = %v; want a request with an id", m.Kind, m.HasID)
			}
			if m.ID != tt.want {
				t.Errorf("ID = %s, want %s", m.ID.Text(), tt.want.Text())
			}
			if m.ID.IsString() != tt.isString || m.ID.IsNumber() != tt.isNumber || m.ID.IsNull() != tt.isNull {
				t.Errorf("IsString, IsNumber, IsNull = %v, %v, %v; want %v, %v, %v",
					m.ID.IsString(), m.ID.IsNumber(), m.ID.IsNull(), tt.isString, tt.isNumber, tt.isNull)
			}
			if (m.Problem != "") != tt.problem {
				t.Errorf("Problem = %q, want a problem: %v", m.Problem, tt.problem)
			}
		})
	}
}

func TestIDTypesDiffer(t *testing.T) {
	str := Parse([]byte(`{"jsonrpc":"2.0","id":"1","result":{}}`))
	num := Parse([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	frac := Parse([]byte(`{"jsonrpc":"2.0","id":1.0,"result":{}}`))
	if str.ID == num.ID {
		t.Errorf(`"1" and 1 canonicalise equal (%s)`, str.ID)
	}
	if num.ID == frac.ID {
		t.Errorf("1 and 1.0 canonicalise equal (%s): a server that rewrites the id must be visible", num.ID)
	}
	if str.ID != StringID("1") || num.ID != NumberID(1) {
		t.Errorf("ids %s and %s do not match StringID/NumberID", str.ID, num.ID)
	}
	if got := ID("").Text(); got != "(absent)" {
		t.Errorf("absent id Text() = %q", got)
	}
	if ID("").IsNumber() || ID("").IsString() || ID("").IsNull() {
		t.Error("the absent id claims a JSON type")
	}
}

func TestCanonicalIDErrors(t *testing.T) {
	for _, raw := range []string{``, `   `, `"unterminated`, `{}`, `[]`, `false`, `1x`} {
		if _, err := CanonicalID([]byte(raw)); err == nil {
			t.Errorf("CanonicalID(%q) succeeded, want an error", raw)
		}
	}
	id, err := CanonicalID([]byte(" \"x\" "))
	if err != nil || id != `"x"` {
		t.Errorf(`CanonicalID(" \"x\" ") = %s, %v`, id, err)
	}
}

func TestErrorObject(t *testing.T) {
	tests := []struct {
		name      string
		errJSON   string
		isObject  bool
		code      string
		codeIsInt bool
		codeInt   int64
		hasMsg    bool
		msgOK     bool
		msg       string
		data      string
	}{
		{name: "integer code", errJSON: `{"code":-32601,"message":"Method not found"}`, isObject: true, code: `-32601`, codeIsInt: true, codeInt: -32601, hasMsg: true, msgOK: true, msg: "Method not found"},
		{name: "zero code", errJSON: `{"code":0,"message":""}`, isObject: true, code: `0`, codeIsInt: true, hasMsg: true, msgOK: true},
		{name: "string code", errJSON: `{"code":"-32601","message":"x"}`, isObject: true, code: `"-32601"`, hasMsg: true, msgOK: true, msg: "x"},
		{name: "float code", errJSON: `{"code":-32601.0,"message":"x"}`, isObject: true, code: `-32601.0`, hasMsg: true, msgOK: true, msg: "x"},
		{name: "exponent code", errJSON: `{"code":-3.2601e4,"message":"x"}`, isObject: true, code: `-3.2601e4`, hasMsg: true, msgOK: true, msg: "x"},
		{name: "code beyond int64", errJSON: `{"code":99999999999999999999,"message":"x"}`, isObject: true, code: `99999999999999999999`, hasMsg: true, msgOK: true, msg: "x"},
		{name: "null code", errJSON: `{"code":null,"message":"x"}`, isObject: true, code: `null`, hasMsg: true, msgOK: true, msg: "x"},
		{name: "missing code", errJSON: `{"message":"x"}`, isObject: true, hasMsg: true, msgOK: true, msg: "x"},
		{name: "message not a string", errJSON: `{"code":1,"message":42}`, isObject: true, code: `1`, codeIsInt: true, codeInt: 1, hasMsg: true},
		{name: "missing message", errJSON: `{"code":1}`, isObject: true, code: `1`, codeIsInt: true, codeInt: 1},
		{name: "with data", errJSON: `{"code":-32602,"message":"bad","data":{"field":"x"}}`, isObject: true, code: `-32602`, codeIsInt: true, codeInt: -32602, hasMsg: true, msgOK: true, msg: "bad", data: `{"field":"x"}`},
		{name: "string error", errJSON: `"oops"`},
		{name: "null error", errJSON: `null`},
		{name: "array error", errJSON: `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Parse([]byte(`{"jsonrpc":"2.0","id":1,"error":` + tt.errJSON + `}`))
			e, ok := m.ErrorObject()
			if !ok {
				t.Fatal("ErrorObject reports no error member")
			}
			if e.IsObject != tt.isObject {
				t.Errorf("IsObject = %v, want %v", e.IsObject, tt.isObject)
			}
			if string(e.Code) != tt.code {
				t.Errorf("Code = %s, want %s", e.Code, tt.code)
			}
			if e.CodeIsInt != tt.codeIsInt || e.CodeInt != tt.codeInt {
				t.Errorf("CodeIsInt, CodeInt = %v, %d; want %v, %d", e.CodeIsInt, e.CodeInt, tt.codeIsInt, tt.codeInt)
			}
			if e.HasMessage != tt.hasMsg || e.MessageIsOK != tt.msgOK || e.Message != tt.msg {
				t.Errorf("HasMessage, MessageIsOK, Message = %v, %v, %q; want %v, %v, %q", e.HasMessage, e.MessageIsOK, e.Message, tt.hasMsg, tt.msgOK, tt.msg)
			}
			if string(e.Data) != tt.data {
				t.Errorf("Data = %s, want %s", e.Data, tt.data)
			}
		})
	}
}

func TestErrorObjectAbsent(t *testing.T) {
	m := Parse([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if _, ok := m.ErrorObject(); ok {
		t.Error("ErrorObject reports an error member on a result response")
	}
}

func TestResultObject(t *testing.T) {
	tests := []struct {
		raw  string
		ok   bool
		keys int
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":2}}`, true, 2},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true, 0},
		{`{"jsonrpc":"2.0","id":1,"result":[]}`, false, 0},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, false, 0},
		{`{"jsonrpc":"2.0","id":1,"result":"x"}`, false, 0},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, false, 0},
	}
	for _, tt := range tests {
		obj, ok := Parse([]byte(tt.raw)).ResultObject()
		if ok != tt.ok || len(obj) != tt.keys {
			t.Errorf("ResultObject(%s) = %d keys, %v; want %d keys, %v", tt.raw, len(obj), ok, tt.keys, tt.ok)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Invalid: "invalid", Request: "request", Notification: "notification", Response: "response", Batch: "batch", Kind(99): "invalid"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestParseHasOther(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`:        false,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`:          false,
		`{"jsonrpc":"2.0","id":1,"result":{},"_meta":{}}`:          true,
		`{"jsonrpc":"2.0","method":"m","params":null,"Params":{}}`: true,
	} {
		if got := Parse([]byte(raw)).HasOther; got != want {
			t.Errorf("%s: HasOther = %v, want %v", raw, got, want)
		}
	}
}
