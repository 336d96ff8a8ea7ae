package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpspec/mcpspec/fixtures/reference"
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
