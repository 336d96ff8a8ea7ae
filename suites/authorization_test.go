package suites

import (
	"net/http"
	"reflect"
	"testing"
)

func TestBearerChallenge(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   map[string]string
		ok     bool
	}{
		{[]string{`Bearer resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope="a b"`},
			map[string]string{"resource_metadata": "http://h/.well-known/oauth-protected-resource/mcp", "scope": "a b"}, true},
		// Another scheme first, with a token68, and a second header value; case-insensitive names.
		{[]string{`Basic abc==, bearer Error=insufficient_scope, scope="x \"y\""`},
			map[string]string{"error": "insufficient_scope", "scope": `x "y"`}, true},
		{[]string{`Basic realm="r"`, `Bearer`}, map[string]string{}, true},
		{[]string{`Basic realm="r"`}, map[string]string{}, false},
		{nil, map[string]string{}, false},
	} {
		h := http.Header{}
		for _, v := range tc.values {
			h.Add("WWW-Authenticate", v)
		}
		got, ok := bearerChallenge(h)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %v %v, want %v %v", tc.values, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWellKnownPRM(t *testing.T) {
	got := wellKnownPRM("http://127.0.0.1:3000/public/mcp")
	want := []string{"http://127.0.0.1:3000/.well-known/oauth-protected-resource/public/mcp", "http://127.0.0.1:3000/.well-known/oauth-protected-resource"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := wellKnownPRM("http://127.0.0.1:3000/"); !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("root endpoint: got %v", got)
	}
}
