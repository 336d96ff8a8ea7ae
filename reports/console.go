package reports

import (
	"fmt"
	"io"
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

// PrintSummary writes a short console summary: the verdict, counts per
// status, harness errors, then every non-passing check on one line (most
// serious first). Server text has its control characters escaped, so it
// cannot drive the terminal; colour is added only when color is true.
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

	counts := countStatuses(r.Results)
	parts := make([]string, 0, len(AllStatuses()))
	for _, s := range AllStatuses() {
		text := fmt.Sprintf("%s %d", s, counts[s])
		if counts[s] > 0 {
			text = paint(statusColor[s], text)
		}
		parts = append(parts, text)
	}
	fmt.Fprintf(&b, "  %s (total %d)\n", strings.Join(parts, ", "), len(r.Results))

	for _, e := range r.Errors {
		b.WriteString("  " + paint(statusColor[Error], "harness error") + ": " + oneLine(e, messageWidth) + "\n")
	}
	rows := nonPassing(r.Results)
	idWidth := 0
	for _, res := range rows {
		idWidth = max(idWidth, utf8.RuneCountInString(oneLine(res.ID, messageWidth)))
	}
	for _, res := range rows {
		msg := res.Message
		if res.Status == Expected && res.BaselineReason != "" {
			msg = "baseline: " + res.BaselineReason
		}
		fmt.Fprintf(&b, "  %s %-*s %-10s %-5s %s\n", paint(statusColor[res.Status], fmt.Sprintf("%-10s", res.Status)),
			idWidth, oneLine(res.ID, messageWidth), oneLine(res.Version, messageWidth),
			oneLine(res.Transport, messageWidth), oneLine(msg, messageWidth))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("print summary: %w", err)
	}
	return nil
}
