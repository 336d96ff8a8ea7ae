package reports

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// A compatibility matrix puts the results of many targets side by side: one row per requirement,
// one column per target × revision × transport the target served. It is built from each target's
// results.json and written as matrix.json, matrix.md and matrix.html.

// MatrixSchemaVersion is the layout version of matrix.json.
const MatrixSchemaVersion = 1

// Matrix file names.
const (
	MatrixJSON = "matrix.json"
	MatrixMD   = "matrix.md"
	MatrixHTML = "matrix.html"
)

// matrixMessageMax caps a cell's message: the full text and its evidence are in the target's report.
const matrixMessageMax = 300

// Matrix is requirements × (target, revision, transport).
type Matrix struct {
	SchemaVersion int            `json:"schemaVersion"`
	Tool          Tool           `json:"tool"`
	GeneratedAt   string         `json:"generatedAt"` // RFC 3339
	Targets       []MatrixTarget `json:"targets"`
	Columns       []MatrixColumn `json:"columns"`
	Rows          []MatrixRow    `json:"rows"`
}

// MatrixTarget is one target: how its run went and what it served.
type MatrixTarget struct {
	Name        string `json:"name"`
	Kind        string `json:"kind,omitempty"` // KindClient for a client, "" for a server
	Description string `json:"description"`    // how it was launched or reached
	ExitCode    int    `json:"exitCode"`       // of its `mcpspec run`
	// Error says why the target, or one of its transports, could not be run at all.
	Error      string         `json:"error,omitempty"`
	Report     string         `json:"report,omitempty"` // its report.html, relative to the matrix files
	ServerInfo map[string]any `json:"serverInfo,omitempty"`
	Transports []string       `json:"transports"`
	Summary    map[Status]int `json:"summary"`
	// Served lists "revision transport" pairs at which the target negotiated and was checked.
	Served []string `json:"served"`
	// NotServed maps each "revision transport" pair it did not serve to what it answered.
	NotServed map[string]string `json:"notServed,omitempty"`
	// HarnessErrors are the run's errors outside any check.
	HarnessErrors []string `json:"harnessErrors,omitempty"`
}

// MatrixColumn is one target at one revision over one transport.
type MatrixColumn struct {
	Key       string `json:"key"` // "target revision transport": the key of the row cells
	Target    string `json:"target"`
	Revision  string `json:"revision"`
	Transport string `json:"transport"`
}

// MatrixRow is one requirement; Cells are keyed by MatrixColumn.Key, and a missing key means the
// check did not run in that column.
type MatrixRow struct {
	ID      string                `json:"id"`
	Level   string                `json:"level"`
	Area    string                `json:"area"`
	Summary string                `json:"summary"` // the check's title without ID and level
	Cells   map[string]MatrixCell `json:"cells"`
}

// MatrixCell is one result, its message kept for everything but a pass.
type MatrixCell struct {
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
}

// cellOrder ranks the results of one cell, first wins: a deviation before a pass, and a pass
// before a scenario that had nothing to judge or did not apply.
var cellOrder = []Status{Fail, Error, Stale, Warn, Expected, Pass, Untestable, NA}

// mergeCell adds a result to its cell. A client check judges one (revision, transport) in
// several scenarios: the cell shows the first of them by cellOrder, and its message names the
// scenario it comes from, so that a failure in one scenario is not hidden by a pass in the next.
func mergeCell(cell MatrixCell, r Result) MatrixCell {
	rank := func(s Status) int { return slices.Index(cellOrder, s) }
	if cell.Status != "" && rank(cell.Status) <= rank(r.Status) {
		return cell
	}
	cell = MatrixCell{Status: r.Status}
	if r.Status != Pass {
		cell.Message = r.Message
		if r.Scenario != "" {
			cell.Message = r.Scenario + ": " + r.Message
		}
		cell.Message = clip(cell.Message, matrixMessageMax)
	}
	return cell
}

// notServedMarker begins the na message of every check at a revision the server did not
// negotiate (see suites/conform: "the server does not serve revision …").
const notServedMarker = "does not serve revision"

// columnKey names a cell's column.
func columnKey(target, revision, transport string) string {
	return target + " " + revision + " " + transport
}

// AddTarget adds a target and, when it produced one, its run. A target whose run is nil, or one of
// whose transports produced nothing but errors, gets an Error saying why (unless it has one).
func (m *Matrix) AddTarget(t MatrixTarget, run *Run) {
	t.Summary = countStatuses(nil)
	if run == nil {
		if t.Error == "" {
			t.Error = "no results"
		}
		m.Targets = append(m.Targets, t)
		return
	}
	t.ServerInfo = run.Target.ServerInfo
	t.Kind = run.Target.Kind
	t.Transports = append([]string(nil), run.Target.Transports...)
	t.HarnessErrors = run.Errors
	t.Summary = countStatuses(run.Results)

	rows := map[string]int{}
	for i, r := range m.Rows {
		rows[r.ID] = i
	}
	// The shared session's answer decides whether a revision was served; a check on a raw
	// connection of its own that does not depend on the revision may still have run there, but
	// a revision the server refused gets no column.
	served, notServed := map[string]bool{}, map[string]string{}
	for _, r := range run.Results {
		pair := r.Version + " " + r.Transport
		if _, seen := notServed[pair]; !seen && r.Status == NA && strings.Contains(r.Message, notServedMarker) {
			notServed[pair] = r.Message
		}
	}
	for _, r := range run.Results {
		pair := r.Version + " " + r.Transport
		if _, refused := notServed[pair]; refused {
			continue
		}
		served[pair] = true
		key := columnKey(t.Name, r.Version, r.Transport)
		if !slices.ContainsFunc(m.Columns, func(c MatrixColumn) bool { return c.Key == key }) {
			m.Columns = append(m.Columns, MatrixColumn{Key: key, Target: t.Name, Revision: r.Version, Transport: r.Transport})
		}
		i, ok := rows[r.ID]
		if !ok {
			i = len(m.Rows)
			rows[r.ID] = i
			m.Rows = append(m.Rows, MatrixRow{ID: r.ID, Level: r.Level, Area: r.Area, Summary: checkSummary(r), Cells: map[string]MatrixCell{}})
		}
		m.Rows[i].Cells[key] = mergeCell(m.Rows[i].Cells[key], r)
	}
	for pair := range served {
		t.Served = append(t.Served, pair)
	}
	sort.Strings(t.Served)
	if len(notServed) > 0 {
		t.NotServed = notServed
	}
	if t.Error == "" {
		t.Error = unrunTransports(run)
	}
	m.Targets = append(m.Targets, t)
	m.sort()
}

// unrunTransports says which of the run's transports produced no result but errors, and why.
func unrunTransports(run *Run) string {
	var why []string
	for _, tr := range run.Target.Transports {
		ran, reason := false, ""
		for _, r := range run.Results {
			if r.Transport != tr {
				continue
			}
			if r.Status != Error {
				ran = true
				break
			}
			if reason == "" {
				reason = r.Message
			}
		}
		if ran {
			continue
		}
		if reason == "" && len(run.Errors) > 0 {
			reason = run.Errors[0]
		}
		if reason == "" {
			reason = "no results"
		}
		why = append(why, tr+": "+clip(reason, matrixMessageMax))
	}
	return strings.Join(why, "; ")
}

// sort orders columns by target (in the order added), revision and transport, and rows by area and ID.
func (m *Matrix) sort() {
	order := map[string]int{}
	for i, t := range m.Targets {
		order[t.Name] = i
	}
	sort.SliceStable(m.Columns, func(i, j int) bool {
		a, b := m.Columns[i], m.Columns[j]
		if a.Target != b.Target {
			return order[a.Target] < order[b.Target]
		}
		if a.Revision != b.Revision {
			return a.Revision < b.Revision
		}
		return a.Transport < b.Transport
	})
	sort.SliceStable(m.Rows, func(i, j int) bool {
		if m.Rows[i].Area != m.Rows[j].Area {
			return m.Rows[i].Area < m.Rows[j].Area
		}
		return m.Rows[i].ID < m.Rows[j].ID
	})
}

// target returns the target named name.
func (m *Matrix) target(name string) *MatrixTarget {
	for i := range m.Targets {
		if m.Targets[i].Name == name {
			return &m.Targets[i]
		}
	}
	return nil
}

// ColumnLabel is a column's heading: the target and revision, plus the transport when the target
// was reached over more than one.
func (m *Matrix) ColumnLabel(c MatrixColumn) string {
	if t := m.target(c.Target); t != nil && len(t.Transports) > 1 {
		return c.Target + " " + c.Revision + " " + c.Transport
	}
	return c.Target + " " + c.Revision
}

// Failed reports whether any target could not be run at all, or only in part.
func (m *Matrix) Failed() bool {
	for _, t := range m.Targets {
		if t.Error != "" {
			return true
		}
	}
	return false
}

// MatrixDeviation is one requirement a target broke (or was baselined for) at one or more columns.
type MatrixDeviation struct {
	ID      string   `json:"id"`
	Level   string   `json:"level"`
	Summary string   `json:"summary"`
	Target  string   `json:"target"`
	Status  Status   `json:"status"`
	Where   []string `json:"where"` // "revision transport" pairs
	Message string   `json:"message"`
}

// Deviations lists every fail, warn, expected, stale and error, merging the columns of one target
// where the requirement ended the same way with the same message, numbers aside (request ids,
// ports and timings differ from column to column); the first column's message is kept.
func (m *Matrix) Deviations() []MatrixDeviation {
	var out []MatrixDeviation
	index := map[string]int{}
	for _, r := range m.Rows {
		for _, c := range m.Columns {
			cell, ok := r.Cells[c.Key]
			if !ok || cell.Status == Pass || cell.Status == NA || cell.Status == Untestable {
				continue
			}
			k := strings.Join([]string{r.ID, c.Target, string(cell.Status), digits().ReplaceAllString(cell.Message, "#")}, "\x00")
			where := c.Revision + " " + c.Transport
			if i, seen := index[k]; seen {
				out[i].Where = append(out[i].Where, where)
				continue
			}
			index[k] = len(out)
			out = append(out, MatrixDeviation{ID: r.ID, Level: r.Level, Summary: r.Summary, Target: c.Target, Status: cell.Status, Where: []string{where}, Message: cell.Message})
		}
	}
	return out
}

// digits are blanked when comparing messages.
var digits = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+`) })

// checkSummary is a result's title without the leading "ID [LEVEL] ".
func checkSummary(r Result) string {
	s := strings.TrimPrefix(r.Title, r.ID)
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		if _, rest, ok := strings.Cut(s, "]"); ok {
			s = rest
		}
	}
	return strings.TrimSpace(s)
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// statusSymbol is a status in one character, for dense tables.
func statusSymbol(s Status) string {
	switch s {
	case Pass:
		return "✓"
	case Fail:
		return "✗"
	case Warn:
		return "!"
	case NA:
		return "–"
	case Untestable:
		return "?"
	case Error:
		return "E"
	case Expected:
		return "x"
	case Stale:
		return "s"
	}
	return ""
}

// String gives a one-line account of the target, for the console.
func (t MatrixTarget) String() string {
	var parts []string
	for _, s := range AllStatuses() {
		if n := t.Summary[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, n))
		}
	}
	line := fmt.Sprintf("%s: exit %d", t.Name, t.ExitCode)
	if len(parts) > 0 {
		line += ", " + strings.Join(parts, ", ")
	}
	if t.Error != "" {
		line += "; could not run: " + t.Error
	}
	return line
}

// ServedSummary condenses "revision transport" pairs into revisions grouped by the transports
// they were served over: "2025-03-26, 2025-06-18 (http, stdio); 2026-07-28 (stdio)".
func ServedSummary(served []string) string {
	byRev := map[string][]string{}
	var revs []string
	for _, pair := range served {
		rev, tr, _ := strings.Cut(pair, " ")
		if _, seen := byRev[rev]; !seen {
			revs = append(revs, rev)
		}
		byRev[rev] = append(byRev[rev], tr)
	}
	sort.Strings(revs)
	var groups []string
	var group []string
	flush := func(transports []string) {
		if len(group) > 0 {
			groups = append(groups, strings.Join(group, ", ")+" ("+strings.Join(transports, ", ")+")")
		}
	}
	var prev []string
	for _, rev := range revs {
		trs := byRev[rev]
		sort.Strings(trs)
		if !slices.Equal(trs, prev) {
			flush(prev)
			group, prev = nil, trs
		}
		group = append(group, rev)
	}
	flush(prev)
	return strings.Join(groups, "; ")
}
