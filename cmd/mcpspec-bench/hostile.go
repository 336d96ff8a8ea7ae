package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// hostileCase is one hostile server and the memory mcpspec must stay under against it.
type hostileCase struct {
	name   string
	mode   string
	limit  int64         // peak RSS bound, KiB
	stopAt time.Duration // SIGTERM the run after this long; 0: let it finish
	args   []string      // further run flags
}

// hostileCases are issue 26's bounds.
var hostileCases = []hostileCase{
	{name: "15 MB answers", mode: "huge-answers", limit: 1 << 20, args: []string{"--versions", "2025-06-18"}},
	// Every revision one check at a time: a run that lasts, stopped after a minute.
	{name: "endless notifications, 1 min", mode: "endless-notify", limit: 300 << 10, stopAt: time.Minute, args: []string{"--parallel", "1"}},
}

// rssPoll is how often the run's peak RSS is read from /proc while it runs.
const rssPoll = 100 * time.Millisecond

// measureHostile runs mcpspec against each hostile mode and prints its peak RSS
// (VmHWM, read from /proc while it runs) beside the bound.
func measureHostile(bin, misbehave string, w io.Writer) error {
	fmt.Fprintln(w, "hostile server\twall\tmcpspec peak RSS\tbound\texit")
	for _, c := range hostileCases {
		out, err := os.MkdirTemp("", "mcpspec-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(out)
		args := append([]string{"run", "--out", out, "--no-color", "--stdio", misbehave + " --mode " + c.mode}, c.args...)
		cmd := exec.Command(bin, args...)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		var peak int64
		var stop <-chan time.Time
		if c.stopAt > 0 {
			stop = time.After(c.stopAt)
		}
		tick := time.NewTicker(rssPoll)
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-stop:
				_ = cmd.Process.Signal(syscall.SIGTERM)
			case <-tick.C:
				peak = max(peak, vmHWM(cmd.Process.Pid))
			}
		}
		tick.Stop()
		verdict := "ok"
		if peak > c.limit {
			verdict = "OVER"
		}
		fmt.Fprintf(w, "%s\t%.1f s\t%.1f MB\t< %d MB %s\t%d\n", c.name, time.Since(start).Seconds(), float64(peak)/1024, c.limit>>10, verdict, cmd.ProcessState.ExitCode())
		if _, err := os.Stat(filepath.Join(out, "results.json")); err != nil {
			fmt.Fprintf(w, "  (no results.json: %v)\n", err)
		}
	}
	return nil
}

// vmHWM is the peak resident set of pid in KiB, 0 when it cannot be read.
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
