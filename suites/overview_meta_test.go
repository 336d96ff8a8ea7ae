package suites

import "testing"

func TestMetaKeyProblem(t *testing.T) {
	for _, c := range []struct {
		key       string
		badPrefix bool
		badName   bool
	}{
		{key: "io.modelcontextprotocol/serverInfo"},
		{key: "traceparent"},
		{key: "com.example/x"},
		{key: "a/"}, // an empty name is allowed
		{key: "x.y-z/a.b_c-d"},
		{key: "1example.com/x", badPrefix: true},
		{key: "com-.example/x", badPrefix: true},
		{key: "com..example/x", badPrefix: true},
		{key: "/x", badPrefix: true},
		{key: "com.example/x-", badName: true},
		{key: "_x", badName: true},
		{key: "com.example/x y", badName: true},
	} {
		if got := metaKeyProblem(c.key, "prefix") != ""; got != c.badPrefix {
			t.Errorf("%q: prefix problem %v, want %v", c.key, got, c.badPrefix)
		}
		if got := metaKeyProblem(c.key, "name") != ""; got != c.badName {
			t.Errorf("%q: name problem %v, want %v", c.key, got, c.badName)
		}
	}
}

func TestTraceProblem(t *testing.T) {
	for _, c := range []struct {
		key, value string
		bad        bool
	}{
		{"traceparent", sampleTraceparent, false},
		{"tracestate", sampleTracestate, false},
		{"baggage", sampleBaggage, false},
		{"traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", true},
		{"traceparent", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true},
		{"traceparent", "00-4bf92f3577b34da6-00f067aa0ba902b7-01", true},
		{"tracestate", "Rojo=1", true},
		{"baggage", "no-equals-sign", true},
	} {
		if got := traceProblem(c.key, c.value) != ""; got != c.bad {
			t.Errorf("%s %q: problem %v, want %v", c.key, c.value, got, c.bad)
		}
	}
}
