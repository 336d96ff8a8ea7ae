package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

// matrixRunTimeout bounds a matrix of three small targets: two reference runs of a few seconds
// each, and one that fails to start at once.
const matrixRunTimeout = 90 * time.Second

func TestMatrixBadConfigExits2(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	cfg := filepath.Join(t.TempDir(), "m.yaml")
	for _, body := range []string{
		"targets: []\n",
		"targets:\n  - name: a\n    stdio: x\n    url: http://127.0.0.1:1/mcp\n",
		"targets:\n  - name: 'bad name'\n    stdio: x\n",
		"targets:\n  - name: a\n    stdio: x\n    surprise: 1\n",
	} {
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", cfg, "--out", t.TempDir())
		if r.code != reports.ExitUsage || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("config %q: exit %d, stderr %q; want 2 with one line", body, r.code, r.stderr)
		}
	}
}

func TestMatrixOverReferenceTargets(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "m.yaml")
	body := `revisions: [2025-06-18, 2025-11-25]
targets:
  - name: clean
    stdio: "` + d.mcpspec + ` reference"
    args: ["--focus", "PING-RESPOND|JRPC-METHOD"]
  - name: faulty
    stdio: "` + d.mcpspec + ` reference --fault PING-RESPOND"
    args: ["--focus", "PING-RESPOND|JRPC-METHOD"]
  - name: missing
    stdio: "/no/such/mcp-server"
`
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", cfg, "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit %d, want 3 (one target could not run)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, reports.MatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	var m reports.Matrix
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	byName := map[string]reports.MatrixTarget{}
	for _, mt := range m.Targets {
		byName[mt.Name] = mt
	}
	if byName["clean"].ExitCode != 0 || byName["faulty"].ExitCode != 1 || byName["missing"].Error == "" {
		t.Errorf("targets: %+v", m.Targets)
	}
	cells := map[string]reports.Status{}
	for _, row := range m.Rows {
		for col, s := range row.Cells {
			cells[row.ID+" "+col] = s
		}
	}
	if cells["PING-RESPOND clean 2025-06-18 stdio"] != reports.Pass || cells["PING-RESPOND faulty 2025-11-25 stdio"] != reports.Fail {
		t.Errorf("cells: %v", cells)
	}
	for _, f := range []string{reports.MatrixMD, reports.MatrixHTML, "clean/" + reports.HTMLFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	assertNoLeftovers(t, d)
}

func TestMatrixHTMLEscapesServerText(t *testing.T) {
	m := &reports.Matrix{}
	m.AddRun(reports.MatrixTarget{Name: "x", Error: `<script>alert(1)</script>`}, nil)
	m.AddRun(reports.MatrixTarget{Name: "y"}, &reports.Run{Target: reports.Target{ServerInfo: map[string]any{"name": "<img src=x onerror=alert(1)>"}},
		Results: []reports.Result{{ID: "PING-RESPOND", Level: "MUST", Version: "2025-06-18", Transport: "stdio", Status: reports.NA, Message: `the server does not serve revision 2025-06-18: "><script>alert(2)</script>`}}})
	dir := t.TempDir()
	if err := reports.WriteMatrix(dir, m); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, reports.MatrixHTML))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "<script>") || strings.Contains(string(page), "<img") {
		t.Errorf("server text reached the page unescaped:\n%s", page)
	}
}
