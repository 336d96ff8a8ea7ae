package catalog

import "testing"

func TestCatalogueLoads(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 439 {
		t.Fatalf("want 439 requirements, got %d", len(all))
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

// Every area of the table holds a requirement: a row left behind by a merge is an error.
func TestAreasTableUsed(t *testing.T) {
	if _, err := All(); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, code := range Areas() {
		used[code] = true
	}
	for code := range areas {
		if !used[code] {
			t.Errorf("area %s is in the table but holds no requirement", code)
		}
	}
}

func TestAreaHolds(t *testing.T) {
	http, _ := AreaOf("http")
	for file, want := range map[string]bool{"transports_http_sessions.go": true, "transports_http.go": true, "transports_http_misc.go": false, "transports_stdio.go": false} {
		if got := http.Holds(file); got != want {
			t.Errorf("http holds %s: got %v, want %v", file, got, want)
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

// A source that words each revision apart links each revision's own page and section.
func TestSpecURLPerRevision(t *testing.T) {
	const site = "https://modelcontextprotocol.io/specification/"
	cases := []struct{ id, revision, want string }{
		{"AUTH-CLIENT-PKCE", "2025-03-26", site + "2025-03-26/basic/authorization#protocol-requirements"},
		{"AUTH-CLIENT-PKCE", "2025-06-18", site + "2025-06-18/basic/authorization#authorization-code-protection"},
		{"AUTH-CLIENT-PKCE", "2025-11-25", site + "2025-11-25/basic/authorization#authorization-code-protection"},
		{"AUTH-CLIENT-PKCE", "2026-07-28", site + "2026-07-28/basic/authorization/security-considerations#authorization-code-protection"},
		{"AUTH-CLIENT-ISS", "2026-07-28", site + "2026-07-28/basic/authorization#authorization-response-validation"},
		{"PING-RESPOND", "2025-11-25", site + "2025-11-25/basic/utilities/ping#behavior-requirements"},
		{"AS-METADATA", "2025-06-18", site + "2025-06-18/basic/authorization#server-metadata-discovery"},
		{"AS-METADATA", "2026-07-28", site + "2026-07-28/basic/authorization/authorization-server-discovery#authorization-server-metadata-discovery"},
		{"AS-PKCE-S256", "2025-11-25", site + "2025-11-25/basic/authorization#authorization-code-protection"},
		{"LIFE-TIMEOUT-CANCEL", "2025-03-26", site + "2025-03-26/basic/lifecycle#timeouts"},
		{"LIFE-TIMEOUT-CANCEL", "2026-07-28", site + "2026-07-28/basic/patterns/cancellation#timeouts"},
		{"AS-CIMD", "2026-07-28", site + "2026-07-28/basic/authorization/client-registration#client-id-metadata-documents"},
		// A source written "26-07/page.mdx" links that page, and a "25-11/…" one stays on 2025-11-25,
		// whose page 2026-07-28 may have moved.
		{"HTTP26-PROTO-HEADER", "2026-07-28", site + "2026-07-28/basic/transports/streamable-http#protocol-version-header"},
		{"AUTH-CLIENT-PKCE-REFUSE", "2026-07-28", site + "2025-11-25/basic/authorization#authorization-code-protection"},
		{"HTTP-ORIGIN-403", "2025-11-25", site + "2025-11-25/basic/transports#security-warning"},
	}
	for _, c := range cases {
		e, ok := Lookup(c.id)
		if !ok {
			t.Fatalf("%s missing", c.id)
		}
		if got := e.SpecURL(c.revision); got != c.want {
			t.Errorf("%s at %s: got %s, want %s", c.id, c.revision, got, c.want)
		}
	}
}

// An extension's rows name their extension and link its own text.
func TestExtensionRows(t *testing.T) {
	e, ok := Lookup("TASKX-GET")
	if !ok {
		t.Fatal("TASKX-GET missing")
	}
	x, ok := e.ExtensionOf()
	if !ok || x.ID != "io.modelcontextprotocol/tasks" || len(x.Revisions) == 0 {
		t.Fatalf("TASKX-GET: extension %+v, %v", x, ok)
	}
	want := "https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md#task-polling"
	if got := e.SpecURL("2026-07-28"); got != want {
		t.Errorf("TASKX-GET links %s, want %s", got, want)
	}
	if core, _ := Lookup("PING-RESPOND"); core.Extension != "" {
		t.Errorf("PING-RESPOND belongs to extension %q", core.Extension)
	}
}
