// Command mcpspec-bench measures how fast mcpspec runs its default suite, and `mcpspec client`
// its default scenarios: it runs the mcpspec binary several times against each target and
// prints, per target, the wall time (median and spread), specs run, specs per second, servers
// spawned, time spent in quiet windows, CPU time, the peak memory of mcpspec itself and the
// largest report file it wrote.
// `make bench` runs it; `make bench-local` runs the bundled reference server and client alone.
// Then the proxy rows: the latency `mcpspec proxy` adds per message (ping-pongs through it and
// directly, stdio and HTTP) and its peak memory over a long session compressed in time.
// With -misbehave BINARY it measures instead mcpspec's peak memory against hostile servers
// (fixtures/misbehaving: 15 MB answers, endless notifications for a minute) beside the bounds
// it must stay under.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
)

type target struct {
	name   string
	cmd    string   // the mcpspec command: run, or client
	args   []string // its arguments naming the target
	sameAs string   // a target whose verdicts this one's must equal ("" for none)
}

type sample struct {
	wall     time.Duration
	specs    int
	spawned  int64
	quiet    time.Duration
	busy     time.Duration // sum of the specs' own durations
	cpu      time.Duration // user+system time of mcpspec and the servers it waited for
	maxRSSKB int64         // mcpspec's own peak, as it reports in results.json
	exit     int
	// largest is the largest of the report files and its size (results.json, report.html, …):
	// each is bounded, and the default run's are meant to stay under 2 MB.
	largest      string
	largestBytes int64
	verdicts     []string // each result's ID, revision, transport, scenario and status, in order
}

func main() {
	bin := flag.String("mcpspec", "bin/mcpspec", "the mcpspec binary")
	runs := flag.Int("runs", 5, "runs per target")
	everything := flag.String("everything", "", "path of @modelcontextprotocol/server-everything's dist/index.js (skip those targets when empty)")
	preload := flag.String("preload", "", "node --require module that binds server-everything to 127.0.0.1")
	misbehave := flag.String("misbehave", "", "measure instead mcpspec's peak memory against the hostile servers of this misbehave `BINARY` (fixtures/misbehaving): 15 MB answers, endless notifications")
	only := flag.String("only", "", "measure only the targets whose name matches `REGEX` (\"proxy\": the proxy rows alone)")
	proxyMessages := flag.Int("proxy-messages", 1_000_000, "messages each way of the proxy's long stdio session, whose peak memory is measured (0: no proxy rows)")
	flag.Parse()
	if *misbehave != "" {
		if err := measureHostile(*bin, *misbehave, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcpspec-bench:", err)
			os.Exit(3)
		}
		return
	}
	targets, err := buildTargets(*bin, *everything, *preload)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpspec-bench:", err)
		os.Exit(2)
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpspec-bench: -only:", err)
			os.Exit(2)
		}
		targets = slices.DeleteFunc(targets, func(t target) bool { return !re.MatchString(t.name) })
	}
	verdicts := map[string][]string{} // by target, from its last run
	var notes []string
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "target\truns\twall median\twall min–max\tspecs\tspecs/s\tservers spawned\tquiet windows\tquiet share\tCPU\tmcpspec peak RSS\tlargest report\texit\t")
	for _, t := range targets {
		var ss []sample
		for i := 0; i < *runs; i++ {
			s, err := runOnce(*bin, t)
			if err != nil {
				fmt.Fprintf(os.Stderr, "mcpspec-bench: %s: %v\n", t.name, err)
				os.Exit(3)
			}
			ss = append(ss, s)
		}
		verdicts[t.name] = ss[len(ss)-1].verdicts
		if want, ok := verdicts[t.sameAs]; ok {
			same := "the same verdicts"
			if !slices.Equal(ss[len(ss)-1].verdicts, want) {
				same = "DIFFERENT verdicts"
			}
			notes = append(notes, fmt.Sprintf("%s: %s as %s (%d results).", t.name, same, t.sameAs, len(want)))
		}
		sort.Slice(ss, func(i, j int) bool { return ss[i].wall < ss[j].wall })
		med := ss[len(ss)/2]
		var peak int64
		for _, s := range ss {
			peak = max(peak, s.maxRSSKB)
		}
		share := 0.0
		if med.busy > 0 {
			share = float64(med.quiet) / float64(med.busy)
		}
		fmt.Fprintf(w, "%s\t%d\t%.2f s\t%.2f–%.2f s\t%d\t%.0f\t%d\t%.1f s\t%.0f%%\t%.1f s\t%.1f MB\t%.2f MB %s\t%d\t\n", t.name, len(ss),
			med.wall.Seconds(), ss[0].wall.Seconds(), ss[len(ss)-1].wall.Seconds(), med.specs,
			float64(med.specs)/med.wall.Seconds(), med.spawned, med.quiet.Seconds(), 100*share, med.cpu.Seconds(), float64(peak)/1024,
			float64(med.largestBytes)/(1<<20), med.largest, med.exit)
	}
	w.Flush()
	for _, n := range notes {
		fmt.Println(n)
	}
	fmt.Println("\nquiet share: time in quiet windows over the summed time of all specs (specs overlap, so both exceed the wall time).")
	fmt.Println("CPU: user and system time of mcpspec and of the servers it launched and reaped (this machine has", runtime.NumCPU(), "cores).")
	if *proxyMessages > 0 && (*only == "" || regexp.MustCompile(*only).MatchString("proxy")) {
		pw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		err := measureProxy(*bin, *proxyMessages, pw)
		pw.Flush()
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpspec-bench: proxy:", err)
			os.Exit(3)
		}
	}
}

func buildTargets(bin, everything, preload string) ([]target, error) {
	ref, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	refClient := []string{"--cmd", ref + " reference-client"}
	ts := []target{
		// What `make run` does: the bundled reference over stdio, HTTP and legacy SSE at once.
		{name: "reference (make run)", cmd: "run"},
		// `mcpspec client` on the bundled reference client, the default scenarios over HTTP.
		{name: "reference client http, --parallel 1", cmd: "client", args: append(slices.Clone(refClient), "--parallel", "1")},
		{name: "reference client http", cmd: "client", args: refClient, sameAs: "reference client http, --parallel 1"},
		{name: "reference stdio", cmd: "run", args: []string{"--stdio", ref + " reference", "--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`}},
		{name: "reference http", cmd: "run", args: []string{"--http-cmd", fmt.Sprintf("%s reference --http 127.0.0.1:%d", ref, port), "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port), "--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`}},
		// The first target: every handshake revision, stdio and HTTP in one run.
		{name: "reference stdio+http, handshake revisions", cmd: "run", args: []string{"--stdio", ref + " reference",
			"--http-cmd", fmt.Sprintf("%s reference --http 127.0.0.1:%d", ref, port), "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
			"--versions", strings.Join(harness.HandshakeRevisions, ","), "--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`}},
		// Issue 28's slow-tool targets: a whole run over HTTP against a 1 s (≤ 3 s) and a 3 s
		// (≤ 6 s) slow tool.
		slowToolRow(ref, "1 s", `{"steps":10,"stepMs":100}`),
		slowToolRow(ref, "3 s", `{"steps":10,"stepMs":300}`),
	}
	if everything != "" {
		node := "node"
		if preload != "" {
			node += " --require " + preload
		}
		slow := []string{"--slow-tool", "trigger-long-running-operation", "--slow-tool-args", `{"duration":1,"steps":5}`}
		ts = append(ts,
			target{name: "everything stdio", cmd: "run", args: append([]string{"--stdio", node + " " + everything + " stdio"}, slow...)},
			target{name: "everything http", cmd: "run", args: append([]string{"--http-cmd", node + " " + everything + " streamableHttp", "--env", "PORT={port}", "--url", "http://127.0.0.1:{port}/mcp"}, slow...)},
		)
	}
	return ts, nil
}

// slowToolRow is a run of the reference over HTTP whose slow tool takes as long as args say.
func slowToolRow(ref, took, args string) target {
	return target{name: "reference http, " + took + " slow tool", cmd: "run", args: []string{
		"--http-cmd", ref + " reference --http 127.0.0.1:{port}", "--url", "http://127.0.0.1:{port}/mcp",
		"--slow-tool", "slow", "--slow-tool-args", args}}
}

func runOnce(bin string, t target) (sample, error) {
	out, err := os.MkdirTemp("", "mcpspec-bench-")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(out)
	port, err := freePort()
	if err != nil {
		return sample{}, err
	}
	args := []string{t.cmd, "--out", out, "--no-color"}
	for _, a := range t.args {
		args = append(args, strings.ReplaceAll(a, "{port}", fmt.Sprint(port)))
	}
	cmd := exec.Command(bin, args...)
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	s := sample{wall: wall}
	if cmd.ProcessState == nil {
		return s, fmt.Errorf("run %v: %w", args, err)
	}
	s.exit = cmd.ProcessState.ExitCode()
	s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	run, err := reports.ReadResults(filepath.Join(out, reports.ResultsFile))
	if err != nil {
		return s, err
	}
	s.specs = len(run.Results)
	for _, name := range []string{reports.ResultsFile, reports.HTMLFile, reports.JUnitFile, reports.SummaryFile} {
		if fi, err := os.Stat(filepath.Join(out, name)); err == nil && fi.Size() > s.largestBytes {
			s.largest, s.largestBytes = name, fi.Size()
		}
	}
	s.spawned = run.Stats["serversSpawned"]
	// The child's rusage would count the servers mcpspec waited for (node alone is ~100 MB).
	s.maxRSSKB = run.Stats["peakRSSKB"]
	s.quiet = time.Duration(run.Stats["quietMs"]) * time.Millisecond
	for _, r := range run.Results {
		s.busy += time.Duration(r.DurationMs) * time.Millisecond
		s.verdicts = append(s.verdicts, strings.Join([]string{r.ID, r.Version, r.Transport, r.Scenario, string(r.Status)}, " "))
	}
	return s, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
