package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
)

// A server that initializes one Streamable HTTP session in its life (the reference's
// --sessions 1, as a small server with one transport for its whole process) refuses every
// further session the run opens. Those refusals are no verdict: the run judges what it could on
// the one session and says why the rest is untestable. It once failed LIFE-PRE-INIT-REQUEST and
// LIFE-VERSION-FALLBACK, warned CANCEL-NO-INIT-CANCEL, and called three of the four handshake
// revisions "not served", against a server conformant in everything it did.
func TestCLIServerWithOneSessionInItsLife(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run",
		"--http-cmd", d.mcpspec+" reference --http "+addr+" --sessions 1", "--url", "http://"+addr+"/mcp", "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitOK, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	served := map[string]bool{} // handshake revisions with a check passed
	refused := 0
	for _, res := range run.Results {
		switch {
		case res.Status == reports.Fail || res.Status == reports.Warn || res.Status == reports.Error:
			t.Errorf("%s %s: %s, want no verdict from a refused session: %s", res.ID, res.Version, res.Status, res.Message)
		case res.Status == reports.Pass && harness.IsHandshake(res.Version):
			served[res.Version] = true
		case strings.Contains(res.Message, "would not open a further session"):
			refused++
		case harness.IsHandshake(res.Version) && (strings.Contains(res.Message, "does not serve revision") || strings.Contains(res.Message, "no MCP handshake")):
			t.Errorf("%s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}
	if len(served) != 1 {
		t.Errorf("handshake revisions with a check passed: %v, want the one its session was opened at", served)
	}
	if refused == 0 {
		t.Error("no result says the server would not open a further session")
	}
	assertNoLeftovers(t, d)
}
