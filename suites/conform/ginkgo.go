package conform

import (
	"fmt"
	"regexp"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
)

// Selection is what Ginkgo will run, as --focus and --label-filter say.
type Selection struct {
	Focus       string // a regular expression over the spec's text; "" selects all
	LabelFilter string // a Ginkgo label filter; "" selects all
	Workers     int    // executions under way at once
	Sessions    int    // shared sessions per revision and transport
	Waiting     int    // checks that mostly wait under way at once, beside Workers (< 1: DefaultWaiting)
}

// Build adds one Ginkgo spec per check × selected revision × target transport, at the top level,
// so every spec's full text begins with its requirement ID, and starts executing the selected
// ones in the background. It must be called before RunSpecs.
func Build(r *Runner, sel Selection) error {
	all, err := Checks()
	if err != nil {
		return err
	}
	focus, err := regexp.Compile(sel.Focus)
	if err != nil {
		return fmt.Errorf("focus: %w", err)
	}
	filter := func([]string) bool { return true }
	if sel.LabelFilter != "" {
		if filter, err = types.ParseLabelFilter(sel.LabelFilter); err != nil {
			return fmt.Errorf("label filter: %w", err)
		}
	}
	var selected []Spec
	for _, t := range r.cfg.Targets {
		for _, c := range all {
			revs := targetRevisions(t, r.cfg.Revisions)
			for _, rev := range revs {
				if !c.AppliesTo(rev, t.Transport) || (c.Side.Once && rev != newestOf(c, revs)) {
					continue
				}
				spec := Spec{Check: c, Revision: rev, Transport: t.Transport}
				text := fmt.Sprintf("%s (%s, %s)", c.Title(), rev, t.Transport)
				lbls := labels(c, rev, t.Transport)
				// The selection is made here, once, and Ginkgo is given only the selected specs:
				// Ginkgo would match --focus against the suite's name and the title together, so
				// '^ID' would select nothing there while the check still ran here.
				if !focus.MatchString(text) || !filter(lbls) {
					continue
				}
				selected = append(selected, spec)
				It(text, Label(lbls...), func() { outcome(r.Result(spec)) })
			}
		}
	}
	r.SetWaiting(sel.Waiting)
	r.StartShared(selected, sel.Workers, sel.Sessions)
	return nil
}

// targetRevisions are the run's revisions, narrowed by the target's own list if it has one.
func targetRevisions(t harness.Target, run []string) []string {
	if len(t.Revisions) == 0 {
		return run
	}
	var out []string
	for _, r := range run {
		if slices.Contains(t.Revisions, r) {
			out = append(out, r)
		}
	}
	return out
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
	return CheckLabels(c.ID, c.Level, c.Area(), rev, transport)
}

// CheckLabels are the labels --label-filter selects a check by at a revision over a transport, the
// same for server and client checks.
func CheckLabels(id, level, area, rev, transport string) []string {
	return []string{id, level, "area:" + area, "version:" + rev, "transport:" + transport}
}

// outcome turns a recorded result into Ginkgo's verdict.
func outcome(res reports.Result) {
	switch res.Status {
	case reports.Fail:
		Fail(res.Message)
	case reports.Error:
		Fail("harness error: " + res.Message)
	case reports.Warn:
		AddReportEntry("warning", res.Message, ReportEntryVisibilityFailureOrVerbose)
	case reports.NA, reports.Untestable:
		Skip(string(res.Status) + ": " + res.Message)
	}
}
