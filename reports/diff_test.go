package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	old := &Run{Results: []Result{
		sampleResult("REG-PASS", Pass, "2025-03-26", "stdio"),
		sampleResult("REG-EXPECTED", Expected, "2025-03-26", "stdio"),
		sampleResult("REG-NA", NA, "2025-03-26", "stdio"),
		sampleResult("REG-WARN", Warn, "2025-03-26", "stdio"),
		sampleResult("FIX-FAIL", Fail, "2025-03-26", "stdio"),
		sampleResult("FIX-STALE", Stale, "2025-03-26", "stdio"),
		sampleResult("CHG-PASS-WARN", Pass, "2025-03-26", "stdio"),
		sampleResult("CHG-FAIL-EXPECTED", Fail, "2025-03-26", "stdio"),
		sampleResult("SAME", Fail, "2025-03-26", "stdio"),
		sampleResult("GONE", Pass, "2025-03-26", "stdio"),
		sampleResult("SPLIT", Pass, "2025-03-26", "stdio"),
	}}
	new := &Run{Results: []Result{
		sampleResult("REG-PASS", Fail, "2025-03-26", "stdio"),
		sampleResult("REG-EXPECTED", Stale, "2025-03-26", "stdio"),
		sampleResult("REG-NA", Error, "2025-03-26", "stdio"),
		sampleResult("REG-WARN", Fail, "2025-03-26", "stdio"),
		sampleResult("FIX-FAIL", Pass, "2025-03-26", "stdio"),
		sampleResult("FIX-STALE", Pass, "2025-03-26", "stdio"),
		sampleResult("CHG-PASS-WARN", Warn, "2025-03-26", "stdio"),
		sampleResult("CHG-FAIL-EXPECTED", Expected, "2025-03-26", "stdio"),
		sampleResult("SAME", Fail, "2025-03-26", "stdio"),
		sampleResult("SPLIT", Pass, "2025-03-26", "http"), // a different key
		sampleResult("NEW", Fail, "2025-06-18", "stdio"),
	}}
	d := Diff(old, new)

	ids := func(entries []DiffEntry) string {
		var out []string
		for _, e := range entries {
			out = append(out, e.ID+"/"+e.Transport)
		}
		return strings.Join(out, ",")
	}
	checks := []struct{ name, got, want string }{
		{"regressions", ids(d.Regressions), "REG-EXPECTED/stdio,REG-NA/stdio,REG-PASS/stdio,REG-WARN/stdio"},
		{"fixes", ids(d.Fixes), "FIX-FAIL/stdio,FIX-STALE/stdio"},
		{"changed", ids(d.Changed), "CHG-FAIL-EXPECTED/stdio,CHG-PASS-WARN/stdio"},
		{"added", ids(d.Added), "NEW/stdio,SPLIT/http"},
		{"removed", ids(d.Removed), "GONE/stdio,SPLIT/stdio"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
	if !d.HasRegressions() {
		t.Error("HasRegressions is false")
	}
	if r := d.Regressions[2]; r.OldStatus != Pass || r.NewStatus != Fail {
		t.Errorf("REG-PASS entry %+v", r)
	}

	var out bytes.Buffer
	if err := d.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Regressions (4):", "  REG-PASS 2025-03-26 stdio: pass → fail  fail message for REG-PASS",
		"Fixes (2):", "  NEW 2025-06-18 stdio: new, fail", "  GONE 2025-03-26 stdio: gone, was pass",
		"4 regressions, 2 fixes, 2 changed, 2 added, 2 removed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("diff output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestDiffOfIdenticalRuns(t *testing.T) {
	run := sampleRun()
	d := Diff(run, sampleRun())
	if !d.Empty() || d.HasRegressions() {
		t.Errorf("identical runs differ: %+v", d)
	}
	var out bytes.Buffer
	if err := d.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "No differences.") {
		t.Errorf("output %q", out.String())
	}
}

func TestDiffJSONHasEveryList(t *testing.T) {
	d := Diff(&Run{}, &Run{Results: []Result{sampleResult("NEW", Fail, "2025-03-26", "stdio")}})
	d.Added[0].Message = "a <b> & c"
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"regressions":[],"fixes":[],"changed":[],"added":[{"id":"NEW","version":"2025-03-26",` +
		`"transport":"stdio","title":"NEW [MUST] the NEW check","newStatus":"fail","message":"a \u003cb\u003e \u0026 c"}],"removed":[]}`
	if string(data) != want {
		t.Errorf("JSON\n got %s\nwant %s", data, want)
	}
	var back DiffReport
	if err := json.Unmarshal(data, &back); err != nil || len(back.Added) != 1 || back.Added[0].Message != "a <b> & c" {
		t.Errorf("round trip: %v %+v", err, back)
	}
}
