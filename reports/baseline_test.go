package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func knownIDs(ids ...string) func(string) bool {
	return func(id string) bool {
		for _, k := range ids {
			if k == id {
				return true
			}
		}
		return false
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "baseline.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadBaseline(t *testing.T) {
	path := writeFile(t, `# mcpspec baseline: expected failures
expected:
  - id: BATCH-EMPTY
    version: 2025-03-26   # unquoted: must stay a string, not a date
    transport: http
    reason: "server-everything answers [] with []"
  - id: PING-OK
    reason: flaky everywhere
`)
	b, err := LoadBaseline(path, knownIDs("BATCH-EMPTY", "PING-OK"))
	if err != nil {
		t.Fatalf("LoadBaseline: %v", err)
	}
	if len(b.Expected) != 2 {
		t.Fatalf("entries %+v", b.Expected)
	}
	e := b.Expected[0]
	if e.ID != "BATCH-EMPTY" || e.Version != "2025-03-26" || e.Transport != "http" ||
		e.Reason != "server-everything answers [] with []" {
		t.Errorf("entry %+v", e)
	}
}

func TestLoadBaselineErrors(t *testing.T) {
	known := knownIDs("BATCH-EMPTY")
	cases := map[string]struct{ content, wantInError string }{
		"unknown key":       {"expected:\n  - id: BATCH-EMPTY\n    reason: r\n    why: x\n", `line 4: unknown key "why"`},
		"unknown top key":   {"expected: []\nextra: 1\n", "extra"},
		"missing reason":    {"expected:\n  - id: BATCH-EMPTY\n", "line 2: entry BATCH-EMPTY has no reason"},
		"missing id":        {"expected:\n  - reason: r\n", "no id"},
		"unknown id":        {"expected:\n  - id: NOPE-1\n    reason: r\n", `unknown requirement ID "NOPE-1"`},
		"bad version":       {"expected:\n  - id: BATCH-EMPTY\n    version: 2025-13-01\n    reason: r\n", `unknown version "2025-13-01"`},
		"bad transport":     {"expected:\n  - id: BATCH-EMPTY\n    transport: ws\n    reason: r\n", `unknown transport "ws"`},
		"duplicate entry":   {"expected:\n  - id: BATCH-EMPTY\n    reason: a\n  - id: BATCH-EMPTY\n    reason: b\n", "duplicate of the entry on line 2"},
		"repeated key":      {"expected:\n  - id: BATCH-EMPTY\n    id: BATCH-EMPTY\n    reason: r\n", "repeated"},
		"entry not mapping": {"expected:\n  - BATCH-EMPTY\n", "must be a mapping"},
		"list value":        {"expected:\n  - id: [BATCH-EMPTY]\n    reason: r\n", "single value"},
		"not yaml":          {"expected: [\n", "baseline"},
	}
	for name, c := range cases {
		_, err := LoadBaseline(writeFile(t, c.content), known)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), c.wantInError) {
			t.Errorf("%s: error %q lacks %q", name, err, c.wantInError)
		}
	}
	if _, err := LoadBaseline(filepath.Join(t.TempDir(), "missing.yaml"), known); err == nil {
		t.Error("a missing file should be an error")
	}
	if b, err := LoadBaseline(writeFile(t, "# nothing yet\n"), known); err != nil || len(b.Expected) != 0 {
		t.Errorf("an empty file is an empty baseline: %v %+v", err, b)
	}
}

func TestBaselineApply(t *testing.T) {
	b := &Baseline{Expected: []BaselineEntry{
		{ID: "A", Reason: "any revision"},
		{ID: "A", Version: "2025-06-18", Transport: "http", Reason: "narrow"},
		{ID: "B", Version: "2025-03-26", Reason: "only 03-26"},
		{ID: "C", Reason: "c"},
		{ID: "D", Reason: "d"},
		{ID: "GONE", Reason: "no longer run"},
		{ID: "F", Reason: "a race", Intermittent: true},
	}}
	in := []Result{
		sampleResult("A", Fail, "2025-03-26", "stdio"),
		sampleResult("A", Warn, "2025-06-18", "http"),
		sampleResult("B", Fail, "2025-06-18", "stdio"), // other revision: not covered
		sampleResult("C", Pass, "2025-03-26", "stdio"),
		sampleResult("D", Error, "2025-03-26", "stdio"), // errors are never expected
		sampleResult("E", Fail, "2025-03-26", "stdio"),
		sampleResult("F", Pass, "2025-03-26", "stdio"), // intermittent: a pass is not stale
		sampleResult("F", Fail, "2025-06-18", "stdio"),
	}
	out := b.Apply(in)
	want := []struct {
		status Status
		reason string
	}{{Expected, "any revision"}, {Expected, "narrow"}, {Fail, ""}, {Stale, "c"}, {Error, ""}, {Fail, ""}, {Pass, "a race"}, {Expected, "a race"}}
	for i, w := range want {
		if out[i].Status != w.status || out[i].BaselineReason != w.reason {
			t.Errorf("%s %s: got %s/%q, want %s/%q", out[i].ID, out[i].Version, out[i].Status,
				out[i].BaselineReason, w.status, w.reason)
		}
	}
	if out[3].Message != staleMessage {
		t.Errorf("stale message %q", out[3].Message)
	}
	if in[0].Status != Fail {
		t.Error("Apply must not modify its input")
	}
	unmatched := b.Unmatched(in)
	if len(unmatched) != 2 || unmatched[0].ID != "B" || unmatched[1].ID != "GONE" {
		t.Errorf("unmatched %+v", unmatched)
	}
}

func TestBaselineIntermittentKey(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "b.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b, err := LoadBaseline(write("expected:\n  - id: A\n    reason: r\n    intermittent: true\n"), nil)
	if err != nil || len(b.Expected) != 1 || !b.Expected[0].Intermittent {
		t.Fatalf("intermittent: true not read: %+v, %v", b, err)
	}
	if _, err := LoadBaseline(write("expected:\n  - id: A\n    reason: r\n    intermittent: sometimes\n"), nil); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("intermittent: sometimes was accepted or the error names no line: %v", err)
	}
}

// TestWriteBaselineKeepsIntermittent: rewriting a baseline keeps an intermittent entry whether
// its result failed or passed this time, still marked.
func TestWriteBaselineKeepsIntermittent(t *testing.T) {
	passed := sampleResult("F", Pass, "2025-03-26", "stdio")
	passed.BaselineReason, passed.Intermittent = "a race", true
	failed := sampleResult("F", Expected, "2025-06-18", "stdio")
	failed.BaselineReason, failed.Intermittent = "a race", true
	path := filepath.Join(t.TempDir(), "b.yaml")
	if err := WriteBaseline(path, []Result{passed, failed, sampleResult("P", Pass, "2025-03-26", "stdio")}); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Expected) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(b.Expected), b.Expected)
	}
	for _, e := range b.Expected {
		if e.ID != "F" || !e.Intermittent || e.Reason != "a race" {
			t.Errorf("entry %+v, want F, intermittent, reason kept", e)
		}
	}
}

func TestWriteBaselineRoundTrip(t *testing.T) {
	results := []Result{
		sampleResult("B-FAIL", Fail, "2025-03-26", "stdio"),
		sampleResult("A-WARN", Warn, "2025-06-18", "http"),
		sampleResult("C-PASS", Pass, "2025-03-26", "stdio"),
		sampleResult("D-ERROR", Error, "2025-03-26", "stdio"),
		sampleResult("E-EXPECTED", Expected, "2024-11-05", "sse"),
	}
	results[4].BaselineReason = "kept reason"
	path := filepath.Join(t.TempDir(), "baseline.yaml")
	if err := WriteBaseline(path, results); err != nil {
		t.Fatalf("WriteBaseline: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "# mcpspec baseline: expected failures\n") {
		t.Errorf("missing header:\n%s", raw)
	}

	b, err := LoadBaseline(path, knownIDs("A-WARN", "B-FAIL", "E-EXPECTED"))
	if err != nil {
		t.Fatalf("reload: %v\n%s", err, raw)
	}
	got := []string{}
	for _, e := range b.Expected {
		got = append(got, e.ID+" "+e.Version+" "+e.Transport+" "+e.Reason)
	}
	wantReason := "recorded by --write-baseline on " + today()
	want := []string{
		"A-WARN 2025-06-18 http " + wantReason,
		"B-FAIL 2025-03-26 stdio " + wantReason,
		"E-EXPECTED 2024-11-05 sse kept reason",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Applying the recorded baseline to the same results leaves nothing unexpected.
	run := &Run{Results: b.Apply(results)}
	if code := ExitCode(run, true); code != ExitHarness {
		t.Errorf("exit %d: only the error result should remain", code)
	}
	run.Results = run.Results[:3]
	if code := ExitCode(run, true); code != ExitOK {
		t.Errorf("exit %d after applying the recorded baseline, want 0", code)
	}
}

// TestBaselineEntryInUseIsNotStale: a client check judged in several scenarios at one revision
// may fail in one and pass in another; the entry accepting the failure is not stale for the pass
// beside it, and becomes stale once nothing it covers fails.
func TestBaselineEntryInUseIsNotStale(t *testing.T) {
	b := &Baseline{Expected: []BaselineEntry{{ID: "S", Version: "2025-11-25", Transport: "http", Reason: "one scenario"}}}
	both := b.Apply([]Result{
		sampleResult("S", Fail, "2025-11-25", "http"),
		sampleResult("S", Pass, "2025-11-25", "http"),
	})
	if both[0].Status != Expected || both[1].Status != Pass {
		t.Errorf("fail and pass under one entry: got %s, %s; want expected, pass", both[0].Status, both[1].Status)
	}
	fixed := b.Apply([]Result{
		sampleResult("S", Pass, "2025-11-25", "http"),
		sampleResult("S", Pass, "2025-11-25", "http"),
	})
	if fixed[0].Status != Stale || fixed[1].Status != Stale {
		t.Errorf("nothing failing under the entry: got %s, %s; want stale, stale", fixed[0].Status, fixed[1].Status)
	}
}

// A client check judges one requirement in several scenarios: an entry narrowed to one scenario
// accepts its failure there only, and --write-baseline narrows each entry to its scenario.
func TestBaselineScenario(t *testing.T) {
	path := writeFile(t, "expected:\n  - id: A\n    version: 2025-06-18\n    transport: http\n    scenario: initialize\n    reason: r\n")
	b, err := LoadBaseline(path, knownIDs("A"))
	if err != nil {
		t.Fatal(err)
	}
	in := []Result{sampleResult("A", Fail, "2025-06-18", "http"), sampleResult("A", Fail, "2025-06-18", "http")}
	in[0].Scenario, in[1].Scenario = "initialize", "tools_call"
	out := b.Apply(in)
	if out[0].Status != Expected || out[1].Status != Fail {
		t.Errorf("got %s and %s, want expected in initialize and fail in tools_call", out[0].Status, out[1].Status)
	}
	data, err := encodeBaseline(in, "r")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "scenario: "); got != 2 {
		t.Errorf("want one entry per scenario, got:\n%s", data)
	}
}
