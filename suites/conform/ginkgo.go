package conform

import (
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"

	"github.com/mcpspec/mcpspec/reports"
)

// Build adds one Ginkgo spec per check × selected revision × target transport, at the top level,
// so every spec's full text begins with its requirement ID. It must be called before RunSpecs.
func Build(r *Runner) error {
	all, err := Checks()
	if err != nil {
		return err
	}
	for _, t := range r.cfg.Targets {
		for _, c := range all {
			for _, rev := range r.cfg.Revisions {
				if !c.AppliesTo(rev, t.Transport) || (c.Once && rev != newestOf(c, r.cfg.Revisions)) {
					continue
				}
				It(fmt.Sprintf("%s (%s, %s)", c.Title(), rev, t.Transport), Label(labels(c, rev, t.Transport)...), func() {
					outcome(r.Execute(c, rev, t.Transport))
				})
			}
		}
	}
	return nil
}

// newestOf is the newest selected revision the check applies to.
func newestOf(c *Check, revisions []string) string {
	newest := ""
	for _, rev := range revisions {
		if slices.Contains(c.Versions, rev) && rev > newest {
			newest = rev
		}
	}
	return newest
}

func labels(c *Check, rev, transport string) []string {
	return []string{c.ID, c.Level, "area:" + c.Area(), "version:" + rev, "transport:" + transport}
}

// outcome turns a recorded result into Ginkgo's verdict.
func outcome(res reports.Result) {
	switch res.Status {
	case reports.Fail:
		Fail(res.Message)
	case reports.Error:
		Fail("harness error: " + res.Message)
	case reports.Warn:
		AddReportEntry("warning", res.Message)
	case reports.NA, reports.Untestable:
		Skip(string(res.Status) + ": " + res.Message)
	}
}
