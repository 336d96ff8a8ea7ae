package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// unstable are the parts of the matrix files that differ between two runs of the same targets:
// when they were generated, and the request ids the harness numbers as checks come to run.
var unstable = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`), "TIME"},
	{regexp.MustCompile(`(mcpspec:[A-Z0-9-]+:)\d+`), "${1}N"},
}

func stableMatrixFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, u := range unstable {
		s = u.re.ReplaceAllString(s, u.with)
	}
	return s
}

// The fan-out of CI: each target run alone by `mcpspec run --name`, as one job each, then merged.
// The merged matrix must be the one a local matrix of the same targets writes, byte for byte but
// for timestamps and request ids: a clean reference, a faulty one, and one that cannot start.
func TestMatrixMergeEqualsLocalMatrix(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	const focus = "PING-RESPOND|JRPC-METHOD-NOT-FOUND"
	const revisions = "2025-06-18,2025-11-25"
	targets := []struct{ name, stdio string }{
		{"clean", d.mcpspec + " reference"},
		{"faulty", d.mcpspec + " reference --fault PING-RESPOND"},
		{"missing", "/no/such/mcp-server"},
	}
	cfg := "revisions: [2025-06-18, 2025-11-25]\ntimeout: 1m\ntargets:\n"
	for _, tg := range targets {
		cfg += "  - name: " + tg.name + "\n    stdio: \"" + tg.stdio + "\"\n    args: [\"--focus\", \"" + focus + "\"]\n"
	}
	local := filepath.Join(t.TempDir(), "local")
	r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", writeConfig(t, cfg), "--out", local)
	if r.code != reports.ExitHarness {
		t.Fatalf("local matrix: exit %d, want 3 (a target could not run)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	jobs := t.TempDir() // what a merge job downloads: one directory per job's artifact
	var dirs []string
	for _, tg := range targets {
		dir := filepath.Join(jobs, "mcpspec-report-"+tg.name)
		r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--name", tg.name, "--stdio", tg.stdio,
			"--focus", focus, "--versions", revisions, "--out", dir, "--no-color")
		if r.code == reports.ExitUsage {
			t.Fatalf("run %s: exit 2: %s", tg.name, r.stderr)
		}
		dirs = append(dirs, dir)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	// Flags may follow the directories, as `--merge DIR… --out OUT` is naturally written.
	r = runBinary(t, usageRunTimeout, d.mcpspec, append(append([]string{"matrix", "--merge"}, dirs...), "--out", merged)...)
	if r.code != reports.ExitHarness || !strings.Contains(r.stderr, "missing could not run") {
		t.Errorf("merge: exit %d, want 3 naming the target that could not run\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{reports.MatrixJSON, reports.MatrixMD, reports.MatrixHTML} {
		if got, want := stableMatrixFile(t, filepath.Join(merged, f)), stableMatrixFile(t, filepath.Join(local, f)); got != want {
			t.Errorf("%s of the merge differs from the local matrix's:\n--- merge\n%s\n--- local\n%s", f, got, want)
		}
	}
	// The comparison is worth something only if the matrix holds the verdicts.
	m, err := reports.ReadMatrix(filepath.Join(merged, reports.MatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 3 || m.Targets[1].ExitCode != reports.ExitFailures || m.Rows[len(m.Rows)-1].Cells["faulty 2025-06-18 stdio"].Status != reports.Fail {
		t.Errorf("merged matrix: targets %+v, rows %+v", m.Targets, m.Rows)
	}
	// Each target's reports sit beside the matrix where its links point, as in a local matrix.
	for _, f := range []string{"clean/" + reports.HTMLFile, "faulty/" + reports.ResultsFile} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Errorf("the merge did not place %s: %v", f, err)
		}
	}

	// NAME=DIR names a directory whatever its results.json says, and a local matrix's own target
	// directories merge in place (a report directory is its own destination).
	r = runBinary(t, usageRunTimeout, d.mcpspec, "matrix", "--merge", "--out", local,
		"renamed="+filepath.Join(local, "clean"), filepath.Join(local, "faulty"))
	if r.code != reports.ExitOK {
		t.Fatalf("merge in place: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	m, err = reports.ReadMatrix(filepath.Join(local, reports.MatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 2 || m.Targets[0].Name != "renamed" || m.Targets[0].Report != "renamed/report.html" || m.Targets[1].Name != "faulty" {
		t.Errorf("targets %+v, want renamed and faulty", m.Targets)
	}
	assertNoLeftovers(t, d)
}

// A merge that cannot trust its input writes nothing: a broken results.json beside a good one
// leaves --out as it was.
func TestMatrixMergeBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, broken := filepath.Join(dir, "good"), filepath.Join(dir, "broken")
	for p, body := range map[string]string{good: `{"schemaVersion":1,"target":{"name":"good"},"results":[]}`, broken: `{"schemaVersion":1,`} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, reports.ResultsFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	assertUsageError(t, runBinary(t, usageRunTimeout, bins.mcpspec, "matrix", "--merge", "--out", out, good, broken), "not valid JSON")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out was created or touched: %v", err)
	}
}
