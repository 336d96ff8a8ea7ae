package reports

import (
	"bytes"
	"html/template"
	"strings"
	"sync"
)

// matrixTemplate renders matrix.html. html/template escapes every value by where it lands (text,
// attribute, URL), so server text stays inert; the page loads nothing and runs no script. Parsed
// on first use, like report.html's.
var matrixTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("matrix.html").Parse(matrixTemplateText))
})

const matrixTemplateText = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>mcpspec compatibility matrix</title>
<style>
  :root { color-scheme: light dark; --line: #d1d5db; --muted: #6b7280; }
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; }
  table { border-collapse: collapse; margin-bottom: 1.5rem; }
  th, td { border: 1px solid var(--line); padding: 2px 6px; vertical-align: top; }
  th { text-align: left; }
  small, .muted { color: var(--muted); }
  td.num { text-align: right; }
  td.c { text-align: center; padding: 0; min-width: 1.6em; }
  td.c a { display: block; color: inherit; text-decoration: none; }
  th.col { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-weight: normal; }
  .pass { background: #dcfce7; } .fail, .error, .stale { background: #fee2e2; }
  .warn { background: #fef9c3; } .expected { background: #ede9fe; } .na, .untestable { background: #f3f4f6; }
  @media (prefers-color-scheme: dark) {
    .pass { background: #14532d; } .fail, .error, .stale { background: #7f1d1d; }
    .warn { background: #713f12; } .expected { background: #4c1d95; } .na, .untestable { background: #374151; }
  }
  .message { white-space: pre-wrap; word-break: break-word; max-width: 60em; }
  /* The targets table fits 1400 px: counts under vertical headings, long text wraps anywhere. */
  #targets { width: 100%; }
  #targets td.message { min-width: 20em; overflow-wrap: anywhere; }
  #targets td.served { min-width: 12em; }
  #targets details small { display: block; max-width: 24em; word-break: break-all; }
</style>
</head>
<body>
<h1>mcpspec compatibility matrix</h1>
<p class="muted">Generated {{.GeneratedAt}} by {{.Tool.Name}} {{.Tool.Version}}. Each target's own report (linked from its name and from every cell) holds the exchanges behind each result.</p>

<h2>Targets</h2>
<table id="targets">
<thead><tr><th>Target</th><th>Implementation</th><th>Exit</th><th>Served (revision transport)</th><th class="col">pass</th><th class="col">fail</th><th class="col">warn</th><th class="col">expected</th><th class="col">stale</th><th class="col">na</th><th class="col">untestable</th><th class="col">error</th><th>Not served: what it answered</th></tr></thead>
<tbody>
{{- range .Targets}}
<tr{{if .Error}} class="error"{{end}}>
  <td>{{if .Report}}<a href="{{.Report}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}<details><summary class="muted">how it ran</summary><small>{{.Description}}</small></details></td>
  <td>{{.Server}}</td>
  <td class="num">{{.ExitCode}}</td>
  <td class="served">{{.ServedText}}</td>
  {{- range .Counts}}<td class="num">{{.}}</td>{{end}}
  <td class="message">{{with .Error}}<strong>could not run:</strong> {{.}}<br>{{end}}{{range .NotServedList}}<strong>{{.Pair}}</strong>: {{.Answer}}<br>{{end}}{{range .HarnessErrors}}<strong>harness:</strong> {{.}}<br>{{end}}</td>
</tr>
{{- end}}
</tbody>
</table>

<h2>Deviations</h2>
{{- if .Deviations}}
<table id="deviations">
<thead><tr><th>Requirement</th><th>Target</th><th>Status</th><th>Where</th><th>Message</th></tr></thead>
<tbody>
{{- range .Deviations}}
<tr><td>{{.ID}} [{{.Level}}]<br><small>{{.Summary}}</small></td><td>{{.Target}}</td><td class="{{.Status}}">{{.Status}}</td><td>{{range .Where}}{{.}}<br>{{end}}</td><td class="message">{{.Message}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p>None: every check that ran passed, or did not apply.</p>
{{- end}}

<h2>Requirements</h2>
<p class="muted">` + matrixLegend + ` Hover a cell for its message.</p>
<table id="matrix">
<thead>
<tr><th rowspan="2">Requirement</th>{{range .Groups}}<th colspan="{{.Span}}">{{if .Report}}<a href="{{.Report}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</th>{{end}}</tr>
<tr>{{range .Heads}}<th class="col">{{.}}</th>{{end}}</tr>
</thead>
<tbody>
{{- range .Rows}}
<tr><td title="{{.Summary}}">{{.ID}} <small>[{{.Level}}]</small></td>{{range .Cells}}<td class="c {{.Status}}" title="{{.Title}}">{{if .Href}}<a href="{{.Href}}">{{.Symbol}}</a>{{else}}{{.Symbol}}{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- if not .Rows}}<p>No check ran on any target.</p>{{end}}
</body>
</html>
`

type matrixPage struct {
	*Matrix
	Targets    []matrixTargetView
	Deviations []MatrixDeviation
	Groups     []matrixGroup
	Heads      []string
	Rows       []matrixRowView
}

type matrixTargetView struct {
	MatrixTarget
	Server        string
	ServedText    string
	Counts        []int // in the order of the table's count columns
	NotServedList []struct{ Pair, Answer string }
}

type matrixGroup struct {
	Name, Report string
	Span         int
}

type matrixRowView struct {
	ID, Level, Summary string
	Cells              []matrixCellView
}

type matrixCellView struct {
	Status, Symbol, Title, Href string
}

// HTML renders matrix.html.
func (m *Matrix) HTML() ([]byte, error) {
	page := matrixPage{Matrix: m, Deviations: m.Deviations()}
	for _, t := range m.Targets {
		v := matrixTargetView{MatrixTarget: t, Server: t.Implementation(), ServedText: ServedSummary(t.Served)}
		for _, s := range []Status{Pass, Fail, Warn, Expected, Stale, NA, Untestable, Error} {
			v.Counts = append(v.Counts, t.Summary[s])
		}
		for _, pair := range sortedPairs(t.NotServed) {
			v.NotServedList = append(v.NotServedList, struct{ Pair, Answer string }{pair, t.NotServed[pair]})
		}
		page.Targets = append(page.Targets, v)
	}
	for _, c := range m.Columns {
		report := ""
		if t := m.target(c.Target); t != nil {
			report = t.Report
		}
		if n := len(page.Groups); n == 0 || page.Groups[n-1].Name != c.Target {
			page.Groups = append(page.Groups, matrixGroup{Name: c.Target, Report: report})
		}
		page.Groups[len(page.Groups)-1].Span++
		page.Heads = append(page.Heads, strings.TrimPrefix(m.ColumnLabel(c), c.Target+" "))
	}
	for _, r := range m.Rows {
		row := matrixRowView{ID: r.ID, Level: r.Level, Summary: r.Summary}
		for i, c := range m.Columns {
			cell, ok := r.Cells[c.Key]
			view := matrixCellView{}
			if ok {
				view = matrixCellView{Status: string(cell.Status), Symbol: statusSymbol(cell.Status),
					Title: m.ColumnLabel(c) + ": " + string(cell.Status), Href: page.Groups[groupOf(page.Groups, i)].Report}
				if cell.Message != "" {
					view.Title += ": " + cell.Message
				}
			}
			row.Cells = append(row.Cells, view)
		}
		page.Rows = append(page.Rows, row)
	}
	var buf bytes.Buffer
	if err := matrixTemplate().Execute(&buf, page); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// groupOf returns the index of the group holding column i.
func groupOf(groups []matrixGroup, i int) int {
	for g, grp := range groups {
		if i < grp.Span {
			return g
		}
		i -= grp.Span
	}
	return len(groups) - 1
}
