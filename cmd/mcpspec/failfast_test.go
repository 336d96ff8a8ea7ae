package main

// A target nobody launched and nobody listens on is reported at once, not after the startup
// timeout; a target mcpspec launches itself is given the whole startup timeout.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

// refusedLimit is how soon a run against a refused address must have ended (the bound).
const refusedLimit = 5 * time.Second

func TestCLIRefusedConnectionFailsFast(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--url", "--sse"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
			out := t.TempDir()
			// A startup timeout far above the bound: only giving up early can meet it.
			r := runBinary(t, referenceRunTimeout, bins.mcpspec, "run", flag, "http://"+addr+"/mcp",
				"--focus", "PING-RESPOND", "--timeout-startup", "60s", "--out", out)
			if r.code != reports.ExitHarness {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitHarness, tail(r.stdout, 20), r.stderr)
			}
			if r.elapsed > refusedLimit {
				t.Errorf("the run took %s, want at most %s", r.elapsed.Round(time.Millisecond), refusedLimit)
			}
			run := assertReports(t, out)
			if len(run.Results) == 0 {
				t.Fatal("no results")
			}
			for _, res := range run.Results {
				if res.Status != reports.Error || !strings.Contains(res.Message, addr) || !strings.Contains(res.Message, "connection refused") {
					t.Errorf("%s %s: %s %q: want an error naming %s and \"connection refused\"", res.ID, res.Version, res.Status, res.Message, addr)
				}
			}
		})
	}
}

// TestCLILaunchedServerGetsTheStartupTimeout: with --http-cmd the refused port is a server still
// starting, so the run waits the startup timeout (here a server that never listens).
func TestCLILaunchedServerGetsTheStartupTimeout(t *testing.T) {
	t.Parallel()
	const startup = 3 * time.Second
	d := newRunDir(t)
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--http-cmd", d.misbehave+" --mode no-read",
		"--url", "http://"+addr+"/mcp", "--focus", "PING-RESPOND", "--versions", "2025-06-18",
		"--timeout-startup", startup.String(), "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitHarness, tail(r.stdout, 20), r.stderr)
	}
	if r.elapsed < startup {
		t.Errorf("the run gave up after %s, before the startup timeout %s", r.elapsed.Round(time.Millisecond), startup)
	}
	for _, res := range assertReports(t, out).Results {
		if !strings.Contains(res.Message, "within the startup timeout") {
			t.Errorf("%s: %q: want the startup timeout named", res.ID, res.Message)
		}
	}
	assertNoLeftovers(t, d)
}
