package main

// The isolation self-test: a check's verdict must not depend on which other checks run beside it,
// nor on --parallel or --sessions. Against the bundled reference, launched by each run and also
// one long-running server per lane that every run of that lane reaches with --url and --sse, each
// area run alone and a sample of single checks run alone must give the verdicts of the full run.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/conform"
)

const (
	// isolationRunTimeout bounds one run of the isolation test, the full suite at --parallel 1
	// on a loaded machine included.
	isolationRunTimeout = 4 * time.Minute
	// isolationServerStartup bounds a long-running reference server's start.
	isolationServerStartup = 20 * time.Second
	// isolationLaunchedWorkers is how many runs that launch their own servers go at once.
	isolationLaunchedWorkers = 3
	// isolationLanes is how many long-running reference servers there are: runs on one lane go
	// one after another, so that no two runs talk to one server at once (the stateless revision's
	// lists are server-wide, and a run does not own a server another run is changing).
	isolationLanes = 2
	// isolationSampleSize is how many single checks, drawn at random, run alone in each mode.
	isolationSampleSize = 4
	// isolationSeedEnv replays a sample: the test logs the seed it drew.
	isolationSeedEnv = "MCPSPEC_ISOLATION_SEED"
)

// isolationPicked are single checks that always run alone beside the random sample: those whose
// verdict once depended on the checks beside them, or that reach the run's shared state (a
// Ready gate that sends, an observation, a value computed once per run, a check run once).
var isolationPicked = []string{"BATCH-HTTP-2503", "HTTP-DISCONNECT-NOT-CANCEL", "JRPC-ID-ECHO", "TOOL-INPUT-VALIDATION", "LIFE-VERSION-ECHO"}

// referenceToolFlags name the reference server's tools, which a run that reaches it by URL is
// not given by default.
var referenceToolFlags = []string{"--slow-tool", referenceSlowTool, "--slow-tool-args", referenceSlowToolArgs,
	"--list-changed-tool", referenceListTool, "--input-tool", referenceInputTool, "--input-tool-args", referenceInputToolArgs,
	"--log-tool", referenceLogTool}

// isolationPart is one run of a part of the suite, compared with its mode's full run.
type isolationPart struct {
	name string   // how the report names it
	args []string // selection and scheduling flags
}

func TestIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite many times")
	}
	// Not parallel: it runs before this package's parallel tests, whose bounded waits (a flood
	// read within the request timeout, …) it would otherwise crowd on two cores.
	start := time.Now()
	d := newRunDir(t)
	areas, singles := isolationSelection(t)

	// Launched servers: every area alone at --parallel 1, the sample at the default.
	var launched []isolationPart
	for _, a := range areas {
		launched = append(launched, isolationPart{"--focus '^" + a + "-' --parallel 1", []string{"--focus", "^" + a + "-", "--parallel", "1"}})
	}
	for _, id := range singles {
		launched = append(launched, isolationPart{"--focus '^" + id + " '", []string{"--focus", "^" + id + " "}})
	}
	// Checks of several areas side by side at one revision: an unanchored focus, as people type
	// it, put a Ready gate's request inside a shared check's batch (BATCH-HTTP-2503 beside
	// HTTP-DISCONNECT-NOT-CANCEL at 2025-03-26 failed on every try while the full run passed).
	for _, rev := range harness.Revisions {
		launched = append(launched, isolationPart{"--focus 'HTTP-' --versions " + rev, []string{"--focus", "HTTP-", "--versions", rev}})
	}
	// Long-running servers: every area alone at the default parallelism with one shared session
	// per revision, the sample at --parallel 1.
	var reached []isolationPart
	for _, a := range areas {
		reached = append(reached, isolationPart{"--focus '^" + a + "-' --sessions 1 (long-running server)", []string{"--focus", "^" + a + "-", "--sessions", "1"}})
	}
	for _, rev := range harness.Revisions {
		reached = append(reached, isolationPart{"--versions " + rev + " (long-running server)", []string{"--versions", rev}})
	}
	for _, id := range singles {
		reached = append(reached, isolationPart{"--focus '^" + id + " ' --parallel 1 (long-running server)", []string{"--focus", "^" + id + " ", "--parallel", "1"}})
	}

	var lanes [][]string    // each lane's target flags
	servers := newRunDir(t) // apart from d, whose processes must all end with their runs
	for range isolationLanes {
		addr := startLongRunningReference(t, servers)
		lanes = append(lanes, append([]string{"--url", "http://" + addr + "/mcp", "--sse", "http://" + addr + "/sse"}, referenceToolFlags...))
	}

	var mu sync.Mutex
	var diffs []reports.IsolationDiff
	record := func(ds []reports.IsolationDiff) {
		mu.Lock()
		diffs = append(diffs, ds...)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		full := isolationRun(t, d, nil)
		runParts(launched, isolationLaunchedWorkers, func(_ int, p isolationPart) {
			record(reports.CompareIsolated(p.name, full, isolationRun(t, d, p.args)))
		})
	}()
	go func() {
		defer wg.Done()
		// The full run goes first on lane 0; every later run finds the server as runs left it.
		full := isolationRun(t, d, lanes[0])
		runParts(reached, len(lanes), func(lane int, p isolationPart) {
			record(reports.CompareIsolated(p.name, full, isolationRun(t, d, append(slices.Clone(lanes[lane]), p.args...))))
		})
	}()
	wg.Wait()
	t.Logf("%d runs of parts of the suite (%d areas and %d single checks alone in two modes, each revision alone), in %s", len(launched)+len(reached), len(areas), len(singles), time.Since(start).Round(time.Second))
	if len(diffs) > 0 {
		t.Errorf("%d verdicts differ from the full run's (check, revision, transport: full run vs alone):\n%s", len(diffs), joinLines(diffs))
	}
	assertNoLeftovers(t, d)
}

// isolationSelection returns the prefixes of the implemented checks' IDs (as --focus selects
// them; an area holds one or more, CANCEL- and CANCEL26- in area cancel) and the single checks
// to run alone.
func isolationSelection(t *testing.T) (areas, singles []string) {
	checks, err := conform.Checks()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	areaOf := map[string]string{}
	for _, c := range checks {
		prefix, _, _ := strings.Cut(c.ID, "-")
		if a, seen := areaOf[prefix]; seen && a != c.Area() {
			t.Fatalf("%s: ID prefix %s spans areas %q and %q, so --focus '^%s-' selects no one area", c.ID, prefix, a, c.Area(), prefix)
		}
		areaOf[prefix] = c.Area()
		if !slices.Contains(areas, prefix) {
			areas = append(areas, prefix)
		}
		ids = append(ids, c.ID)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(isolationSeedEnv); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", isolationSeedEnv, s, err)
		}
	}
	t.Logf("single checks drawn with %s=%d", isolationSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, id := range isolationPicked {
		if !slices.Contains(ids, id) {
			t.Fatalf("isolationPicked names %s, which is not implemented", id)
		}
	}
	singles = slices.Clone(isolationPicked)
	for len(singles) < len(isolationPicked)+isolationSampleSize {
		if id := ids[rng.IntN(len(ids))]; !slices.Contains(singles, id) {
			singles = append(singles, id)
		}
	}
	return areas, singles
}

// runParts runs each part with workers goroutines; worker i is given its number (its lane).
func runParts(parts []isolationPart, workers int, run func(worker int, p isolationPart)) {
	next := make(chan isolationPart, len(parts))
	for _, p := range parts {
		next <- p
	}
	close(next)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				run(w, p)
			}
		}()
	}
	wg.Wait()
}

// isolationRun runs mcpspec with args and returns its results. A run that could not judge the
// server (exit 2 or 3, no results) fails the test, as it compares nothing. Safe to call from
// any goroutine: it never ends the test itself.
func isolationRun(t *testing.T, d runDir, args []string) *reports.Run {
	out, err := os.MkdirTemp(bins.dir, "isolation-")
	if err != nil {
		t.Errorf("report dir: %v", err)
		return &reports.Run{}
	}
	defer os.RemoveAll(out)
	args = append([]string{"run", "--no-color", "--out", out}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), isolationRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.mcpspec, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = pipeGrace
	output, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Errorf("mcpspec %s did not end within %s; its process group was killed\n%s", strings.Join(args, " "), isolationRunTimeout, tail(string(output), 20))
		return &reports.Run{}
	case err != nil && !errors.As(err, &exit):
		t.Errorf("mcpspec %s: %v", strings.Join(args, " "), err)
		return &reports.Run{}
	}
	run, err := reports.ReadResults(filepath.Join(out, reports.ResultsFile))
	if code := cmd.ProcessState.ExitCode(); err != nil || code == reports.ExitHarness || code == reports.ExitUsage {
		t.Errorf("mcpspec %s: exit %d, %v\n%s", strings.Join(args, " "), code, err, tail(string(output), 20))
		return &reports.Run{}
	}
	return run
}

// startLongRunningReference starts `mcpspec reference --http` on a free port for the rest of the
// test and returns its address once it says it serves.
func startLongRunningReference(t *testing.T, d runDir) string {
	t.Helper()
	addr, _ := startLoggingReference(t, d)
	return addr
}

// startLoggingReference is startLongRunningReference that also returns what the reference logs
// on its stderr after it serves (each session it initializes and deletes, among others).
func startLoggingReference(t *testing.T, d runDir) (string, *syncBuf) {
	t.Helper()
	logged := &syncBuf{}
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	cmd := exec.Command(d.mcpspec, "reference", "--http", addr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatalf("reference stderr: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the reference: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	serving := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "serving http://") {
				serving <- nil
				_, _ = io.Copy(logged, stderr) // it must never block on a full pipe
				return
			}
		}
		serving <- fmt.Errorf("its stderr ended before it served (%v)", sc.Err())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), isolationServerStartup)
	defer cancel()
	select {
	case err := <-serving:
		if err != nil {
			t.Fatalf("mcpspec reference --http %s: %v", addr, err)
		}
	case <-ctx.Done():
		t.Fatalf("mcpspec reference --http %s did not serve within %s", addr, isolationServerStartup)
	}
	return addr, logged
}
