package main

// A run interrupted by SIGINT or SIGTERM (Ctrl-C, a CI runner's cancel or timeout) stops its
// servers, writes complete reports with the unfinished checks as interrupted errors, and exits 3.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/mcpspec/mcpspec/reports"
)

const (
	// serverAppearTimeout bounds the wait for the run's first server process to exist.
	serverAppearTimeout = 15 * time.Second
	// interruptExitTimeout bounds how long an interrupted run may take to stop its servers,
	// write its reports and exit.
	interruptExitTimeout = 15 * time.Second
)

func TestCLIInterruptedRunWritesReportsAndExits3(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		sig    syscall.Signal
		server func(d runDir) string // how the server's command line begins
		args   func(d runDir) []string
	}{
		// Over stdio, against servers that never answer initialize: every check waits.
		{"SIGINT", syscall.SIGINT, func(d runDir) string { return d.misbehave + " --mode no-init" }, func(d runDir) []string {
			return []string{"--stdio", d.misbehave + " --mode no-init", "--timeout-startup", "60s"}
		}},
		// Over HTTP, against the reference whose slow tool takes minutes.
		{"SIGTERM", syscall.SIGTERM, func(d runDir) string { return d.mcpspec + " reference --http" }, func(d runDir) []string {
			addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
			return []string{"--http-cmd", d.mcpspec + " reference --http " + addr, "--url", "http://" + addr + "/mcp",
				"--slow-tool", "slow", "--slow-tool-args", `{"steps":2000,"stepMs":50}`, "--timeout-request", "5m"}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			out := t.TempDir()
			args := append([]string{"run", "--out", out, "--no-color"}, c.args(d)...)
			cmd := exec.Command(d.mcpspec, args...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.WaitDelay = pipeGrace
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

			if err := awaitProcess(d.marker, c.server(d), exited); err != nil {
				t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, tail(stdout.String(), 20), stderr.String())
			}
			// The signal goes to mcpspec alone, as `kill PID` would: stopping the servers is its job.
			interruptAndAwaitExit(t, cmd, exited, c.sig, &stdout, &stderr)
			assertNoLeftovers(t, d)

			run := assertReports(t, out)
			if _, err := junit.IngestFile(filepath.Join(out, reports.JUnitFile)); err != nil {
				t.Errorf("junit.xml does not parse: %v", err)
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
			if !strings.Contains(strings.Join(run.Errors, "\n"), "interrupted (SIG") {
				t.Errorf("the run's errors %q do not record the interruption", run.Errors)
			}
			if !strings.Contains(stdout.String(), "reports: ") {
				t.Errorf("no summary on stdout:\n%s", tail(stdout.String(), 20))
			}
		})
	}
}

// awaitProcess waits until a process of the run whose command line begins with what is alive, at
// most serverAppearTimeout; it fails early when mcpspec exits first.
func awaitProcess(marker, what string, exited <-chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), serverAppearTimeout)
	defer cancel()
	tick := time.NewTicker(leftoverPoll)
	defer tick.Stop()
	for {
		for _, p := range processesMatching(marker) {
			if strings.HasPrefix(p.cmdline, what) {
				return nil
			}
		}
		select {
		case err := <-exited:
			return fmt.Errorf("mcpspec exited (%v) before a %q server started", err, what)
		case <-ctx.Done():
			return fmt.Errorf("no %q server within %s", what, serverAppearTimeout)
		case <-tick.C:
		}
	}
}

// TestCLIUnwritableReportsExit3: a run whose reports cannot be written is a harness error, even
// when every check passed; the summary is still printed and stderr says why.
func TestCLIUnwritableReportsExit3(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(file, "reports")
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--focus", "^PING-RESPOND", "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit code %d, want %d\nstderr:\n%s", r.code, reports.ExitHarness, r.stderr)
	}
	if !strings.Contains(r.stderr, "writing reports to "+out) || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("stderr does not say why the reports are missing:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "pass ") || strings.Contains(r.stdout, "reports: ") {
		t.Errorf("want the summary and no claim of reports on stdout:\n%s", tail(r.stdout, 10))
	}
	assertNoLeftovers(t, d)
}

// interruptAndAwaitExit sends sig to mcpspec alone, as `kill PID` would (stopping what it
// launched is its job), and requires it to exit with ExitHarness within interruptExitTimeout.
func interruptAndAwaitExit(t *testing.T, cmd *exec.Cmd, exited <-chan error, sig syscall.Signal, stdout, stderr *bytes.Buffer) {
	t.Helper()
	if err := syscall.Kill(cmd.Process.Pid, sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
	case <-time.After(interruptExitTimeout):
		t.Fatalf("%s did not exit within %s of %s\nstdout:\n%s", filepath.Base(cmd.Args[0])+" "+cmd.Args[1], interruptExitTimeout, sig, tail(stdout.String(), 20))
	}
	if code := cmd.ProcessState.ExitCode(); code != reports.ExitHarness {
		t.Errorf("exit code %d, want %d\nstderr:\n%s", code, reports.ExitHarness, stderr.String())
	}
}
