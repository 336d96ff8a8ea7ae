package reports

import "testing"

func runOf(statuses ...Status) *Run {
	r := &Run{}
	for _, s := range statuses {
		r.Results = append(r.Results, sampleResult("X-"+string(s), s, "2025-03-26", "stdio"))
	}
	return r
}

func TestExitCode(t *testing.T) {
	withErrors := runOf(Pass)
	withErrors.Errors = []string{"server crashed between checks"}
	onlyErrors := &Run{Errors: []string{"server did not start"}}
	strictRun := runOf(Pass, Warn)
	strictRun.Strict = true

	cases := []struct {
		name   string
		run    *Run
		strict bool
		want   int
	}{
		{"all tolerated statuses", runOf(Pass, Expected, NA, Untestable, Warn), false, ExitOK},
		{"unexpected failure", runOf(Pass, Fail), false, ExitFailures},
		{"stale baseline entry", runOf(Pass, Stale), false, ExitFailures},
		{"warn under strict", runOf(Pass, Warn), true, ExitFailures},
		{"warn in a strict run", strictRun, false, ExitFailures},
		{"error result beats failure", runOf(Fail, Error), false, ExitHarness},
		{"harness error beats pass", withErrors, false, ExitHarness},
		{"harness error without results", onlyErrors, false, ExitHarness},
		{"nothing ran", &Run{}, false, ExitNothingRan},
		{"only na ran", runOf(NA), false, ExitOK},
	}
	for _, c := range cases {
		if got := ExitCode(c.run, c.strict); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

func TestVerdictDetail(t *testing.T) {
	cases := []struct {
		run    *Run
		strict bool
		want   string
	}{
		{runOf(Pass, Pass, Warn), false, "mcpspec: PASS — 2 checks passed, 1 warning"},
		{runOf(Pass, Warn, Warn), true, "mcpspec: FAIL — 2 warnings (strict)"},
		{runOf(Fail, Fail, Fail, Stale), false, "mcpspec: FAIL — 3 unexpected failures, 1 stale baseline entry"},
		{runOf(NA), false, "mcpspec: PASS — no check failed"},
		{&Run{}, false, "mcpspec: NOTHING RAN — no checks ran"},
	}
	for _, c := range cases {
		if got := VerdictOf(c.run, c.strict).String(); got != c.want {
			t.Errorf("verdict %q, want %q", got, c.want)
		}
	}
}

func TestSummarizeCountsEveryStatus(t *testing.T) {
	r := runOf(Fail, Fail, Pass)
	r.Summarize()
	if len(r.Summary) != len(AllStatuses()) || r.Summary[Fail] != 2 || r.Summary[Pass] != 1 || r.Summary[Stale] != 0 {
		t.Errorf("summary %v", r.Summary)
	}
}
