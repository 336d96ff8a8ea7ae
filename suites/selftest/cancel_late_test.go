package selftest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// TestCancelReadLate: a server that reads a cancellation late sends the call's last progress
// after it, then drops the answer and never ends the call's stream (server-everything on a busy
// machine). That attempt cannot tell whether the call kept working; the attempt started at that
// progress decides, where the check used to wait out the request timeout for the stream and
// report it still open (the fault reads only its first such cancellation late).
func TestCancelReadLate(t *testing.T) {
	t.Parallel()
	var targets []harness.Target
	for _, target := range referenceTargets(t, reference.FaultCancelLateRead) {
		if target.Transport == wire.HTTP {
			target.Revisions = []string{harness.Rev20250618}
			targets = append(targets, target)
		}
	}
	// Steps long enough that the progress before the late read and the one after it are far
	// apart from the 202 that shows the read, on a loaded machine too.
	slow := json.RawMessage(`{"steps":6,"stepMs":150}`)
	got := runOnWith(t, targets, func(c *conform.Check) bool { return c.ID == "CANCEL-STOP-NO-RESPONSE" }, slow)
	res, ok := got[key{"CANCEL-STOP-NO-RESPONSE", harness.Rev20250618, wire.HTTP}]
	if !ok {
		t.Fatalf("CANCEL-STOP-NO-RESPONSE did not run: %v", got)
	}
	if res.Status != reports.Warn || !strings.Contains(res.Message, "kept working") ||
		!strings.Contains(res.Message, "in attempts 2 and 3 of 3 (attempt 1: its response stream was still open") {
		t.Errorf("%s: %s", res.Status, res.Message)
	}
	t.Log(res.Message)
}
