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
	"strings"

	"github.com/mcpspec/mcpspec/reports"
)

// mergeInput is one report directory given to --merge.
type mergeInput struct {
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
	for _, in := range inputs {
		mt, err := placeMergeInput(in, outDir)
		if err != nil {
			return reports.ExitHarness, err
		}
		m.AddTarget(mt, in.run)
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
// given twice, a directory the output would overwrite. Nothing is written before all are read.
func readMergeInputs(args []string, outDir string) ([]mergeInput, error) {
	var inputs []mergeInput
	byName := map[string]string{}
	for _, arg := range args {
		in, err := readMergeInput(arg)
		if err != nil {
			return nil, usageErrorf("matrix: --merge %s", err)
		}
		if first, dup := byName[in.name]; dup {
			return nil, usageErrorf("matrix: --merge: two directories name the target %q (%s and %s): give NAME=DIR to tell them apart", in.name, first, arg)
		}
		byName[in.name] = arg
		dest := filepath.Join(outDir, in.name)
		if dest != in.dir && (within(dest, in.dir) || within(in.dir, dest)) {
			return nil, usageErrorf("matrix: --merge %s: it overlaps %s, where --out puts the target's reports", arg, dest)
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// readMergeInput reads one [NAME=]DIR argument.
func readMergeInput(arg string) (mergeInput, error) {
	var in mergeInput
	dir := arg
	if name, rest, ok := strings.Cut(arg, "="); ok && targetNamePattern.MatchString(name) {
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
	case !targetNamePattern.MatchString(in.name):
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
