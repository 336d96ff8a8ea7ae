package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpspec/mcpspec/reports"
)

const diffUsage = `Usage: mcpspec diff [--json] OLD NEW

Compares two results.json files (OLD, then NEW) by requirement × revision × transport (× side
of a judgement, × scenario of a client run) and lists regressions, fixes, other changes, and
checks added or removed.

Exit codes: 0 no regression, 1 at least one regression, 2 bad usage or an unreadable or invalid file.

Flags:
  --json   print the comparison as JSON instead of text
`

// cmdDiff runs `mcpspec diff OLD NEW`. Flags may come before, between or after the two paths.
func cmdDiff(args []string, stdout io.Writer) (int, error) {
	asJSON, paths, err := parseDiff(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, diffUsage)
		return reports.ExitOK, nil
	}
	if err != nil {
		return reports.ExitUsage, err
	}
	oldRun, err := reports.ReadResults(paths[0])
	if err != nil {
		return reports.ExitUsage, usageErrorf("diff: old: %v", err)
	}
	newRun, err := reports.ReadResults(paths[1])
	if err != nil {
		return reports.ExitUsage, usageErrorf("diff: new: %v", err)
	}

	// A client's checks and a server's share no IDs: compared, every check would read as
	// added or removed, and a real regression would hide among them.
	if oldRun.Target.Kind != newRun.Target.Kind {
		return reports.ExitUsage, usageErrorf("diff: OLD is the run of a %s and NEW of a %s: compare runs of one kind", runKind(oldRun), runKind(newRun))
	}
	d := reports.Diff(oldRun, newRun)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false) // messages stay readable: "<" is not "\u003c"
		enc.SetIndent("", "  ")
		err = enc.Encode(d)
	} else {
		err = d.Write(stdout)
	}
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("diff: print the comparison: %w", err)
	}
	if d.HasRegressions() {
		return reports.ExitFailures, nil
	}
	return reports.ExitOK, nil
}

// parseDiff reads the flags and the two paths. The standard flag package stops at the first
// path, so parsing resumes after each one; after "--" everything is a path.
func parseDiff(args []string) (asJSON bool, paths []string, err error) {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return false, nil, err
			}
			return false, nil, usageErrorf("diff: %v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			paths = append(paths, rest...)
			break
		}
		paths = append(paths, rest[0])
		args = rest[1:]
	}
	if len(paths) != 2 {
		return false, nil, usageErrorf("diff: want two results.json paths, OLD and NEW, got %d (see mcpspec diff --help)", len(paths))
	}
	return asJSON, paths, nil
}

// runKind names what a run judged, for messages.
func runKind(r *reports.Run) string {
	switch r.Target.Kind {
	case reports.KindClient:
		return "client"
	case reports.KindRecording:
		return "recording (mcpspec judge)"
	}
	return "server"
}
