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

var _ = filepath.Join
