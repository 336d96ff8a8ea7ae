package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/reports"
)

// The stdio reference is the small binary beside mcpspec only when it says it is the same
// build; otherwise, or without it, mcpspec's own reference command.
func TestStdioReferenceArgv(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "mcpspec")
	own := []string{self, "reference"}
	if got := stdioReferenceArgv(self); !slices.Equal(got, own) {
		t.Errorf("no sibling: %q, want %q", got, own)
	}
	sibling := filepath.Join(dir, referenceBinary)
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"same build", "#!/bin/sh\necho " + reference.SourceDigest() + "\n", []string{sibling}},
		{"another build", "#!/bin/sh\necho 0123abcd\n", own},
		{"failing", "#!/bin/sh\necho " + reference.SourceDigest() + "\nexit 1\n", own},
	} {
		if err := os.WriteFile(sibling, []byte(tc.script), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := stdioReferenceArgv(self); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A run with no target serves its stdio connections from mcpspec-reference beside mcpspec, and
// from mcpspec's own reference command without it (an installed mcpspec alone); -v says which.
func TestRunStartsEitherReference(t *testing.T) {
	t.Parallel()
	for _, beside := range []bool{true, false} {
		d := newRunDir(t)
		sibling := filepath.Join(d.marker, referenceBinary)
		want := "reference server over stdio: " + sibling + " (the same build"
		if !beside {
			if err := os.Remove(sibling); err != nil {
				t.Fatal(err)
			}
			want = "reference server over stdio: " + d.mcpspec + " reference (no " + referenceBinary
		}
		out := t.TempDir()
		r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "-v", "--focus", "^PING-RESPOND ", "--versions", "2025-06-18", "--out", out)
		if r.code != reports.ExitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("beside=%v: exit %d, want 0 and %q\nstdout:\n%s\nstderr:\n%s", beside, r.code, want, r.stdout, r.stderr)
		}
		run := assertReports(t, out)
		stdio := 0
		for _, res := range run.Results {
			if res.Transport == "stdio" && res.Status == reports.Pass {
				stdio++
			}
		}
		if stdio != 1 {
			t.Errorf("beside=%v: %d passes over stdio, want PING-RESPOND's", beside, stdio)
		}
		assertNoLeftovers(t, d)
	}
}
