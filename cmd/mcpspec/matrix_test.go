package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// matrixRunTimeout bounds a matrix of three small targets: two focused reference runs of a
// second or two each, and one that fails to start at once.
const matrixRunTimeout = 90 * time.Second

// rawTag is an unescaped start of the tags the tests inject.
var rawTag = regexp.MustCompile(`(^|[^\\])<(script|img)`)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "matrix.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMatrixBadConfigExits2WithOneLine(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	for name, body := range map[string]string{
		"empty file":         "",
		"no targets":         "targets: []\n",
		"not yaml":           "targets: [\n",
		"unknown key":        "targets:\n  - name: a\n    stdio: x\n    surprise: 1\n",
		"no way to reach it": "targets:\n  - name: a\n",
		"httpCmd alone":      "targets:\n  - name: a\n    httpCmd: server\n",
		"bad name":           "targets:\n  - name: 'bad name'\n    stdio: x\n",
		"duplicate name":     "targets:\n  - name: a\n    stdio: x\n  - name: a\n    stdio: y\n",
		"unknown revision":   "revisions: [2023-01-01]\ntargets:\n  - name: a\n    stdio: x\n",
		"bad timeout":        "timeout: soon\ntargets:\n  - name: a\n    stdio: x\n",
		"unset variable":     "targets:\n  - name: a\n    stdio: ${MCPSPEC_MATRIX_TEST_UNSET}/server\n",
		"missing baseline":   "targets:\n  - name: a\n    stdio: x\n    baseline: no-such.baseline.yaml\n",
	} {
		r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", writeConfig(t, body), "--out", t.TempDir())
		if r.code != reports.ExitUsage || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stderr == "" {
			t.Errorf("%s: exit %d, stderr %q; want 2 with a one-line reason", name, r.code, r.stderr)
		}
	}
	r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix")
	if r.code != reports.ExitUsage {
		t.Errorf("no --config: exit %d, want 2", r.code)
	}
}

func TestMatrixOverReferenceTargets(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	// The focus keeps the runs short: two requirements at two revisions.
	cfg := writeConfig(t, `revisions: [2025-06-18, 2025-11-25]
parallel: 3
timeout: 1m
targets:
  - name: clean
    stdio: "`+d.mcpspec+` reference"
    args: ["--focus", "PING-RESPOND|JRPC-METHOD-NOT-FOUND"]
  - name: faulty
    stdio: "`+d.mcpspec+` reference --fault PING-RESPOND"
    args: ["--focus", "PING-RESPOND|JRPC-METHOD-NOT-FOUND"]
  - name: missing
    stdio: "/no/such/mcp-server --port {port}"
`)
	out := filepath.Join(t.TempDir(), "out")
	r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", cfg, "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit %d, want 3 (one target could not run)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	m, err := reports.ReadMatrix(filepath.Join(out, reports.MatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]reports.MatrixTarget{}
	for _, mt := range m.Targets {
		byName[mt.Name] = mt
	}
	if got := byName["clean"]; got.ExitCode != reports.ExitOK || got.Error != "" || len(got.Served) != 2 {
		t.Errorf("clean: %+v", got)
	}
	if got := byName["faulty"]; got.ExitCode != reports.ExitFailures || got.Error != "" {
		t.Errorf("faulty: %+v", got)
	}
	if got := byName["missing"]; !strings.Contains(got.Error, "/no/such/mcp-server") {
		t.Errorf("missing: the error should name the command that did not start: %+v", got)
	}
	cells := map[string]reports.Status{}
	for _, row := range m.Rows {
		for col, c := range row.Cells {
			cells[row.ID+" "+col] = c.Status
		}
	}
	for key, want := range map[string]reports.Status{
		"PING-RESPOND clean 2025-06-18 stdio":           reports.Pass,
		"PING-RESPOND faulty 2025-11-25 stdio":          reports.Fail,
		"JRPC-METHOD-NOT-FOUND faulty 2025-06-18 stdio": reports.Pass,
	} {
		if cells[key] != want {
			t.Errorf("%s: %q, want %q", key, cells[key], want)
		}
	}
	for _, f := range []string{reports.MatrixMD, reports.MatrixHTML, "clean/" + reports.HTMLFile, "clean/" + matrixLogFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	page, err := os.ReadFile(filepath.Join(out, reports.MatrixHTML))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `href="faulty/report.html"`) || !strings.Contains(string(page), "could not run") {
		t.Errorf("matrix.html should link each target's report and show the target that could not run")
	}
	assertNoLeftovers(t, d)
}

func TestMatrixReportsUnservedRevisions(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	// A handshake-only reference server does not serve 2026-07-28: its verdict row must say what
	// it answered there, and list only 2025-11-25 as served.
	cfg := writeConfig(t, `targets:
  - name: ref
    stdio: "`+d.mcpspec+` reference --era handshake"
    revisions: [2025-11-25, 2026-07-28]
    args: ["--focus", "PING-|VER26-DISCOVER"]
`)
	out := filepath.Join(t.TempDir(), "out")
	r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", cfg, "--out", out)
	if r.code != reports.ExitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	m, err := reports.ReadMatrix(filepath.Join(out, reports.MatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 1 {
		t.Fatalf("targets: %+v", m.Targets)
	}
	ref := m.Targets[0]
	if strings.Join(ref.Served, ",") != "2025-11-25 stdio" || !strings.Contains(ref.NotServed["2026-07-28 stdio"], "server/discover") {
		t.Errorf("served %q, not served %q", ref.Served, ref.NotServed)
	}
	for _, c := range m.Columns {
		if c.Revision == "2026-07-28" {
			t.Errorf("a revision the target does not serve got a column: %+v", c)
		}
	}
}

func TestMatrixHTMLEscapesServerText(t *testing.T) {
	t.Parallel()
	const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>`
	m := &reports.Matrix{}
	m.AddTarget(reports.MatrixTarget{Name: "broken", Description: "stdio: " + evil, Error: evil}, nil)
	m.AddTarget(reports.MatrixTarget{Name: "odd", Report: "odd/report.html"}, &reports.Run{
		Target: reports.Target{Transports: []string{"stdio"}, ServerInfo: map[string]any{"name": evil, "version": evil}},
		Errors: []string{evil},
		Results: []reports.Result{
			{ID: "PING-RESPOND", Title: "PING-RESPOND [MUST] " + evil, Level: "MUST", Version: "2025-06-18", Transport: "stdio", Status: reports.Fail, Message: evil},
			{ID: "PING-RESPOND", Level: "MUST", Version: "2024-11-05", Transport: "stdio", Status: reports.NA, Message: "the server does not serve revision 2024-11-05: " + evil},
		}})
	dir := t.TempDir()
	if err := reports.WriteMatrix(dir, m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{reports.MatrixHTML, reports.MatrixMD} {
		page, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		// Markdown escapes with a backslash, HTML with entities: neither may hold a bare tag.
		if rawTag.Match(page) {
			t.Errorf("%s: server text reached the page unescaped:\n%s", f, page)
		}
		if !strings.Contains(string(page), "alert(1)") {
			t.Errorf("%s: the server's text should still be shown, escaped", f)
		}
	}
}

// TestShippedBaselinesLoad: every baseline of the interop targets loads and names only
// requirements mcpspec knows (make interop is not part of make test, so a broken entry would
// otherwise show only there).
func TestShippedBaselinesLoad(t *testing.T) {
	files, err := filepath.Glob("../../fixtures/targets/*.baseline.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no baselines found: %v", err)
	}
	for _, f := range files {
		if _, err := reports.LoadBaseline(f, catalog.Known); err != nil {
			t.Error(err)
		}
	}
}

// With --isolation each area of a target runs again alone; a verdict that differs from the full
// run's is listed with both statuses and fails the matrix. The "changing" target's server has
// PING-RESPOND's fault in its first process only (the full run's), so that a difference appears.
func TestMatrixIsolation(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	marker := filepath.Join(t.TempDir(), "started")
	cfg := writeConfig(t, `revisions: [2025-06-18]
timeout: 1m
targets:
  - name: steady
    stdio: "`+d.mcpspec+` reference"
    args: ["--focus", "^(PING|JRPC)-", "--label-filter", "!transport:sse"]
  - name: changing
    stdio: "sh -c 'if [ -e `+marker+` ]; then exec `+d.mcpspec+` reference; fi; touch `+marker+`; exec `+d.mcpspec+` reference --fault PING-RESPOND'"
    args: ["--focus", "^PING-RESPOND "]
`)
	out := filepath.Join(t.TempDir(), "out")
	r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", cfg, "--out", out, "--isolation")
	if r.code != reports.ExitHarness {
		t.Errorf("exit %d, want 3 (a verdict changed alone)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"isolation steady: 2 areas alone, 0 verdicts differ", "isolation changing: 1 areas alone, 1 verdicts differ"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	listed, err := os.ReadFile(filepath.Join(out, matrixIsolationFile))
	if err != nil {
		t.Fatal(err)
	}
	want := "changing: PING-RESPOND 2025-06-18 stdio: full run fail ("
	if !strings.HasPrefix(string(listed), want) || !strings.Contains(string(listed), "alone (--label-filter area:ping) pass") || strings.Count(string(listed), "\n") != 1 {
		t.Errorf("%s lists:\n%s\nwant one line starting %q", matrixIsolationFile, listed, want)
	}
	if _, err := os.Stat(filepath.Join(out, "steady", matrixIsolationDir, "jrpc", reports.ResultsFile)); err != nil {
		t.Errorf("the area run's reports: %v", err)
	}
	assertNoLeftovers(t, d)
}

func TestWithArea(t *testing.T) {
	for _, c := range []struct{ args, want []string }{
		{nil, []string{"--label-filter", "area:batch"}},
		{[]string{"--focus", "X"}, []string{"--focus", "X", "--label-filter", "area:batch"}},
		{[]string{"--label-filter", "MUST", "--parallel", "4"}, []string{"--label-filter", "(MUST) && area:batch", "--parallel", "4"}},
		{[]string{"-label-filter=MUST || SHOULD"}, []string{"-label-filter=(MUST || SHOULD) && area:batch"}},
	} {
		if got := withArea(c.args, "batch"); !slices.Equal(got, c.want) {
			t.Errorf("withArea(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
