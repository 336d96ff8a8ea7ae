package reports

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
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

// ConsoleOptions says how PrintSummary writes.
type ConsoleOptions struct {
	Color   bool // ANSI colours: only on a terminal, and not under NO_COLOR or --no-color
	Verbose bool // every message in full, untestable checks listed, counts by area (-v)
}

// PrintSummary writes the console summary: the verdict and the counts per status, harness
// errors, one line per revision or transport the server does not serve, then one line per
// failed requirement, with the revision × transport cells it failed at and the first line of
// one message, then the errors grouped by the cause they state, each with the target's own lines
// that explain it, then stale baseline entries, warnings and expected failures by requirement
// like the failures. Passes, na and untestable checks are counted, not listed (untestable ones are with
// Verbose): report.html has them all. A target that could not be reached at all is one cause
// line. Server text has its control characters escaped, so it cannot drive the terminal.
func PrintSummary(w io.Writer, r *Run, opt ConsoleOptions) error {
	paint := func(code, s string) string {
		if !opt.Color || code == "" {
			return s
		}
		return code + s + ansiReset
	}
	var b strings.Builder
	v := VerdictOf(r, false)
	b.WriteString(paint(verdictColor[v.Code], "mcpspec: "+v.Word) + " — " + v.Detail + "\n")
	b.WriteString("  " + countsLine(countStatuses(r.Results), paint) + fmt.Sprintf(" (total %d)\n", len(r.Results)))

	for _, h := range groupHarnessErrors(r.Errors) {
		// Wider than a finding's message: a harness error is often the one cause of a run.
		line := "  " + paint(statusColor[Error], "harness error") + ": " + oneLine(h.text, 2*messageWidth)
		if len(h.where) > 1 {
			line += fmt.Sprintf(" (%d times: %s)", len(h.where), oneLine(clipRunes(strings.Join(h.where, ", "), messageWidth/2), messageWidth))
		} else if len(h.where) == 1 {
			line = "  " + paint(statusColor[Error], "harness error") + ": " + oneLine(h.where[0]+": "+h.text, 2*messageWidth)
		}
		b.WriteString(line + "\n")
	}
	notServed, rows := arrange(r.Results)
	for _, n := range notServed {
		fmt.Fprintf(&b, "  %s %s %s: %s na; it answered %s\n", paint(statusColor[NA], "not served"),
			oneLine(n.revisionLabel(), messageWidth), oneLine(n.Transport, messageWidth), checksWord(n.Checks), oneLine(n.Answer, messageWidth))
	}

	var errs []Result
	rows = slices.DeleteFunc(rows, func(res Result) bool {
		if res.Status == Error {
			errs = append(errs, res)
			return true
		}
		return res.Status == Pass || res.Status == NA || (res.Status == Untestable && !opt.Verbose)
	})
	// Failures first, then the errors by cause, then the rest in listOrder.
	findings := groupFindings(rows)
	split := 0
	for split < len(findings) && findings[split].Status == Fail {
		split++
	}
	writeFindings(&b, findings[:split], r.Revisions, opt.Verbose, paint)
	writeCauses(&b, errs, r.Revisions, opt.Verbose, paint)
	writeFindings(&b, findings[split:], r.Revisions, opt.Verbose, paint)
	if n := countStatuses(r.Results)[Untestable]; n > 0 && !opt.Verbose {
		fmt.Fprintf(&b, "%s: %s, each missing a prerequisite (-v or report.html lists them)\n", paint(statusColor[Untestable], string(Untestable)), checksWord(n))
		// The commonest reasons name the flag that would make those checks run.
		var untestable []Result
		for _, res := range r.Results {
			if res.Status == Untestable {
				untestable = append(untestable, res)
			}
		}
		for i, c := range groupCauses(untestable) {
			if i == untestableReasons {
				break
			}
			fmt.Fprintf(&b, "  %s: %s\n", checksWord(len(c.Results)), oneLine(c.Text, messageWidth))
		}
	}

	writeServerStderr(&b, r.Errors, rows)

	if areas := countByArea(r.Results); len(areas) > 0 && opt.Verbose {
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

// writeFindings writes findings a status at a time, each status headed by how many
// requirements have it.
func writeFindings(b *strings.Builder, findings []Finding, revisions []string, verbose bool, paint func(code, s string) string) {
	for i, f := range findings {
		if i == 0 || findings[i-1].Status != f.Status {
			n := 0
			for _, x := range findings[i:] {
				if x.Status == f.Status {
					n++
				}
			}
			fmt.Fprintf(b, "%s: %s\n", paint(statusColor[f.Status], string(f.Status)), requirementsWord(n))
		}
		writeFinding(b, f, revisions, verbose)
	}
}

// writeCauses writes the errors grouped by the cause they state, the commonest first, each
// with the lines the target wrote that explain it.
func writeCauses(b *strings.Builder, errs []Result, revisions []string, verbose bool, paint func(code, s string) string) {
	causes := groupCauses(errs)
	if len(causes) == 0 {
		return
	}
	fmt.Fprintf(b, "%s: %s, %s\n", paint(statusColor[Error], string(Error)), checksWord(len(errs)), causesWord(len(causes)))
	for i, c := range causes {
		if i == causesShown && !verbose {
			rest := 0
			for _, c := range causes[i:] {
				rest += len(c.Results)
			}
			fmt.Fprintf(b, "  … %s more (%s): -v or report.html lists them\n", causesWord(len(causes)-i), checksWord(rest))
			return
		}
		cells := make([]Cell, len(c.Results))
		for j, res := range c.Results {
			cells[j] = Cell{res.Version, res.Transport}
		}
		fmt.Fprintf(b, "  %s (%s): %s\n", checksWord(len(c.Results)), oneLine(cellsText(cells, revisions), messageWidth), oneLine(c.Text, messageWidth))
		for _, line := range c.Why {
			b.WriteString("    " + oneLine(line, messageWidth) + "\n")
		}
	}
}

// untestableReasons bounds how many reasons for untestable checks the console gives without -v.
const untestableReasons = 3

// harnessError is one harness error text and where it happened ("tools_call at 2025-06-18"),
// once however many scenarios or sessions it stopped.
type harnessError struct {
	text  string
	where []string
}

// errorPlace is the "SCENARIO at LABEL: " that begins the harness errors of `mcpspec client`.
var errorPlace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+ at \S+): `) })

// groupHarnessErrors merges harness errors that differ only by their place, in first-seen order.
func groupHarnessErrors(errs []string) []harnessError {
	var out []harnessError
	index := map[string]int{}
	for _, e := range errs {
		text, where := e, ""
		if m := errorPlace().FindStringSubmatch(e); m != nil {
			text, where = e[len(m[0]):], m[1]
		}
		i, ok := index[text]
		if !ok || where == "" {
			i = len(out)
			index[text] = i
			out = append(out, harnessError{text: text})
		}
		if where != "" {
			out[i].where = append(out[i].where, where)
		}
	}
	return out
}

// causesShown bounds how many causes of errors the console lists without -v.
const causesShown = 5

// titleWidth bounds a requirement's summary on its console line, so its message still shows.
const titleWidth = 72

// writeFinding writes one requirement's line; with verbose, every cell's whole message under it.
func writeFinding(b *strings.Builder, f Finding, revisions []string, verbose bool) {
	fmt.Fprintf(b, "  %s [%s] %s (%s): %s\n", oneLine(f.ID, messageWidth), oneLine(f.EffectiveLevel(), messageWidth),
		oneLine(clipRunes(f.Summary(), titleWidth), messageWidth), oneLine(cellsText(f.Cells(), revisions), messageWidth),
		oneLine(f.Message(), messageWidth))
	if !verbose {
		return
	}
	for _, res := range f.Results {
		fmt.Fprintf(b, "    %s %s:\n", oneLine(res.Version, messageWidth), oneLine(res.Transport, messageWidth))
		for _, line := range strings.Split(strings.TrimRight(res.Message, "\n"), "\n") {
			b.WriteString("      " + visibleControls(strings.TrimRight(line, "\r")) + "\n")
		}
	}
}

func requirementsWord(n int) string {
	if n == 1 {
		return "1 requirement"
	}
	return fmt.Sprintf("%d requirements", n)
}

func causesWord(n int) string {
	if n == 1 {
		return "1 cause"
	}
	return fmt.Sprintf("%d causes", n)
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
