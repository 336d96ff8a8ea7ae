package clientsuite

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// The half of AUTH-CLIENT-REDIRECT-URI the reference client's fault does not reach: a redirect
// URI neither on localhost nor https fails at every revision, even one the client registered.
func TestRedirectURINotLocalhostNorHTTPS(t *testing.T) {
	for _, rev := range []string{"2025-03-26", "2026-07-28"} {
		recs := []record.Record{
			{Seq: 1, Dir: record.Recv, Channel: probe.ChanOAuth, Method: "POST", Path: "/register", Body: `{"redirect_uris":["http://client.example/cb"]}`},
			{Seq: 2, Dir: record.Recv, Channel: probe.ChanOAuth, Method: "GET", Path: "/authorize", Query: "response_type=code&redirect_uri=http%3A%2F%2Fclient.example%2Fcb"},
		}
		v := NewView(probe.AuthMetadataDefault, rev, "http", rev, recs, nil)
		if f := judgeRedirectURI(v); f.Outcome != Violation || !strings.Contains(f.Message, "neither a localhost nor an https URL") {
			t.Errorf("%s: %v %s, want a violation", rev, f.Outcome, f.Message)
		}
	}
	for raw, want := range map[string]bool{"https://c.example/cb": true, "http://localhost:1/cb": true, "http://[::1]:1/cb": true, "http://127.0.0.1/cb": true, "http://c.example/cb": false, "myapp://cb": false} {
		if got := localhostOrHTTPS(raw); got != want {
			t.Errorf("localhostOrHTTPS(%q) = %v, want %v", raw, got, want)
		}
	}
}
