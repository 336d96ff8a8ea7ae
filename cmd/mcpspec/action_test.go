package main

// The GitHub Action (cmd/action/action.yml, used as <owner>/mcpspec/cmd/action@<ref>) cannot run
// here, but its parts can: the YAML is checked for what GitHub needs of a composite action, and
// cmd/action/action-run.sh, which
// holds every step's logic, runs as the composite steps call it, building mcpspec from this
// checkout and testing the bundled reference server.

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcpspec/mcpspec/reports"
)

// actionScriptTimeout bounds one step of the action's script: a go build of mcpspec (mostly
// cached after the tests' own build) and a focused run of the reference server.
const actionScriptTimeout = 3 * time.Minute

const (
	actionDir    = "../action" // github.action_path, seen from this package
	actionFile   = actionDir + "/action.yml"
	actionScript = actionDir + "/action-run.sh"
)

type actionStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

type actionSpec struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile(actionFile)
	if err != nil {
		t.Fatal(err)
	}
	var a actionSpec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" {
		t.Fatalf("action.yml needs a name, a description and runs.using: composite; got %q, %q, %q", a.Name, a.Description, a.Runs.Using)
	}
	for _, in := range []string{"stdio", "url", "sse", "http-cmd", "client", "client-transport", "baseline", "name", "args", "out"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("action.yml lacks the input %q", in)
		}
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Errorf("input %q has no description", name)
		}
	}
	byID := map[string]actionStep{}
	var uses []string
	for i, s := range a.Runs.Steps {
		// GitHub refuses a composite run step without a shell.
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %d (%s) runs a script without a shell", i, s.Name)
		}
		if s.ID != "" {
			byID[s.ID] = s
		}
		if s.Uses != "" {
			uses = append(uses, s.Uses)
		}
	}
	if len(a.Runs.Steps) == 0 || !strings.HasPrefix(a.Runs.Steps[0].Uses, "actions/setup-go@") || !strings.Contains(a.Runs.Steps[0].With["go-version-file"], "github.action_path") {
		t.Errorf("the first step must set up the Go of the action's own go.mod: %+v", a.Runs.Steps)
	}
	// setup-go's cache hashes its dependency path with hashFiles, which sees only the workspace:
	// the action's own go.sum is outside it (actions/setup-go#467), so the cache must be off.
	if len(a.Runs.Steps) > 0 {
		with := a.Runs.Steps[0].With
		if with["cache"] != "false" || strings.Contains(with["cache-dependency-path"], "github.action_path") {
			t.Errorf("setup-go must run with cache: false and no cache-dependency-path in the action's checkout: %v", with)
		}
		goMod := strings.ReplaceAll(with["go-version-file"], "${{ github.action_path }}", actionDir)
		if _, err := os.Stat(goMod); err != nil {
			t.Errorf("go-version-file %q does not resolve with the action in cmd/action: %v", with["go-version-file"], err)
		}
	}
	if !slices.ContainsFunc(uses, func(u string) bool { return strings.HasPrefix(u, "actions/upload-artifact@") }) {
		t.Errorf("no step uploads the reports: %q", uses)
	}

	// The run step passes every input to the script, under the name the script reads.
	run, ok := byID["run"]
	if !ok || !strings.Contains(run.Run, "$GITHUB_ACTION_PATH/action-run.sh\" run") {
		t.Fatalf("no step with id run calling $GITHUB_ACTION_PATH/action-run.sh run: %+v", run)
	}
	script, err := os.ReadFile(actionScript)
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bINPUT_[A-Z_]+`).FindAllString(string(script), -1) {
		read[m] = true
	}
	for name := range a.Inputs {
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if name == "fail-on-verdict" {
			continue // decided by the Verdict step's if:
		}
		if got := run.Env[env]; got != "${{ inputs."+name+" }}" {
			t.Errorf("the run step's env %s = %q, want ${{ inputs.%s }}", env, got, name)
		}
		if !read[env] {
			t.Errorf("the script never reads %s (input %q)", env, name)
		}
		delete(read, env)
	}
	for env := range read {
		t.Errorf("the script reads %s, which no input sets", env)
	}
	for name, out := range a.Outputs {
		if !strings.Contains(out.Value, "steps.run.outputs."+name) || !strings.Contains(string(script), name+"=") {
			t.Errorf("output %q: value %q, and the script must write %s=", name, out.Value, name)
		}
	}
}

// actionEnv is what a runner gives the composite step, with the action's directory this
// repository's cmd/action, and the workspace a directory of the test's.
type actionEnv struct {
	workspace, temp, output, summary string
}

func newActionEnv(t *testing.T) actionEnv {
	t.Helper()
	dir := t.TempDir()
	e := actionEnv{workspace: filepath.Join(dir, "workspace"), temp: filepath.Join(dir, "runner-temp"),
		output: filepath.Join(dir, "github-output"), summary: filepath.Join(dir, "step-summary")}
	for _, d := range []string{e.workspace, e.temp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// step runs the script's mode as the composite step does: bash, in the workspace, with the
// inputs as INPUT_* and the runner's variables.
func (e actionEnv) step(t *testing.T, mode string, env ...string) procRun {
	t.Helper()
	dir, err := filepath.Abs(actionDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), actionScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(dir, "action-run.sh"), mode)
	cmd.Dir = e.workspace
	cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=true", "GITHUB_ACTION_PATH="+dir, "RUNNER_TEMP="+e.temp,
		"GITHUB_OUTPUT="+e.output, "GITHUB_STEP_SUMMARY="+e.summary, "GITHUB_WORKSPACE="+e.workspace)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("action-run.sh %s did not finish within %s", mode, actionScriptTimeout)
	}
	code := 0
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			t.Fatalf("action-run.sh %s: %v", mode, err)
		}
		code = exitErr.ExitCode()
	}
	return procRun{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// outputs reads the step outputs the script wrote, name=value a line.
func (e actionEnv) outputs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(e.output)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		out[k] = v
	}
	return out
}

func TestActionScriptRunsTheSuite(t *testing.T) {
	t.Parallel()
	e := newActionEnv(t)
	built := filepath.Join(e.temp, "mcpspec-action", "mcpspec")
	// The reference server with a fault, as a user's server that breaks PING-RESPOND; args holds
	// one argument a line, spaces and regexp characters as written.
	inputs := []string{"INPUT_NAME=faulty", "INPUT_OUT=report",
		"INPUT_STDIO=" + built + " reference --fault PING-RESPOND",
		"INPUT_ARGS=--focus\n  ^(PING-RESPOND|JRPC-METHOD-NOT-FOUND) \n\n--versions=2025-06-18\n"}
	r := e.step(t, "run", inputs...)
	if r.code != 0 {
		t.Fatalf("run step: exit %d, want 0 whatever the verdict (the reports are uploaded next)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "::error title=PING-RESPOND::") {
		t.Errorf("the run step printed no annotation for the failure:\n%s", r.stdout)
	}
	report := filepath.Join(e.workspace, "report")
	want := map[string]string{"exit-code": "1", "report-dir": report, "artifact-name": "mcpspec-report-faulty", "mcpspec": built}
	if got := e.outputs(t); !maps.Equal(got, want) {
		t.Errorf("outputs %q, want %q", got, want)
	}
	run := assertReports(t, report)
	if run.Target.Name != "faulty" || len(run.Results) != 2 || run.Summary[reports.Fail] != 1 {
		t.Errorf("results.json: name %q, %d results, summary %v; want faulty with PING-RESPOND failing and JRPC-METHOD-NOT-FOUND passing", run.Target.Name, len(run.Results), run.Summary)
	}
	summary, err := os.ReadFile(e.summary)
	if err != nil {
		t.Fatal(err)
	}
	own, err := os.ReadFile(filepath.Join(report, reports.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	// mcpspec run --github appends summary.md once, after a blank line; the script adds nothing.
	if !bytes.Equal(summary, append([]byte("\n"), own...)) || !strings.Contains(string(summary), "PING-RESPOND") {
		t.Errorf("the job summary should be summary.md, once:\n%s", summary)
	}
	v := e.step(t, "verdict", "MCPSPEC_EXIT_CODE=1")
	if v.code != 1 || !strings.Contains(v.stdout, "::error title=mcpspec::unexpected failures") {
		t.Errorf("verdict step: exit %d, stdout %q; want 1 with an error annotation", v.code, v.stdout)
	}

	// With a baseline that accepts the failure the run is conformant; outputs accumulate in
	// GITHUB_OUTPUT as on a runner, so it starts afresh.
	if err := os.Remove(e.output); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.workspace, "known.yaml"), []byte("expected:\n  - id: PING-RESPOND\n    reason: the fault under test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.step(t, "run", append(inputs, "INPUT_BASELINE=known.yaml", "INPUT_NAME=", "INPUT_OUT=")...)
	if r.code != 0 {
		t.Fatalf("run step with a baseline: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	got := e.outputs(t)
	if got["exit-code"] != "0" || got["artifact-name"] != "mcpspec-report" || got["report-dir"] != filepath.Join(e.workspace, "mcpspec-report") {
		t.Errorf("outputs with a baseline, no name and the default out: %q", got)
	}
	if v := e.step(t, "verdict", "MCPSPEC_EXIT_CODE=0"); v.code != 0 {
		t.Errorf("verdict of a conformant run: exit %d, stdout %q", v.code, v.stdout)
	}
}

// TestActionScriptRunsAClient: with the input client the action runs `mcpspec client`, over
// the transport client-transport names, with the same annotations, summary and outputs.
func TestActionScriptRunsAClient(t *testing.T) {
	t.Parallel()
	e := newActionEnv(t)
	built := filepath.Join(e.temp, "mcpspec-action", "mcpspec")
	r := e.step(t, "run", "INPUT_NAME=refclient", "INPUT_CLIENT="+built+" reference-client --fault PING-RESPOND",
		"INPUT_CLIENT_TRANSPORT=stdio", "INPUT_ARGS=--scenario\ntools_call\n--versions=2025-06-18\n--timeout-request=500ms\n--timeout-idle=5s")
	if r.code != 0 {
		t.Fatalf("run step: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "::error title=PING-RESPOND::") {
		t.Errorf("the run step printed no annotation for the client's failure:\n%s", r.stdout)
	}
	report := filepath.Join(e.workspace, "mcpspec-report")
	if got := e.outputs(t); got["exit-code"] != "1" || got["report-dir"] != report || got["artifact-name"] != "mcpspec-report-refclient" {
		t.Errorf("outputs %q", got)
	}
	run := assertReports(t, report)
	if run.Target.Kind != reports.KindClient || run.Target.Name != "refclient" || !slices.Equal(run.Target.Transports, []string{"stdio"}) || run.Summary[reports.Fail] == 0 {
		t.Errorf("results.json: %+v, summary %v; want the client over stdio, PING-RESPOND failing", run.Target, run.Summary)
	}
	if summary, err := os.ReadFile(e.summary); err != nil || !strings.Contains(string(summary), "PING-RESPOND") {
		t.Errorf("job summary (%v):\n%s", err, summary)
	}
	for _, bad := range [][]string{{"INPUT_CLIENT=c", "INPUT_STDIO=s"}, {"INPUT_CLIENT=c", "INPUT_CLIENT_TRANSPORT=ws"}} {
		if r := e.step(t, "run", bad...); r.code != reports.ExitUsage {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", bad, r.code, r.stderr)
		}
	}
}

// A target input left empty (an unset variable, a missing secret) fails the step before
// anything is built or run: never the bundled reference server's green run.
func TestActionScriptRefusesNoTarget(t *testing.T) {
	t.Parallel()
	e := newActionEnv(t)
	r := e.step(t, "run", "INPUT_STDIO= ", "INPUT_URL=", "INPUT_SSE=")
	if r.code != reports.ExitUsage || !strings.Contains(r.stderr, "no target: give the input stdio, url, sse or client") {
		t.Errorf("exit %d, stderr %q; want 2 naming the inputs", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.temp, "mcpspec-action")); !os.IsNotExist(err) {
		t.Errorf("mcpspec was built although nothing could run: %v", err)
	}
	for code, want := range map[string]string{"": "set no exit code", "x1": "not a number", "3": "harness or infrastructure error"} {
		if v := e.step(t, "verdict", "MCPSPEC_EXIT_CODE="+code); v.code != reports.ExitHarness || !strings.Contains(v.stderr, want) {
			t.Errorf("verdict of %q: exit %d, stderr %q; want 3 saying %q", code, v.code, v.stderr, want)
		}
	}
}
