package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// TestCLIJSONRPCProfileExit0: the JSON-RPC profile against the bundled plain JSON-RPC server
// over stdio passes every check of the profile, once each, at version jsonrpc-2.0.
func TestCLIJSONRPCProfileExit0(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--jsonrpc", "--stdio", d.mcpspec+" jsonrpc-server", "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitOK, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if !slices.Equal(run.Revisions, []string{harness.RevJSONRPC}) {
		t.Errorf("results.json revisions %v, want [%s]", run.Revisions, harness.RevJSONRPC)
	}
	profile, err := conform.ProfileChecks()
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, c := range profile {
		want = append(want, c.ID)
	}
	for _, res := range run.Results {
		got = append(got, res.ID)
		if res.Version != harness.RevJSONRPC || res.Transport != "stdio" || res.Status != reports.Pass {
			t.Errorf("%s %s %s: %s, want a pass at %s over stdio: %s", res.ID, res.Version, res.Transport, res.Status, harness.RevJSONRPC, res.Message)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("results for %v, want one per profile check: %v", got, want)
	}
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(junit), "("+harness.RevJSONRPC+", stdio)"); n != len(want) {
		t.Errorf("junit.xml names %d test cases (%s, stdio), want %d", n, harness.RevJSONRPC, len(want))
	}
	assertNoLeftovers(t, d)
}

// TestCLIJSONRPCFaultExit1: a fault of the plain server fails the profile's run.
func TestCLIJSONRPCFaultExit1(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--jsonrpc", "--focus", "^JRPC-METHOD-NOT-FOUND", "--stdio", d.mcpspec+" jsonrpc-server --fault JRPC-METHOD-NOT-FOUND", "--out", out)
	if r.code != reports.ExitFailures {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitFailures, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if len(run.Results) != 1 || run.Results[0].Status != reports.Fail {
		t.Errorf("want one failed JRPC-METHOD-NOT-FOUND, got %+v", run.Results)
	}
	assertNoLeftovers(t, d)
}

// TestCLIJSONRPCUsage: --jsonrpc goes with neither --sse nor --versions (exit 2, one line).
func TestCLIJSONRPCUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ flag, value, want string }{
		{"--sse", "http://127.0.0.1:9/sse", "--jsonrpc cannot go with --sse"},
		{"--versions", "2025-03-26", "--jsonrpc cannot go with --versions"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, usageRunTimeout, bins.mcpspec, "run", "--jsonrpc", c.flag, c.value, "--out", filepath.Join(t.TempDir(), "out"))
			if r.code != reports.ExitUsage {
				t.Errorf("exit code %d, want %d", r.code, reports.ExitUsage)
			}
			if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], c.want) {
				t.Errorf("stderr %q: want one line saying %q", r.stderr, c.want)
			}
		})
	}
}
