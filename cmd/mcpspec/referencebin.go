package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// referenceBinary is the reference server's binary of its own (cmd/mcpspec-reference), which
// `make build` puts beside mcpspec.
const referenceBinary = "mcpspec-reference"

// referenceDigestTimeout bounds asking that binary which build it is: a start of a small
// binary, generous for a loaded machine.
const referenceDigestTimeout = 10 * time.Second

// stdioReferenceArgv is the command of the bundled reference server over stdio. A run starts it
// for each stdio connection, over a hundred times, and this binary's package initialisation
// costs ~13 ms of CPU a start (the JSON-schema compiler's alone ~6 ms) where mcpspec-reference
// needs ~2 ms: so that binary, when it lies beside self and is the same build (the same
// reference.SourceDigest), or else self's own `reference` command, which serves the same.
func stdioReferenceArgv(self string) []string {
	own := []string{self, "reference"}
	sibling := filepath.Join(filepath.Dir(self), referenceBinary)
	if _, err := os.Stat(sibling); err != nil {
		return own
	}
	ctx, cancel := context.WithTimeout(context.Background(), referenceDigestTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, sibling, "--digest").Output()
	if err != nil || strings.TrimSpace(string(out)) != reference.SourceDigest() {
		return own // another build's, or not working: never a server other than this one's
	}
	return []string{sibling}
}

// sayStdioReference tells a verbose run which binary serves the bundled reference over stdio.
func sayStdioReference(w io.Writer, targets []harness.Target) {
	for _, t := range targets {
		argv := t.Command.Argv
		switch {
		case t.Transport != wire.Stdio || len(argv) == 0:
		case filepath.Base(argv[0]) == referenceBinary:
			fmt.Fprintf(w, "reference server over stdio: %s (the same build, beside mcpspec)\n", argv[0])
		case len(argv) == 2 && argv[1] == "reference":
			fmt.Fprintf(w, "reference server over stdio: %s reference (no %s of this build beside it)\n", argv[0], referenceBinary)
		}
	}
}
