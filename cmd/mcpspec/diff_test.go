package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

// diffResult is one synthetic result, enough for diff to pair and classify it.
func diffResult(id string, status reports.Status, transport string) reports.Result {
	return reports.Result{
		ID: id, Title: id + " [MUST] synthetic", Area: "batch", Level: "MUST", Version: "2025-06-18",
		Transport: transport, Status: status, Message: string(status) + " <b>for</b> " + id,
		SpecURL: "https://modelcontextprotocol.io/specification/2025-06-18/basic",
	}
}

// writeDiffRun writes a synthetic run's reports with reports.WriteAll, as `mcpspec run` does, and
// returns the path of its results.json.
func writeDiffRun(t *testing.T, results ...reports.Result) string {
	t.Helper()
	dir := t.TempDir()
	run := &reports.Run{
		Tool:       reports.Tool{Name: "mcpspec", Version: version},
		Target:     reports.Target{Description: "stdio: ./server", Transports: []string{"stdio", "http"}},
		StartedAt:  time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC),
		DurationMs: 100,
		Revisions:  []string{"2025-06-18"},
		Results:    results,
	}
	if err := reports.WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	return filepath.Join(dir, reports.ResultsFile)
}

// writeDiffInput writes arbitrary content as a would-be results.json.
func writeDiffInput(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runDiff(t *testing.T, args ...string) (int, string, error) {
	t.Helper()
	var out bytes.Buffer
	code, err := cmdDiff(args, &out)
	return code, out.String(), err
}

func TestDiffExitCodes(t *testing.T) {
	baseline := writeDiffRun(t,
		diffResult("A", reports.Pass, "stdio"),
		diffResult("B", reports.Fail, "stdio"),
		diffResult("C", reports.Pass, "http"))
	same := writeDiffRun(t,
		diffResult("A", reports.Pass, "stdio"),
		diffResult("B", reports.Fail, "stdio"),
		diffResult("C", reports.Pass, "http"))
	fixed := writeDiffRun(t,
		diffResult("A", reports.Pass, "stdio"),
		diffResult("B", reports.Pass, "stdio"),
		diffResult("C", reports.Pass, "http"),
		diffResult("D", reports.Fail, "http")) // a new check failing is not a regression
	regressed := writeDiffRun(t,
		diffResult("A", reports.Fail, "stdio"),
		diffResult("B", reports.Fail, "stdio"))

	cases := []struct {
		name     string
		old, new string
		wantCode int
		wantOut  []string
	}{
		{"identical", baseline, same, reports.ExitOK, []string{"No differences.", "0 regressions"}},
		{"fix and addition", baseline, fixed, reports.ExitOK,
			[]string{"Fixes (1):", "  B 2025-06-18 stdio: fail → pass", "Added (1):", "  D 2025-06-18 http: new, fail",
				"0 regressions, 1 fixes, 0 changed, 1 added, 0 removed"}},
		{"regression", baseline, regressed, reports.ExitFailures,
			[]string{"Regressions (1):", "  A 2025-06-18 stdio: pass → fail  fail <b>for</b> A",
				"Removed (1):", "  C 2025-06-18 http: gone, was pass", "1 regressions"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, err := runDiff(t, c.old, c.new)
			if err != nil || code != c.wantCode {
				t.Fatalf("exit %d, err %v; want exit %d\n%s", code, err, c.wantCode, out)
			}
			for _, want := range c.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func TestDiffJSON(t *testing.T) {
	oldPath := writeDiffRun(t, diffResult("A", reports.Pass, "stdio"), diffResult("B", reports.Fail, "stdio"))
	newPath := writeDiffRun(t, diffResult("A", reports.Error, "stdio"), diffResult("B", reports.Fail, "stdio"))

	// --json after the paths works as well as before them.
	for _, args := range [][]string{{"--json", oldPath, newPath}, {oldPath, newPath, "--json"}, {oldPath, "-json", newPath}} {
		code, out, err := runDiff(t, args...)
		if err != nil || code != reports.ExitFailures {
			t.Fatalf("%v: exit %d, err %v; want %d", args, code, err, reports.ExitFailures)
		}
		var got map[string][]reports.DiffEntry
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: output is not JSON: %v\n%s", args, err, out)
		}
		for _, list := range []string{"regressions", "fixes", "changed", "added", "removed"} {
			if _, ok := got[list]; !ok || !strings.Contains(out, `"`+list+`": [`) {
				t.Errorf("%v: JSON lacks the list %q (empty lists must be [], not null):\n%s", args, list, out)
			}
		}
		want := reports.DiffEntry{ID: "A", Version: "2025-06-18", Transport: "stdio", Title: "A [MUST] synthetic",
			OldStatus: reports.Pass, NewStatus: reports.Error, Message: "error <b>for</b> A"}
		if len(got["regressions"]) != 1 || got["regressions"][0] != want {
			t.Errorf("%v: regressions %+v, want [%+v]", args, got["regressions"], want)
		}
		if !strings.Contains(out, "<b>for</b>") {
			t.Errorf("%v: messages should not be HTML-escaped in JSON:\n%s", args, out)
		}
	}
}

func TestDiffRefusesBadInput(t *testing.T) {
	good := writeDiffRun(t, diffResult("A", reports.Pass, "stdio"))
	cases := []struct {
		name    string
		args    []string
		wantMsg string
	}{
		{"no paths", nil, "want two results.json paths"},
		{"one path", []string{good}, "want two results.json paths, OLD and NEW, got 1"},
		{"three paths", []string{good, good, good}, "got 3"},
		{"unknown flag", []string{"--strict", good, good}, "flag provided but not defined: -strict"},
		{"missing file", []string{good, filepath.Join(t.TempDir(), "absent.json")}, "diff: new: read results:"},
		{"not JSON", []string{writeDiffInput(t, "<html>"), good}, "diff: old: "},
		{"not a results file", []string{good, writeDiffInput(t, `{"results": []}`)}, "no schemaVersion field"},
		{"future schema", []string{good, writeDiffInput(t, `{"schemaVersion": 3, "results": []}`)}, "schemaVersion 3 is not supported"},
		{"unknown status", []string{writeDiffInput(t, `{"schemaVersion": 1, "results": [{"id": "A", "status": "passed"}]}`), good},
			`unknown status "passed"`},
		{"a matrix", []string{good, writeDiffInput(t, `{"schemaVersion": 1, "targets": [], "columns": [], "rows": []}`)}, "a matrix.json"},
		{"client against server", []string{good, writeDiffInput(t, `{"schemaVersion": 1, "target": {"kind": "client"}, "results": []}`)},
			"OLD is the run of a server and NEW of a client"},
		{"endless input", []string{"/dev/zero", good}, "larger than 256 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, err := runDiff(t, c.args...)
			var ue *usageError
			if code != reports.ExitUsage || !errors.As(err, &ue) {
				t.Fatalf("exit %d, err %v; want exit %d with a usage error", code, err, reports.ExitUsage)
			}
			if !strings.Contains(err.Error(), c.wantMsg) || strings.Contains(err.Error(), "\n") {
				t.Errorf("reason %q: want one line containing %q", err, c.wantMsg)
			}
			if out != "" {
				t.Errorf("nothing should be printed on bad input, got:\n%s", out)
			}
		})
	}
}

func TestDiffPathsAfterDoubleDash(t *testing.T) {
	good := writeDiffRun(t, diffResult("A", reports.Pass, "stdio"))
	dir := filepath.Dir(good)
	t.Chdir(dir)
	dashed := "-json" // a file whose name looks like a flag
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, dashed), data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, err := runDiff(t, "--", reports.ResultsFile, dashed)
	if err != nil || code != reports.ExitOK || !strings.HasPrefix(out, "No differences.") {
		t.Fatalf("exit %d, err %v, output:\n%s", code, err, out)
	}
}

func TestDiffHelp(t *testing.T) {
	code, out, err := runDiff(t, "--help")
	if err != nil || code != reports.ExitOK || !strings.Contains(out, "Usage: mcpspec diff [--json] OLD NEW") {
		t.Fatalf("exit %d, err %v, output:\n%s", code, err, out)
	}
}

// A client check judges several scenarios' recordings, one row each with the same (id,
// revision, transport): diff pairs them by scenario too, so a regression in one scenario is
// neither hidden by a pass in another nor reported against the wrong one.
func TestDiffPairsClientRowsByScenario(t *testing.T) {
	row := func(status reports.Status, scenario string) reports.Result {
		r := diffResult("HTTP-POST-ACCEPT", status, "http")
		r.Scenario = scenario
		return r
	}
	oldPath := writeDiffRun(t, row(reports.Pass, "session-expiry"), row(reports.Pass, "tools_call"))
	// The failing scenario first: were rows keyed without their scenario, the pass after it
	// would stand for both.
	newPath := writeDiffRun(t, row(reports.Fail, "session-expiry"), row(reports.Pass, "tools_call"))

	code, out, err := runDiff(t, oldPath, newPath)
	if err != nil || code != reports.ExitFailures {
		t.Fatalf("exit %d, err %v; want %d\n%s", code, err, reports.ExitFailures, out)
	}
	for _, want := range []string{"Regressions (1):", "  HTTP-POST-ACCEPT 2025-06-18 http session-expiry: pass → fail",
		"1 regressions, 0 fixes, 0 changed, 0 added, 0 removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, err = runDiff(t, "--json", oldPath, newPath)
	if err != nil || code != reports.ExitFailures {
		t.Fatalf("--json: exit %d, err %v\n%s", code, err, out)
	}
	var got map[string][]reports.DiffEntry
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json: not JSON: %v\n%s", err, out)
	}
	if len(got["regressions"]) != 1 || got["regressions"][0].Scenario != "session-expiry" {
		t.Errorf("--json: regressions %+v, want one of scenario session-expiry", got["regressions"])
	}

	// A scenario served in one run only is a row added or removed, not a change of another's.
	onePath := writeDiffRun(t, row(reports.Pass, "tools_call"))
	code, out, err = runDiff(t, oldPath, onePath)
	if err != nil || code != reports.ExitOK || !strings.Contains(out, "  HTTP-POST-ACCEPT 2025-06-18 http session-expiry: gone, was pass") {
		t.Errorf("exit %d, err %v; want exit 0 and session-expiry removed:\n%s", code, err, out)
	}
}
