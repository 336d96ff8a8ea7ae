package reports

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
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

// reportTemplate is parsed once; html/template escapes every value by the
// context it lands in (text, attribute, URL), which is what keeps server
// strings inert.
var reportTemplate = template.Must(template.New("report.html").Parse(reportTemplateText))

type htmlPage struct {
	Run         *Run
	Verdict     Verdict
	StartedAt   string
	Counts      []htmlCount
	Areas       []string
	Versions    []string
	Transports  []string
	ServerName  string
	ServerInfo  string // serverInfo as indented JSON
	Rows        []htmlRow
	NonPassing  int
	GeneratedAt string
	Script      template.JS
	ScriptHash  string // CSP source expression for Script
}

type htmlCount struct {
	Status Status
	Count  int
}

type htmlRow struct {
	Result
	Summary  string // the message on one line
	Details  bool   // non-passing: show requirement, message and evidence
	Seconds  string
	Evidence []htmlExchange
}

type htmlExchange struct {
	Header    string
	Direction string
	Body      string
}

// encodeHTML renders report.html: one self-contained page (inline CSS and JS,
// no network) that reads fine without JavaScript; the filters are an extra.
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
	for _, s := range AllStatuses() {
		page.Counts = append(page.Counts, htmlCount{s, counts[s]})
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
		res.Message = escapeControls(res.Message, true)
		// Every row opens on the exchange that decided it, a pass too; a pass's is shortened
		// here (results.json keeps it whole), so that the page stays light.
		row := htmlRow{Result: res, Summary: oneLine(res.Message, messageWidth), Details: true, Seconds: seconds(res.DurationMs)}
		evidence, bodyLimit := res.Evidence, 0
		if res.Status == Pass {
			evidence, bodyLimit = passEvidence(res.Evidence), passBodyBytes
		} else {
			page.NonPassing++
		}
		for _, e := range evidence {
			body := e.Body
			if bodyLimit > 0 {
				body = clip(body, bodyLimit)
			}
			// Control characters are shown as escapes; results.json keeps the raw bytes.
			row.Evidence = append(row.Evidence, htmlExchange{
				Header: escapeControls(exchangeHeader(e), false), Direction: e.Direction,
				Body: escapeControls(body, true)})
		}
		page.Rows = append(page.Rows, row)
	}
	page.Areas, page.Versions, page.Transports = sortedKeys(areas), sortedKeys(versions), sortedKeys(transports)

	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, page); err != nil {
		return nil, fmt.Errorf("render report.html: %w", err)
	}
	return buf.Bytes(), nil
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
