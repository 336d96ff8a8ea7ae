package reports

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// markdownRowLimit caps the table of non-passing checks: GitHub rejects job
// summaries over 1 MiB, and report.html has every row anyway.
const markdownRowLimit = 300

// encodeSummaryMarkdown renders summary.md: the verdict, counts per status,
// one line per revision or transport the server does not serve, and a table
// of the checks that did not pass, failures first. Every string that may come
// from the server is escaped for Markdown and kept to one line.
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
		b.WriteString(strings.Join(facts, " · ") + "\n\n")
	}

	counts := countStatuses(r.Results)
	b.WriteString("| Status | Count |\n|---|---:|\n")
	for _, s := range listOrder {
		fmt.Fprintf(&b, "| %s | %d |\n", s, counts[s])
	}
	fmt.Fprintf(&b, "| **total** | **%d** |\n", len(r.Results))

	if len(r.Errors) > 0 {
		fmt.Fprintf(&b, "\n### Harness errors (%d)\n\n", len(r.Errors))
		for _, e := range r.Errors {
			b.WriteString("- " + mdCell(e) + "\n")
		}
	}

	notServed, rows := arrange(r.Results)
	if len(notServed) > 0 {
		fmt.Fprintf(&b, "\n### Not served (%d)\n\n", len(notServed))
		b.WriteString("| Revision | Transport | Checks made na | What the server answered |\n|---|---|---:|---|\n")
		for _, n := range notServed {
			fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", mdCell(n.revisionLabel()), mdCell(n.Transport), n.Checks, mdCell(n.Answer))
		}
	}
	rows = slices.DeleteFunc(rows, func(res Result) bool { return res.Status == Pass })
	if len(rows) == 0 {
		return b.Bytes()
	}
	fmt.Fprintf(&b, "\n### Checks that did not pass (%d)\n\n", len(rows))
	b.WriteString("| Status | Area | ID | Level | Version | Transport | Message |\n|---|---|---|---|---|---|---|\n")
	for i, res := range rows {
		if i == markdownRowLimit {
			fmt.Fprintf(&b, "\n… and %d more: see report.html or results.json.\n", len(rows)-i)
			break
		}
		msg := res.Message
		if res.Status == Expected && res.BaselineReason != "" {
			msg = "baseline: " + res.BaselineReason + " — " + msg
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", res.Status, mdCell(res.Area), mdCell(res.ID), mdCell(res.Level),
			mdCell(res.Version), mdCell(res.Transport), mdCell(msg))
	}
	return b.Bytes()
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
