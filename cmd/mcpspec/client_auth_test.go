package main

// The client authorization self-test: over the auth/* scenarios the clean reference client
// passes every authorization check, each authorization fault breaks its own check (at its
// level) and no other, and no secret the run minted reaches a report or mcpspec's output.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
)

// authCheckIDs are the client checks that judge the auth/* scenarios.
func authCheckIDs(t *testing.T) []*clientsuite.Check {
	t.Helper()
	checks, err := clientsuite.Checks()
	if err != nil {
		t.Fatal(err)
	}
	var out []*clientsuite.Check
	for _, c := range checks {
		if probe.IsAuth(c.Scenario) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatal("no authorization client check registered")
	}
	return out
}

// runAuthClient runs the auth/* scenarios on the reference client with extra client flags.
func runAuthClient(t *testing.T, d runDir, clientFlags string, extra ...string) (procRun, *reports.Run, string) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"client", "--cmd", d.mcpspec + " reference-client" + clientFlags, "--scenario", "auth/*", "--out", out}, clientTestTimeouts...)
	r := runBinary(t, clientRunTimeout, d.mcpspec, append(args, extra...)...)
	return r, assertReports(t, out), out
}

func TestClientAuthReferencePasses(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	r, run, _ := runAuthClient(t, d, "")
	if r.code != reports.ExitOK {
		t.Errorf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	seen := map[string]bool{}
	for _, res := range run.Results {
		seen[res.ID] = true
		if res.Status != reports.Pass {
			t.Errorf("%s %s: %s, want pass: %s", res.ID, res.Version, res.Status, res.Message)
		}
		if res.Transport != "http" || len(res.Evidence) == 0 || res.SpecURL == "" {
			t.Errorf("%s %s: transport %q, %d exchanges, spec %q", res.ID, res.Version, res.Transport, len(res.Evidence), res.SpecURL)
		}
	}
	for _, c := range authCheckIDs(t) {
		for _, rev := range c.Versions {
			if !slices.ContainsFunc(run.Results, func(res reports.Result) bool { return res.ID == c.ID && res.Version == rev }) {
				t.Errorf("%s has no result at %s", c.ID, rev)
			}
		}
	}
	assertNoLeftovers(t, d)
}

// TestClientAuthNotOverStdio: authorization is Streamable HTTP's alone; over stdio the auth
// scenarios are not served, so nothing runs.
func TestClientAuthNotOverStdio(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, clientRunTimeout, d.mcpspec, "client", "--stdio", "--cmd", d.mcpspec+" reference-client", "--scenario", "auth/*", "--out", out)
	if r.code != reports.ExitNothingRan {
		t.Errorf("exit %d, want %d (nothing to run over stdio)\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitNothingRan, r.stdout, r.stderr)
	}
}

// readLines reads the non-empty lines of a file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestClientAuthFaultsFail: each authorization fault breaks its own check, at its level, in the
// scenarios that check judges; the others may lose their evidence (na, untestable: a flow the
// fault broke issues no token), never fail.
func TestClientAuthFaultsFail(t *testing.T) {
	t.Parallel()
	for _, c := range authCheckIDs(t) {
		// One after another: each run is short (well under a second), and a burst would load
		// the 2-core machine under the package's timing-sensitive tests.
		t.Run(c.ID, func(t *testing.T) {
			d := newRunDir(t)
			scenarios := strings.Join(append([]string{c.Scenario}, c.Also...), ",")
			out := t.TempDir()
			args := append([]string{"client", "--cmd", d.mcpspec + " reference-client --fault " + c.ID, "--scenario", scenarios, "--out", out}, clientTestTimeouts...)
			r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
			run := assertReports(t, out)
			want := reports.Fail
			if c.Level == "SHOULD" {
				want = reports.Warn
			}
			broken := 0
			for _, res := range run.Results {
				switch {
				case res.ID == c.ID && res.Status == want:
					broken++
				case res.ID == c.ID && (res.Status == reports.Pass || res.Status == reports.NA):
					// The fault shows in some of the check's scenarios, not all.
				case res.Status != reports.Pass && res.Status != reports.NA && res.Status != reports.Untestable:
					t.Errorf("the fault %s also made %s %s %s: %s", c.ID, res.ID, res.Version, res.Status, res.Message)
				}
			}
			if broken == 0 {
				t.Errorf("the fault %s made no %s result %s\nstdout:\n%s", c.ID, c.ID, want, r.stdout)
			}
			if wantCode := map[reports.Status]int{reports.Fail: reports.ExitFailures, reports.Warn: reports.ExitOK}[want]; r.code != wantCode {
				t.Errorf("exit %d, want %d\nstderr:\n%s", r.code, wantCode, r.stderr)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// TestClientAuthSecretsStayOut: every secret of an authorization run (access and refresh
// tokens, client secrets, codes, code verifiers) stays out of every report, the transcript-like
// evidence and mcpspec's output — even though the reference client here writes each one to its
// stderr, which the reports keep as evidence, and puts its token in a query string (the
// BEARER-HEADER fault), which the probe records.
func TestClientAuthSecretsStayOut(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	log := filepath.Join(t.TempDir(), "secrets.log")
	r, run, out := runAuthClient(t, d, " --secrets-log "+log+" --fault AUTH-CLIENT-BEARER-HEADER")
	if r.code != reports.ExitFailures {
		t.Errorf("exit %d, want 1 (the fault fails AUTH-CLIENT-BEARER-HEADER)\nstderr:\n%s", r.code, r.stderr)
	}
	secrets := readLines(t, log)
	kinds := map[string]bool{}
	for _, s := range secrets {
		for _, k := range []string{"mcpspec-at-", "mcpspec-rt-", "mcpspec-cs-", "mcpspec-code-"} {
			if strings.HasPrefix(s, k) {
				kinds[k] = true
			}
		}
	}
	// auth/client-credentials-jwt: the context's private key (a base64 line of its PEM each) and
	// the client's signed assertions (JWTs) are secrets too.
	for _, s := range secrets {
		if strings.HasPrefix(s, "eyJ") && strings.Count(s, ".") == 2 {
			kinds["client_assertion"] = true
		}
	}
	// Each kind minted, and verifiers and key lines (of no prefix) beside them: else the test
	// proves nothing.
	if len(kinds) != 5 || len(secrets) < 10 {
		t.Fatalf("the run minted %d secrets of kinds %v: too few to prove anything", len(secrets), kinds)
	}
	stderrEvidence := false
	for _, res := range run.Results {
		for _, e := range res.Evidence {
			stderrEvidence = stderrEvidence || (e.Channel == "stderr" && strings.Contains(e.Body, "reference-client: access_token"))
		}
	}
	if !stderrEvidence {
		t.Error("no report kept the client's stderr with its leaked secrets as evidence: the test proves less than it says")
	}
	for _, s := range secrets {
		if leaks := secretLeaks(t, s, r, out); len(leaks) > 0 {
			t.Errorf("the secret %q appears in %v", s, leaks)
		}
	}
}
