package main

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
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcpspec/mcpspec/reports"
)

// matrixConfig is the YAML file `mcpspec matrix --config` reads.
type matrixConfig struct {
	Revisions []string       `yaml:"revisions"` // default: all
	Timeout   string         `yaml:"timeout"`   // per target run, default 10m
	Targets   []matrixTarget `yaml:"targets"`
}

// matrixTarget is one server, reached one way. {port} in any string becomes a free loopback port,
// {dir} the directory of the config file, and ${VAR} an environment variable.
type matrixTarget struct {
	Name         string            `yaml:"name"`
	Stdio        string            `yaml:"stdio"`
	URL          string            `yaml:"url"`
	SSE          string            `yaml:"sse"`
	HTTPCmd      string            `yaml:"httpCmd"`
	Env          map[string]string `yaml:"env"`
	Cwd          string            `yaml:"cwd"`
	Baseline     string            `yaml:"baseline"`
	SlowTool     string            `yaml:"slowTool"`
	SlowToolArgs map[string]any    `yaml:"slowToolArgs"`
	Versions     []string          `yaml:"versions"` // overrides the file's revisions
	Args         []string          `yaml:"args"`     // further `mcpspec run` flags
}

var targetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func loadMatrixConfig(path string) (*matrixConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg matrixConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		// yaml lists every problem on a line of its own; the CLI's reason is one line.
		return nil, fmt.Errorf("%s: %s", path, strings.Join(strings.Fields(err.Error()), " "))
	}
	if len(cfg.Targets) == 0 {
		return nil, fmt.Errorf("%s: no targets", path)
	}
	seen := map[string]bool{}
	for i, t := range cfg.Targets {
		switch {
		case !targetName.MatchString(t.Name):
			return nil, fmt.Errorf("%s: target %d: name %q must be letters, digits, '.', '_' or '-'", path, i+1, t.Name)
		case seen[t.Name]:
			return nil, fmt.Errorf("%s: target %q listed twice", path, t.Name)
		case (t.Stdio != "") == (t.URL != "" || t.SSE != ""):
			return nil, fmt.Errorf("%s: target %q needs exactly one of stdio, or url/sse (with an optional httpCmd)", path, t.Name)
		}
		seen[t.Name] = true
	}
	if cfg.Timeout == "" {
		cfg.Timeout = "10m"
	}
	if _, err := time.ParseDuration(cfg.Timeout); err != nil {
		return nil, fmt.Errorf("%s: timeout: %w", path, err)
	}
	return &cfg, nil
}

// runArgs are the `mcpspec run` arguments for one target.
func (t matrixTarget) runArgs(cfg *matrixConfig, dir, out string) ([]string, error) {
	port, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "{port}", fmt.Sprint(port))
		s = strings.ReplaceAll(s, "{dir}", dir)
		return os.ExpandEnv(s)
	}
	args := []string{"run", "--out", out, "--no-color"}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, expand(v))
		}
	}
	add("--stdio", t.Stdio)
	add("--url", t.URL)
	add("--sse", t.SSE)
	add("--http-cmd", t.HTTPCmd)
	add("--cwd", t.Cwd)
	if t.Baseline != "" {
		args = append(args, "--baseline", filepath.Join(dir, expand(t.Baseline)))
	}
	add("--slow-tool", t.SlowTool)
	if t.SlowToolArgs != nil {
		b, err := json.Marshal(t.SlowToolArgs)
		if err != nil {
			return nil, err
		}
		args = append(args, "--slow-tool-args", string(b))
	}
	keys := make([]string, 0, len(t.Env))
	for k := range t.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--env", k+"="+expand(t.Env[k]))
	}
	versions := t.Versions
	if len(versions) == 0 {
		versions = cfg.Revisions
	}
	if len(versions) > 0 {
		args = append(args, "--versions", strings.Join(versions, ","))
	}
	for _, a := range t.Args {
		args = append(args, expand(a))
	}
	return args, nil
}

func (t matrixTarget) describe() string {
	switch {
	case t.Stdio != "":
		return "stdio: " + t.Stdio
	case t.SSE != "":
		return "sse: " + t.SSE
	}
	return "http: " + t.URL
}

func cmdMatrix(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config := fs.String("config", "", "the YAML `FILE` listing the targets")
	out := fs.String("out", "mcpspec-matrix", "write matrix.json, matrix.md, matrix.html and one report directory per target into `DIR`")
	if err := fs.Parse(args); err != nil {
		return reports.ExitUsage, usageErrorf("matrix: %v", err)
	}
	if *config == "" || fs.NArg() > 0 {
		return reports.ExitUsage, usageErrorf("matrix: usage: mcpspec matrix --config FILE [--out DIR]")
	}
	cfg, err := loadMatrixConfig(*config)
	if err != nil {
		return reports.ExitUsage, usageErrorf("matrix: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("matrix: find the mcpspec binary: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(*config))
	if err != nil {
		return reports.ExitHarness, err
	}
	timeout, _ := time.ParseDuration(cfg.Timeout)
	m := &reports.Matrix{Tool: reports.Tool{Name: "mcpspec", Version: version}, Revisions: cfg.Revisions}
	code := reports.ExitOK
	for _, t := range cfg.Targets {
		mt, run := runMatrixTarget(self, cfg, t, dir, *out, timeout)
		if mt.Error != "" {
			code = reports.ExitHarness
			fmt.Fprintf(stderr, "mcpspec matrix: %s: %s\n", t.Name, mt.Error)
		}
		fmt.Fprintf(stdout, "%-24s exit %d  %s\n", t.Name, mt.ExitCode, summaryLine(run))
		m.AddRun(mt, run)
	}
	if err := reports.WriteMatrix(*out, m); err != nil {
		return reports.ExitHarness, err
	}
	fmt.Fprintf(stdout, "matrix: %s\n", filepath.Join(*out, reports.MatrixHTML))
	return code, nil
}

func summaryLine(run *reports.Run) string {
	if run == nil {
		return "no results"
	}
	run.Summarize()
	var parts []string
	for _, s := range reports.AllStatuses() {
		if n := run.Summary[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, n))
		}
	}
	return strings.Join(parts, ", ")
}

// runMatrixTarget runs one target as a `mcpspec run` subprocess (Ginkgo runs once per process,
// and one target's crash must not touch the others) in its own process group, bounded by timeout.
func runMatrixTarget(self string, cfg *matrixConfig, t matrixTarget, dir, out string, timeout time.Duration) (reports.MatrixTarget, *reports.Run) {
	mt := reports.MatrixTarget{Name: t.Name, Description: t.describe(), Report: t.Name + "/" + reports.HTMLFile}
	targetOut := filepath.Join(out, t.Name)
	args, err := t.runArgs(cfg, dir, targetOut)
	if err != nil {
		mt.Error, mt.ExitCode = err.Error(), reports.ExitHarness
		return mt, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	cmd.Stdout = io.Discard
	err = cmd.Run()
	mt.ExitCode = cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		mt.Error = err.Error()
	}
	if ctx.Err() != nil {
		mt.Error = fmt.Sprintf("did not finish within %s", timeout)
	}
	run, rerr := reports.ReadResults(filepath.Join(targetOut, reports.ResultsFile))
	if rerr != nil {
		mt.Error = strings.TrimSpace(fmt.Sprintf("%s no results: %v; %s", mt.Error, rerr, lastLine(errOut.String())))
		return mt, nil
	}
	switch {
	case mt.ExitCode == reports.ExitUsage:
		mt.Error = "bad configuration: " + lastLine(errOut.String())
	case mt.ExitCode == reports.ExitHarness && len(run.Errors) > 0:
		mt.Error = run.Errors[0]
	case mt.ExitCode == reports.ExitHarness:
		mt.Error = "harness or infrastructure error (see its report)"
	}
	return mt, run
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
