package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/secrets"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/engine"
)

// minSecretLen: values of --env and --header at least this long are redacted from every report
// and console line. Shorter ones (PORT=8, DEBUG=1) cannot be secrets worth the name, and
// blanking every "8" would make the reports unreadable; harness/secrets also spares JSON
// literals and numbers (DEBUG=true).
const minSecretLen = secrets.MinLen

// runConfig is what every command that writes reports shares (run, client, authserver, judge):
// the output options and the secrets to redact from every report and console line.
type runConfig struct {
	labels    string // --label-filter
	out       string
	baseline  string // the --baseline file, loaded into base
	writeBase string
	strict    bool
	verbose   bool
	color     bool
	// github: print each failure and warning as a GitHub Actions annotation, and append
	// summary.md to $GITHUB_STEP_SUMMARY (--github, or GITHUB_ACTIONS=true).
	github  bool
	secrets []string
	base    *reports.Baseline // loaded from --baseline, nil without
	// transcriptDir receives every session's whole wire transcript (--transcript); "" for none.
	transcriptDir string
}

// serverRun is everything `mcpspec run` was asked to do: the engine's plan, and the outputs.
type serverRun struct {
	runConfig
	plan engine.ServerPlan
	// What runArgs needs to say the plan back as flags, beside the plan itself.
	bundled bool        // no target named: the plan's targets are a bundled server, made when parsed
	jsonrpc bool        // --jsonrpc
	cwd     string      // --cwd (in every launched command of the plan)
	env     []string    // --env, as given (in every launched command of the plan)
	header  http.Header // --header (in every HTTP target of the plan)
}

func cmdRun(args []string, stdout, stderr io.Writer) (int, error) {
	cfg, err := parseRun(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return reports.ExitOK, nil
		}
		return reports.ExitUsage, err
	}
	return execute(cfg, stdout, stderr)
}

func orEmpty(err error) error {
	if err == nil {
		return errors.New("empty command")
	}
	return err
}

// parseVersions reads --versions.
func parseVersions(s string) ([]string, error) {
	if strings.TrimSpace(s) == "all" {
		return append([]string(nil), harness.Revisions...), nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		switch {
		case !harness.IsKnownRevision(v):
			return nil, usageErrorf("run: --versions: unknown revision %q (known: %s, or all)", v, strings.Join(harness.Revisions, ", "))
		case !slices.Contains(out, v):
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out, nil
}

// referenceTargets runs the bundled reference server: this very binary (over stdio its small
// sibling when there is one, stdioReferenceArgv), over stdio and over HTTP on a free loopback
// port.
func referenceTargets() ([]harness.Target, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the mcpspec binary to launch the reference server: %w", err)
	}
	port, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ssePort, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	sseAddr := fmt.Sprintf("127.0.0.1:%d", ssePort)
	env := referenceEnv()
	return []harness.Target{
		{Transport: wire.Stdio, Command: stdio.Command{Argv: stdioReferenceArgv(self), Env: env}},
		{Transport: wire.HTTP, URL: "http://" + addr + "/mcp", Command: stdio.Command{Argv: []string{self, "reference", "--http", addr}, Env: env}},
		// The legacy transport belongs to 2024-11-05; the reference serves it for that revision.
		{Transport: wire.SSE, URL: "http://" + sseAddr + "/sse", Command: stdio.Command{Argv: []string{self, "reference", "--sse", sseAddr}, Env: env}, Revisions: []string{harness.Rev20241105}},
	}, nil
}

// referenceEnv is the environment the bundled reference server gets beyond mcpspec's own. A run
// starts it over a hundred times over stdio, and each start (the package initialisation of
// this binary: compiled schemas, the checks' registry) allocates past the collector's first
// goal, for a collection that frees nothing: a higher GOGC spares it (make run: about 5 ms of
// CPU per start). A GOGC the user set is left alone.
func referenceEnv() []string {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	return []string{"GOGC=400"}
}

// The reference server's slow tool: six steps of 30 ms, each reporting progress.
const (
	referenceSlowTool     = "slow"
	referenceSlowToolArgs = `{"steps":6,"stepMs":30}`
	// referenceListTool switches a tool on or off: each call changes the tools list.
	referenceListTool = "toggle"
	// referenceLogTool logs at debug, info, warning and error, as far as the level allows.
	referenceLogTool = "log"
)

// The reference server's input tool: it asks the user to confirm through an elicitation.
const (
	referenceInputTool     = "confirm"
	referenceInputToolArgs = `{"action":"mcpspec"}`
)

// freeLoopbackPort asks the kernel for a free loopback port. Another process could take it before the
// reference server binds it; the server then fails to start and the run says so (exit 3).
func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// execute runs the plan through the engine and ends as every run does (conclude).
func execute(cfg *serverRun, stdout, stderr io.Writer) (int, error) {
	if cfg.transcriptDir != "" {
		archive, err := transcript.NewArchive(cfg.transcriptDir, reports.Redactor(cfg.secrets))
		if err != nil {
			return reports.ExitUsage, usageErrorf("run: --transcript %q: %v", cfg.transcriptDir, err)
		}
		cfg.plan.Archive = archive
	}
	if cfg.verbose && cfg.bundled {
		sayStdioReference(stdout, cfg.plan.Targets)
	}
	// Ginkgo's own console output is a mark per check and a block per failure: only with -v.
	// Without, the console gets a progress line on a terminal (nothing per check in CI logs)
	// and the summary at the end.
	hooks := engine.ServerHooks{Specs: cfg.verbose, Color: cfg.color,
		AuthServer: func(results []reports.Result, secrets []string) {
			authServerJudged(&cfg.runConfig, results, secrets, stdout)
		}}
	line := newProgress(&cfg.runConfig, stdout)
	if line != nil {
		hooks.Planned, hooks.Result = line.setTotal, line.result
		defer line.clear()
	}
	// SIGINT and SIGTERM stop the run (its servers are stopped and the unfinished checks become
	// errors); the watch lasts until the reports are written, so that a later one cannot kill
	// the run halfway through them.
	hooks.Interrupt = engine.NewInterruption()
	var stopWatch func()
	hooks.Signals, stopWatch = watchSignals(hooks.Interrupt.Interrupt)
	defer stopWatch()
	run, err := engine.RunServer(&cfg.plan, hooks)
	if line != nil {
		line.clear()
	}
	run.Tool, run.Strict = mcpspecTool(), cfg.strict
	return conclude(&cfg.runConfig, run, stdout, stderr, err)
}

// mcpspecTool names this mcpspec in every result file.
func mcpspecTool() reports.Tool { return reports.Tool{Name: "mcpspec", Version: version} }

// conclude is how `run` and `client` end a run: the process's peak memory joins its statistics,
// the baseline is applied and the new one written, then finish writes the reports. A run that
// failed before any check ran (runErr) goes to finish as it is.
func conclude(cfg *runConfig, run *reports.Run, stdout, stderr io.Writer, runErr error) (int, error) {
	if runErr != nil {
		return finish(cfg, run, stdout, stderr, runErr)
	}
	if kb, ok := peakRSSKB(); ok {
		if run.Stats == nil {
			run.Stats = map[string]int64{}
		}
		run.Stats["peakRSSKB"] = kb
	}
	if cfg.base != nil {
		run.Results = cfg.base.Apply(run.Results)
	}
	if cfg.writeBase != "" {
		if err := reports.WriteBaseline(cfg.writeBase, run.Results); err != nil {
			run.Errors = append(run.Errors, fmt.Sprintf("write baseline: %v", err))
		}
	}
	return finish(cfg, run, stdout, stderr, nil)
}

// finish writes the reports whatever happened, prints the summary and returns the exit code.
func finish(cfg *runConfig, run *reports.Run, stdout, stderr io.Writer, runErr error) (int, error) {
	if runErr != nil {
		run.Errors = append(run.Errors, runErr.Error())
	}
	reports.Redact(run, cfg.secrets)
	run.Summarize()
	writeErr := reports.WriteAll(cfg.out, run)
	if err := reports.PrintSummary(stdout, run, reports.ConsoleOptions{Color: cfg.color, Verbose: cfg.verbose}); err != nil {
		fmt.Fprintf(stderr, "mcpspec: printing the summary: %v\n", err)
	}
	if cfg.github {
		githubOutput(cfg, run, stdout, stderr)
	}
	var ue *usageError
	if errors.As(runErr, &ue) {
		return reports.ExitUsage, runErr
	}
	// A report that was not written is a harness error whatever the verdict: a pipeline archiving
	// the reports must not pass without them.
	if writeErr != nil {
		fmt.Fprintf(stderr, "mcpspec: writing reports to %s: %s\n", cfg.out, strings.ReplaceAll(writeErr.Error(), "\n", "; "))
		return reports.ExitHarness, runErr
	}
	fmt.Fprintf(stdout, "reports: %s\n", reportsLine(cfg.out))
	code := runExitCode(run)
	if code == reports.ExitNothingRan && len(run.Results) > 0 {
		fmt.Fprintln(stderr, "mcpspec: no check could run: every result is na or untestable (does the server serve any of the requested revisions?)")
	}
	return code, runErr
}

// reportsLine names the four reports of a run in dir.
func reportsLine(dir string) string {
	return fmt.Sprintf("%s (open it in a browser), %s, %s, %s", filepath.Join(dir, reports.HTMLFile),
		filepath.Join(dir, reports.SummaryFile), filepath.Join(dir, reports.ResultsFile), filepath.Join(dir, reports.JUnitFile))
}

// useColor decides whether the console gets ANSI colours: never with --no-color or NO_COLOR
// (https://no-color.org), always with CLICOLOR_FORCE (not "0"), otherwise only when stdout is a
// terminal, so that output redirected to a file or a CI log holds no escape sequences.
func useColor(noColor bool, stdout io.Writer) bool {
	switch {
	case noColor || os.Getenv("NO_COLOR") != "":
		return false
	case os.Getenv("CLICOLOR_FORCE") != "" && os.Getenv("CLICOLOR_FORCE") != "0":
		return true
	}
	return isTerminal(stdout)
}

// runExitCode is the exit code of a run whose reports were written, decided by its results alone
// (run.Strict records --strict), so that `mcpspec matrix --merge` recovers it from results.json.
func runExitCode(run *reports.Run) int {
	code := reports.ExitCode(run, run.Strict)
	if code == reports.ExitOK && nothingTested(run) {
		code = reports.ExitNothingRan
	}
	return code
}

// githubOutput shows the run where GitHub Actions users look: an annotation per failure and
// warning on the job's page, and summary.md in the job summary. The job summary is a courtesy
// beside the four reports, so failing to append to it is said on stderr but changes no verdict.
func githubOutput(cfg *runConfig, run *reports.Run, stdout, stderr io.Writer) {
	if err := reports.GitHubAnnotations(trusted(stdout), run, cfg.strict); err != nil {
		fmt.Fprintf(stderr, "mcpspec: %v\n", err)
	}
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if err := reports.AppendStepSummary(path, run); err != nil {
			fmt.Fprintf(stderr, "mcpspec: --github: %v\n", err)
		}
	}
}

// nothingTested reports whether results exist but none of them judged the server.
func nothingTested(run *reports.Run) bool {
	if len(run.Results) == 0 {
		return false
	}
	for _, r := range run.Results {
		if r.Status != reports.NA && r.Status != reports.Untestable {
			return false
		}
	}
	return true
}

// peakRSSKB is this process's own peak resident memory, without the servers it launched (their
// memory is the target's, not mcpspec's). Linux's VmHWM is read first: getrusage's ru_maxrss
// also counts the parent's peak when the parent started mcpspec with vfork (Go's os/exec does),
// because exec records the shared address space's high-water mark as the child's: under `go
// test` a 60 MB run read as 670 MB.
func peakRSSKB() (int64, bool) {
	if kb, ok := vmHWMKB(); ok {
		return kb, true
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return int64(ru.Maxrss), true // kilobytes on Linux
}

// vmHWMKB reads the VmHWM line of /proc/self/status (kilobytes); false where there is none.
func vmHWMKB() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}
