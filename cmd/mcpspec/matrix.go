package main

// `mcpspec matrix` runs many targets, each as a `mcpspec run` subprocess of this very binary
// (Ginkgo runs once per process, and one target's crash must not touch the others), then puts
// their results.json side by side as matrix.json, matrix.md and matrix.html.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
)

// Defaults of the matrix config.
const (
	// defaultTargetTimeout bounds one target's whole `mcpspec run`, servers included.
	defaultTargetTimeout = 10 * time.Minute
	// matrixStopGrace is how long a target's run may take to stop its servers and write its
	// reports after SIGTERM (a timeout, Ctrl-C) before its process group is killed.
	matrixStopGrace = 30 * time.Second
	// matrixLogFile is where a target's console output goes, inside its report directory.
	matrixLogFile = "console.log"
)

// matrixConfig is the YAML file of `mcpspec matrix --config`.
type matrixConfig struct {
	Revisions []string       `yaml:"revisions"` // default: all
	Timeout   time.Duration  `yaml:"timeout"`   // per target run, e.g. 5m
	Parallel  int            `yaml:"parallel"`  // targets run at once, default 1
	Targets   []matrixTarget `yaml:"targets"`
}

// matrixTarget is one server, launched or reached over stdio, Streamable HTTP or both (or legacy
// SSE), or one client (client:), run by `mcpspec client` over each of its transports. Every string
// may hold {port} (a free 127.0.0.1 port, one per target run), {dir} (the config file's directory)
// and ${VAR} (an environment variable, which must be set).
type matrixTarget struct {
	Name         string            `yaml:"name"`
	Client       string            `yaml:"client"`     // mcpspec client --cmd
	Transports   []string          `yaml:"transports"` // a client's: http (the default), stdio
	Stdio        string            `yaml:"stdio"`      // --stdio
	URL          string            `yaml:"url"`        // --url
	SSE          string            `yaml:"sse"`        // --sse
	HTTPCmd      string            `yaml:"httpCmd"`    // --http-cmd
	Env          map[string]string `yaml:"env"`        // --env, redacted from reports like any --env
	Cwd          string            `yaml:"cwd"`
	Baseline     string            `yaml:"baseline"` // relative to the config file
	SlowTool     string            `yaml:"slowTool"`
	SlowToolArgs map[string]any    `yaml:"slowToolArgs"`
	Revisions    []string          `yaml:"revisions"` // overrides the file's revisions
	Args         []string          `yaml:"args"`      // further `mcpspec run` (or client) flags
}

// targetNamePattern keeps a name usable as a directory name and a URL path segment.
var targetNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// loadMatrixConfig reads and checks the config; every error is one line.
func loadMatrixConfig(path string) (*matrixConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg matrixConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file", path)
		}
		return nil, fmt.Errorf("%s: %s", path, strings.Join(strings.Fields(err.Error()), " "))
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if err := cfg.check(dir); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &cfg, nil
}

func (cfg *matrixConfig) check(dir string) error {
	if len(cfg.Targets) == 0 {
		return errors.New("no targets")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTargetTimeout
	}
	if cfg.Timeout < 0 {
		return fmt.Errorf("timeout %s is negative", cfg.Timeout)
	}
	if cfg.Parallel == 0 {
		cfg.Parallel = 1
	}
	if cfg.Parallel < 0 {
		return fmt.Errorf("parallel %d is negative", cfg.Parallel)
	}
	if err := checkRevisions(cfg.Revisions); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, t := range cfg.Targets {
		if !targetNamePattern().MatchString(t.Name) {
			return fmt.Errorf("target %d: name %q: use letters, digits, '.', '_' and '-'", i+1, t.Name)
		}
		if seen[t.Name] {
			return fmt.Errorf("target %q listed twice", t.Name)
		}
		seen[t.Name] = true
		if err := t.check(dir); err != nil {
			return fmt.Errorf("target %q: %w", t.Name, err)
		}
	}
	return nil
}

func (t matrixTarget) check(dir string) error {
	if t.Client != "" || t.Transports != nil {
		return t.checkClient(dir)
	}
	switch {
	case t.Stdio == "" && t.URL == "" && t.SSE == "":
		return errors.New("needs stdio, url or sse")
	case t.HTTPCmd != "" && t.URL == "" && t.SSE == "":
		return errors.New("httpCmd needs url or sse, the endpoint the launched server answers on")
	case t.HTTPCmd != "" && t.URL != "" && t.SSE != "":
		return errors.New("httpCmd goes with one of url and sse, not both")
	}
	if err := checkRevisions(t.Revisions); err != nil {
		return err
	}
	if err := checkMatrixArgs(t.Args); err != nil {
		return err
	}
	// A launched server told nothing of its port cannot listen where {port} says it answers.
	if t.HTTPCmd != "" && !strings.Contains(t.HTTPCmd, "{port}") &&
		(strings.Contains(t.URL, "{port}") || strings.Contains(t.SSE, "{port}")) {
		return errors.New("url or sse holds {port} but httpCmd does not: the launched server would not know the port to listen on")
	}
	// Expanding now finds unset variables before anything runs; {port} is only a placeholder here.
	fields := []string{t.Stdio, t.URL, t.SSE, t.HTTPCmd, t.Cwd, t.Baseline}
	for _, v := range t.Env {
		fields = append(fields, v)
	}
	fields = append(fields, t.Args...)
	for _, f := range fields {
		if _, err := expandTarget(f, dir, 0); err != nil {
			return err
		}
	}
	if t.Baseline != "" {
		path, _ := expandTarget(t.Baseline, dir, 0)
		if _, err := os.Stat(resolvePath(dir, path)); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	return nil
}

// matrixOwnedFlags are the flags the matrix sets itself for every run: given again in args they
// would send a target's reports where the matrix never reads them.
var matrixOwnedFlags = []string{"out", "name"}

// checkMatrixArgs refuses args that take a flag the matrix owns.
func checkMatrixArgs(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && slices.Contains(matrixOwnedFlags, name) {
			return fmt.Errorf("args: %q: the matrix sets --%s itself (use the matrix's --out and the target's name)", a, name)
		}
	}
	return nil
}

// keepOnly drops every target not named in names, keeping the config's order.
func (cfg *matrixConfig) keepOnly(names []string) error {
	want := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if !slices.ContainsFunc(cfg.Targets, func(t matrixTarget) bool { return t.Name == name }) {
			return fmt.Errorf("no target %q in the config", name)
		}
		want[name] = true
	}
	cfg.Targets = slices.DeleteFunc(cfg.Targets, func(t matrixTarget) bool { return !want[t.Name] })
	return nil
}

func checkRevisions(revs []string) error {
	for _, r := range revs {
		if !harness.IsKnownRevision(r) {
			return fmt.Errorf("unknown revision %q (known: %s)", r, strings.Join(harness.Revisions, ", "))
		}
	}
	return nil
}

// expandTarget replaces {port}, {dir} and ${VAR} in s; an unset variable is an error.
func expandTarget(s, dir string, port int) (string, error) {
	s = strings.ReplaceAll(s, "{port}", fmt.Sprint(port))
	s = strings.ReplaceAll(s, "{dir}", dir)
	var unset []string
	s = os.Expand(s, func(name string) string {
		v, ok := os.LookupEnv(name)
		if !ok {
			unset = append(unset, name)
		}
		return v
	})
	if len(unset) > 0 {
		return "", fmt.Errorf("environment variable %s is not set", strings.Join(unset, ", "))
	}
	return s, nil
}

func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// runArgs are the `mcpspec run` arguments of one target, writing its reports into out.
func (t matrixTarget) runArgs(cfg *matrixConfig, dir, out string, port int) ([]string, error) {
	// --name records the target's name in its results.json, so that `matrix --merge` can read it.
	args := []string{"run", "--out", out, "--no-color", "--name", t.Name}
	var firstErr error
	add := func(flag, v string) {
		if v == "" {
			return
		}
		x, err := expandTarget(v, dir, port)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		args = append(args, flag, x)
	}
	add("--stdio", t.Stdio)
	add("--url", t.URL)
	add("--sse", t.SSE)
	add("--http-cmd", t.HTTPCmd)
	add("--cwd", t.Cwd)
	if t.Baseline != "" {
		add("--baseline", t.Baseline)
		args[len(args)-1] = resolvePath(dir, args[len(args)-1])
	}
	add("--slow-tool", t.SlowTool)
	if t.SlowToolArgs != nil {
		b, err := json.Marshal(t.SlowToolArgs)
		if err != nil {
			return nil, fmt.Errorf("slowToolArgs: %w", err)
		}
		args = append(args, "--slow-tool-args", string(b))
	}
	keys := make([]string, 0, len(t.Env))
	for k := range t.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add("--env", k+"="+t.Env[k])
	}
	revs := t.Revisions
	if len(revs) == 0 {
		revs = cfg.Revisions
	}
	if len(revs) > 0 {
		args = append(args, "--versions", strings.Join(revs, ","))
	}
	// A target's run writes to its own log: its annotations and job summary would only repeat,
	// target by target, what the matrix reports (a target's args may still turn them on).
	args = append(args, "--github=false")
	for _, a := range t.Args {
		x, err := expandTarget(a, dir, port)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		args = append(args, x)
	}
	return args, firstErr
}

// describe says how the target is reached, as its config spells it.
func (t matrixTarget) describe() string {
	if t.Client != "" {
		return "client (" + strings.Join(t.clientTransports(), ", ") + "): " + t.Client
	}
	var parts []string
	if t.Stdio != "" {
		parts = append(parts, "stdio: "+t.Stdio)
	}
	if t.URL != "" {
		parts = append(parts, "http: "+t.URL)
	}
	if t.SSE != "" {
		parts = append(parts, "sse: "+t.SSE)
	}
	if t.HTTPCmd != "" {
		parts = append(parts, "launched by: "+t.HTTPCmd)
	}
	return strings.Join(parts, "; ")
}

func cmdMatrix(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config := fs.String("config", "", "the YAML `FILE` listing the targets")
	out := fs.String("out", "mcpspec-matrix", "write matrix.json, matrix.md, matrix.html and one report directory per target into `DIR`")
	parallel := fs.Int("parallel", 0, "run `N` targets at once (default: the config's parallel, else 1)")
	only := fs.String("targets", "", "run only the targets named in `LIST` (comma-separated)")
	isolation := fs.Bool("isolation", false, "then run each area of every target alone and exit 3 when a verdict differs from the full run's (a bug of mcpspec's); listed in isolation.txt")
	// The matrix prints plain lines and runs each target with --no-color; the flag is accepted so
	// that one habit works for run, client and matrix.
	fs.Bool("no-color", false, "no ANSI colours (the matrix's own lines have none; its runs get --no-color)")
	merge := fs.Bool("merge", false, "run nothing: build the matrix from the report `DIR`s given after the flags (each holding a results.json of `mcpspec run`, named by its --name or as NAME=DIR), as a matrix of those targets would")
	operands, err := parseInterspersed(fs, args, matrixUsage, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return reports.ExitOK, nil
		}
		return reports.ExitUsage, err
	}
	if err := checkGiven(fs); err != nil {
		return reports.ExitUsage, err
	}
	if *merge {
		return cmdMatrixMerge(fs, operands, *out, stdout, stderr)
	}
	if *config == "" || len(operands) > 0 {
		return reports.ExitUsage, usageErrorf("matrix: usage: %s", matrixUsage)
	}
	cfg, err := loadMatrixConfig(*config)
	if err != nil {
		return reports.ExitUsage, usageErrorf("matrix: %v", err)
	}
	if *parallel < 0 || *parallel == 0 && given(fs, "parallel") {
		return reports.ExitUsage, usageErrorf("matrix: --parallel must be at least 1, got %d", *parallel)
	}
	if *parallel > 0 {
		cfg.Parallel = *parallel
	}
	if *only != "" {
		if err := cfg.keepOnly(strings.Split(*only, ",")); err != nil {
			return reports.ExitUsage, usageErrorf("matrix: --targets: %v", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("matrix: find the mcpspec binary: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(*config))
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("matrix: %w", err)
	}
	outDir, err := filepath.Abs(*out)
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("matrix: %w", err)
	}

	// Ctrl-C or SIGTERM stops the running targets (their process groups) and still writes the matrix.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	results := runMatrixTargets(ctx, self, cfg, dir, outDir, *isolation, stdout)

	m := newMatrix()
	for _, r := range results {
		m.AddTarget(r.target, r.run)
	}
	if err := writeMatrix(m, outDir, stdout, stderr); err != nil {
		return reports.ExitHarness, err
	}
	differs, err := reportIsolation(results, outDir, stdout, stderr)
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("matrix: %w", err)
	}
	if m.Failed() || ctx.Err() != nil || differs {
		return reports.ExitHarness, nil
	}
	return reports.ExitOK, nil
}

// parseInterspersed parses flags wherever they stand among the operands, as `--merge a b --out x`
// is naturally written, and returns the operands; after "--" everything is an operand.
func parseInterspersed(fs *flag.FlagSet, args []string, usageLine string, stdout io.Writer) ([]string, error) {
	var operands []string
	for {
		if err := parseFlags(fs, args, usageLine, stdout); err != nil {
			return nil, err
		}
		rest := fs.Args()
		switch {
		case len(rest) == 0:
			return operands, nil
		case len(rest) < len(args) && args[len(args)-len(rest)-1] == "--":
			return append(operands, rest...), nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// matrixUsage is the usage line of `mcpspec matrix`.
const matrixUsage = "mcpspec matrix --config FILE [--out DIR] [--parallel N] [--targets LIST] [--isolation] | mcpspec matrix --merge [--out DIR] [NAME=]DIR..."

func newMatrix() *reports.Matrix {
	return &reports.Matrix{Tool: reports.Tool{Name: "mcpspec", Version: version}, GeneratedAt: time.Now().UTC().Format(time.RFC3339)}
}

// writeMatrix prints a line per target and writes the matrix files into outDir.
func writeMatrix(m *reports.Matrix, outDir string, stdout, stderr io.Writer) error {
	for _, t := range m.Targets {
		fmt.Fprintln(stdout, escapeControlBytes(t.String()))
		if t.Error != "" {
			// The reason may end in the target's stderr: its control bytes are shown, not obeyed.
			fmt.Fprintf(stderr, "mcpspec matrix: %s could not run: %s\n", t.Name, escapeControlBytes(t.Error))
		}
	}
	if err := reports.WriteMatrix(outDir, m); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	fmt.Fprintf(stdout, "matrix: %s\n", filepath.Join(outDir, reports.MatrixHTML))
	return nil
}

// targetOutcome is one target's run: what the matrix says of it, and its results if any.
type targetOutcome struct {
	target    reports.MatrixTarget
	run       *reports.Run
	isolation *isolationOutcome // its areas run alone (--isolation), nil otherwise
}

// runMatrixTargets runs every target, cfg.Parallel at a time in config order, and returns the
// outcomes in config order. With isolation each target's areas then run alone.
func runMatrixTargets(ctx context.Context, self string, cfg *matrixConfig, dir, out string, isolation bool, progress io.Writer) []targetOutcome {
	outcomes := make([]targetOutcome, len(cfg.Targets))
	next := make(chan int, len(cfg.Targets))
	for i := range cfg.Targets {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	var mu sync.Mutex // progress lines
	for range min(cfg.Parallel, len(cfg.Targets)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := cfg.Targets[i]
				start := time.Now()
				outcomes[i] = runMatrixTarget(ctx, self, cfg, t, dir, out)
				mu.Lock()
				fmt.Fprintf(progress, "ran %s in %.1fs (exit %d)\n", t.Name, time.Since(start).Seconds(), outcomes[i].target.ExitCode)
				mu.Unlock()
				// A client target has no shared session whose areas could interfere: nothing to isolate.
				if isolation && outcomes[i].run != nil && t.Client == "" {
					start := time.Now()
					iso := isolateTarget(ctx, self, cfg, t, dir, out, outcomes[i].run)
					outcomes[i].isolation = &iso
					mu.Lock()
					fmt.Fprintf(progress, "ran the %d areas of %s alone in %.1fs\n", iso.areas, t.Name, time.Since(start).Seconds())
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return outcomes
}

// runMatrixTarget runs one target as a `mcpspec run` subprocess in its own process group, bounded
// by the config's timeout; its console output goes to console.log beside its reports.
func runMatrixTarget(ctx context.Context, self string, cfg *matrixConfig, t matrixTarget, dir, out string) targetOutcome {
	if t.Client != "" {
		return runClientTarget(ctx, self, cfg, t, dir, out)
	}
	return runSubprocess(ctx, self, cfg, t, dir, filepath.Join(out, t.Name), t.Name+"/", "run", t.runArgs)
}

// runSubprocess runs one `mcpspec run` or `mcpspec client` (verb) of target t, writing its reports
// into targetOut; reportPrefix is that directory relative to the matrix files.
func runSubprocess(ctx context.Context, self string, cfg *matrixConfig, t matrixTarget, dir, targetOut, reportPrefix, verb string,
	argsOf func(cfg *matrixConfig, dir, out string, port int) ([]string, error)) targetOutcome {
	mt := reports.MatrixTarget{Name: t.Name, Description: t.describe(), ExitCode: -1}
	fail := func(format string, args ...any) targetOutcome {
		mt.Error = fmt.Sprintf(format, args...)
		return targetOutcome{target: mt}
	}
	if ctx.Err() != nil {
		return fail("interrupted before it started")
	}
	// A results.json left by an earlier matrix must never pass for this run's.
	if err := os.RemoveAll(targetOut); err != nil {
		return fail("clear %s: %v", targetOut, err)
	}
	if err := os.MkdirAll(targetOut, 0o755); err != nil {
		return fail("create %s: %v", targetOut, err)
	}
	port, err := freeLoopbackPort()
	if err != nil {
		return fail("%v", err)
	}
	args, err := argsOf(cfg, dir, targetOut, port)
	if err != nil {
		return fail("%v", err)
	}
	logFile, err := os.Create(filepath.Join(targetOut, matrixLogFile))
	if err != nil {
		return fail("create its console log: %v", err)
	}
	defer logFile.Close()

	runCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, self, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Stop gracefully first: on SIGTERM the run stops its targets and still writes its
	// reports. Only a run that has not ended within matrixStopGrace is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = matrixStopGrace
	var tail bytes.Buffer // stderr, for the reason when no results come back
	cmd.Stdout = logFile
	cmd.Stderr = io.MultiWriter(logFile, &tail)
	runErr := startTracked(cmd)
	if runErr == nil {
		runErr = cmd.Wait()
	}
	killed := endTracked(cmd)
	if cmd.ProcessState != nil {
		mt.ExitCode = cmd.ProcessState.ExitCode()
	}
	mt.Report = reportPrefix + reports.HTMLFile
	stopped := "stopped with SIGTERM"
	if killed {
		stopped = fmt.Sprintf("not ended %s after SIGTERM, killed", matrixStopGrace)
	}
	switch {
	case ctx.Err() != nil:
		mt.Error = "interrupted; " + stopped
	case runCtx.Err() != nil:
		mt.Error = fmt.Sprintf("did not finish within %s; %s", cfg.Timeout, stopped)
	case mt.ExitCode == reports.ExitUsage:
		mt.Error = "mcpspec " + verb + " refused the target's settings: " + lastLine(tail.String())
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) && mt.Error == "" {
		mt.Error = fmt.Sprintf("start mcpspec %s: %v", verb, runErr)
	}
	run, err := reports.ReadResults(filepath.Join(targetOut, reports.ResultsFile))
	if err != nil {
		if mt.Error == "" {
			mt.Error = fmt.Sprintf("no results (%v): %s", err, lastLine(tail.String()))
		}
		mt.Report = ""
		return targetOutcome{target: mt}
	}
	return targetOutcome{target: mt, run: run}
}

// lastLine is the last non-blank line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
