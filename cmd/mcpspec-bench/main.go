// Command mcpspec-bench measures how fast mcpspec runs its default suite, and `mcpspec client`
// its default scenarios: it runs the mcpspec binary several times against each target and
// prints, per target, the wall time (median and spread), specs run, specs per second, servers
// spawned, time spent in quiet windows, CPU time, the peak memory of mcpspec itself and the
// largest report file it wrote, and beside it the bound issue 28 sets that row where it sets one.
// Then, with -everything and -conformance, the official conformance suite and mcpspec take
// turns against one running server-everything over Streamable HTTP (official.go).
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
	goal   goal     // issue 28's bounds on the median run, printed beside it
	skip   string   // why the row is not measured here ("" to measure it)
}

// goal is what a row must stay under at its median run; zero fields bound nothing.
type goal struct {
	wall, cpu   time.Duration
	reportBytes int64
}

// verdict says, for the median run s, each bound of g and whether s met it ("" without bounds).
func (g goal) verdict(s sample) string {
	var parts []string
	missed := false
	if g.wall > 0 {
		parts = append(parts, "≤ "+seconds(g.wall)+" wall")
		missed = missed || s.wall > g.wall
	}
	if g.cpu > 0 {
		parts = append(parts, "≤ "+seconds(g.cpu)+" CPU")
		missed = missed || s.cpu > g.cpu
	}
	if g.reportBytes > 0 {
		parts = append(parts, fmt.Sprintf("reports ≤ %d MB", g.reportBytes>>20))
		missed = missed || s.largestBytes > g.reportBytes
	}
	if len(parts) == 0 {
		return ""
	}
	return "target " + strings.Join(parts, ", ") + ": " + metOrMissed(!missed)
}

func metOrMissed(met bool) string {
	if met {
		return "met"
	}
	return "MISSED"
}

// seconds prints a whole number of seconds as "3 s", anything else with one decimal.
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
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
	conformance := flag.String("conformance", "", "path of the official suite's runner, @modelcontextprotocol/conformance's dist/index.js, timed beside mcpspec on one running server-everything (skip that row when empty)")
	conformanceImport := flag.String("conformance-import", "", "node --import module the official runner needs (fixtures/targets/node20-fs-globsync.mjs on Node 20)")
	tsclient := flag.String("tsclient", "fixtures/targets/tsclient/client.cjs", "the TypeScript SDK client of the interop target tsclient (skip its rows when absent)")
	tsclientModules := flag.String("tsclient-modules", filepath.Join(interopCache(), "npm-tsclient", "node_modules"), "node_modules holding the SDK tsclient uses, as fixtures/targets/tsclient/install.sh installs it (skip the tsclient rows when absent)")
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
	targets, err := buildTargets(*bin, installs{everything: *everything, preload: *preload, tsclient: *tsclient, tsclientModules: *tsclientModules})
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
	fmt.Fprintln(w, "target\truns\twall median\twall min–max\tspecs\tspecs/s\tservers spawned\tquiet windows\tquiet share\tCPU\tmcpspec peak RSS\tlargest report\texit\t\t")
	for _, t := range targets {
		if t.skip != "" {
			notes = append(notes, fmt.Sprintf("%s: skipped, %s.", t.name, t.skip))
			continue
		}
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
		fmt.Fprintf(w, "%s\t%d\t%.2f s\t%.2f–%.2f s\t%d\t%.0f\t%d\t%.1f s\t%.0f%%\t%.1f s\t%.1f MB\t%.2f MB %s\t%d\t%s\t\n", t.name, len(ss),
			med.wall.Seconds(), ss[0].wall.Seconds(), ss[len(ss)-1].wall.Seconds(), med.specs,
			float64(med.specs)/med.wall.Seconds(), med.spawned, med.quiet.Seconds(), 100*share, med.cpu.Seconds(), float64(peak)/1024,
			float64(med.largestBytes)/(1<<20), med.largest, med.exit, t.goal.verdict(med))
	}
	w.Flush()
	if wanted(*only, officialRow) {
		if *everything == "" || *conformance == "" {
			notes = append(notes, officialRow+": skipped, no -everything or -conformance (make bench installs both).")
		} else {
			ow := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			err := measureOfficial(*bin, officialSetup{everything: *everything, preload: *preload, runner: *conformance, importModule: *conformanceImport}, *runs, ow)
			ow.Flush()
			if err != nil {
				fmt.Fprintln(os.Stderr, "mcpspec-bench:", officialRow+":", err)
				os.Exit(3)
			}
		}
	}
	for _, n := range notes {
		fmt.Println(n)
	}
	fmt.Println("\nquiet share: time in quiet windows over the summed time of all specs (specs overlap, so both exceed the wall time).")
	fmt.Println("CPU: user and system time of mcpspec and of the servers it launched and reaped (this machine has", runtime.NumCPU(), "cores).")
	if *proxyMessages > 0 && wanted(*only, "proxy") {
		pw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		err := measureProxy(*bin, *proxyMessages, pw)
		pw.Flush()
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpspec-bench: proxy:", err)
			os.Exit(3)
		}
	}
}

// installs are where the targets outside this repository are, each "" (or absent) when not
// installed: their rows are then skipped with a note.
type installs struct {
	everything, preload       string // server-everything's dist/index.js; node --require module binding it to loopback
	tsclient, tsclientModules string // the tsclient interop target's client.cjs; the node_modules with its SDK
}

func buildTargets(bin string, in installs) ([]target, error) {
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
		{name: "reference (make run)", cmd: "run", goal: goal{wall: 3 * time.Second, cpu: 4 * time.Second, reportBytes: 2 << 20}},
		// `mcpspec client` on the bundled reference client, the default scenarios over HTTP.
		{name: "reference client http, --parallel 1", cmd: "client", args: append(slices.Clone(refClient), "--parallel", "1")},
		{name: "reference client http", cmd: "client", args: refClient, sameAs: "reference client http, --parallel 1", goal: goal{wall: 2 * time.Second}},
		{name: "reference stdio", cmd: "run", args: []string{"--stdio", ref + " reference", "--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`}},
		{name: "reference http", cmd: "run", args: []string{"--http-cmd", fmt.Sprintf("%s reference --http 127.0.0.1:%d", ref, port), "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port), "--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`}},
		// The first target: every handshake revision, stdio and HTTP in one run.
		{name: "reference stdio+http, handshake revisions", cmd: "run", args: []string{"--stdio", ref + " reference",
			"--http-cmd", fmt.Sprintf("%s reference --http 127.0.0.1:%d", ref, port), "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
			"--versions", strings.Join(harness.HandshakeRevisions, ","), "--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`}},
		// Issue 28's slow-tool targets: a whole run over HTTP against a 1 s (≤ 3 s) and a 3 s
		// (≤ 6 s) slow tool.
		slowToolRow(ref, "1 s", `{"steps":10,"stepMs":100}`, 3*time.Second),
		slowToolRow(ref, "3 s", `{"steps":10,"stepMs":300}`, 6*time.Second),
	}
	ts = append(ts, tsclientRows(in.tsclient, in.tsclientModules)...)
	node := "node"
	if in.preload != "" {
		node += " --require " + in.preload
	}
	slow := everythingSlowTool
	stdio := target{name: "everything stdio", cmd: "run", args: append([]string{"--stdio", node + " " + in.everything + " stdio"}, slow...), goal: goal{wall: 6 * time.Second}}
	overHTTP := target{name: "everything http", cmd: "run", args: append([]string{"--http-cmd", node + " " + in.everything + " streamableHttp", "--env", "PORT={port}", "--url", "http://127.0.0.1:{port}/mcp"}, slow...)}
	if in.everything == "" {
		stdio.skip = "no -everything (make bench installs server-everything)"
		overHTTP.skip = stdio.skip
	}
	return append(ts, stdio, overHTTP), nil
}

// tsclientRows are `mcpspec client` on the TypeScript SDK client of the interop target tsclient
// (fixtures/targets/matrix.yaml), the default scenarios over HTTP at --parallel 1 and at the
// default, whose verdicts must be the same; skipped where the client or its SDK is absent.
func tsclientRows(client, modules string) []target {
	seq := target{name: "tsclient http, --parallel 1", cmd: "client"}
	par := target{name: "tsclient http", cmd: "client", sameAs: seq.name, goal: goal{wall: 6 * time.Second}}
	abs, err := filepath.Abs(client)
	switch {
	case err != nil:
		seq.skip = err.Error()
	case !exists(abs):
		seq.skip = "no " + client
	case !exists(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")):
		seq.skip = "its SDK is not installed in " + modules + " (fixtures/targets/tsclient/install.sh, as make interop runs it)"
	}
	if seq.skip != "" {
		par.skip = seq.skip
		return []target{seq, par}
	}
	args := []string{"--cmd", "node " + abs, "--env", "MCPSPEC_SDK_NODE_MODULES=" + modules}
	seq.args = append(slices.Clone(args), "--parallel", "1")
	par.args = args
	return []target{seq, par}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// interopCache is where make interop installs the targets ($MCPSPEC_INTEROP_CACHE, by default
// ~/.cache/mcpspec-interop).
func interopCache() string {
	if c := os.Getenv("MCPSPEC_INTEROP_CACHE"); c != "" {
		return c
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "mcpspec-interop")
}

// wanted says whether a row named name is measured under -only (already checked to compile).
func wanted(only, name string) bool {
	return only == "" || regexp.MustCompile(only).MatchString(name)
}

// slowToolRow is a run of the reference over HTTP whose slow tool takes as long as args say.
func slowToolRow(ref, took, args string, limit time.Duration) target {
	return target{name: "reference http, " + took + " slow tool", cmd: "run", goal: goal{wall: limit}, args: []string{
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
