package main

// `mcpspec matrix --merge DIR…` builds the matrix from runs made elsewhere: one `mcpspec run` per
// CI job (a GitHub Actions strategy.matrix), whose report directories a last job downloads. Each
// directory is copied to OUT/NAME, where a local matrix would have written it, and the matrix is
// built from its results.json exactly as a local matrix builds it from its own runs.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/reports"
)

// mergeInput is one report directory given to --merge.
type mergeInput struct {
	arg  string // as given
	name string // the target's column heading: NAME= if given, else the run's --name
	dir  string // absolute
	run  *reports.Run
}

// cmdMatrixMerge is `mcpspec matrix --merge`; flags have been parsed, and dirs are the [NAME=]DIRs.
func cmdMatrixMerge(flags *flag.FlagSet, dirs []string, out string, stdout, stderr io.Writer) (int, error) {
	if given(flags, "config", "parallel", "targets", "isolation") {
		return reports.ExitUsage, usageErrorf("matrix: --merge runs nothing: it takes no --config, --parallel, --targets or --isolation")
	}
	if len(dirs) == 0 {
		return reports.ExitUsage, usageErrorf("matrix: --merge needs the report directories: %s", matrixUsage)
	}
	outDir, err := filepath.Abs(out)
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("matrix: %w", err)
	}
	inputs, err := readMergeInputs(dirs, outDir)
	if err != nil {
		return reports.ExitUsage, err
	}
	m := newMatrix()
	for _, group := range groupMergeInputs(inputs) {
		mt, run, err := placeMergeGroup(group, outDir)
		if err != nil {
			return reports.ExitHarness, err
		}
		m.AddTarget(mt, run)
	}
	if err := writeMatrix(m, outDir, stdout, stderr); err != nil {
		return reports.ExitHarness, err
	}
	// As a local matrix: a report, not a gate; exit 3 only when a target could not run.
	if m.Failed() {
		return reports.ExitHarness, nil
	}
	return reports.ExitOK, nil
}

// readMergeInputs reads every directory's results.json and names it, refusing anything that
// would make the matrix lie: a missing or broken results.json, a target without a name, a name
// given twice over one transport, a directory the output would overwrite. Nothing is written
// before all are read. Runs of one target over different transports (`mcpspec client` runs once
// per transport, so a client's CI jobs are one per transport) become one target.
func readMergeInputs(args []string, outDir string) ([]mergeInput, error) {
	var inputs []mergeInput
	byName := map[string][]int{}
	for _, arg := range args {
		in, err := readMergeInput(arg)
		if err != nil {
			return nil, usageErrorf("matrix: --merge %s", err)
		}
		for _, i := range byName[in.name] {
			if shared := sharedTransports(inputs[i].run, in.run); len(shared) > 0 || len(in.run.Target.Transports) == 0 {
				return nil, usageErrorf("matrix: --merge: two directories name the target %q over %s (%s and %s): give NAME=DIR to tell them apart",
					in.name, orAll(shared), inputs[i].arg, arg)
			}
		}
		byName[in.name] = append(byName[in.name], len(inputs))
		inputs = append(inputs, in)
	}
	for _, in := range inputs {
		dest := filepath.Join(outDir, in.name)
		if len(byName[in.name]) > 1 {
			// Its reports go to OUT/NAME/TRANSPORTS, the combined reports to OUT/NAME.
			if dest == in.dir || within(dest, in.dir) || within(in.dir, dest) {
				return nil, usageErrorf("matrix: --merge %s: it overlaps %s, where --out puts the target's combined reports", in.arg, dest)
			}
			continue
		}
		if dest != in.dir && (within(dest, in.dir) || within(in.dir, dest)) {
			return nil, usageErrorf("matrix: --merge %s: it overlaps %s, where --out puts the target's reports", in.arg, dest)
		}
	}
	return inputs, nil
}

// sharedTransports are the transports both runs report.
func sharedTransports(a, b *reports.Run) []string {
	var shared []string
	for _, tr := range a.Target.Transports {
		if slices.Contains(b.Target.Transports, tr) {
			shared = append(shared, tr)
		}
	}
	return shared
}

func orAll(transports []string) string {
	if len(transports) == 0 {
		return "the same transports"
	}
	return strings.Join(transports, ", ")
}

// groupMergeInputs groups the inputs by target name, in the order the names first appear.
func groupMergeInputs(inputs []mergeInput) [][]mergeInput {
	var groups [][]mergeInput
	index := map[string]int{}
	for _, in := range inputs {
		i, ok := index[in.name]
		if !ok {
			i = len(groups)
			index[in.name] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], in)
	}
	return groups
}

// placeMergeGroup places one target's reports: a single run's as placeMergeInput does; runs over
// several transports each in OUT/NAME/TRANSPORTS, with their combination as the target's reports,
// as a local matrix lays out a client target run over several transports.
func placeMergeGroup(group []mergeInput, outDir string) (reports.MatrixTarget, *reports.Run, error) {
	if len(group) == 1 {
		mt, err := placeMergeInput(group[0], outDir)
		return mt, group[0].run, err
	}
	name := group[0].name
	dest := filepath.Join(outDir, name)
	if err := os.RemoveAll(dest); err != nil {
		return reports.MatrixTarget{}, nil, fmt.Errorf("matrix: clear %s: %w", dest, err)
	}
	var parts []transportRun
	for _, in := range group {
		sub := strings.Join(in.run.Target.Transports, "+")
		if err := copyTree(in.dir, filepath.Join(dest, sub)); err != nil {
			return reports.MatrixTarget{}, nil, fmt.Errorf("matrix: copy %s to %s: %w", in.dir, filepath.Join(dest, sub), err)
		}
		mt := reports.MatrixTarget{Name: name, ExitCode: runExitCode(in.run)}
		parts = append(parts, transportRun{transport: sub, outcome: targetOutcome{target: mt, run: in.run}})
	}
	mt := reports.MatrixTarget{Name: name}
	o := combineTransportRuns(mt, parts, dest, name+"/")
	if o.run == nil {
		return o.target, nil, fmt.Errorf("matrix: combine the runs of %s: %s", name, o.target.Error)
	}
	return o.target, o.run, nil
}

// readMergeInput reads one [NAME=]DIR argument.
func readMergeInput(arg string) (mergeInput, error) {
	in := mergeInput{arg: arg}
	dir := arg
	if name, rest, ok := strings.Cut(arg, "="); ok && targetNamePattern().MatchString(name) {
		in.name, dir = name, rest
	}
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return in, fmt.Errorf("%s: not a directory", dir)
	}
	if in.dir, err = filepath.Abs(dir); err != nil {
		return in, fmt.Errorf("%s: %w", dir, err)
	}
	path := filepath.Join(dir, reports.ResultsFile)
	if _, err := os.Stat(path); err != nil {
		return in, fmt.Errorf("%s: no %s (its run wrote no reports)", dir, reports.ResultsFile)
	}
	if in.run, err = reports.ReadResults(path); err != nil {
		return in, errors.New(oneLine(err.Error()))
	}
	if in.name == "" {
		in.name = in.run.Target.Name
	}
	switch {
	case in.name == "":
		return in, fmt.Errorf("%s: its %s names no target: run it with --name NAME, or give NAME=%s", dir, reports.ResultsFile, dir)
	case !targetNamePattern().MatchString(in.name):
		return in, fmt.Errorf("%s: target name %q: use letters, digits, '.', '_' and '-'", dir, in.name)
	}
	return in, nil
}

// placeMergeInput copies a target's reports to OUT/NAME, as a local matrix lays them out, and
// says what the matrix records of the target.
func placeMergeInput(in mergeInput, outDir string) (reports.MatrixTarget, error) {
	dest := filepath.Join(outDir, in.name)
	if dest != in.dir {
		// Reports of an earlier matrix in OUT must never pass for this one's.
		if err := os.RemoveAll(dest); err != nil {
			return reports.MatrixTarget{}, fmt.Errorf("matrix: clear %s: %w", dest, err)
		}
		if err := copyTree(in.dir, dest); err != nil {
			return reports.MatrixTarget{}, fmt.Errorf("matrix: copy %s to %s: %w", in.dir, dest, err)
		}
	}
	mt := reports.MatrixTarget{Name: in.name, Description: in.run.Target.Description, ExitCode: runExitCode(in.run)}
	if _, err := os.Stat(filepath.Join(dest, reports.HTMLFile)); err == nil {
		mt.Report = in.name + "/" + reports.HTMLFile
	}
	return mt, nil
}

// copyTree copies the directories and regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			return copyFile(path, to)
		}
		return nil // a link or a device is no report
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// within reports whether path lies inside dir (both absolute and clean).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// oneLine joins a multi-line message for a one-line reason.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
