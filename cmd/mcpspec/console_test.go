package main

// What a person sees of a run: on a terminal a progress line, in a CI log nothing per check;
// then the summary, the revisions the server does not serve as one line each, findings first.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mcpspec/mcpspec/reports"
)

// consoleArgs run three checks at 2025-11-25 and two of them at 2026-07-28 (PING-RESPOND has no
// 2026-07-28 form) against a reference server that serves only 2026-07-28, with a fault that
// makes JRPC-ERROR-MESSAGE warn there: 2025-11-25 is not served.
func consoleArgs(d runDir, out string) []string {
	return []string{"run", "--stdio", d.mcpspec + " reference --era stateless --fault JRPC-ERROR-MESSAGE",
		"--versions", "2025-11-25,2026-07-28", "--focus", "^(JRPC-ERROR-MESSAGE|PING-RESPOND|JRPC-METHOD-NOT-FOUND) ",
		"--strict", "--out", out}
}

func TestCLIConsoleInCILogs(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, consoleArgs(d, out)...)
	if r.code != reports.ExitFailures {
		t.Errorf("exit code %d, want %d (a warning under --strict)\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitFailures, r.stdout, r.stderr)
	}
	// Nothing per check: no progress line, none of Ginkgo's marks or failure blocks.
	for _, noise := range []string{"\r", "•", "[FAILED]", "Ran ", "Running Suite", "specs"} {
		if strings.Contains(r.stdout, noise) {
			t.Errorf("stdout holds %q, which belongs to no CI log:\n%s", noise, r.stdout)
		}
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^mcpspec: FAIL — 1 warning \(strict\)$`),
		regexp.MustCompile(`^  1 warn, 3 na, 1 pass \(total 5\)$`),
		regexp.MustCompile(`^  not served 2025-11-25 stdio: 3 checks na; it answered initialize without a result: `),
		regexp.MustCompile(`^warn: 1 requirement$`),
		regexp.MustCompile(`^  JRPC-ERROR-MESSAGE \[SHOULD\] every error message seen is one short sentence \(stdio: 2026-07-28\): error message is not one short sentence`),
		regexp.MustCompile(`^reports: .*report\.html \(open it in a browser\), .*summary\.md, .*results\.json, .*junit\.xml$`),
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), r.stdout)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d = %q, want it to match %s", i+1, lines[i], re)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, reports.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| 2025-11-25 | stdio | 3 | initialize without a result") {
		t.Errorf("summary.md lacks the not-served line:\n%s", md)
	}
	assertNoLeftovers(t, d)
}

func TestCLIProgressLineOnATerminal(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	master, slave := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), referenceRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.mcpspec, append(consoleArgs(d, out), "--no-color")...)
	cmd.Stdout = slave
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "TERM=xterm")
	read := make(chan []byte, 1)
	go func() {
		// The master reads until the last holder of the slave closes it (EIO on Linux).
		b, _ := io.ReadAll(master)
		read <- b
	}()
	err := cmd.Run()
	slave.Close()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	screen := strings.ReplaceAll(string(<-read), "\r\n", "\n") // the terminal's own newline translation
	// The line is redrawn in place and ends counting every check, with the warning as a failure
	// (--strict); it is erased before the summary.
	last := regexp.MustCompile("\r\x1b\\[Kmcpspec: (\\d+)/(\\d+) checks, ([^\r\n]*?) so far").FindAllStringSubmatch(screen, -1)
	if len(last) == 0 {
		t.Fatalf("no progress line on the terminal:\n%q", screen)
	}
	final := last[len(last)-1]
	if final[1] != "5" || final[2] != "5" || final[3] != "1 failure" {
		t.Errorf("the last progress line says %q, want 5/5 checks, 1 failure so far", final[0])
	}
	if i, j := strings.LastIndex(screen, final[0]), strings.Index(screen, "\r\x1b[Kmcpspec: FAIL"); j < i {
		t.Errorf("the progress line is not erased before the summary:\n%q", screen)
	}
	if strings.Contains(screen, "•") {
		t.Errorf("Ginkgo's marks reached the terminal:\n%q", screen)
	}
	assertNoLeftovers(t, d)
}

// openPTY opens a pseudo-terminal pair: the test reads the master, the run writes to the slave
// as to a person's terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("number of the pseudo-terminal: %v", e)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pseudo-terminal's slave: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

func TestCLIGitHubAnnotationsAndJobSummary(t *testing.T) {
	t.Parallel()
	annotation := regexp.MustCompile(`(?m)^::(error|warning) title=([^:]+)::(.*)$`)
	cases := []struct {
		name  string
		flags []string
		env   []string
		want  []string // "level ID"
	}{
		{"--github", []string{"--github"}, nil, []string{"error JRPC-ERROR-MESSAGE"}}, // an error: --strict
		{"GITHUB_ACTIONS=true", nil, []string{"GITHUB_ACTIONS=true"}, []string{"error JRPC-ERROR-MESSAGE"}},
		{"--github=false in GitHub Actions", []string{"--github=false"}, []string{"GITHUB_ACTIONS=true"}, nil},
		{"without", nil, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			out := t.TempDir()
			summary := filepath.Join(t.TempDir(), "step-summary.md")
			env := append([]string{"GITHUB_STEP_SUMMARY=" + summary}, c.env...)
			r := runBinaryEnv(t, referenceRunTimeout, env, d.mcpspec, append(consoleArgs(d, out), c.flags...)...)
			if r.code != reports.ExitFailures {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitFailures, r.stdout, r.stderr)
			}
			var got []string
			for _, m := range annotation.FindAllStringSubmatch(r.stdout, -1) {
				got = append(got, m[1]+" "+m[2])
				if !strings.HasPrefix(m[3], m[2]+" [SHOULD] 2026-07-28 stdio (warn): error message is not one short sentence") {
					t.Errorf("annotation message %q", m[3])
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("annotations %q, want %q\nstdout:\n%s", got, c.want, r.stdout)
			}
			job, err := os.ReadFile(summary)
			switch {
			case c.want == nil && !errors.Is(err, os.ErrNotExist):
				t.Errorf("the job summary was written without --github (%v):\n%s", err, job)
			case c.want != nil:
				md, _ := os.ReadFile(filepath.Join(out, reports.SummaryFile))
				if err != nil || len(md) == 0 || string(job) != "\n"+string(md) {
					t.Errorf("the job summary is not summary.md (%v):\n%s", err, job)
				}
			}
			assertNoLeftovers(t, d)
		})
	}
}

// plainEnv is the environment of a run whose output goes to a pipe with no colour setting: the
// test's own NO_COLOR and CLICOLOR_FORCE are left out.
func plainEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "CLICOLOR_FORCE=") {
			env = append(env, kv)
		}
	}
	return env
}

// runPlain runs the binary with its output to pipes and no colour setting.
func runPlain(t *testing.T, env []string, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), referenceRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Env = &out, &errb, env
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v\nstderr:\n%s", args, err, errb.String())
	}
	return code, out.String(), errb.String()
}

// A failing run lists each failed requirement once, whatever the revisions it failed at, and
// output to a pipe carries no escape sequence unless CLICOLOR_FORCE asks for colour.
func TestCLIOneLinePerFailedRequirementNoColourInPipes(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	args := []string{"run", "--stdio", d.mcpspec + " reference --fault JRPC-METHOD-NOT-FOUND,JRPC-RPC-PREFIX",
		"--versions", "2025-06-18,2025-11-25", "--focus", "^(JRPC-METHOD-NOT-FOUND|JRPC-RPC-PREFIX|PING-RESPOND) ", "--out", out}
	code, stdout, stderr := runPlain(t, plainEnv(), d.mcpspec, args...)
	if code != reports.ExitFailures {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, reports.ExitFailures, stdout, stderr)
	}
	if strings.ContainsRune(stdout+stderr, '\x1b') {
		t.Errorf("output to a pipe holds an escape sequence:\n%q", stdout)
	}
	if !strings.Contains(stdout, "\nfail: 2 requirements\n") {
		t.Errorf("no count of failed requirements:\n%s", stdout)
	}
	for _, id := range []string{"JRPC-METHOD-NOT-FOUND", "JRPC-RPC-PREFIX"} {
		re := regexp.MustCompile(`(?m)^  ` + id + ` \[MUST\] .*\(stdio: every revision\): `)
		if n := len(re.FindAllString(stdout, -1)); n != 1 || strings.Count(stdout, "\n  "+id+" ") != 1 {
			t.Errorf("%s: %d lines naming every revision, want its one line:\n%s", id, n, stdout)
		}
	}
	_, forced, _ := runPlain(t, append(plainEnv(), "CLICOLOR_FORCE=1"), d.mcpspec, args...)
	if !strings.Contains(forced, "\x1b[31m") {
		t.Errorf("CLICOLOR_FORCE=1 gave no colour:\n%q", forced)
	}
	_, none, _ := runPlain(t, append(plainEnv(), "CLICOLOR_FORCE=1", "NO_COLOR=1"), d.mcpspec, args...)
	if strings.ContainsRune(none, '\x1b') {
		t.Errorf("NO_COLOR=1 did not win over CLICOLOR_FORCE:\n%q", none)
	}
	assertNoLeftovers(t, d)
}

// A server command that does not exist is one cause on a short console; results.json still
// holds every check.
func TestCLIMissingCommandIsOneCause(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	code, stdout, stderr := runPlain(t, plainEnv(), d.mcpspec, "run", "--stdio", "mcpspec-no-such-command --flag", "--out", out)
	if code != reports.ExitHarness {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, reports.ExitHarness, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout+stderr), "\n")
	if len(lines) > 10 {
		t.Errorf("%d lines, want at most 10:\n%s%s", len(lines), stdout, stderr)
	}
	if !strings.Contains(stdout, "cannot start the server mcpspec-no-such-command") || !strings.Contains(stdout, "executable file not found") {
		t.Errorf("the cause is not named:\n%s", stdout)
	}
	if strings.ContainsRune(stdout, '\x1b') {
		t.Errorf("output to a pipe holds an escape sequence:\n%q", stdout)
	}
	run, err := reports.ReadResults(filepath.Join(out, reports.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) < 100 || run.Summary[reports.Error] != len(run.Results) {
		t.Errorf("results.json holds %d results, %d of them errors; want every check, in error", len(run.Results), run.Summary[reports.Error])
	}
}

// A client command that does not exist is short too: its harness error once, its cause once.
func TestCLIClientMissingCommandIsShort(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	code, stdout, stderr := runPlain(t, plainEnv(), d.mcpspec, "client", "--cmd", "mcpspec-no-such-client", "--out", out)
	if code != reports.ExitHarness {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, reports.ExitHarness, stdout, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stdout+stderr), "\n"); len(lines) > 10 {
		t.Errorf("%d lines, want at most 10:\n%s%s", len(lines), stdout, stderr)
	}
	if strings.Count(stdout, "executable file not found") != 2 || strings.ContainsRune(stdout, '\x1b') {
		t.Errorf("want the cause once as a harness error and once as the checks' cause, in plain text:\n%s", stdout)
	}
}
