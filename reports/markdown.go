package reports

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// markdownRowLimit caps the rows of summary.md's tables: GitHub rejects job summaries over
// 1 MiB, a summary is read at a glance, and report.html has every row anyway.
const markdownRowLimit = 150

// encodeSummaryMarkdown renders summary.md for a person or a GitHub job summary: the verdict,
// then the failures one row per requirement (its title, spec link, the revision × transport
// cells it failed at and one message), the errors by cause, stale baseline entries, warnings
// and expected failures like the failures, the revisions or transports the server does not
// serve, and last one line of counts. Every string that may come from the server is escaped for
// Markdown and kept to one line.
func encodeSummaryMarkdown(r *Run) []byte {
	var b bytes.Buffer
	v := VerdictOf(r, false)
	fmt.Fprintf(&b, "**mcpspec: %s** — %s\n\n", v.Word, mdEscape(v.Detail))

	var facts []string
	if r.Target.Description != "" {
		facts = append(facts, "Target: "+mdCell(r.Target.Description))
	}
	if name := r.serverField("name"); name != "" {
		facts = append(facts, "Server: "+mdCell(strings.TrimSpace(name+" "+r.serverField("version"))))
	}
	if len(r.Revisions) > 0 {
		facts = append(facts, "Revisions: "+mdCell(strings.Join(r.Revisions, ", ")))
	}
	if len(r.Target.Transports) > 0 {
		facts = append(facts, "Transports: "+mdCell(strings.Join(r.Target.Transports, ", ")))
	}
	if r.Tool.Version != "" {
		facts = append(facts, "mcpspec "+mdCell(r.Tool.Version))
	}
	if len(facts) > 0 {
		b.WriteString(strings.Join(facts, " · ") + "\n")
	}

	if len(r.Errors) > 0 {
		fmt.Fprintf(&b, "\n### Harness errors (%d)\n\n", len(r.Errors))
		for _, h := range groupHarnessErrors(r.Errors) {
			line := h.text
			switch len(h.where) {
			case 0:
			case 1:
				line = h.where[0] + ": " + h.text
			default:
				line += fmt.Sprintf(" (%d times: %s)", len(h.where), strings.Join(h.where, ", "))
			}
			b.WriteString("- " + mdEscape(oneLine(line, 2*messageWidth)) + "\n")
		}
	}

	notServed, rows := arrange(r.Results)
	var errs []Result
	rows = slices.DeleteFunc(rows, func(res Result) bool {
		if res.Status == Error {
			errs = append(errs, res)
			return true
		}
		return res.Status == Pass || res.Status == NA || res.Status == Untestable
	})
	budget := markdownRowLimit
	findings := groupFindings(rows)
	headings := map[Status]string{Fail: "Failures", Stale: "Stale baseline entries", Warn: "Warnings", Expected: "Expected failures (in the baseline)"}
	writeTable := func(status Status) {
		var these []Finding
		for _, f := range findings {
			if f.Status == status {
				these = append(these, f)
			}
		}
		if len(these) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n### %s: %s\n\n", headings[status], requirementsWord(len(these)))
		b.WriteString("| Requirement | Level | What it asks | Where | Message |\n|---|---|---|---|---|\n")
		for i, f := range these {
			if budget == 0 {
				fmt.Fprintf(&b, "\n… and %d more: see report.html or results.json.\n", len(these)-i)
				return
			}
			budget--
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdLink(f.ID, f.SpecURL), mdCell(f.EffectiveLevel()),
				mdCell(f.Summary()), mdCell(cellsText(f.Cells(), r.Revisions)), mdCell(f.Message()))
		}
	}
	writeTable(Fail)
	if causes := groupCauses(errs); len(causes) > 0 {
		fmt.Fprintf(&b, "\n### Errors: %s, %s\n\n", checksWord(len(errs)), causesWord(len(causes)))
		b.WriteString("| Checks | Where | Cause | What the target said |\n|---:|---|---|---|\n")
		for i, c := range causes {
			if budget == 0 {
				fmt.Fprintf(&b, "\n… and %s more: see report.html or results.json.\n", causesWord(len(causes)-i))
				break
			}
			budget--
			cells := make([]Cell, len(c.Results))
			for j, res := range c.Results {
				cells[j] = Cell{res.Version, res.Transport}
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", len(c.Results), mdCell(cellsText(cells, r.Revisions)), mdCell(c.Text), mdCell(strings.Join(c.Why, " · ")))
		}
	}
	writeTable(Stale)
	writeTable(Warn)
	writeTable(Expected)

	if len(notServed) > 0 {
		fmt.Fprintf(&b, "\n### Not served (%d)\n\n", len(notServed))
		b.WriteString("| Revision | Transport | Checks made na | What the server answered |\n|---|---|---:|---|\n")
		for _, n := range notServed {
			fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", mdCell(n.revisionLabel()), mdCell(n.Transport), n.Checks, mdCell(n.Answer))
		}
	}

	counts := countStatuses(r.Results)
	fmt.Fprintf(&b, "\n%s (total %d)", countsLine(counts, func(_, s string) string { return s }), len(r.Results))
	if counts[Untestable]+counts[NA]+counts[Pass] > 0 {
		b.WriteString("; report.html lists every check, passes, na and untestable ones included")
	}
	b.WriteString(".\n")
	var untestable []Result
	for _, res := range r.Results {
		if res.Status == Untestable {
			untestable = append(untestable, res)
		}
	}
	if causes := groupCauses(untestable); len(causes) > 0 {
		b.WriteString("\nThe commonest reasons for untestable checks:\n\n")
		for i, c := range causes {
			if i == untestableReasons {
				break
			}
			fmt.Fprintf(&b, "- %s: %s\n", checksWord(len(c.Results)), mdCell(c.Text))
		}
	}
	return b.Bytes()
}

// mdLink links text to url when url is a plain https address, which Markdown cannot misread.
func mdLink(text, url string) string {
	if !strings.HasPrefix(url, "https://") || strings.ContainsAny(url, " ()<>[]\"'`\\\n") {
		return mdCell(text)
	}
	return "[" + mdCell(text) + "](" + url + ")"
}

// mdCell makes text safe inside a Markdown table cell: one line, truncated,
// with Markdown and HTML syntax escaped.
func mdCell(s string) string {
	return mdEscape(oneLine(s, messageWidth))
}

// mdEscape backslash-escapes the ASCII punctuation that could start Markdown
// or HTML syntax, or end a table cell. CommonMark allows a backslash before
// any ASCII punctuation, so over-escaping is harmless.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|&~!#", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
