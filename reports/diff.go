package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// DiffEntry is one requirement × revision × transport (× side of an observed
// run, × scenario of a client run) whose status differs between two runs.
// OldStatus is empty for an added check, NewStatus for a removed one.
type DiffEntry struct {
	ID        string `json:"id"`
	Version   string `json:"version"`
	Transport string `json:"transport"`
	Side      string `json:"side,omitempty"`
	Scenario  string `json:"scenario,omitempty"`
	Title     string `json:"title"`
	OldStatus Status `json:"oldStatus,omitempty"`
	NewStatus Status `json:"newStatus,omitempty"`
	Message   string `json:"message,omitempty"` // the newer message
}

// DiffReport classifies every difference between two runs, each list sorted
// by ID, revision and transport.
//
//   - Regressions: was pass, na, untestable or expected, and is now fail,
//     error or stale; or was warn and is now fail or error.
//   - Fixes: was fail, error, warn or stale, and now passes.
//   - Changed: any other change of status (pass→warn included: --strict
//     callers decide for themselves whether a new warning matters).
//   - Added, Removed: present in only one of the runs.
//
// As JSON every list is present, [] when empty.
type DiffReport struct {
	Regressions []DiffEntry `json:"regressions"`
	Fixes       []DiffEntry `json:"fixes"`
	Changed     []DiffEntry `json:"changed"`
	Added       []DiffEntry `json:"added"`
	Removed     []DiffEntry `json:"removed"`
}

// MarshalJSON writes empty lists as [] rather than null, as results.json does.
// It leaves "<", ">" and "&" unescaped: the caller's encoder decides that.
func (d DiffReport) MarshalJSON() ([]byte, error) {
	type plain DiffReport // without this method, so encoding does not recurse
	out := plain{Regressions: nonNil(d.Regressions), Fixes: nonNil(d.Fixes), Changed: nonNil(d.Changed),
		Added: nonNil(d.Added), Removed: nonNil(d.Removed)}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encode diff: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Diff compares two runs keyed by (id, version, transport, side, scenario): a client
// check's rows of two scenarios are two results, never one overwriting the other.
func Diff(old, new *Run) DiffReport {
	oldByKey := indexResults(old)
	newByKey := indexResults(new)
	var d DiffReport
	for k, n := range newByKey {
		o, existed := oldByKey[k]
		if !existed {
			d.Added = append(d.Added, diffEntry(n, "", n.Status))
			continue
		}
		if o.Status == n.Status {
			continue
		}
		e := diffEntry(n, o.Status, n.Status)
		switch {
		case isRegression(o.Status, n.Status):
			d.Regressions = append(d.Regressions, e)
		case n.Status == Pass && slices.Contains([]Status{Fail, Error, Warn, Stale}, o.Status):
			d.Fixes = append(d.Fixes, e)
		default:
			d.Changed = append(d.Changed, e)
		}
	}
	for k, o := range oldByKey {
		if _, still := newByKey[k]; !still {
			d.Removed = append(d.Removed, diffEntry(o, o.Status, ""))
		}
	}
	for _, list := range []*[]DiffEntry{&d.Regressions, &d.Fixes, &d.Added, &d.Removed, &d.Changed} {
		slices.SortFunc(*list, func(a, b DiffEntry) int {
			return a.key().compare(b.key())
		})
	}
	return d
}

func isRegression(old, new Status) bool {
	broken := new == Fail || new == Error || new == Stale
	switch old {
	case Pass, NA, Untestable, Expected:
		return broken
	case Warn:
		return new == Fail || new == Error
	}
	return false
}

// indexResults maps results by key; should a run hold the same key twice,
// the last one wins, as it would in a report reader.
func indexResults(r *Run) map[key]Result {
	m := map[key]Result{}
	if r == nil {
		return m
	}
	for _, res := range r.Results {
		m[resultKey(res)] = res
	}
	return m
}

func diffEntry(r Result, old, new Status) DiffEntry {
	return DiffEntry{ID: r.ID, Version: r.Version, Transport: r.Transport, Side: r.Side, Scenario: r.Scenario,
		Title: r.Title, OldStatus: old, NewStatus: new, Message: r.Message}
}

func (e DiffEntry) key() key { return key{e.ID, e.Version, e.Transport, e.Side, e.Scenario} }

// HasRegressions reports whether anything regressed.
func (d DiffReport) HasRegressions() bool { return len(d.Regressions) > 0 }

// Empty reports whether the runs had the same checks with the same statuses.
func (d DiffReport) Empty() bool {
	return len(d.Regressions)+len(d.Fixes)+len(d.Added)+len(d.Removed)+len(d.Changed) == 0
}

// Write prints the report for people, one section per kind of difference.
func (d DiffReport) Write(w io.Writer) error {
	var b strings.Builder
	if d.Empty() {
		b.WriteString("No differences.\n")
	}
	sections := []struct {
		name    string
		entries []DiffEntry
	}{
		{"Regressions", d.Regressions}, {"Fixes", d.Fixes}, {"Changed", d.Changed},
		{"Added", d.Added}, {"Removed", d.Removed},
	}
	for _, s := range sections {
		if len(s.entries) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s (%d):\n", s.name, len(s.entries))
		for _, e := range s.entries {
			fmt.Fprintf(&b, "  %s %s %s", oneLine(e.ID, messageWidth), oneLine(e.Version, messageWidth),
				oneLine(e.Transport, messageWidth))
			for _, qualifier := range []string{e.Side, e.Scenario} {
				if qualifier != "" {
					b.WriteString(" " + oneLine(qualifier, messageWidth))
				}
			}
			b.WriteString(": " + transition(e))
			if e.Message != "" && e.NewStatus != Pass && e.NewStatus != "" {
				b.WriteString("  " + oneLine(e.Message, messageWidth))
			}
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "%d regressions, %d fixes, %d changed, %d added, %d removed\n",
		len(d.Regressions), len(d.Fixes), len(d.Changed), len(d.Added), len(d.Removed))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write diff: %w", err)
	}
	return nil
}

func transition(e DiffEntry) string {
	switch {
	case e.OldStatus == "":
		return "new, " + string(e.NewStatus)
	case e.NewStatus == "":
		return "gone, was " + string(e.OldStatus)
	}
	return string(e.OldStatus) + " → " + string(e.NewStatus)
}
