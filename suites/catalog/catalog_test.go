package catalog

import "testing"

func TestCatalogueLoads(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 333 {
		t.Fatalf("want 333 requirements, got %d", len(all))
	}
	for _, e := range all {
		if len(e.Versions) == 0 {
			t.Errorf("%s applies to no revision", e.ID)
		}
	}
}

func TestSpecURL(t *testing.T) {
	cases := map[string]string{
		"PING-RESPOND":      "https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping#behavior-requirements",
		"BATCH-EMPTY":       "https://www.jsonrpc.org/specification#batch",
		"LIFE-VERSION-ECHO": "https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#version-negotiation",
	}
	for id, want := range cases {
		e, ok := Lookup(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		if got := e.SpecURL("2025-06-18"); got != want {
			t.Errorf("%s: got %s, want %s", id, got, want)
		}
	}
}

// The client rows link the spec page and section they come from.
func TestClientRowSpecURL(t *testing.T) {
	cases := map[string]string{
		"ROOTS-CLIENT-FILE-URI":  "https://modelcontextprotocol.io/specification/2025-06-18/client/roots#root",
		"SAMPLING-CLIENT-CAP":    "https://modelcontextprotocol.io/specification/2025-06-18/client/sampling#capabilities",
		"ELICIT-CLIENT-DEFAULTS": "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#requested-schema",
	}
	for id, want := range cases {
		e, ok := Lookup(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		if got := e.SpecURL("2025-06-18"); got != want {
			t.Errorf("%s: got %s, want %s", id, got, want)
		}
	}
}
