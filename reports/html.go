package reports

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed report.html.tmpl
var reportTemplateText string

// reportScript is the filter code. It is inlined, and the page's
// Content-Security-Policy allows exactly this script by its hash, so even an
// escaping mistake could not run anything else.
//
//go:embed report.js
var reportScript string

// reportTemplate is parsed once, on first use (not at start: every process of this binary, each
// reference server a run launches among them, would pay for it); html/template escapes every
// value by the context it lands in (text, attribute, URL), which is what keeps server strings
// inert.
var reportTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html").Parse(reportTemplateText))
})

type htmlPage struct {
	Run        *Run
	Verdict    Verdict
	StartedAt  string
	Counts     []htmlCount
	Areas      []string
	Versions   []string
	Transports []string
	ServerName string
	ServerInfo string // serverInfo as indented JSON
	NotServed  []htmlNotServed
	Grid       htmlGrid // the columns (revision × transport) of the requirements table
	Reqs       []htmlReq
	Problems   int // requirements with a failure, error, stale entry or warning
	// Evidence is the evidence of passes and na checks, as gzip-compressed JSON in base64, which
	// the page's script decodes when a row is opened: most of a run is passes, and their evidence
	// would otherwise make the page many megabytes.
	Evidence    string
	GeneratedAt string
	Script      template.JS
	ScriptHash  string // CSP source expression for Script
}

type htmlCount struct {
	Status Status
	Count  int
	Rank   int // place in listOrder: the filters start on ranks 0-3 (fail, error, stale, warn)
}

type htmlRow struct {
	Result
	Anchor   string // the element id of the result, which its cell links to
	Summary  string // the message on one line
	Seconds  string
	Evidence []htmlExchange
	EvRef    int // with Packed, the index of the evidence in htmlPage.Evidence
	Packed   bool
}

// htmlReq is one requirement: a row of the requirements table, with a cell per revision ×
// transport and, when opened, each result's message and evidence.
type htmlReq struct {
	ID, Title, Summary, Level, Area, SpecURL string
	Extension                                string // the protocol extension it belongs to ("": the core)
	Worst                                    Status // its most pressing status, in listOrder
	Headline                                 string // the first line of its most pressing result's message, unless it passed
	Statuses                                 string // its distinct statuses, space-separated, for the filters
	Cells                                    []htmlGridCell
	Results                                  []htmlRow
}

type htmlExchange struct {
	Header    string
	Direction string
	Body      string
}

// htmlNotServed is one revision or transport the server does not serve, shown as one line that
// opens on the first of its checks (its message and evidence show what the server answered).
type htmlNotServed struct {
	NotServed
	Anchor   string
	Revision string
	Answer   string // on one line
	Message  string
	Evidence []htmlExchange
}

// htmlGrid is every verdict at a glance: requirements down, revision × transport across. A cell
// carries only its status and a link to the row (or not-served line) holding the evidence, so the
// grid adds little to the page however much evidence the rows hold.
type htmlGrid struct {
	Revisions []htmlGridRevision
	Columns   []gridColumn
	Rows      []htmlGridRow
	Omitted   []string // "revision transport" of columns left out: nothing there but not served
}

type htmlGridRevision struct {
	Version string
	Span    int
}

type gridColumn struct{ Version, Transport string }

type htmlGridRow struct {
	ID, Title string
	Cells     []htmlGridCell // one per column; an empty Status: no check there
}

type htmlGridCell struct {
	Status Status
	Href   string // "#r12" or "#ns1"
	Mark   string // the status in one character (as in matrix.html), for readers who cannot tell the colours apart
}

// encodeHTML renders report.html: one self-contained page (inline CSS and JS, no network) that
// reads fine without JavaScript; the filters are an extra. It leads with what needs a look: the
// revisions and transports the server does not serve (one line each), then the findings in
// listOrder, the grid, and last the na checks and passes.
func encodeHTML(r *Run) ([]byte, error) {
	page := htmlPage{
		Run:         r,
		Verdict:     VerdictOf(r, false),
		ServerName:  visibleControls(r.serverField("name")),
		GeneratedAt: time.Now().UTC().Format(time.RFC3339),
		Script:      template.JS(reportScript),
		ScriptHash:  scriptHash(reportScript),
	}
	if !r.StartedAt.IsZero() {
		page.StartedAt = r.StartedAt.UTC().Format(time.RFC3339)
	}
	counts := countStatuses(r.Results)
	for _, s := range listOrder {
		page.Counts = append(page.Counts, htmlCount{s, counts[s], s.rank()})
	}
	if len(r.Target.ServerInfo) > 0 {
		var info bytes.Buffer
		enc := json.NewEncoder(&info)
		enc.SetEscapeHTML(false) // the template escapes; keep "<" readable
		enc.SetIndent("", "  ")
		if err := enc.Encode(r.Target.ServerInfo); err != nil {
			return nil, fmt.Errorf("encode serverInfo: %w", err)
		}
		page.ServerInfo = info.String()
	}

	areas, versions, transports := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, res := range r.Results {
		areas[res.Area], versions[res.Version], transports[res.Transport] = true, true, true
	}
	page.Areas, page.Versions, page.Transports = sortedKeys(areas), sortedKeys(versions), sortedKeys(transports)

	notServed, rows := arrange(r.Results)
	href := map[key]string{} // where each result's evidence is on the page
	for i, n := range notServed {
		ns := htmlNotServed{NotServed: n, Anchor: fmt.Sprintf("ns%d", i+1), Revision: n.revisionLabel(),
			Answer: oneLine(n.Answer, messageWidth), Message: escapeControls(n.First.Message, true),
			Evidence: htmlEvidence(n.First.Evidence, 0)}
		page.NotServed = append(page.NotServed, ns)
	}
	for _, res := range r.Results {
		if v, _, ok := notServedKey(res); ok {
			for _, ns := range page.NotServed {
				if ns.Version == v && ns.Transport == res.Transport {
					href[resultKey(res)] = "#" + ns.Anchor
				}
			}
		}
	}
	var packed [][]htmlExchange
	packIndex := map[string]int{}
	var htmlRows []htmlRow
	for i, res := range rows {
		res.Message = escapeControls(res.Message, true)
		row := htmlRow{Result: res, Anchor: fmt.Sprintf("r%d", i+1), Summary: oneLine(res.Message, messageWidth), Seconds: seconds(res.DurationMs)}
		switch res.Status {
		case Pass, NA:
			// Every row opens on the exchange that decided it, a pass too; a pass's is shortened
			// (results.json keeps it whole) and packed, identical evidence once.
			ev := htmlEvidence(passEvidence(res.Evidence), passBodyBytes)
			if len(ev) > 0 {
				k := packKey(ev)
				n, ok := packIndex[k]
				if !ok {
					n = len(packed)
					packIndex[k] = n
					packed = append(packed, ev)
				}
				row.EvRef, row.Packed = n, true
			}
		default:
			row.Evidence = htmlEvidence(res.Evidence, 0)
		}
		href[resultKey(res)] = "#" + row.Anchor
		htmlRows = append(htmlRows, row)
	}
	page.Grid = buildGrid(r, href)
	page.Reqs = buildReqs(htmlRows, page.Grid)
	for _, q := range page.Reqs {
		if q.Worst.rank() <= Warn.rank() {
			page.Problems++
		}
	}
	if len(packed) > 0 {
		blob, err := packEvidence(packed)
		if err != nil {
			return nil, err
		}
		page.Evidence = blob
	}

	var buf bytes.Buffer
	if err := reportTemplate().Execute(&buf, page); err != nil {
		return nil, fmt.Errorf("render report.html: %w", err)
	}
	return buf.Bytes(), nil
}

// buildReqs groups rows by requirement, each with its cells in the grid's columns, the
// requirements with the most pressing status first, then by area and ID.
func buildReqs(rows []htmlRow, g htmlGrid) []htmlReq {
	index := map[string]int{}
	var reqs []htmlReq
	for _, row := range rows {
		i, ok := index[row.ID]
		if !ok {
			i = len(reqs)
			index[row.ID] = i
			f := Finding{ID: row.ID, Title: row.Title}
			reqs = append(reqs, htmlReq{ID: row.ID, Title: row.Title, Summary: f.Summary(), Level: row.Level, Area: row.Area,
				SpecURL: row.SpecURL, Extension: row.Extension, Worst: row.Status})
		}
		q := &reqs[i]
		q.Results = append(q.Results, row)
		if row.Status.rank() < q.Worst.rank() || len(q.Results) == 1 {
			q.Worst = row.Status
			if row.Status != Pass {
				q.Headline = row.Summary
			}
		}
		if !slices.Contains(strings.Fields(q.Statuses), string(row.Status)) {
			q.Statuses = strings.TrimSpace(q.Statuses + " " + string(row.Status))
		}
	}
	cellsOf := map[string][]htmlGridCell{}
	for _, gr := range g.Rows {
		cellsOf[gr.ID] = gr.Cells
	}
	for i := range reqs {
		reqs[i].Cells = cellsOf[reqs[i].ID]
		slices.SortStableFunc(reqs[i].Results, func(a, b htmlRow) int { return resultKey(a.Result).compare(resultKey(b.Result)) })
		// A failing check below MUST failed on a broken MUST rule: say so where the level is.
		if reqs[i].Worst == Fail && reqs[i].Level != "MUST" && reqs[i].Level != "" {
			reqs[i].Level = "MUST (" + reqs[i].Level + " check)"
		}
	}
	slices.SortStableFunc(reqs, func(a, b htmlReq) int {
		return cmp.Or(cmp.Compare(a.Worst.rank(), b.Worst.rank()), cmp.Compare(a.Area, b.Area), cmp.Compare(a.ID, b.ID))
	})
	return reqs
}

// packKey is the same text for the same evidence and a different one otherwise: each field with
// its length, so no field's text can pass for a boundary.
func packKey(ev []htmlExchange) string {
	var b strings.Builder
	for _, e := range ev {
		for _, f := range [...]string{e.Header, e.Direction, e.Body} {
			b.WriteString(strconv.Itoa(len(f)))
			b.WriteByte(':')
			b.WriteString(f)
		}
	}
	return b.String()
}

// packEvidence encodes evidence lists as gzip-compressed JSON ([[[header, direction, body], …], …])
// in base64 (URL alphabet), for the page's script to decode with DecompressionStream.
func packEvidence(lists [][]htmlExchange) (string, error) {
	out := make([][][3]string, len(lists))
	for i, l := range lists {
		for _, e := range l {
			out[i] = append(out[i], [3]string{e.Header, e.Direction, e.Body})
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("encode evidence: %w", err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return "", fmt.Errorf("compress evidence: %w", err)
	}
	if _, err := zw.Write(data); err != nil {
		return "", fmt.Errorf("compress evidence: %w", err)
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("compress evidence: %w", err)
	}
	// The URL alphabet: html/template would write every "+" as "&#43;".
	return base64.URLEncoding.EncodeToString(buf.Bytes()), nil
}

// htmlEvidence prepares exchanges for the page, each body cut to bodyLimit bytes when it is not 0.
// Control characters are shown as escapes; results.json keeps the raw bytes.
func htmlEvidence(evidence []Exchange, bodyLimit int) []htmlExchange {
	var out []htmlExchange
	for _, e := range evidence {
		body := e.Body
		if bodyLimit > 0 {
			body = clip(body, bodyLimit)
		}
		out = append(out, htmlExchange{Header: escapeControls(exchangeHeader(e), false), Direction: e.Direction,
			Body: escapeControls(body, true)})
	}
	return out
}

// buildGrid lays out one cell per result, linking to where href says its evidence is. A revision
// × transport column holding nothing but checks the server does not serve is left out (its
// not-served line says it all).
func buildGrid(r *Run, href map[key]string) htmlGrid {
	var g htmlGrid
	transportRank := func(t string) int {
		if i := slices.Index(r.Target.Transports, t); i >= 0 {
			return i
		}
		return len(r.Target.Transports)
	}
	served, all := map[gridColumn]bool{}, map[gridColumn]bool{}
	rowOf := map[string]int{}
	type gridReq struct{ id, area, title string }
	var reqs []gridReq
	for _, res := range r.Results {
		col := gridColumn{res.Version, res.Transport}
		all[col] = true
		if _, _, ok := notServedKey(res); !ok {
			served[col] = true
		}
		if _, ok := rowOf[res.ID]; !ok {
			rowOf[res.ID] = len(reqs)
			reqs = append(reqs, gridReq{res.ID, res.Area, res.Title})
		}
	}
	for col := range all {
		if served[col] {
			g.Columns = append(g.Columns, col)
		} else {
			g.Omitted = append(g.Omitted, col.Version+" "+col.Transport)
		}
	}
	slices.SortFunc(g.Columns, func(a, b gridColumn) int {
		return cmp.Or(cmp.Compare(a.Version, b.Version), cmp.Compare(transportRank(a.Transport), transportRank(b.Transport)),
			cmp.Compare(a.Transport, b.Transport))
	})
	sort.Strings(g.Omitted)
	for _, c := range g.Columns {
		if n := len(g.Revisions); n > 0 && g.Revisions[n-1].Version == c.Version {
			g.Revisions[n-1].Span++
		} else {
			g.Revisions = append(g.Revisions, htmlGridRevision{c.Version, 1})
		}
	}
	colOf := map[gridColumn]int{}
	for i, c := range g.Columns {
		colOf[c] = i
	}
	slices.SortStableFunc(reqs, func(a, b gridReq) int { return cmp.Or(cmp.Compare(a.area, b.area), cmp.Compare(a.id, b.id)) })
	index := map[string]int{}
	for i, q := range reqs {
		index[q.id] = i
		g.Rows = append(g.Rows, htmlGridRow{ID: q.id, Title: q.title, Cells: make([]htmlGridCell, len(g.Columns))})
	}
	for _, res := range r.Results {
		c, ok := colOf[gridColumn{res.Version, res.Transport}]
		if !ok {
			continue
		}
		g.Rows[index[res.ID]].Cells[c] = htmlGridCell{Status: res.Status, Href: href[resultKey(res)], Mark: statusSymbol(res.Status)}
	}
	// A requirement whose every result is in left-out columns has nothing to show.
	g.Rows = slices.DeleteFunc(g.Rows, func(row htmlGridRow) bool {
		return !slices.ContainsFunc(row.Cells, func(c htmlGridCell) bool { return c.Status != "" })
	})
	return g
}

// How much of a pass's evidence report.html shows: results.json has all of it.
const (
	passExchanges = 20
	passBodyBytes = 1 << 10
)

// passEvidence is the first passExchanges exchanges of a pass's evidence, with a note of the rest.
func passEvidence(all []Exchange) []Exchange {
	if len(all) <= passExchanges {
		return all
	}
	out := append([]Exchange(nil), all[:passExchanges]...)
	return append(out, Exchange{Direction: "note", Channel: "report", Body: fmt.Sprintf("%d more exchanges in results.json", len(all)-passExchanges)})
}

func scriptHash(script string) string {
	sum := sha256.Sum256([]byte(script))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
