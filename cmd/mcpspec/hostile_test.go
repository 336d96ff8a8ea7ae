package main

// Hostile targets (fixtures/misbehaving): what they print cannot command a CI runner, and the
// secrets they echo, in whatever encoding, reach no report, transcript or console.

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

// hostileRunTimeout bounds one narrow run against a misbehave mode on a loaded machine.
const hostileRunTimeout = 90 * time.Second

// assertOnlyOwnAnnotations fails when the runner would read a line of console as a workflow
// command other than one of mcpspec's own annotations, and when there is none of those (the
// test would prove nothing about the trusted path).
func assertOnlyOwnAnnotations(t *testing.T, console string, wantOwn bool) {
	t.Helper()
	own := 0
	for _, cmd := range runnerCommands(console) {
		if !ownAnnotation.MatchString(cmd) {
			t.Errorf("the runner would read this line as a command: %q", cmd)
			continue
		}
		own++
	}
	if wantOwn && own == 0 {
		t.Errorf("no annotation of mcpspec's own in the console:\n%s", tail(console, 20))
	}
}

func TestHostileWorkflowCommandsRun(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	r := runBinary(t, hostileRunTimeout, d.mcpspec, "run", "--stdio", d.misbehave+" --mode workflow-commands",
		"--github", "--versions", "2025-06-18", "--focus", "TOOL-UNKNOWN|JRPC-ERROR-MESSAGE|PING-RESPOND", "--out", t.TempDir())
	if r.code != reports.ExitFailures && r.code != reports.ExitOK {
		t.Errorf("exit %d, want 0 or 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	console := r.stdout + "\n" + r.stderr
	if !strings.Contains(console, `#\u0023[error]forged`) {
		t.Fatalf("the target's forged command never reached the console: the test proves nothing\n%s", console)
	}
	assertOnlyOwnAnnotations(t, console, true)
	assertNoLeftovers(t, d)
}

func TestHostileWorkflowCommandsMatrix(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "matrix.yaml")
	// The target's run refuses a --focus full of commands and control bytes: the matrix prints
	// its reason, the target's own text.
	yaml := fmt.Sprintf("targets:\n  - name: hostile\n    stdio: %s --mode workflow-commands\n    args: [\"--focus\", \"\\e]0;x\\a::stop-commands::x ##[error]forged (\"]\n", d.misbehave)
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, hostileRunTimeout, d.mcpspec, "matrix", "--config", config, "--out", filepath.Join(dir, "out"))
	console := r.stdout + "\n" + r.stderr
	if !strings.Contains(console, `#\u0023[error]forged`) {
		t.Fatalf("the target's text never reached the console: the test proves nothing\n%s", console)
	}
	assertOnlyOwnAnnotations(t, console, false)
	if strings.ContainsAny(console, "\x1b\a") {
		t.Errorf("raw ESC or BEL of the target's on the matrix console:\n%q", console)
	}
	assertNoLeftovers(t, d)
}

// echoedForms is secret as encoders other than Go's echo it: Python's \u escapes of non-ASCII,
// .NET's upper-case escapes of +, <, >, every character escaped, URL and base64 encodings.
func echoedForms(secret string) []string {
	var every strings.Builder
	for _, u := range []rune(secret) {
		fmt.Fprintf(&every, `\u%04X`, u)
	}
	return []string{secret, strings.ReplaceAll(secret, "É", `\u00c9`), `\u00C9toile\u002B42\u003Cx\u003E`, every.String(),
		url.QueryEscape(secret), url.PathEscape(secret), base64.StdEncoding.EncodeToString([]byte(secret))}
}

func TestHostileEchoedSecretsStayOut(t *testing.T) {
	t.Parallel()
	const secret = "Étoile+42<x>"
	d := newRunDir(t)
	out, trans := t.TempDir(), t.TempDir()
	r := runBinary(t, hostileRunTimeout, d.mcpspec, "run", "--stdio", d.misbehave+" --mode echo-env",
		"--env", "ECHO_TOKEN="+secret, "--env", "DEBUG=true", "--versions", "2025-06-18",
		"--focus", "TOOL-UNKNOWN|PING-RESPOND", "--transcript", trans, "--out", out)
	if r.code != reports.ExitFailures && r.code != reports.ExitOK {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	texts := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	for _, dir := range []string{out, trans} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			texts[e.Name()] = string(b)
		}
	}
	if !strings.Contains(texts["transcript.jsonl"], reports.Redacted) {
		t.Fatalf("the transcript holds no redaction: the echoed secret never reached it, the test proves nothing")
	}
	if !strings.Contains(texts["transcript.jsonl"], "true") {
		t.Error("DEBUG=true blanked every JSON true of the transcript")
	}
	for _, form := range echoedForms(secret) {
		for name, text := range texts {
			if strings.Contains(text, form) {
				t.Errorf("%s holds the secret as %q", name, form)
			}
		}
	}
	assertNoLeftovers(t, d)
}

// A server's child that leaves the process group with setsid and ignores SIGTERM escapes every
// group kill: mcpspec, a child subreaper, inherits it and ends it before it exits.
func TestHostileSetsidEscapeeEnds(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"run", "client"} {
		t.Run(verb, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			target := d.misbehave + " --mode setsid-escape"
			args := []string{"run", "--stdio", target, "--focus", "PING-RESPOND", "--versions", "2025-06-18"}
			if verb == "client" {
				args = []string{"client", "--stdio", "--cmd", target}
			}
			r := runBinary(t, hostileRunTimeout, d.mcpspec, append(args, "--out", t.TempDir())...)
			if r.code == reports.ExitUsage {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// On a target's timeout the matrix stops its run with SIGTERM, so the run stops its servers
// and writes its reports; the servers, even one that ignores SIGTERM and a setsid'd child of
// it, do not outlive the matrix.
func TestMatrixStopsATimedOutTargetGracefully(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "matrix.yaml")
	// The server ignores SIGTERM, escapes a setsid'd child and never answers initialize, and
	// the run waits for it far longer than the matrix's timeout.
	script := filepath.Join(dir, "server.sh")
	body := fmt.Sprintf("#!/bin/sh\ntrap '' TERM\n%[1]s --mode setsid-escape </dev/null >/dev/null &\n%[1]s --mode no-init --max-lifetime 5m\n", d.misbehave)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf("timeout: 3s\ntargets:\n  - name: slow\n    stdio: %s\n    args: [\"--timeout-startup\", \"5m\", \"--focus\", \"PING-RESPOND\", \"--versions\", \"2025-06-18\"]\n", script)
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := runBinary(t, hostileRunTimeout, d.mcpspec, "matrix", "--config", config, "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitHarness, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout+r.stderr, "did not finish within 3s; stopped with SIGTERM") {
		t.Errorf("the matrix does not say the run was stopped with SIGTERM:\n%s\n%s", r.stdout, r.stderr)
	}
	if _, err := reports.ReadResults(filepath.Join(out, "slow", reports.ResultsFile)); err != nil {
		t.Errorf("the stopped run wrote no reports: %v", err)
	}
	assertNoLeftovers(t, d)
}

// A stdout line over the framing limit is skipped, and the run says so at once rather than
// "did not answer initialize" at the startup timeout: the startup timeout is far beyond the
// run's bound, so a run that waited for it fails the test.
func TestHostileOversizeLineIsNamed(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, hostileRunTimeout, d.mcpspec, "run", "--stdio", d.misbehave+" --mode oversize-line",
		"--focus", "PING-RESPOND", "--versions", "2025-06-18", "--timeout-startup", "30m", "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit %d, want %d", r.code, reports.ExitHarness)
	}
	b, err := os.ReadFile(filepath.Join(out, reports.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "line over the 16 MiB framing limit") || strings.Contains(string(b), "did not answer initialize") {
		t.Errorf("results.json does not name the oversized line:\n%s", tail(string(b), 30))
	}
	assertNoLeftovers(t, d)
}

// A client under test whose stderr is full of workflow commands: its stderr tail reaches the
// console, its commands do not reach the runner.
func TestHostileWorkflowCommandsClient(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	args := append([]string{"client", "--stdio", "--cmd", d.misbehave + " --mode workflow-commands", "--out", t.TempDir()}, clientTestFlags...)
	r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
	console := r.stdout + "\n" + r.stderr
	if !strings.Contains(console, "stop-commands") {
		t.Fatalf("the client's stderr never reached the console: the test proves nothing\n%s", tail(console, 20))
	}
	assertOnlyOwnAnnotations(t, console, false)
	assertNoLeftovers(t, d)
}
