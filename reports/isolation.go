package reports

import (
	"fmt"
	"sort"
	"strings"
)

// IsolationDiff is one check at one revision over one transport whose verdict in a run of a
// part of the suite (an area, one check) differs from its verdict in the full run. A check's
// verdict must not depend on which other checks run beside it, so each one is a bug of mcpspec's,
// whatever the server. Full is the zero Result when the full run had no such result.
type IsolationDiff struct {
	Part  string // what ran alone: "--focus '^BATCH-'", …
	Full  Result
	Alone Result
}

// String says which check changed, both statuses and both messages.
func (d IsolationDiff) String() string {
	full := "absent"
	if d.Full.ID != "" {
		full = fmt.Sprintf("%s (%s)", d.Full.Status, flat(d.Full.Message))
	}
	return fmt.Sprintf("%s %s %s: full run %s; alone (%s) %s (%s)", d.Alone.ID, d.Alone.Version, d.Alone.Transport,
		full, d.Part, d.Alone.Status, flat(d.Alone.Message))
}

// flat keeps a whole message readable on one line of a list of differences: its lines are
// joined, control characters made visible.
func flat(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "no message"
	}
	return oneLine(s, isolationMessageWidth)
}

// isolationMessageWidth is wider than a listing's: both messages are what tells why.
const isolationMessageWidth = 400

// CompareIsolated returns every result of the partial run alone whose status differs from the
// full run's for the same ID, revision and transport (or the one revision at which the full run
// ran it over that transport), sorted. A result either run marks
// intermittent is left out: its baseline says the server's own behaviour comes and goes.
func CompareIsolated(part string, full, alone *Run) []IsolationDiff {
	byKey := map[[3]string]Result{}
	revisions := map[[2]string][]Result{} // by ID and transport
	for _, r := range full.Results {
		byKey[[3]string{r.ID, r.Version, r.Transport}] = r
		revisions[[2]string{r.ID, r.Transport}] = append(revisions[[2]string{r.ID, r.Transport}], r)
	}
	var out []IsolationDiff
	for _, a := range alone.Results {
		f, ok := byKey[[3]string{a.ID, a.Version, a.Transport}]
		if rs := revisions[[2]string{a.ID, a.Transport}]; !ok && len(rs) == 1 {
			// A check run once per transport, at the newest revision selected, which in a run
			// of fewer revisions is another one.
			f, ok = rs[0], true
		}
		if ok && (f.Status == a.Status || f.Intermittent || a.Intermittent) {
			continue
		}
		out = append(out, IsolationDiff{Part: part, Full: f, Alone: a})
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i].Alone, out[j].Alone
		if x.ID != y.ID {
			return x.ID < y.ID
		}
		if x.Version != y.Version {
			return x.Version < y.Version
		}
		return x.Transport < y.Transport
	})
	return out
}
