// Package reports turns conformance results into files and an exit code:
// junit.xml, results.json, summary.md and report.html, plus baselines of
// expected failures and the diff between two runs. It knows nothing of the
// wire or of Ginkgo.
package reports

// Status is the verdict of one requirement at one revision over one transport.
type Status string

const (
	Pass       Status = "pass"       // the requirement holds
	Fail       Status = "fail"       // a MUST is broken
	Warn       Status = "warn"       // a SHOULD is broken (a failure under --strict)
	NA         Status = "na"         // ruled out by revision, transport or capability, with the reason
	Untestable Status = "untestable" // a prerequisite is missing: never counted as a pass
	Error      Status = "error"      // the harness or the target's infrastructure failed
	Expected   Status = "expected"   // failing, but listed in the baseline
	Stale      Status = "stale"      // listed in the baseline, but passing now
)

// AllStatuses lists every status in declaration order; reports use this order
// for counts.
func AllStatuses() []Status {
	return []Status{Pass, Fail, Warn, NA, Untestable, Error, Expected, Stale}
}

// Valid reports whether s is one of the known statuses.
func (s Status) Valid() bool {
	for _, known := range AllStatuses() {
		if s == known {
			return true
		}
	}
	return false
}
