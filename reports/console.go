package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// ANSI colours for statuses on a terminal.
var statusColor = map[Status]string{
	Pass: "\x1b[32m", Fail: "\x1b[31m", Error: "\x1b[31m", Stale: "\x1b[31m",
	Warn: "\x1b[33m", Expected: "\x1b[35m", NA: "\x1b[2m", Untestable: "\x1b[2m",
}

var verdictColor = map[int]string{
	ExitOK: "\x1b[1;32m", ExitFailures: "\x1b[1;31m", ExitHarness: "\x1b[1;31m", ExitNothingRan: "\x1b[1;33m",
}

const ansiReset = "\x1b[0m"

// PrintSummary writes the console summary: the verdict, counts per status, harness errors, one
// line per revision or transport the server does not serve, then every check that needs a look,
// status by status in listOrder (fail, error, stale, warn, untestable, expected) and by area
// within each, and last the counts of each area. Passes and other na checks are counted, not
// listed: report.html has them. Server text has its control characters escaped, so it cannot
// drive the terminal; colour is added only when color is true.
func PrintSummary(w io.Writer, r *Run, color bool) error {
	paint := func(code, s string) string {
		if !color || code == "" {
			return s
		}
		return code + s + ansiReset
	}
	var b strings.Builder
	v := VerdictOf(r, false)
	b.WriteString(paint(verdictColor[v.Code], "mcpspec: "+v.Word) + " — " + v.Detail + "\n")
	b.WriteString("  " + countsLine(countStatuses(r.Results), paint) + fmt.Sprintf(" (total %d)\n", len(r.Results)))

	for _, e := range r.Errors {
		b.WriteString("  " + paint(statusColor[Error], "harness error") + ": " + oneLine(e, messageWidth) + "\n")
	}
	notServed, rows := arrange(r.Results)
	for _, n := range notServed {
		fmt.Fprintf(&b, "  %s %s %s: %s na; it answered %s\n", paint(statusColor[NA], "not served"),
			oneLine(n.revisionLabel(), messageWidth), oneLine(n.Transport, messageWidth), checksWord(n.Checks), oneLine(n.Answer, messageWidth))
	}

	rows = slices.DeleteFunc(rows, func(res Result) bool { return res.Status == Pass || res.Status == NA })
	areaWidth, idWidth := 0, 0
	for _, res := range rows {
		areaWidth = max(areaWidth, utf8.RuneCountInString(oneLine(res.Area, messageWidth)))
		idWidth = max(idWidth, utf8.RuneCountInString(oneLine(res.ID, messageWidth)))
	}
	for i, res := range rows {
		if i == 0 || rows[i-1].Status != res.Status {
			n := 0
			for _, x := range rows[i:] {
				if x.Status == res.Status {
					n++
				}
			}
			fmt.Fprintf(&b, "%s (%d)\n", paint(statusColor[res.Status], string(res.Status)), n)
		}
		msg := res.Message
		if res.Status == Expected && res.BaselineReason != "" {
			msg = "baseline: " + res.BaselineReason
		}
		fmt.Fprintf(&b, "  %-*s %-*s %-10s %-5s %s\n", areaWidth, oneLine(res.Area, messageWidth),
			idWidth, oneLine(res.ID, messageWidth), oneLine(res.Version, messageWidth),
			oneLine(res.Transport, messageWidth), oneLine(msg, messageWidth))
	}

	writeServerStderr(&b, r.Errors, rows)

	if areas := countByArea(r.Results); len(areas) > 0 {
		b.WriteString("by area\n")
		width := 0
		for _, a := range areas {
			width = max(width, utf8.RuneCountInString(oneLine(a.Area, messageWidth)))
		}
		for _, a := range areas {
			fmt.Fprintf(&b, "  %-*s %s\n", width, oneLine(a.Area, messageWidth), countsLine(a.Counts, paint))
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("print summary: %w", err)
	}
	return nil
}

// countsLine lists counts in listOrder, leaving out zeros ("2 fail, 40 pass"); "no results"
// when all are zero.
func countsLine(counts map[Status]int, paint func(code, s string) string) string {
	var parts []string
	for _, s := range listOrder {
		if counts[s] > 0 {
			parts = append(parts, paint(statusColor[s], fmt.Sprintf("%d %s", counts[s], s)))
		}
	}
	if len(parts) == 0 {
		return "no results"
	}
	return strings.Join(parts, ", ")
}

func checksWord(n int) string {
	if n == 1 {
		return "1 check"
	}
	return fmt.Sprintf("%d checks", n)
}

// stderrMarker introduces the tail of a server's stderr in a message (harness and suites/conform
// quote it when a server died or did not answer).
const stderrMarker = "\nserver stderr (last lines):\n"

// stderrBlocks bounds how many different stderr tails the console shows.
const stderrBlocks = 3

// writeServerStderr shows, once each, the server stderr that harness errors and findings quote:
// the listing shows only a message's first line, and what a dying server last said is often
// the reason for all of them.
func writeServerStderr(b *strings.Builder, errors []string, rows []Result) {
	type quote struct{ who, text string }
	var quotes []quote
	for _, e := range errors {
		quotes = append(quotes, quote{"a harness error", e})
	}
	for _, res := range rows {
		quotes = append(quotes, quote{fmt.Sprintf("%s %s %s", res.ID, res.Version, res.Transport), res.Message})
	}
	var seen []string
	for _, q := range quotes {
		_, tail, ok := strings.Cut(q.text, stderrMarker)
		if !ok || slices.Contains(seen, tail) || len(seen) == stderrBlocks {
			continue
		}
		seen = append(seen, tail)
		fmt.Fprintf(b, "server stderr (last lines), as %s quotes it:\n", oneLine(q.who, messageWidth))
		for _, line := range strings.Split(strings.TrimRight(tail, "\n"), "\n") {
			b.WriteString("  " + oneLine(line, messageWidth) + "\n")
		}
	}
}
