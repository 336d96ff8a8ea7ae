package main

import (
	"fmt"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// pollChecks are the checks that wait on a slow call's response: against a server that closes
// its POST streams early (the reference's --sse-poll) they pass only if the harness resumes the
// stream with GET and Last-Event-ID. HTTP-SSE-RETRY judges the early close itself.
const pollChecks = "^(HTTP-SSE-RELATED|HTTP-GET-UNRELATED|HTTP-NO-BROADCAST|HTTP-RESUME-OTHER-STREAM|" +
	"PROG-MESSAGE|PROG-MONOTONIC|PROG-STOP|PROG-TASK-TOKEN|PROG-TOKEN-TYPE|" +
	"TOOL-LISTCHANGED|PROMPT-LISTCHANGED|RES-LISTCHANGED|HTTP-SSE-RETRY) "

func TestCLIPollingServerIsResumed(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run",
		"--http-cmd", d.mcpspec+" reference --http "+addr+" --sse-poll", "--url", "http://"+addr+"/mcp",
		"--versions", "2025-11-25", "--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`,
		"--list-changed-tool", "toggle", "--focus", pollChecks, "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitOK, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if len(run.Results) != 13 {
		t.Errorf("%d results, want the 13 checks", len(run.Results))
	}
	for _, res := range run.Results {
		if res.Status != reports.Pass {
			t.Errorf("%s %s %s: status %s, want pass: %s", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
	}
	assertNoLeftovers(t, d)
}
