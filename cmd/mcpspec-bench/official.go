package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

// officialRow names the side-by-side row of issue 28: mcpspec and the official conformance suite
// against one running server-everything over Streamable HTTP, mcpspec's median wall time at most
// officialRatio times the official suite's.
const (
	officialRow   = "everything http vs official suite"
	officialRatio = 0.8
	// suiteRunBound bounds one run of either suite: a hang ends the bench instead of stalling it.
	suiteRunBound = 5 * time.Minute
)

// everythingSlowTool is how every everything row (and mcpspec here) names server-everything's slow tool.
var everythingSlowTool = []string{"--slow-tool", "trigger-long-running-operation", "--slow-tool-args", `{"duration":1,"steps":5}`}

// officialSetup is where server-everything and the official runner are installed.
type officialSetup struct {
	everything, preload  string // server-everything's dist/index.js; node --require module binding it to loopback
	runner, importModule string // the official suite's dist/index.js; node --import module it needs ("" for none)
}

// suiteRun is one timed run of a suite against the running server.
type suiteRun struct {
	wall, cpu time.Duration
	serverCPU time.Duration // what the server spent meanwhile (-1 where it cannot be read)
	checks    int
	exit      int
}

// measureOfficial starts server-everything once over Streamable HTTP and times the official
// suite's `server --url` and mcpspec's `run --url` against it, runs each, alternated (ABBA, so
// a drift in the machine's load weighs on both alike), and prints both medians and their ratio.
func measureOfficial(bin string, in officialSetup, runs int, w io.Writer) error {
	bin, err := filepath.Abs(bin) // each suite runs in a directory of its own
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	argv := []string{"env", fmt.Sprintf("PORT=%d", port), "node"}
	if in.preload != "" {
		argv = append(argv, "--require", in.preload)
	}
	stop, pid, err := start(append(argv, in.everything, "streamableHttp")...)
	if err != nil {
		return fmt.Errorf("starting server-everything: %w", err)
	}
	defer stop()
	if err := awaitListening(fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		return fmt.Errorf("server-everything: %w", err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	var official, ours []suiteRun
	for i := range runs {
		order := []bool{true, false} // official first
		if i%2 == 1 {
			order = []bool{false, true}
		}
		for _, isOfficial := range order {
			before := processCPU(pid)
			if isOfficial {
				r, err := runOfficial(in, url)
				if err != nil {
					return fmt.Errorf("official suite: %w", err)
				}
				r.serverCPU = cpuSince(pid, before)
				official = append(official, r)
			} else {
				r, err := runMcpspecURL(bin, url)
				if err != nil {
					return fmt.Errorf("mcpspec: %w", err)
				}
				r.serverCPU = cpuSince(pid, before)
				ours = append(ours, r)
			}
		}
	}
	fmt.Fprintf(w, "\n%s %s (one server-everything over Streamable HTTP, runs alternated):\n", officialRow, runnerVersion(in.runner))
	fmt.Fprintln(w, "suite\truns\twall median\twall min–max\tCPU median\tserver CPU median\tchecks\texit")
	om, _ := suiteRow(w, "official", official)
	mm, ms := suiteRow(w, "mcpspec", ours)
	ratio := mm.Seconds() / om.Seconds()
	fmt.Fprintf(w, "wall mcpspec/official: %.2f (target ≤ %.1f: %s)\n", ratio, officialRatio, metOrMissed(ratio <= officialRatio))
	if ms >= 0 {
		// server-everything answers on one thread: what mcpspec's requests cost it is a floor
		// of mcpspec's wall time however the run is scheduled.
		target := time.Duration(officialRatio * float64(om))
		fmt.Fprintf(w, "floor: server-everything (one thread) spent %.2f s of CPU on mcpspec's requests, %.2f× the target wall of %.2f s\n", ms.Seconds(), ms.Seconds()/target.Seconds(), target.Seconds())
	}
	fmt.Fprintln(w, "checks: the official suite's passed+failed checks; mcpspec's results (--url alone: the checks that need to launch the server are untestable).")
	return nil
}

// suiteRow prints one suite's runs and returns their median wall time and server CPU (negative
// where it could not be read).
func suiteRow(w io.Writer, name string, rs []suiteRun) (wall, serverCPU time.Duration) {
	walls := make([]time.Duration, len(rs))
	cpus := make([]time.Duration, len(rs))
	servers := make([]time.Duration, len(rs))
	for i, r := range rs {
		walls[i], cpus[i], servers[i] = r.wall, r.cpu, r.serverCPU
	}
	med := median(slices.Clone(walls))
	lo, hi := minMax(walls)
	server := "n/a"
	serverMed := median(servers)
	if serverMed >= 0 {
		server = fmt.Sprintf("%.1f s", serverMed.Seconds())
	}
	last := rs[len(rs)-1]
	fmt.Fprintf(w, "%s\t%d\t%.2f s\t%.2f–%.2f s\t%.1f s\t%s\t%d\t%d\n", name, len(rs), med.Seconds(), lo.Seconds(), hi.Seconds(), median(cpus).Seconds(), server, last.checks, last.exit)
	return med, serverMed
}

func minMax(ds []time.Duration) (lo, hi time.Duration) {
	lo, hi = ds[0], ds[0]
	for _, d := range ds {
		lo, hi = min(lo, d), max(hi, d)
	}
	return lo, hi
}

// runOfficial runs the official suite's default server scenarios against url, in a directory
// of its own (it writes its results under the working directory).
func runOfficial(in officialSetup, url string) (suiteRun, error) {
	dir, err := os.MkdirTemp("", "mcpspec-bench-official-")
	if err != nil {
		return suiteRun{}, err
	}
	defer os.RemoveAll(dir)
	var argv []string
	if in.importModule != "" {
		argv = append(argv, "--import", in.importModule)
	}
	argv = append(argv, in.runner, "server", "--url", url, "--output-dir", filepath.Join(dir, "results"))
	var stdout bytes.Buffer
	r, err := timed(dir, &stdout, "node", argv...)
	if err != nil {
		return r, err
	}
	if r.checks = officialChecks(stdout.String()); r.checks == 0 {
		return r, fmt.Errorf("no \"Total: N passed, M failed\" line in its output: %s", tail(stdout.Bytes()))
	}
	return r, nil
}

// runMcpspecURL runs mcpspec's default suite against url, with every option the everything rows give.
func runMcpspecURL(bin, url string) (suiteRun, error) {
	out, err := os.MkdirTemp("", "mcpspec-bench-")
	if err != nil {
		return suiteRun{}, err
	}
	defer os.RemoveAll(out)
	args := append([]string{"run", "--out", out, "--no-color", "--url", url}, everythingSlowTool...)
	r, err := timed(out, io.Discard, bin, args...)
	if err != nil {
		return r, err
	}
	run, err := reports.ReadResults(filepath.Join(out, reports.ResultsFile))
	if err != nil {
		return r, err
	}
	r.checks = len(run.Results)
	return r, nil
}

// timed runs name with args in dir, bounded by suiteRunBound; exit 0 (all passed) and 1
// (failures found) are runs, anything else an error carrying its stderr's tail.
func timed(dir string, stdout io.Writer, name string, args ...string) (suiteRun, error) {
	ctx, cancel := context.WithTimeout(context.Background(), suiteRunBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r := suiteRun{wall: time.Since(start)}
	if cmd.ProcessState == nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	r.exit = cmd.ProcessState.ExitCode()
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return r, fmt.Errorf("%s still running after %s: %s", name, suiteRunBound, tail(stderr.Bytes()))
	}
	if r.exit != 0 && r.exit != 1 {
		return r, fmt.Errorf("%s exited %d: %s", name, r.exit, tail(stderr.Bytes()))
	}
	return r, nil
}

// processCPU is the user and system time process pid has spent so far, from Linux's
// /proc/PID/stat (-1 where it cannot be read); clock ticks are taken as USER_HZ, 100 a second.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command name, field 2, is in parentheses and may hold spaces: count from after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, so utime (14) and stime (15) are f[11], f[12]
	if len(f) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(utime+stime) * (time.Second / 100)
}

// cpuSince is the CPU process pid spent since it had spent before (-1 where either is unknown).
func cpuSince(pid int, before time.Duration) time.Duration {
	after := processCPU(pid)
	if before < 0 || after < 0 {
		return -1
	}
	return after - before
}

var officialTotal = regexp.MustCompile(`(?m)^Total: (\d+) passed, (\d+) failed`)

// officialChecks counts the checks the official runner's summary line reports (0 without one).
func officialChecks(out string) int {
	m := officialTotal.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	passed, _ := strconv.Atoi(m[1])
	failed, _ := strconv.Atoi(m[2])
	return passed + failed
}

// runnerVersion is the official package's version, from the package.json above its dist/.
func runnerVersion(runner string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(runner)), "package.json"))
	if err != nil {
		return "(version unknown)"
	}
	var pkg struct{ Version string }
	if json.Unmarshal(b, &pkg) != nil || pkg.Version == "" {
		return "(version unknown)"
	}
	return pkg.Version
}

// tail is the end of a process's output, on one line.
func tail(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}
