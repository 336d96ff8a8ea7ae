package main

// `mcpspec matrix --isolation` runs each area of a target's results again alone (--label-filter
// area:AREA, which narrows whatever --focus the target's args hold) and compares the verdicts with the target's full run. A check's verdict must not
// depend on which other checks run beside it, so every difference is a bug of mcpspec's, found
// on a real server rather than on the reference alone.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/reports"
)

// matrixIsolationDir holds a target's area runs, inside its report directory.
const matrixIsolationDir = "isolation"

// matrixIsolationFile lists every difference the isolation runs found, in the matrix directory.
const matrixIsolationFile = "isolation.txt"

// isolationOutcome is what running a target's areas alone found.
type isolationOutcome struct {
	areas  int
	diffs  []reports.IsolationDiff
	failed []string // area runs that gave no results to compare
}

// areasOf are the areas of a run's results.
func areasOf(run *reports.Run) []string {
	var out []string
	for _, r := range run.Results {
		if !slices.Contains(out, r.Area) {
			out = append(out, r.Area)
		}
	}
	slices.Sort(out)
	return out
}

// withArea narrows a target's `mcpspec run` arguments to one area: a label filter of its own, or
// joined to the one the arguments hold (the last, as the flag package reads them).
func withArea(args []string, area string) []string {
	filter := "area:" + area
	out := slices.Clone(args)
	for i := len(out) - 1; i >= 0; i-- {
		name, value, inline := strings.Cut(out[i], "=")
		if name != "--label-filter" && name != "-label-filter" {
			continue
		}
		switch {
		case inline:
			out[i] = name + "=(" + value + ") && " + filter
			return out
		case i+1 < len(out):
			out[i+1] = "(" + out[i+1] + ") && " + filter
			return out
		}
	}
	return append(out, "--label-filter", filter)
}

// isolateTarget runs each area of the target's full run alone, one after another (timing-
// sensitive checks stay as fair as in the full run), into its report directory's isolation/.
func isolateTarget(ctx context.Context, self string, cfg *matrixConfig, t matrixTarget, dir, out string, full *reports.Run) isolationOutcome {
	var o isolationOutcome
	areaOut := filepath.Join(out, t.Name, matrixIsolationDir)
	for _, area := range areasOf(full) {
		o.areas++
		alone := t
		alone.Name = area
		alone.Args = withArea(t.Args, area)
		part := "--label-filter area:" + area
		res := runMatrixTarget(ctx, self, cfg, alone, dir, areaOut)
		if res.run == nil {
			o.failed = append(o.failed, fmt.Sprintf("%s %s: %s", t.Name, part, res.target.Error))
			continue
		}
		o.diffs = append(o.diffs, reports.CompareIsolated(part, full, res.run)...)
	}
	return o
}

// reportIsolation prints what the isolation runs found, writes it to the matrix directory, and
// says whether there was anything to report.
func reportIsolation(outcomes []targetOutcome, outDir string, stdout, stderr io.Writer) (bool, error) {
	var lines []string
	for _, o := range outcomes {
		iso := o.isolation
		if iso == nil {
			continue
		}
		fmt.Fprintf(stdout, "isolation %s: %d areas alone, %d verdicts differ from the full run, %d area runs without results\n",
			o.target.Name, iso.areas, len(iso.diffs), len(iso.failed))
		for _, d := range iso.diffs {
			lines = append(lines, o.target.Name+": "+d.String())
		}
		for _, f := range iso.failed {
			lines = append(lines, "could not run alone: "+f)
		}
	}
	if len(lines) == 0 {
		return false, os.WriteFile(filepath.Join(outDir, matrixIsolationFile), nil, 0o644)
	}
	fmt.Fprintf(stderr, "mcpspec matrix: a check's verdict depends on which checks run beside it (a bug of mcpspec's): target: check revision transport: full run vs alone\n  %s\n",
		strings.Join(lines, "\n  "))
	return true, os.WriteFile(filepath.Join(outDir, matrixIsolationFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
