package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/secrets"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/conform"

	_ "github.com/mcpspec/mcpspec/suites" // registers every check
)

// minSecretLen: values of --env and --header at least this long are redacted from every report
// and console line. Shorter ones (PORT=8, DEBUG=1) cannot be secrets worth the name, and
// blanking every "8" would make the reports unreadable; harness/secrets also spares JSON
// literals and numbers (DEBUG=true).
const minSecretLen = secrets.MinLen

// runConfig is everything `mcpspec run` was asked to do.
type runConfig struct {
	conform   conform.Config
	focus     string
	labels    string
	out       string
	baseline  string
	writeBase string
	strict    bool
	verbose   bool
	color     bool
	// github: print each failure and warning as a GitHub Actions annotation, and append
	// summary.md to $GITHUB_STEP_SUMMARY (--github, or GITHUB_ACTIONS=true).
	github   bool
	workers  int
	sessions int
	// slowParallel bounds the checks that mostly wait, under way at once (--slow-parallel).
	slowParallel int
	secrets      []string
	base         *reports.Baseline // loaded from --baseline, nil without
	// transcriptDir receives every session's whole wire transcript (--transcript); "" for none.
	transcriptDir string
	// name is the target's name in results.json (--name), for `mcpspec matrix --merge`; "" for none.
	name string
	// authServer: after the MCP checks, follow the --url server's protected resource metadata
	// to its authorization server and run the authorization-server checks on it (--authserver).
	authServer bool
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

func parseRun(args []string, stdout io.Writer) (*runConfig, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		stdioCmd   = fs.String("stdio", "", "launch `CMD` (split like a shell would) and speak MCP over its stdin/stdout")
		url        = fs.String("url", "", "the Streamable HTTP endpoint `URL` of the server")
		sseURL     = fs.String("sse", "", "the legacy HTTP+SSE stream `URL` of the server (the transport of 2024-11-05)")
		httpCmd    = fs.String("http-cmd", "", "launch `CMD` first and wait until --url (or --sse) answers")
		cwd        = fs.String("cwd", "", "working `DIR` of launched commands")
		versions   = fs.String("versions", "all", "revisions to test: `LIST` (comma-separated) or all")
		focus      = fs.String("focus", "", "run only specs whose title matches `REGEX` (titles begin with the requirement ID)")
		slowTool   = fs.String("slow-tool", "", "`NAME` of a tool of the server's that takes a while and reports progress (the tasks extension's checks run it as a task)")
		slowArgs   = fs.String("slow-tool-args", "{}", "arguments of the slow tool, as a JSON object")
		listTool   = fs.String("list-changed-tool", "", "`NAME` of a tool of the server's whose every call changes its tools (and resources, prompts) lists; the subscription and *-LISTCHANGED checks call it")
		listArgs   = fs.String("list-changed-tool-args", "{}", "arguments of the list-changed tool, as a JSON object")
		inputTool  = fs.String("input-tool", "", "`NAME` of a tool of the server's that asks for elicitation input (2026-07-28: answers with an InputRequiredResult; 2025-06-18 and 2025-11-25: sends elicitation/create or sampling/createMessage during the call, judged by the ELICIT-* and SAMPLING-* checks)")
		inputArgs  = fs.String("input-tool-args", "{}", "arguments of the input tool, as a JSON object")
		logTool    = fs.String("log-tool", "", "`NAME` of a tool of the server's that writes log messages while it runs (the checks that judge log messages)")
		logArgs    = fs.String("log-tool-args", "{}", "arguments of the log tool, as a JSON object")
		authNarrow = fs.String("auth-token-narrow", "", "a valid access `TOKEN` of the server's that lacks a scope tools/call needs (AUTH-403-INSUFFICIENT-SCOPE calls the first listed tool with it); the run's own token goes in --header \"Authorization: Bearer …\"")
		authAlien  = fs.String("auth-token-foreign", "", "an access `TOKEN` issued for another resource (audience), which the server must refuse (AUTH-AUDIENCE)")
		authStale  = fs.String("auth-token-expired", "", "an access `TOKEN` the server's authorization server issued that has expired, which the server must refuse (AUTH-JWT-EXPIRED)")
		authServer = fs.Bool("authserver", false, "also test the authorization server the --url server's protected resource metadata (RFC 9728) names, as `mcpspec authserver` does (loopback only, unless --url is not on loopback itself; each exchange bounded by --timeout-request)")
		jsonrpc    = fs.Bool("jsonrpc", false, "the JSON-RPC profile: test the JSON-RPC 2.0 layer alone, with no MCP handshake (version "+harness.RevJSONRPC+"; not with --sse or --versions; no target: the bundled plain JSON-RPC server)")
		name       = fs.String("name", "", "record `NAME` as the target's name in results.json (letters, digits, '.', '_', '-'), the column heading `mcpspec matrix --merge` gives it")
		sessions   = fs.Int("sessions", 3, "shared sessions per revision and transport (`N`), each running its share of the checks that need no fresh server")
		workers    = fs.Int("parallel", 16, "how many checks may run at once (`N`); checks sharing a session always run one after another")
		slowPar    = fs.Int("slow-parallel", conform.DefaultWaiting, "how many checks that mostly wait (calls of the slow tool, windows of silence) may run at once (`N`), beside --parallel (over stdio at most 8: each is a server process of its own); each has a session of its own, so the server gets up to N such sessions at once (lower it for a server that cannot take that)")
		tStartup   = fs.Duration("timeout-startup", harness.DefaultTimeouts().Startup, "bound on starting a server and its initialize")
		tRequest   = fs.Duration("timeout-request", harness.DefaultTimeouts().Request, "bound on one request's response")
		tQuiet     = fs.Duration("timeout-quiet", harness.DefaultTimeouts().Quiet, "quiet window after a sentinel ping when proving silence")
		tShutdown  = fs.Duration("timeout-shutdown", harness.DefaultTimeouts().Shutdown, "bound on each step of stopping a server")
		envs, hdrs repeatFlag
		outputs    = addOutputFlags(fs, "Ginkgo's full spec output, and in the summary every message in full, the untestable checks and the counts by area")
	)
	fs.Var(&envs, "env", "`K=V` added to the environment of launched commands (repeatable)")
	fs.Var(&hdrs, "header", "`\"Name: value\"` sent with every HTTP request (repeatable)")
	onlyOnce(fs, targetFlagNames...)
	onlyOnce(fs, "name") // two names would leave a merged matrix guessing
	if err := parseFlags(fs, args, "mcpspec run [flags]", stdout); err != nil {
		return nil, err
	}
	if err := checkGiven(fs); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usageErrorf("run: unexpected argument %q (quote the server command: --stdio \"CMD ARGS\")", fs.Arg(0))
	}
	cfg := &runConfig{focus: *focus, workers: *workers, slowParallel: *slowPar, sessions: *sessions, name: *name, authServer: *authServer}
	if *authServer && (*url == "" || *jsonrpc) {
		return nil, usageErrorf("run: --authserver needs --url: the authorization server is found through a Streamable HTTP server's protected resource metadata")
	}
	if *name != "" && !targetNamePattern().MatchString(*name) {
		return nil, usageErrorf("run: --name %q: use letters, digits, '.', '_' and '-', beginning with a letter or digit", *name)
	}
	if *sessions < 1 {
		return nil, usageErrorf("run: --sessions must be at least 1, got %d", *sessions)
	}
	if *workers < 1 {
		return nil, usageErrorf("run: --parallel must be at least 1, got %d", *workers)
	}
	if *slowPar < 1 {
		return nil, usageErrorf("run: --slow-parallel must be at least 1, got %d", *slowPar)
	}
	cfg.conform.Validator = newValidator()
	cfg.conform.Timeouts = harness.Timeouts{Startup: *tStartup, Request: *tRequest, Quiet: *tQuiet, Shutdown: *tShutdown}
	if err := cfg.conform.Timeouts.Validate(); err != nil {
		return nil, usageErrorf("run: %v", err)
	}
	revs, err := parseVersions(*versions)
	if err != nil {
		return nil, err
	}
	cfg.conform.Revisions = revs
	if *focus != "" {
		if _, err := regexp.Compile(*focus); err != nil {
			return nil, usageErrorf("run: --focus: %v", err)
		}
	}
	if !json.Valid([]byte(*slowArgs)) || !strings.HasPrefix(strings.TrimSpace(*slowArgs), "{") {
		return nil, usageErrorf("run: --slow-tool-args must be a JSON object, got %q", *slowArgs)
	}
	for flag, v := range map[string]string{"list-changed-tool-args": *listArgs, "input-tool-args": *inputArgs, "log-tool-args": *logArgs} {
		if !json.Valid([]byte(v)) || !strings.HasPrefix(strings.TrimSpace(v), "{") {
			return nil, usageErrorf("run: --%s must be a JSON object, got %q", flag, v)
		}
	}
	cfg.conform.Options = conform.Options{SlowTool: *slowTool, SlowToolArgs: json.RawMessage(*slowArgs),
		ListTool: *listTool, ListToolArgs: json.RawMessage(*listArgs),
		InputTool: *inputTool, InputToolArgs: json.RawMessage(*inputArgs),
		LogTool: *logTool, LogToolArgs: json.RawMessage(*logArgs),
		AuthTokenNarrow: *authNarrow, AuthTokenForeign: *authAlien, AuthTokenExpired: *authStale}
	for _, tok := range []string{*authNarrow, *authAlien, *authStale} {
		if tok != "" {
			cfg.secrets = append(cfg.secrets, tok)
		}
	}

	var env []string
	for _, kv := range envs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("run: --env %q: want K=V", kv)
		}
		env = append(env, kv)
		if len(v) >= minSecretLen {
			cfg.secrets = append(cfg.secrets, v)
		}
	}
	header := http.Header{}
	for _, h := range hdrs {
		if err := checkHeaderValue("run", h); err != nil {
			return nil, err
		}
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(strings.TrimSpace(name), " \t") {
			return nil, usageErrorf("run: --header %q: want \"Name: value\"", h)
		}
		value = strings.TrimSpace(value)
		header.Add(strings.TrimSpace(name), value)
		if len(value) >= minSecretLen {
			cfg.secrets = append(cfg.secrets, value)
		}
		// The credential of "Scheme credential" is a secret on its own too: it may appear
		// elsewhere, such as in the command that launches the server.
		if _, cred, ok := strings.Cut(value, " "); ok && strings.EqualFold(strings.TrimSpace(name), "Authorization") && len(strings.TrimSpace(cred)) >= minSecretLen {
			cfg.secrets = append(cfg.secrets, strings.TrimSpace(cred))
		}
	}
	cfg.conform.Secrets = cfg.secrets
	if *httpCmd != "" && *url == "" && *sseURL == "" {
		return nil, usageErrorf("run: --http-cmd needs --url or --sse, the endpoint the launched server will answer on")
	}
	if *httpCmd != "" && *url != "" && *sseURL != "" {
		return nil, usageErrorf("run: --http-cmd goes with one of --url and --sse, not both")
	}
	if *stdioCmd != "" {
		argv, err := splitCommand(*stdioCmd)
		if err != nil || len(argv) == 0 {
			return nil, usageErrorf("run: --stdio %q: %v", *stdioCmd, orEmpty(err))
		}
		cfg.conform.Targets = append(cfg.conform.Targets, harness.Target{Transport: wire.Stdio, Command: stdio.Command{Argv: argv, Env: env, Dir: *cwd}})
	}
	if *url != "" {
		if err := checkHTTPURL(*url); err != nil {
			return nil, usageErrorf("run: --url %q: %v", *url, err)
		}
		t := harness.Target{Transport: wire.HTTP, URL: *url, Header: header}
		if *httpCmd != "" {
			argv, err := splitCommand(*httpCmd)
			if err != nil || len(argv) == 0 {
				return nil, usageErrorf("run: --http-cmd %q: %v", *httpCmd, orEmpty(err))
			}
			t.Command = stdio.Command{Argv: argv, Env: env, Dir: *cwd}
		}
		cfg.conform.Targets = append(cfg.conform.Targets, t)
	}
	if *sseURL != "" {
		if err := checkHTTPURL(*sseURL); err != nil {
			return nil, usageErrorf("run: --sse %q: %v", *sseURL, err)
		}
		t := harness.Target{Transport: wire.SSE, URL: *sseURL, Header: header}
		if *httpCmd != "" {
			argv, err := splitCommand(*httpCmd)
			if err != nil || len(argv) == 0 {
				return nil, usageErrorf("run: --http-cmd %q: %v", *httpCmd, orEmpty(err))
			}
			t.Command = stdio.Command{Argv: argv, Env: env, Dir: *cwd}
		}
		cfg.conform.Targets = append(cfg.conform.Targets, t)
	}
	if *cwd != "" {
		if st, err := os.Stat(*cwd); err != nil || !st.IsDir() {
			return nil, usageErrorf("run: --cwd %q is not a directory", *cwd)
		}
	}
	if err := outputs.apply("run", cfg, stdout); err != nil {
		return nil, err
	}
	if *jsonrpc {
		// Without a target the profile runs the bundled plain JSON-RPC server.
		if err := useJSONRPCProfile(fs, cfg); err != nil {
			return nil, err
		}
	}
	// The bundled reference is the target only when none is named: an empty one is refused above.
	if !given(fs, targetFlagNames...) && !*jsonrpc {
		targets, err := referenceTargets()
		if err != nil {
			return nil, err
		}
		cfg.conform.Targets = targets
		if cfg.conform.Options.SlowTool == "" {
			cfg.conform.Options.SlowTool, cfg.conform.Options.SlowToolArgs = referenceSlowTool, json.RawMessage(referenceSlowToolArgs)
		}
		if cfg.conform.Options.ListTool == "" {
			cfg.conform.Options.ListTool = referenceListTool
		}
		if cfg.conform.Options.InputTool == "" {
			cfg.conform.Options.InputTool, cfg.conform.Options.InputToolArgs = referenceInputTool, json.RawMessage(referenceInputToolArgs)
		}
		if cfg.conform.Options.LogTool == "" {
			cfg.conform.Options.LogTool, cfg.conform.Options.LogToolArgs = referenceLogTool, json.RawMessage("{}")
		}
	}
	return cfg, nil
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

// referenceTargets runs the bundled reference server: this very binary, over stdio and over HTTP
// on a free loopback port.
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
		{Transport: wire.Stdio, Command: stdio.Command{Argv: []string{self, "reference"}, Env: env}},
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

// ginkgoT receives Ginkgo's verdict on the whole suite.
type ginkgoT struct{ failed bool }

func (g *ginkgoT) Fail() { g.failed = true }

func execute(cfg *runConfig, stdout, stderr io.Writer) (int, error) {
	if cfg.transcriptDir != "" {
		archive, err := transcript.NewArchive(cfg.transcriptDir, reports.Redactor(cfg.secrets))
		if err != nil {
			return reports.ExitUsage, usageErrorf("run: --transcript %q: %v", cfg.transcriptDir, err)
		}
		cfg.conform.Archive = archive
	}
	// Ginkgo's own console output is a mark per check and a block per failure; without -v the
	// console gets instead a progress line on a terminal (nothing per check in CI logs) and the
	// summary at the end.
	var line *progress
	if !cfg.verbose {
		if isTerminal(stdout) {
			line = &progress{w: stdout, base: cfg.base, strict: cfg.strict}
			cfg.conform.OnResult = line.result
			defer line.clear()
		}
		quiet := formatter.ColorableStdOut
		formatter.ColorableStdOut = io.Discard
		defer func() { formatter.ColorableStdOut = quiet }()
	}
	runner := conform.NewRunner(cfg.conform)
	run := &reports.Run{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpspec", Version: version},
		Target:        describeTargets(cfg.name, cfg.conform.Targets),
		StartedAt:     runner.Started(),
		Revisions:     cfg.conform.Revisions,
		Strict:        cfg.strict,
	}
	base := cfg.base
	runner.HoldStart() // until interruptOnSignal holds the signals
	stopWatch := interruptOnSignal(runner)
	defer stopWatch()
	if err := conform.Build(runner, conform.Selection{Focus: cfg.focus, LabelFilter: cfg.labels, Workers: cfg.workers, Sessions: cfg.sessions, Waiting: cfg.slowParallel}); err != nil {
		return finish(cfg, run, stdout, stderr, fmt.Errorf("building the spec tree: %w", err))
	}
	// conform.Build registered only the specs --focus and --label-filter select.
	if line != nil {
		line.setTotal(runner.Planned())
	}
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.RandomSeed = 1
	suiteConfig.Timeout = 24 * time.Hour
	reporterConfig.NoColor = !cfg.color
	reporterConfig.Succinct = !cfg.verbose
	reporterConfig.Verbose = cfg.verbose
	ginkgo.RunSpecs(&ginkgoT{}, "mcpspec", suiteConfig, reporterConfig)
	// Ginkgo skips its BeforeSuite and the specs left once it has seen a signal itself: the
	// checks still run (as interrupted ones, after runner.Interrupt) so that every one has a result.
	runner.ReleaseStart()
	runner.Wait()
	// --authserver: while a launched server still runs, its metadata leads to the
	// authorization server.
	var asResults []reports.Result
	var asErr error
	if cfg.authServer && runner.Interruption() == "" {
		asResults, asErr = followAuthServer(cfg, runner.ServedRevisions(), runner.Planned() > 0, stdout)
	}
	runner.Close()
	// Every connection has ended, so the archive holds every session.
	if err := cfg.conform.Archive.Close(); err != nil {
		runner.RecordError(fmt.Errorf("--transcript: %w", err))
	}

	if line != nil {
		line.clear()
	}
	run.Results = runner.Results()
	run.Revisions = runner.ServedRevisions() // the summary names only revisions the server serves
	run.Errors = runner.Errors()
	if why := runner.Interruption(); why != "" {
		run.Errors = append(run.Errors, fmt.Sprintf("interrupted (%s): the servers were stopped and the unfinished checks are errors", why))
	}
	run.Target.ServerInfo = runner.ServerInfo()
	run.Results = append(run.Results, asResults...)
	if asErr != nil {
		run.Errors = append(run.Errors, fmt.Sprintf("--authserver: %v", asErr))
	}

	run.Stats = runner.Env().Stats.Snapshot()
	if kb, ok := peakRSSKB(); ok {
		run.Stats["peakRSSKB"] = kb
	}
	if base != nil {
		run.Results = base.Apply(run.Results)
	}
	run.DurationMs = time.Since(runner.Started()).Milliseconds()
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

func describeTargets(name string, ts []harness.Target) reports.Target {
	t := reports.Target{Name: name}
	var parts []string
	for _, x := range ts {
		parts = append(parts, x.Describe())
		t.Transports = append(t.Transports, x.Transport)
	}
	t.Description = strings.Join(parts, "; ")
	return t
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
