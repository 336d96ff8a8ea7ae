package reports

import (
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MatrixTarget is one target of a compatibility matrix: how its run went and what it negotiated.
type MatrixTarget struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	ExitCode    int            `json:"exitCode"`
	Error       string         `json:"error,omitempty"`  // why the target could not be run at all
	Report      string         `json:"report,omitempty"` // its report.html, relative to the matrix
	ServerInfo  map[string]any `json:"serverInfo,omitempty"`
	Summary     map[Status]int `json:"summary,omitempty"`
	// Served lists the revision/transport pairs at which the target ran checks; NotServed says,
	// per revision/transport it did not serve, what it answered.
	Served    []string          `json:"served"`
	NotServed map[string]string `json:"notServed,omitempty"`
}

// MatrixRow is one requirement; cells are keyed by column.
type MatrixRow struct {
	ID    string            `json:"id"`
	Level string            `json:"level"`
	Area  string            `json:"area"`
	Cells map[string]Status `json:"cells"`
}

// Matrix is requirements × (target, revision, transport).
type Matrix struct {
	SchemaVersion int            `json:"schemaVersion"`
	Tool          Tool           `json:"tool"`
	Revisions     []string       `json:"revisions"`
	Targets       []MatrixTarget `json:"targets"`
	Columns       []string       `json:"columns"` // "target revision transport"
	Rows          []MatrixRow    `json:"rows"`
}

// Column names a cell's column.
func Column(target, revision, transport string) string {
	return target + " " + revision + " " + transport
}

// AddRun adds a target's results to the matrix.
func (m *Matrix) AddRun(t MatrixTarget, run *Run) {
	if run != nil {
		t.ServerInfo = run.Target.ServerInfo
		run.Summarize()
		t.Summary = run.Summary
		served := map[string]bool{}
		notServed := map[string]string{}
		rows := map[string]*MatrixRow{}
		for i := range m.Rows {
			rows[m.Rows[i].ID] = &m.Rows[i]
		}
		for _, r := range run.Results {
			key := r.Version + " " + r.Transport
			if r.Status == NA && strings.Contains(r.Message, "does not serve revision") {
				notServed[key] = r.Message
				continue
			}
			served[key] = true
			col := Column(t.Name, r.Version, r.Transport)
			if !contains(m.Columns, col) {
				m.Columns = append(m.Columns, col)
			}
			row, ok := rows[r.ID]
			if !ok {
				m.Rows = append(m.Rows, MatrixRow{ID: r.ID, Level: r.Level, Area: r.Area, Cells: map[string]Status{}})
				rows = map[string]*MatrixRow{}
				for i := range m.Rows {
					rows[m.Rows[i].ID] = &m.Rows[i]
				}
				row = rows[r.ID]
			}
			row.Cells[col] = r.Status
		}
		for k := range served {
			t.Served = append(t.Served, k)
			delete(notServed, k)
		}
		sort.Strings(t.Served)
		if len(notServed) > 0 {
			t.NotServed = notServed
		}
	}
	m.Targets = append(m.Targets, t)
	sort.Slice(m.Rows, func(i, j int) bool { return m.Rows[i].ID < m.Rows[j].ID })
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Matrix file names.
const (
	MatrixJSON = "matrix.json"
	MatrixMD   = "matrix.md"
	MatrixHTML = "matrix.html"
)

// WriteMatrix writes matrix.json, matrix.md and matrix.html into dir.
func WriteMatrix(dir string, m *Matrix) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	m.SchemaVersion = SchemaVersion
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode matrix: %w", err)
	}
	var errs []string
	if err := os.WriteFile(filepath.Join(dir, MatrixJSON), append(b, '\n'), 0o644); err != nil {
		errs = append(errs, err.Error())
	}
	if err := os.WriteFile(filepath.Join(dir, MatrixMD), []byte(m.Markdown()), 0o644); err != nil {
		errs = append(errs, err.Error())
	}
	f, err := os.Create(filepath.Join(dir, MatrixHTML))
	if err == nil {
		err = matrixPage.Execute(f, m)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		errs = append(errs, fmt.Sprintf("matrix.html: %v", err))
	}
	if len(errs) > 0 {
		return fmt.Errorf("write matrix: %s", strings.Join(errs, "; "))
	}
	return nil
}

// matrixCell escapes text for a Markdown table cell.
func matrixCell(s string) string {
	s = strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ", "`", "'").Replace(s)
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// Markdown renders the per-target verdicts and the requirement rows.
func (m *Matrix) Markdown() string {
	var b strings.Builder
	b.WriteString("# mcpspec compatibility matrix\n\n## Targets\n\n| target | exit | pass | fail | warn | na | untestable | error | served | not served |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range m.Targets {
		ns := ""
		for k, v := range t.NotServed {
			ns += k + ": " + v + "; "
		}
		if t.Error != "" {
			ns = "could not run: " + t.Error
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %s | %s |\n", matrixCell(t.Name), t.ExitCode,
			t.Summary[Pass], t.Summary[Fail], t.Summary[Warn], t.Summary[NA], t.Summary[Untestable], t.Summary[Error],
			matrixCell(strings.Join(t.Served, ", ")), matrixCell(ns))
	}
	b.WriteString("\n## Requirements\n\nCells: pass ✓, fail ✗, warn !, na –, untestable ?, error E; blank: not run.\n\n| requirement |")
	for _, c := range m.Columns {
		b.WriteString(" " + matrixCell(c) + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(m.Columns)) + "\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "| %s [%s] |", r.ID, r.Level)
		for _, c := range m.Columns {
			b.WriteString(" " + symbol(r.Cells[c]) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func symbol(s Status) string {
	return map[Status]string{Pass: "✓", Fail: "✗", Warn: "!", NA: "–", Untestable: "?", Error: "E", Expected: "x", Stale: "s"}[s]
}

var matrixPage = template.Must(template.New("matrix").Funcs(template.FuncMap{
	"cell":  func(r MatrixRow, col string) string { return string(r.Cells[col]) },
	"count": func(summary map[Status]int, s string) int { return summary[Status(s)] },
	"sym":   func(r MatrixRow, col string) string { return symbol(r.Cells[col]) },
	"targetOf": func(col string) string {
		name, _, _ := strings.Cut(col, " ")
		return name
	},
	"reportOf": func(m *Matrix, col string) string {
		name, _, _ := strings.Cut(col, " ")
		for _, t := range m.Targets {
			if t.Name == name {
				return t.Report
			}
		}
		return ""
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcpspec compatibility matrix</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}
th.col{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;font-weight:normal}
td.pass{background:#d9f2d9}td.fail{background:#f7c6c6}td.warn{background:#fbe7b5}td.na,td.untestable{background:#eee}td.error{background:#e0b3ff}
td.c{text-align:center}
</style></head><body>
<h1>mcpspec compatibility matrix</h1>
<h2>Targets</h2>
<table><tr><th>target</th><th>exit</th><th>pass</th><th>fail</th><th>warn</th><th>na</th><th>untestable</th><th>error</th><th>served</th><th>not served (what it answered)</th></tr>
{{range .Targets}}<tr><td>{{if .Report}}<a href="{{.Report}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}<br><small>{{.Description}}</small></td><td>{{.ExitCode}}</td>
<td>{{count .Summary "pass"}}</td><td>{{count .Summary "fail"}}</td><td>{{count .Summary "warn"}}</td><td>{{count .Summary "na"}}</td><td>{{count .Summary "untestable"}}</td><td>{{count .Summary "error"}}</td>
<td>{{range .Served}}{{.}}<br>{{end}}</td><td>{{if .Error}}could not run: {{.Error}}{{end}}{{range $k, $v := .NotServed}}<b>{{$k}}</b>: {{$v}}<br>{{end}}</td></tr>
{{end}}</table>
<h2>Requirements</h2>
<table><tr><th>requirement</th>{{range .Columns}}<th class="col">{{.}}</th>{{end}}</tr>
{{$m := .}}{{range $r := .Rows}}<tr><td>{{$r.ID}} [{{$r.Level}}]</td>{{range $c := $m.Columns}}<td class="c {{cell $r $c}}" title="{{$c}}: {{cell $r $c}}">{{with reportOf $m $c}}<a href="{{.}}">{{sym $r $c}}</a>{{else}}{{sym $r $c}}{{end}}</td>{{end}}</tr>
{{end}}</table>
</body></html>
`))
