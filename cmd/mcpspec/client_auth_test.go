package main

// The client authorization tests through the binary: no secret the run minted reaches a report
// or mcpspec's output, and the authorization scenarios' particular paths (over stdio, eager
// discovery, the client credentials grant). That the clean reference client passes every
// authorization check and each fault breaks its own and no other is proven in process, with the
// other client checks (suites/selftest/client_mutation_test.go).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// runAuthClient runs the auth/* scenarios on the reference client with extra client flags.
func runAuthClient(t *testing.T, d runDir, clientFlags string, extra ...string) (procRun, *reports.Run, string) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"client", "--cmd", d.mcpspec + " reference-client" + clientFlags, "--scenario", "auth/*", "--out", out}, clientTestFlags...)
	r := runBinary(t, clientRunTimeout, d.mcpspec, append(args, extra...)...)
	return r, assertReports(t, out), out
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

// TestClientAuthEagerDiscovery: a client that discovers from the well-known URIs before its first
// request (--auth-eager, as mcp-go does) is never challenged where the metadata is there, and is
// still judged by its discovery requests: the clean one passes (no untestable but the 2025-06-18
// fallback, which is 2025-11-25's), and each discovery fault breaks its check.
func TestClientAuthEagerDiscovery(t *testing.T) {
	t.Parallel()
	scenarios := "auth/metadata-default,auth/metadata-var2,auth/metadata-var3,auth/resource-mismatch,auth/basic-cimd"
	for _, tc := range []struct{ fault, check string }{
		{"", ""},
		{"AUTH-CLIENT-PRM-DISCOVERY", "AUTH-CLIENT-PRM-DISCOVERY"},
		{"AUTH-CLIENT-AS-DISCOVERY", "AUTH-CLIENT-AS-DISCOVERY"},
		{"AUTH-CLIENT-PRM-RESOURCE-MATCH", "AUTH-CLIENT-PRM-RESOURCE-MATCH"},
	} {
		t.Run("fault="+tc.fault, func(t *testing.T) {
			d := newRunDir(t)
			flags := " --auth-eager"
			if tc.fault != "" {
				flags += " --fault " + tc.fault
			}
			out := t.TempDir()
			args := append([]string{"client", "--cmd", d.mcpspec + " reference-client" + flags, "--scenario", scenarios, "--out", out}, clientTestFlags...)
			r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
			run := assertReports(t, out)
			early, broken := 0, 0
			for _, res := range run.Results {
				switch {
				case res.ID == tc.check && res.Status == reports.Fail:
					broken++
				case res.Status == reports.Pass || res.Status == reports.NA:
					if strings.Contains(res.Message, "before any challenge") {
						early++
					}
				case res.Status == reports.Untestable && res.ID == "AUTH-CLIENT-PRM-DISCOVERY" && res.Version == "2025-06-18":
				case tc.fault == "" || res.Status != reports.Untestable:
					t.Errorf("%s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
				}
			}
			if tc.fault == "" {
				if r.code != reports.ExitOK || early == 0 {
					t.Errorf("exit %d, %d results judged before any challenge; want 0 and some\nstdout:\n%s", r.code, early, r.stdout)
				}
			} else if broken == 0 {
				t.Errorf("the fault %s made no %s result fail\nstdout:\n%s", tc.fault, tc.check, r.stdout)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// TestClientAuthClientCredentialsGrant: in auth/client-credentials-basic the TOKEN-AUTH-METHOD
// fault authenticates as registered but runs the authorization code flow; the grant type alone
// fails it.
func TestClientAuthClientCredentialsGrant(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	args := append([]string{"client", "--cmd", d.mcpspec + " reference-client --fault AUTH-CLIENT-TOKEN-AUTH-METHOD", "--scenario", "auth/client-credentials-basic", "--out", out}, clientTestFlags...)
	r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
	run := assertReports(t, out)
	failed := 0
	for _, res := range run.Results {
		if res.ID == "AUTH-CLIENT-TOKEN-AUTH-METHOD" && res.Status == reports.Fail && strings.Contains(res.Message, `grant_type "authorization_code"`) {
			failed++
		}
	}
	if failed == 0 || r.code != reports.ExitFailures {
		t.Errorf("exit %d, %d grant type failures; want 1 and some\nstdout:\n%s", r.code, failed, r.stdout)
	}
	assertNoLeftovers(t, d)
}
