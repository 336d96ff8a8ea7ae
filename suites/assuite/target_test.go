package assuite

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
)

func TestMetadataURLsPerRevision(t *testing.T) {
	cases := []struct {
		issuer, rev string
		want        []string
	}{
		{"http://127.0.0.1:1", harness.Rev20250618, []string{"http://127.0.0.1:1/.well-known/oauth-authorization-server"}},
		{"http://127.0.0.1:1/tenant/", harness.Rev20250326, []string{"http://127.0.0.1:1/.well-known/oauth-authorization-server/tenant"}},
		{"http://127.0.0.1:1", harness.Rev20251125, []string{"http://127.0.0.1:1/.well-known/oauth-authorization-server", "http://127.0.0.1:1/.well-known/openid-configuration"}},
		{"http://127.0.0.1:1/tenant", harness.Rev20260728, []string{
			"http://127.0.0.1:1/.well-known/oauth-authorization-server/tenant",
			"http://127.0.0.1:1/.well-known/openid-configuration/tenant",
			"http://127.0.0.1:1/tenant/.well-known/openid-configuration"}},
	}
	for _, c := range cases {
		if got := metadataURLs(c.issuer, c.rev); !slices.Equal(got, c.want) {
			t.Errorf("%s at %s: %v, want %v", c.issuer, c.rev, got, c.want)
		}
	}
}

// TestOffLoopbackRefusedBeforeDialling: an endpoint off loopback is refused by mcpspec itself,
// no packet sent (192.0.2.1 is TEST-NET-1, never reached either way).
func TestOffLoopbackRefusedBeforeDialling(t *testing.T) {
	tg := newTarget(Plan{Issuer: "http://127.0.0.1:1"})
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://192.0.2.1/", nil)
	if _, err := tg.hc.Do(req); !refusedDial(err) {
		t.Fatalf("got %v, want mcpspec's refusal", err)
	}
	if err := tg.reachable(context.Background()); err == nil {
		t.Fatal("an issuer where nothing listens was reachable")
	}
	tg = newTarget(Plan{Issuer: "https://auth.example.com"})
	if err := tg.reachable(context.Background()); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("an issuer off loopback without AllowRemote: %v", err)
	}
}

// hungBound is the exchange bound of the hung-server test: short, since every hang in it is
// deliberate, and the test asserts counts, never durations.
const hungBound = 300 * time.Millisecond

// TestHungServerCostsOneTimeout: a server that serves its metadata and then hangs on every
// other request gets one request that times out; every later exchange fails at once, as an
// error, not a violation.
func TestHungServerCostsOneTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	done := make(chan struct{})
	var hung atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-authorization-server" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize",
				"token_endpoint": issuer + "/token", "registration_endpoint": issuer + "/register",
				"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
			return
		}
		hung.Add(1)
		<-done
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { close(done); _ = srv.Close() }()
	out, err := Run(context.Background(), Plan{Issuer: issuer, Revisions: []string{harness.Rev20250618}, Timeout: hungBound})
	if err != nil {
		t.Fatal(err)
	}
	if n := hung.Load(); n != 1 {
		t.Errorf("%d requests reached the hung endpoints, want 1", n)
	}
	for _, r := range out.Results {
		if r.Status == reports.Fail {
			t.Errorf("%s: %s, a hung server is an error, not a violation: %s", r.ID, r.Status, r.Message)
		}
		if r.ID == "AS-PKCE-MISSING" && r.Status != reports.Untestable && r.Status != reports.Error {
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Message)
		}
	}
}

// TestOpenIDDiscoveryFrom20251125: metadata served only as OpenID Provider metadata (path
// appended to an issuer with a path) is found from 2025-11-25, and missing before, where the
// revision names RFC 8414 alone.
func TestOpenIDDiscoveryFrom20251125(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String() + "/tenant"
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/tenant/.well-known/openid-configuration" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": issuer})
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	out, err := Run(context.Background(), Plan{Issuer: issuer, Revisions: []string{harness.Rev20250618, harness.Rev20251125},
		Focus: func(title string) bool {
			return strings.HasPrefix(title, "AS-METADATA ") || strings.HasPrefix(title, "AS-METADATA-ISSUER ")
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]reports.Status{
		"AS-METADATA " + harness.Rev20250618: reports.Fail, "AS-METADATA " + harness.Rev20251125: reports.Pass,
		"AS-METADATA-ISSUER " + harness.Rev20250618: reports.Untestable, "AS-METADATA-ISSUER " + harness.Rev20251125: reports.Pass,
	}
	if len(out.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(out.Results), len(want))
	}
	for _, r := range out.Results {
		if w := want[r.ID+" "+r.Version]; r.Status != w {
			t.Errorf("%s at %s: %s, want %s: %s", r.ID, r.Version, r.Status, w, r.Message)
		}
	}
}
