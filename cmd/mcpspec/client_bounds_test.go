package main

// The bounds `mcpspec client` shares with `mcpspec run`: a launch ends at --timeout-launch
// however chatty the client, and SIGINT or SIGTERM stop the client and the probe, write the
// reports and exit 3, leaving no process and no temp directory behind.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// chattyClient is the reference client pinging every 200 ms after the scenario, for far longer
// than any test waits: only mcpspec's own bounds end it.
func chattyClient(d runDir) string {
	return d.mcpspec + " reference-client --timeout 10m --chatty 200ms"
}

// TestClientChattyEndsAtLaunchBound: a client that never falls silent is never idle, yet the
// launch ends at --timeout-launch with exit 3, the reason in the reports.
func TestClientChattyEndsAtLaunchBound(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			out := t.TempDir()
			args := []string{"client", "--cmd", chattyClient(d), "--out", out, "--scenario", "tools_call", "--versions", "2025-06-18",
				"--timeout-idle", "5s", "--timeout-request", "2s", "--timeout-launch", "3s"}
			if transport == "stdio" {
				args = append(args, "--stdio")
			}
			r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
			if r.code != reports.ExitHarness {
				t.Errorf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			run := assertReports(t, out)
			if all := strings.Join(run.Errors, "\n"); !strings.Contains(all, "still running at the launch timeout (3s)") {
				t.Errorf("the run's errors do not name the launch bound:\n%s", all)
			}
			if len(run.Results) == 0 {
				t.Error("no result: the recording up to the bound should still be judged")
			}
			assertNoLeftovers(t, d)
		})
	}
}

// TestClientInterruptedWritesReportsAndExits3 sends real signals to a real `mcpspec client`
// whose client would talk for minutes.
func TestClientInterruptedWritesReportsAndExits3(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sig       syscall.Signal
		transport string
	}{{syscall.SIGTERM, "stdio"}, {syscall.SIGINT, "http"}}
	for _, c := range cases {
		t.Run(c.sig.String()+"/"+c.transport, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			out, tmp := t.TempDir(), t.TempDir()
			args := []string{"client", "--cmd", chattyClient(d), "--out", out, "--no-color", "--scenario", "tools_call",
				"--timeout-idle", "5m", "--timeout-request", "2s", "--timeout-launch", "5m"}
			if c.transport == "stdio" {
				args = append(args, "--stdio")
			}
			cmd := exec.Command(d.mcpspec, args...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.WaitDelay = pipeGrace
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp) // where the stdio probe's directory goes
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

			// Over stdio the probe the client launched must be up too, so that stopping it is tested.
			wait := d.mcpspec + " reference-client"
			if c.transport == "stdio" {
				wait = d.mcpspec + " probe-stdio"
			}
			if err := awaitProcess(d.marker, wait, exited); err != nil {
				t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, tail(stdout.String(), 20), stderr.String())
			}
			interruptAndAwaitExit(t, cmd, exited, c.sig, &stdout, &stderr)
			assertNoLeftovers(t, d)
			run := assertReports(t, out)
			if !strings.Contains(strings.Join(run.Errors, "\n"), "interrupted ("+signalName(c.sig)+")") {
				t.Errorf("the run's errors %q do not record the interruption", run.Errors)
			}
			interrupted := 0
			for _, r := range run.Results {
				if strings.Contains(r.Message, "interrupted") {
					interrupted++
					if r.Status != reports.Error {
						t.Errorf("%s %s: status %s for %q, want error", r.ID, r.Version, r.Status, r.Message)
					}
				}
			}
			if interrupted == 0 {
				t.Errorf("none of %d results says it was interrupted", len(run.Results))
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "mcpspec-probe-*")); len(left) > 0 {
				t.Errorf("the probe's temp directory is left behind: %v", left)
			}
			if !strings.Contains(stdout.String(), "reports: ") {
				t.Errorf("no summary on stdout:\n%s", tail(stdout.String(), 20))
			}
		})
	}
}

// TestClientOversizeMessageBounded: one valid 3.9 MB message from a client leaves a small
// results.json and a small mcpspec (before the shared bound, at four revisions: 274 MB and 2 GB).
func TestClientOversizeMessageBounded(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, clientRunTimeout, d.mcpspec, "client", "--cmd", d.mcpspec+" reference-client --oversize 3900000",
		"--out", out, "--scenario", "tools_call", "--versions", "2025-06-18")
	if r.code != reports.ExitOK {
		t.Errorf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, tail(r.stdout, 20), r.stderr)
	}
	run := assertReports(t, out)
	fi, err := os.Stat(filepath.Join(out, reports.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= 10<<20 {
		t.Errorf("results.json is %d bytes, want under 10 MB", fi.Size())
	}
	if kb, ok := run.Stats["peakRSSKB"]; !ok || kb >= 300<<10 {
		t.Errorf("peak RSS %d KB (recorded: %v), want under 300 MB", kb, ok)
	}
	clipped := false
	for _, res := range run.Results {
		for _, ex := range res.Evidence {
			clipped = clipped || strings.HasSuffix(ex.Body, "more bytes]")
		}
	}
	if !clipped {
		t.Error("no evidence body was clipped: did the client send its 3.9 MB message?")
	}
	assertNoLeftovers(t, d)
}
