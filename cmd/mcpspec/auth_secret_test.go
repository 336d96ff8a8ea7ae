package main

// The AUTH checks move the run's own token into other headers and into the query string: it
// must stay out of every report and transcript there too, percent-encoded or not.

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

func TestParseRunSecretsIncludeTheQueryForm(t *testing.T) {
	t.Parallel()
	const token = "tok+with/slash="
	cfg, err := parseRun([]string{"--url", "http://127.0.0.1:9/mcp", "--header", "Authorization: Bearer " + token}, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cfg.secrets, token) {
		t.Errorf("secrets %q lack %q", cfg.secrets, token)
	}
	// The query form is found by the redactor itself (harness/secrets), in either hex case.
	redact := reports.Redactor(cfg.secrets)
	for _, form := range []string{url.QueryEscape(token), strings.ToLower(url.QueryEscape(token))} {
		if got := redact("?access_token=" + form); got != "?access_token="+reports.Redacted {
			t.Errorf("the query form %q redacted to %q", form, got)
		}
	}
}

func TestAuthChecksKeepTheRunTokenOut(t *testing.T) {
	t.Parallel()
	const token = "run+tok/s3cr3t="
	d := newRunDir(t)
	out, wireDir := t.TempDir(), filepath.Join(t.TempDir(), "wire")
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	// The faults make the checks that carry the token elsewhere fail, so their exchanges are
	// in the reports as evidence.
	server := d.mcpspec + " reference --http " + addr + " --auth-token " + token +
		" --fault AUTH-MALFORMED-HEADER --fault AUTH-QUERY-TOKEN"
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--http-cmd", server, "--url", "http://"+addr+"/mcp",
		"--header", "Authorization: Bearer "+token, "--focus", "AUTH-(MALFORMED-HEADER|QUERY-TOKEN)",
		"--transcript", wireDir, "--out", out)
	if r.code != reports.ExitFailures {
		t.Fatalf("exit code %d, want %d (the faults fail both checks)\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitFailures, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	failed := 0
	for _, res := range run.Results {
		if res.Status == reports.Fail {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("no check failed: the token was never moved, so the test proves nothing")
	}
	transcript, err := os.ReadFile(filepath.Join(wireDir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{token, url.QueryEscape(token), strings.TrimSuffix(token, "=")} {
		if leaks := secretLeaks(t, secret, r, out); len(leaks) > 0 {
			t.Errorf("%q appears in %v", secret, leaks)
		}
		if strings.Contains(string(transcript), secret) {
			t.Errorf("%q appears in the transcript", secret)
		}
	}
}

// A run without the token of a server that requires authorization cannot test it: every check
// is an error naming the 401 and the flag that gives the token, exit 3. It used to report the
// revisions as not served and the checks that open sessions of their own as MUST failures. So
// does a run whose requests the server forbids (403).
func TestRunWithoutTheTokenCannotTest(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	server := d.mcpspec + " reference --http " + addr + " --auth-token run-token"
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--http-cmd", server, "--url", "http://"+addr+"/mcp",
		"--versions", "2025-06-18,2026-07-28", "--out", out)
	if r.code != reports.ExitHarness {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitHarness, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	for _, res := range run.Results {
		if res.Status != reports.Error || !strings.Contains(res.Message, "HTTP 401: the server requires authorization") ||
			!strings.Contains(res.Message, `--header "Authorization: Bearer TOKEN"`) {
			t.Errorf("%s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}

	// A 403 (here the reference refusing the Origin the run sends) cannot be tested either.
	out = t.TempDir()
	addr = fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	r = runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--http-cmd", d.mcpspec+" reference --http "+addr, "--url", "http://"+addr+"/mcp",
		"--header", "Origin: http://foreign.invalid", "--versions", "2025-06-18", "--out", out)
	if r.code != reports.ExitHarness {
		t.Fatalf("with a refused Origin: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitHarness, r.stdout, r.stderr)
	}
	for _, res := range assertReports(t, out).Results {
		if res.Status != reports.Error || !strings.Contains(res.Message, "HTTP 403: the server forbids this run's requests") {
			t.Errorf("with a refused Origin: %s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}
}
