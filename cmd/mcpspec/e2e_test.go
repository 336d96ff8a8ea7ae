package main

// End-to-end plumbing shared by cli_test.go and robustness_test.go: TestMain builds mcpspec and
// the misbehaving fixture once, and the helpers run them as real processes and inspect what they
// leave behind (exit code, output, report files, the process table).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

const (
	// buildTimeout bounds `go build` of both binaries on a cold build cache.
	buildTimeout = 3 * time.Minute
	// pipeGrace bounds how long a finished or killed run's output pipes may stay open, should a
	// process it started still hold them.
	pipeGrace = 5 * time.Second
	// leftoverDeadline bounds how long a process killed at the end of a run may take to vanish
	// from /proc once mcpspec has exited (SIGKILL is delivered asynchronously).
	leftoverDeadline = 3 * time.Second
	// leftoverPoll is how often /proc is read while waiting: nothing signals another process's end.
	leftoverPoll = 20 * time.Millisecond
)

// bins are the binaries TestMain builds.
var bins struct {
	dir       string // the temp dir holding them
	mcpspec   string
	reference string // mcpspec-reference, beside mcpspec as make build leaves it
	misbehave string
}

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	// Run in GitHub Actions, every run these tests start would annotate the job and append to its
	// summary (--github is on with GITHUB_ACTIONS=true); the tests of --github set them themselves.
	for _, name := range []string{"GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"} {
		if err := os.Unsetenv(name); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
	}
	dir, err := os.MkdirTemp("", "mcpspec-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bins.dir = dir
	bins.mcpspec = filepath.Join(dir, "mcpspec")
	bins.misbehave = filepath.Join(dir, "misbehave")
	bins.reference = filepath.Join(dir, referenceBinary)
	if err := buildAll(map[string]string{bins.mcpspec: ".", bins.reference: "../mcpspec-reference", bins.misbehave: "../../fixtures/misbehaving"}); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return m.Run()
}

// buildAll builds each package into its output path, concurrently.
func buildAll(outToPkg map[string]string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, len(outToPkg))
	for out, pkg := range outToPkg {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b, err := exec.CommandContext(ctx, "go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
				errs <- fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// procRun is what one run of a binary produced.
type procRun struct {
	code    int
	stdout  string
	stderr  string
	elapsed time.Duration
}

// runBinary runs bin with args in its own process group and waits at most limit; past it the group
// is killed and the test fails.
func runBinary(t *testing.T, limit time.Duration, bin string, args ...string) procRun {
	t.Helper()
	return runBinaryEnv(t, limit, nil, bin, args...)
}

// runBinaryEnv is runBinary with env ("K=V") added to the environment.
func runBinaryEnv(t *testing.T, limit time.Duration, env []string, bin string, args ...string) procRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = pipeGrace
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := procRun{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%s %s did not end within %s; its process group was killed\nstdout:\n%s\nstderr:\n%s",
			bin, strings.Join(args, " "), limit, tail(r.stdout, 40), tail(r.stderr, 40))
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run %s: %v", bin, err)
	}
	r.code = cmd.ProcessState.ExitCode()
	return r
}

// runDir is a private directory for one run, holding hard links of the binaries it launches: a
// process whose command line contains marker belongs to this run and no other, even with runs in
// parallel. Hard links, not symlinks: a process re-executing itself (os.Executable) keeps the path.
type runDir struct {
	marker    string // the directory, with a trailing slash
	mcpspec   string
	misbehave string
}

func newRunDir(t *testing.T) runDir {
	t.Helper()
	dir, err := os.MkdirTemp(bins.dir, "run-")
	if err != nil {
		t.Fatalf("run dir: %v", err)
	}
	d := runDir{marker: dir + string(filepath.Separator), mcpspec: filepath.Join(dir, "mcpspec"), misbehave: filepath.Join(dir, "misbehave")}
	// The runs of the bundled reference start mcpspec-reference over stdio (stdioReferenceArgv).
	links := [][2]string{{bins.mcpspec, d.mcpspec}, {bins.reference, filepath.Join(dir, referenceBinary)}, {bins.misbehave, d.misbehave}}
	for _, link := range links {
		if err := os.Link(link[0], link[1]); err != nil {
			t.Fatalf("link %s: %v", link[1], err)
		}
	}
	// Whatever the test found, nothing it started outlives it.
	t.Cleanup(func() { killAll(t, processesMatching(d.marker)) })
	return d
}

// runBlockedEnv, set to 1, runs the tests marked blocked by a known bug: the way to see whether a
// fix has landed.
const runBlockedEnv = "MCPSPEC_E2E_RUN_BLOCKED"

// blocked skips the test with the bug that keeps it from passing, unless runBlockedEnv is set.
func blocked(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(runBlockedEnv) != "1" {
		t.Skip("blocked by: " + why)
	}
}

// proc is a live process.
type proc struct {
	pid     int
	cmdline string
}

func (p proc) String() string { return fmt.Sprintf("pid %d: %s", p.pid, p.cmdline) }

// processesMatching lists the live processes whose command line contains marker. Zombies have an
// empty command line and do not count: they are dead, only not yet reaped.
func processesMatching(marker string) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // it ended while we looked
		}
		cmdline := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		if strings.Contains(cmdline, marker) {
			out = append(out, proc{pid: pid, cmdline: cmdline})
		}
	}
	return out
}

// leftovers waits, at most leftoverDeadline, for every process of the run to vanish, and returns
// those still alive then.
func leftovers(marker string) []proc {
	deadline := time.NewTimer(leftoverDeadline)
	defer deadline.Stop()
	tick := time.NewTicker(leftoverPoll)
	defer tick.Stop()
	for {
		live := processesMatching(marker)
		if len(live) == 0 {
			return nil
		}
		select {
		case <-deadline.C:
			return live
		case <-tick.C:
		}
	}
}

// killAll SIGKILLs the given processes, one by one by pid.
func killAll(t *testing.T, ps []proc) {
	for _, p := range ps {
		if err := syscall.Kill(p.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Logf("kill leftover %s: %v", p, err)
		}
	}
}

// assertNoLeftovers fails when a process of the run is still alive after mcpspec exited.
func assertNoLeftovers(t *testing.T, d runDir) {
	t.Helper()
	if live := leftovers(d.marker); len(live) > 0 {
		t.Errorf("%d process(es) of the run still alive %s after mcpspec exited:\n%s", len(live), leftoverDeadline, joinLines(live))
	}
}

// reportFiles are the files every run writes into --out, whatever happened.
var reportFiles = []string{reports.JUnitFile, reports.ResultsFile, reports.SummaryFile, reports.HTMLFile}

// assertReports checks the four report files exist and are not empty, and returns results.json.
func assertReports(t *testing.T, out string) *reports.Run {
	t.Helper()
	for _, name := range reportFiles {
		fi, err := os.Stat(filepath.Join(out, name))
		switch {
		case err != nil:
			t.Errorf("report %s: %v", name, err)
		case fi.Size() == 0:
			t.Errorf("report %s is empty", name)
		}
	}
	run, err := reports.ReadResults(filepath.Join(out, reports.ResultsFile))
	if err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return run
}

// loopbackPort returns a loopback port that was free a moment ago.
// Ports for the servers these tests launch come from below the kernel's ephemeral range (32768
// and up on Linux), one after another from a random start, and apart from the self-test's
// (20000 and up): a port the kernel handed out and took back could go to an outgoing connection
// before the server launched on it binds it.
const (
	testPortLow  = 10000
	testPortSpan = 10000
)

var nextTestPort atomic.Int64

func init() { nextTestPort.Store(rand.Int64N(testPortSpan)) }

// loopbackPort returns a 127.0.0.1 port nobody listens on now.
func loopbackPort(t *testing.T) int {
	t.Helper()
	for range testPortSpan {
		port := testPortLow + int(nextTestPort.Add(1)%testPortSpan)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // taken: the next one
		}
		if err := ln.Close(); err != nil {
			t.Fatalf("release port %d: %v", port, err)
		}
		return port
	}
	t.Fatalf("no free port in %d-%d", testPortLow, testPortLow+testPortSpan)
	return 0
}

// statuses counts results per status.
func statuses(run *reports.Run) map[reports.Status]int {
	m := map[reports.Status]int{}
	for _, r := range run.Results {
		m[r.Status]++
	}
	return m
}

// resultsOf returns the results of requirement id.
func resultsOf(run *reports.Run, id string) []reports.Result {
	var out []reports.Result
	for _, r := range run.Results {
		if r.ID == id {
			out = append(out, r)
		}
	}
	return out
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func joinLines[T fmt.Stringer](xs []T) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString("  " + x.String() + "\n")
	}
	return b.String()
}
