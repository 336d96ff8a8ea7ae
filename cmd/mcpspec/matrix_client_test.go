package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

// A client target runs `mcpspec client` over each transport it lists; the matrix shows it as
// revision × transport columns beside the others, and a merge of the same runs made one job per
// transport (as CI would) writes the same matrix.
func TestMatrixClientTargets(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	const revisions = "2024-11-05,2025-11-25"
	cfg := writeConfig(t, `revisions: [2024-11-05, 2025-11-25]
timeout: 1m
targets:
  - name: ref
    client: "`+d.mcpspec+` reference-client"
    transports: [http, stdio]
  - name: nosession
    client: "`+d.mcpspec+` reference-client --fault HTTP-SESSION-CLIENT"
`)
	local := filepath.Join(t.TempDir(), "local")
	r := runBinary(t, matrixRunTimeout, d.mcpspec, "matrix", "--config", cfg, "--out", local)
	if r.code != reports.ExitOK {
		t.Fatalf("matrix: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	m, err := reports.ReadMatrix(filepath.Join(local, reports.MatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 2 {
		t.Fatalf("targets %+v, want ref and nosession", m.Targets)
	}
	ref, nosession := m.Targets[0], m.Targets[1]
	if ref.Kind != reports.KindClient || !slices.Equal(ref.Transports, []string{"http", "stdio"}) || ref.ExitCode != reports.ExitOK ||
		ref.Error != "" || ref.Report != "ref/report.html" || ref.Summary[reports.Pass] == 0 {
		t.Errorf("ref: %+v", ref)
	}
	if nosession.ExitCode != reports.ExitFailures || !slices.Equal(nosession.Transports, []string{"http"}) || nosession.Report != "nosession/report.html" {
		t.Errorf("nosession: %+v", nosession)
	}
	// Streamable HTTP begins at 2025-03-26: 2024-11-05 is a column over stdio only.
	var keys []string
	for _, c := range m.Columns {
		keys = append(keys, c.Key)
	}
	want := []string{"ref 2024-11-05 stdio", "ref 2025-11-25 http", "ref 2025-11-25 stdio", "nosession 2025-11-25 http"}
	if !slices.Equal(keys, want) {
		t.Errorf("columns %v, want %v", keys, want)
	}
	cell := func(id, key string) reports.Status {
		for _, row := range m.Rows {
			if row.ID == id {
				return row.Cells[key].Status
			}
		}
		return ""
	}
	if got := cell("HTTP-SESSION-CLIENT", "ref 2025-11-25 http"); got != reports.Pass {
		t.Errorf("ref HTTP-SESSION-CLIENT: %q, want pass", got)
	}
	if got := cell("HTTP-SESSION-CLIENT", "nosession 2025-11-25 http"); got != reports.Fail {
		t.Errorf("nosession HTTP-SESSION-CLIENT: %q, want fail", got)
	}
	if got := cell("STDIO-CLIENT-STDIN", "ref 2024-11-05 stdio"); got != reports.Pass {
		t.Errorf("ref STDIO-CLIENT-STDIN: %q, want pass", got)
	}
	md, err := os.ReadFile(filepath.Join(local, reports.MatrixMD))
	if err != nil || !strings.Contains(string(md), "| ref | client: mcpspec-reference-client") {
		t.Errorf("matrix.md does not name ref as a client (%v):\n%s", err, md)
	}
	// Each transport's run keeps its own reports and console; the target's are the two together.
	for _, f := range []string{"ref/http/" + matrixLogFile, "ref/stdio/" + reports.ResultsFile, "ref/" + reports.HTMLFile, "nosession/" + matrixLogFile} {
		if _, err := os.Stat(filepath.Join(local, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	combined, err := reports.ReadResults(filepath.Join(local, "ref", reports.ResultsFile))
	if err != nil || combined.Target.Name != "ref" || !slices.Equal(combined.Target.Transports, []string{"http", "stdio"}) {
		t.Errorf("ref/results.json: %v, target %+v", err, combined.Target)
	}

	// The same runs, one CI job per transport, then merged.
	jobs := t.TempDir()
	for _, job := range []struct {
		name string
		args []string
	}{
		{"ref", []string{"--cmd", d.mcpspec + " reference-client"}},
		{"ref", []string{"--cmd", d.mcpspec + " reference-client", "--stdio"}},
		{"nosession", []string{"--cmd", d.mcpspec + " reference-client --fault HTTP-SESSION-CLIENT"}},
	} {
		dir, err := os.MkdirTemp(jobs, "job-")
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"client", "--name", job.name, "--versions", revisions, "--out", dir, "--no-color"}, job.args...)
		if r := runBinary(t, clientRunTimeout, d.mcpspec, args...); r.code == reports.ExitUsage || r.code == reports.ExitHarness {
			t.Fatalf("client %v: exit %d: %s", job.args, r.code, r.stderr)
		}
	}
	dirs, err := filepath.Glob(filepath.Join(jobs, "job-*"))
	if err != nil {
		t.Fatal(err)
	}
	// Job directories are named at random: put them in the order the config lists the runs.
	slices.SortFunc(dirs, func(a, b string) int { return strings.Compare(jobOrder(t, a), jobOrder(t, b)) })
	merged := filepath.Join(t.TempDir(), "merged")
	r = runBinary(t, usageRunTimeout, d.mcpspec, append([]string{"matrix", "--merge", "--out", merged}, dirs...)...)
	if r.code != reports.ExitOK {
		t.Fatalf("merge: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{reports.MatrixJSON, reports.MatrixMD, reports.MatrixHTML} {
		if got, want := stableMatrixFile(t, filepath.Join(merged, f)), stableMatrixFile(t, filepath.Join(local, f)); got != want {
			t.Errorf("%s of the merge differs from the local matrix's:\n--- merge\n%s\n--- local\n%s", f, got, want)
		}
	}
	for _, f := range []string{"ref/http/" + reports.ResultsFile, "ref/stdio/" + reports.ResultsFile, "ref/" + reports.HTMLFile} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Errorf("the merge did not place %s: %v", f, err)
		}
	}
	// Two runs of one target over the same transport stay refused.
	assertUsageError(t, runBinary(t, usageRunTimeout, d.mcpspec, "matrix", "--merge", "--out", t.TempDir(), dirs[0], "ref="+dirs[2]),
		`two directories name the target "ref" over http`)
	assertNoLeftovers(t, d)
}

// jobOrder sorts a job directory by its run: ref over http, ref over stdio, then nosession.
func jobOrder(t *testing.T, dir string) string {
	t.Helper()
	run, err := reports.ReadResults(filepath.Join(dir, reports.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"ref": "0", "nosession": "1"}[run.Target.Name] + strings.Join(run.Target.Transports, "")
}

func TestMatrixBadClientTargetExits2WithOneLine(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	for name, body := range map[string]string{
		"transports of a server": "  - name: a\n    stdio: x\n    transports: [stdio]\n",
		"client and stdio":       "  - name: a\n    client: c\n    stdio: x\n",
		"client and httpCmd":     "  - name: a\n    client: c\n    httpCmd: s\n    url: http://127.0.0.1:{port}/mcp\n",
		"client and slowTool":    "  - name: a\n    client: c\n    slowTool: slow\n",
		"unknown transport":      "  - name: a\n    client: c\n    transports: [sse]\n",
		"transport twice":        "  - name: a\n    client: c\n    transports: [http, http]\n",
		"no transports":          "  - name: a\n    client: c\n    transports: []\n",
		"{url} over stdio":       "  - name: a\n    client: c --url {url}\n    transports: [http, stdio]\n",
		"{server} over http":     "  - name: a\n    client: c --server {server}\n",
		"unknown client flag":    "  - name: a\n    client: c\n    args: [--slow-tool, x]\n",
		"idle below request":     "  - name: a\n    client: c\n    args: [--timeout-idle, 1s, --timeout-request, 2s]\n",
		"missing baseline":       "  - name: a\n    client: c\n    baseline: no-such.baseline.yaml\n",
		"unset variable":         "  - name: a\n    client: ${MCPSPEC_MATRIX_TEST_UNSET}/client\n",
		"unknown revision":       "  - name: a\n    client: c\n    revisions: [2023-01-01]\n",
	} {
		r := runBinary(t, usageRunTimeout, d.mcpspec, "matrix", "--config", writeConfig(t, "targets:\n"+body), "--out", t.TempDir())
		if r.code != reports.ExitUsage || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stderr == "" {
			t.Errorf("%s: exit %d, stderr %q; want 2 with a one-line reason", name, r.code, r.stderr)
		}
	}
	assertUsageError(t, runBinary(t, usageRunTimeout, d.mcpspec, "client", "--cmd", "c", "--name", "bad name"), "--name")
	assertUsageError(t, runBinary(t, usageRunTimeout, d.mcpspec, "client", "--cmd", "c", "--name", "a", "--name", "b"), "--name given 2 times")
}

// The interop config `make interop` runs is valid as committed: every target, client flags and
// baselines included (interop.sh sets MCPSPEC_INTEROP_CACHE).
func TestInteropMatrixConfigLoads(t *testing.T) {
	t.Setenv("MCPSPEC_INTEROP_CACHE", t.TempDir())
	cfg, err := loadMatrixConfig(filepath.Join("..", "..", "fixtures", "targets", "matrix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var clients []string
	for _, tg := range cfg.Targets {
		if tg.Client != "" {
			clients = append(clients, tg.Name)
		}
	}
	// One client target per SDK at least; hosts and auth variants may come beside them.
	// The SDKs' own conformance clients, unchanged, beside them.
	for _, want := range []string{"tsclient", "gosdk-client", "mcpgo-client", "python-client", "rust-client", "java-client", "inspector",
		"gosdk-everything-client", "ts-everything-client", "python-everything-client"} {
		if !slices.Contains(clients, want) {
			t.Errorf("client targets %v lack %s", clients, want)
		}
	}
	// Each SDK client with OAuth has an -auth twin running the auth/* scenarios over Streamable
	// HTTP alone (they have no stdio form), judged against a baseline of its own.
	for _, sdk := range []string{"tsclient", "gosdk-client", "mcpgo-client", "python-client", "rust-client"} {
		i := slices.IndexFunc(cfg.Targets, func(tg matrixTarget) bool { return tg.Name == sdk+"-auth" })
		if i < 0 {
			t.Errorf("no %s-auth target", sdk)
			continue
		}
		tg := cfg.Targets[i]
		if tg.Client == "" || len(tg.Args) < 2 || tg.Args[0] != "--scenario" || tg.Args[1] != "auth/*" {
			t.Errorf("%s: client %q args %q, want a client target with --scenario auth/* first", tg.Name, tg.Client, tg.Args)
		}
		if len(tg.Transports) > 0 && !slices.Equal(tg.Transports, []string{"http"}) {
			t.Errorf("%s: transports %v, want http alone", tg.Name, tg.Transports)
		}
		if tg.Baseline != sdk+"-auth.baseline.yaml" {
			t.Errorf("%s: baseline %q, want its own", tg.Name, tg.Baseline)
		}
	}
}
