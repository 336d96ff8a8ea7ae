package reports

import (
	"fmt"
	"strings"
)

// Process exit codes of mcpspec. When several apply, the highest-precedence
// one wins: ExitHarness over ExitFailures over ExitOK. ExitNothingRan is only
// returned when there are neither results nor harness errors, and ExitUsage is
// decided by the CLI before anything runs.
const (
	ExitOK         = 0 // conformant: only pass, expected, na, untestable (and warn unless strict)
	ExitFailures   = 1 // an unexpected fail, a stale baseline entry, or a warn under strict
	ExitUsage      = 2 // bad usage or configuration
	ExitHarness    = 3 // a result with status error, or a harness error outside any check
	ExitNothingRan = 4 // no results and no harness errors
)

// ExitCode maps a run to the process exit code. Warnings fail the run when
// strict is true or the run itself was recorded with Strict set.
func ExitCode(r *Run, strict bool) int {
	if len(r.Results) == 0 && len(r.Errors) == 0 {
		return ExitNothingRan
	}
	counts := countStatuses(r.Results)
	if counts[Error] > 0 || len(r.Errors) > 0 {
		return ExitHarness
	}
	if counts[Fail] > 0 || counts[Stale] > 0 || ((strict || r.Strict) && counts[Warn] > 0) {
		return ExitFailures
	}
	return ExitOK
}

// Verdict is the one-line conclusion of a run shown at the top of every
// human-readable report.
type Verdict struct {
	Code   int    // the exit code, as ExitCode computes it
	Word   string // "PASS", "FAIL", "ERROR" or "NOTHING RAN"
	Detail string // e.g. "3 unexpected failures, 1 stale baseline entry"
}

func (v Verdict) String() string {
	return "mcpspec: " + v.Word + " — " + v.Detail
}

// VerdictOf computes the verdict of a run; strict is combined with r.Strict
// exactly as in ExitCode.
func VerdictOf(r *Run, strict bool) Verdict {
	code := ExitCode(r, strict)
	strict = strict || r.Strict
	counts := countStatuses(r.Results)
	v := Verdict{Code: code}
	switch code {
	case ExitOK:
		v.Word = "PASS"
	case ExitFailures:
		v.Word = "FAIL"
	case ExitHarness:
		v.Word = "ERROR"
	default:
		v.Word = "NOTHING RAN"
		v.Detail = "no checks ran"
		return v
	}

	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(len(r.Errors), "harness error", "harness errors")
	add(counts[Error], "check ended in error", "checks ended in error")
	add(counts[Fail], "unexpected failure", "unexpected failures")
	add(counts[Stale], "stale baseline entry", "stale baseline entries")
	if strict {
		add(counts[Warn], "warning (strict)", "warnings (strict)")
	}
	if code == ExitOK {
		parts = nil
		add(counts[Pass], "check passed", "checks passed")
		if counts[Pass] == 0 {
			parts = append(parts, "no check failed")
		}
		add(counts[Warn], "warning", "warnings")
		add(counts[Expected], "expected failure", "expected failures")
	}
	v.Detail = strings.Join(parts, ", ")
	return v
}
