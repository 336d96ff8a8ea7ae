package assuite_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refauthserver"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/assuite"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The self-test of the authorization-server checks: the clean reference authorization server
// passes every check at every revision, and each fault fails its own check (warns, for a
// SHOULD) and no other.

const resource = "http://127.0.0.1:9/mcp"

// selfTestBound bounds a whole run against the in-process reference: generous for a loaded
// machine; a run ends as soon as its checks have.
const selfTestBound = 2 * time.Minute

func runAgainst(t *testing.T, faults []string) []reports.Result {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := refauthserver.Handler("http://"+ln.Addr().String(), faults)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), selfTestBound)
	defer cancel()
	out, err := assuite.Run(ctx, assuite.Plan{Issuer: "http://" + ln.Addr().String(), Resource: resource, Revisions: harness.Revisions})
	if err != nil {
		t.Fatal(err)
	}
	return out.Results
}

func TestReferencePassesEveryCheck(t *testing.T) {
	checks, err := assuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	results := runAgainst(t, nil)
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.ID] = true
		if r.Status != reports.Pass {
			t.Errorf("%s at %s: %s: %s", r.ID, r.Version, r.Status, r.Message)
		}
	}
	for _, c := range checks {
		if !seen[c.ID] {
			t.Errorf("%s never ran", c.ID)
		}
	}
}

func TestEachFaultFailsItsCheck(t *testing.T) {
	checks, err := assuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	faulty := map[string]bool{}
	for _, f := range refauthserver.Faults() {
		faulty[f.ID] = true
		t.Run(f.ID, func(t *testing.T) {
			failed := false
			for _, r := range runAgainst(t, []string{f.ID}) {
				bad := r.Status == reports.Fail || r.Status == reports.Warn || r.Status == reports.Error
				switch {
				case r.ID == f.ID && bad:
					failed = true
				case r.ID == f.ID:
					t.Errorf("%s at %s: %s, want a failure: %s", r.ID, r.Version, r.Status, r.Message)
				case bad:
					t.Errorf("fault %s breaks another check too: %s at %s: %s: %s", f.ID, r.ID, r.Version, r.Status, r.Message)
				}
			}
			if !failed {
				t.Errorf("fault %s: its check never failed", f.ID)
			}
		})
	}
	for _, c := range checks {
		if !faulty[c.ID] {
			t.Errorf("%s has no fault in the reference authorization server", c.ID)
		}
	}
}

// The layout of docs/architecture.md: the checks live in the file of their area's page.
func TestChecksLiveOnTheirPage(t *testing.T) {
	checks, err := assuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		area, ok := catalog.AreaOf(c.Area())
		if !ok {
			t.Errorf("%s: area %q is not in the areas table", c.ID, c.Area())
			continue
		}
		if file := filepath.Base(c.File); !area.Holds(file) {
			t.Errorf("%s (area %s) is registered in %s, not in %s.go", c.ID, area.Code, file, area.File)
		}
		if !strings.Contains(assuite.Title(c, c.Versions[0]), c.ID) {
			t.Errorf("%s: title %q", c.ID, assuite.Title(c, c.Versions[0]))
		}
	}
}

// TestPreRegisteredClient: a client registered beforehand (confidential, client_secret_basic)
// drives the flows, and the clean reference passes every check with it too.
func TestPreRegisteredClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	h, err := refauthserver.Handler(issuer, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	const redirect = "http://127.0.0.1:8765/callback"
	resp, err := http.Post(issuer+"/register", "application/json", strings.NewReader(
		`{"redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"client_secret_basic"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
	}
	err = json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	if err != nil || reg.ID == "" || reg.Secret == "" {
		t.Fatalf("registration: %+v, %v", reg, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), selfTestBound)
	defer cancel()
	out, err := assuite.Run(ctx, assuite.Plan{Issuer: issuer, Resource: resource, Revisions: harness.Revisions,
		Client: &assuite.Client{ID: reg.ID, Secret: reg.Secret, RedirectURI: redirect}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		if r.Status != reports.Pass {
			t.Errorf("%s at %s: %s: %s", r.ID, r.Version, r.Status, r.Message)
		}
	}
	if !slices.Contains(out.Secrets, reg.Secret) {
		t.Error("the client secret is not among the secrets to redact")
	}
}
