package main

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// AUTH-CLIENT-PKCE judges the verifier's syntax, not only its S256 match: the reference client's
// fault, in the backcompat scenario, sends a 9-character verifier that does yield its challenge,
// which the probe's token endpoint refuses and the check names.
func TestClientAuthPKCEVerifierSyntax(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	args := append([]string{"client", "--cmd", d.mcpspec + " reference-client --fault AUTH-CLIENT-PKCE",
		"--scenario", "auth/2025-03-26-oauth-metadata-backcompat", "--out", out}, clientTestFlags...)
	runBinary(t, clientRunTimeout, d.mcpspec, args...)
	run := assertReports(t, out)
	found := false
	for _, res := range run.Results {
		if res.ID != "AUTH-CLIENT-PKCE" {
			continue
		}
		found = true
		if res.Status != reports.Fail || !strings.Contains(res.Message, "RFC 7636") {
			t.Errorf("%s %s: %s %q, want a failure naming RFC 7636's syntax", res.ID, res.Version, res.Status, res.Message)
		}
	}
	if !found {
		t.Fatal("no AUTH-CLIENT-PKCE result")
	}
	assertNoLeftovers(t, d)
}
