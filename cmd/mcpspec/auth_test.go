package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// TestCLIAuthReferencePasses: the reference in auth mode, given its token and the narrow and
// foreign ones, passes every AUTH check at every revision they cover, and none of the tokens
// reaches a report, though the server's command line names them all.
func TestCLIAuthReferencePasses(t *testing.T) {
	t.Parallel()
	const token, narrow, foreign, expired = "cli-auth-token", "cli-narrow-token", "cli-foreign-token", "cli-expired-token"
	d := newRunDir(t)
	out := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	server := fmt.Sprintf("%s reference --http %s --auth-token %s --auth-token-narrow %s --auth-token-foreign %s --auth-token-expired %s", d.mcpspec, addr, token, narrow, foreign, expired)
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run",
		"--http-cmd", server, "--url", "http://"+addr+"/mcp",
		"--header", "Authorization: Bearer "+token,
		"--auth-token-narrow", narrow, "--auth-token-foreign", foreign, "--auth-token-expired", expired,
		"--versions", "all", "--focus", "AUTH-", "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitOK, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	ids := map[string]bool{}
	for _, res := range run.Results {
		ids[res.ID] = true
		if !strings.HasPrefix(res.ID, "AUTH-") || res.Status != reports.Pass {
			t.Errorf("%s %s %s: %s, want pass: %s", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
	}
	if len(ids) != 12 {
		t.Errorf("%d AUTH checks ran, want 12: %v", len(ids), ids)
	}
	for _, secret := range []string{token, narrow, foreign, expired} {
		if leaks := secretLeaks(t, secret, r, out); len(leaks) > 0 {
			t.Errorf("the token %q appears in %v", secret, leaks)
		}
	}
	assertNoLeftovers(t, d)
}
