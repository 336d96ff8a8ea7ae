package reports

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Cell is one revision over one transport.
type Cell struct{ Version, Transport string }

// Finding is one requirement with one status, across every revision × transport it had that
// status at: what a person reads as one problem, however many cells it broke.
type Finding struct {
	ID, Title, Area, Level, SpecURL string
	Status                          Status
	Results                         []Result // one per cell, in revision, transport order
}

// Cells lists the revision × transport cells of f.
func (f Finding) Cells() []Cell {
	cells := make([]Cell, len(f.Results))
	for i, r := range f.Results {
		cells[i] = Cell{r.Version, r.Transport}
	}
	return cells
}

// Summary is the title without its leading "ID [LEVEL] ".
func (f Finding) Summary() string {
	s := strings.TrimPrefix(f.Title, f.ID)
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		if _, rest, ok := strings.Cut(s, "] "); ok {
			s = rest
		}
	}
	return s
}

// EffectiveLevel is the level the finding was judged at: a failing check below MUST failed
// because its evidence broke a MUST (the first line of its message names the rule), so it
// reads "MUST (SHOULD check)".
func (f Finding) EffectiveLevel() string {
	if f.Status == Fail && f.Level != "" && f.Level != "MUST" {
		return "MUST (" + f.Level + " check)"
	}
	return f.Level
}

// Message is what one result says about f: the baseline's reason for an expected failure,
// otherwise the first result's message.
func (f Finding) Message() string {
	r := f.Results[0]
	if f.Status == Expected && r.BaselineReason != "" {
		return "baseline: " + r.BaselineReason
	}
	return r.Message
}

// groupFindings groups results (sorted as compareForListing sorts them) by status and
// requirement, in the same order.
func groupFindings(rows []Result) []Finding {
	var out []Finding
	for _, r := range rows {
		if n := len(out); n > 0 && out[n-1].ID == r.ID && out[n-1].Status == r.Status {
			out[n-1].Results = append(out[n-1].Results, r)
			continue
		}
		out = append(out, Finding{ID: r.ID, Title: r.Title, Area: r.Area, Level: r.Level, SpecURL: r.SpecURL,
			Status: r.Status, Results: []Result{r}})
	}
	return out
}

// cellsText names cells compactly, revisions grouped by transport: "stdio: 2025-06-18, 2025-11-25;
// http: 2026-07-28", or "stdio: every revision" when they are all of the run's revisions (more
// than one).
func cellsText(cells []Cell, revisions []string) string {
	all := slices.Clone(revisions)
	slices.Sort(all)
	var transports []string
	byTransport := map[string][]string{}
	for _, c := range cells {
		if _, ok := byTransport[c.Transport]; !ok {
			transports = append(transports, c.Transport)
		}
		if c.Version != "" && !slices.Contains(byTransport[c.Transport], c.Version) {
			byTransport[c.Transport] = append(byTransport[c.Transport], c.Version)
		}
	}
	parts := make([]string, 0, len(transports))
	for _, t := range transports {
		vs := byTransport[t]
		slices.Sort(vs)
		which := strings.Join(vs, ", ")
		if len(all) > 1 && slices.Equal(vs, all) {
			which = "every revision"
		}
		if which == "" {
			parts = append(parts, t)
			continue
		}
		parts = append(parts, t+": "+which)
	}
	return strings.Join(parts, "; ")
}

// Cause is one reason many checks ended in error: a target that could not be started,
// reached or spoken to is one cause, however many checks it stopped.
type Cause struct {
	Text    string   // the first line of the messages, without "target unavailable: "
	Results []Result // the errors it explains
	// Why holds lines the target itself wrote that explain the cause: the error-looking lines of
	// its stderr tail, and what it wrote on stdout that is not JSON-RPC.
	Why []string
}

const unavailablePrefix = "target unavailable: "

// causeText is the cause an error's message states: its first line, less the prefix that
// marks a check stopped before it began.
func causeText(msg string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return strings.TrimPrefix(strings.TrimSpace(first), unavailablePrefix)
}

// groupCauses groups errors by the cause their messages state, the commonest first.
func groupCauses(errs []Result) []Cause {
	index := map[string]int{}
	var out []Cause
	for _, r := range errs {
		text := causeText(r.Message)
		i, ok := index[text]
		if !ok {
			i = len(out)
			index[text] = i
			out = append(out, Cause{Text: text})
		}
		out[i].Results = append(out[i].Results, r)
	}
	slices.SortStableFunc(out, func(a, b Cause) int { return cmp.Compare(len(b.Results), len(a.Results)) })
	for i := range out {
		out[i].Why = explain(out[i].Results)
	}
	return out
}

// whyLines bounds how many of a target's own lines explain a cause.
const whyLines = 3

// errorLooking matches a line that says why something failed, among a stderr tail's banners.
var errorLooking = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)error|fatal|panic|exception|cannot|can't|could not|couldn't|not found|no such|denied|refused|failed|failure|missing|invalid|unable|must|required|undefined|traceback|usage:`)
})

// ErrorLines returns the lines of text (a program's stderr) that look like they say why it
// failed, at most n of them, the last ones when there are more.
func ErrorLines(text string, n int) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && errorLooking().MatchString(l) {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// explain picks, from the results of one cause, the lines the target wrote that explain it:
// the error-looking lines of the stderr tail a message quotes (its last line when none looks
// like an error), then the lines on stdout that were not JSON-RPC.
func explain(results []Result) []string {
	var why []string
	add := func(line string) {
		line = strings.TrimSpace(line)
		if line != "" && !slices.Contains(why, line) && len(why) < whyLines {
			why = append(why, line)
		}
	}
	for _, r := range results {
		_, tail, ok := strings.Cut(r.Message, stderrMarker)
		if !ok {
			continue
		}
		lines := strings.Split(strings.TrimSpace(tail), "\n")
		picked := false
		for _, l := range lines {
			if errorLooking().MatchString(l) {
				add("stderr: " + l)
				picked = true
			}
		}
		if !picked && len(lines) > 0 {
			add("stderr: " + lines[len(lines)-1])
		}
		break
	}
	for _, r := range results {
		found := false
		for _, e := range r.Evidence {
			if e.Direction == "recv" && e.Channel == "stdout" && strings.Contains(e.Meta, "violation") {
				add(fmt.Sprintf("stdout, not JSON-RPC: %q", clipRunes(strings.TrimSpace(e.Body), 120)))
				found = true
			}
		}
		if found {
			break
		}
	}
	return why
}

// clipRunes cuts s to at most n runes, marking the cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
