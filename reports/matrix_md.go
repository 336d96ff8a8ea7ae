package reports

import (
	"fmt"
	"sort"
	"strings"
)

// matrixMessageWidth is how many characters of a message the Markdown matrix shows.
const matrixMessageWidth = 240

// matrixLegend explains the one-character cells.
const matrixLegend = "Cells: ✓ pass, ✗ fail (a MUST broken), ! warn (a SHOULD broken), x expected (in the target's baseline), " +
	"s stale, – na, ? untestable, E error; blank: the check did not run there."

// Markdown renders the matrix: per-target verdicts, the deviations, then one row per requirement.
func (m *Matrix) Markdown() string {
	var b strings.Builder
	b.WriteString("# mcpspec compatibility matrix\n\n")
	if m.GeneratedAt != "" {
		fmt.Fprintf(&b, "Generated %s by %s %s.\n\n", mdEscape(m.GeneratedAt), mdEscape(m.Tool.Name), mdEscape(m.Tool.Version))
	}
	m.markdownTargets(&b)
	m.markdownDeviations(&b)
	m.markdownRows(&b)
	return b.String()
}

func (m *Matrix) markdownTargets(b *strings.Builder) {
	b.WriteString("## Targets\n\n| target | implementation | exit | served | pass | fail | warn | expected | stale | na | untestable | error | not served: what it answered |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, t := range m.Targets {
		var answered []string
		if t.Error != "" {
			answered = append(answered, "could not run: "+oneLine(t.Error, matrixMessageWidth))
		}
		for _, pair := range sortedPairs(t.NotServed) {
			answered = append(answered, pair+": "+oneLine(t.NotServed[pair], matrixMessageWidth))
		}
		for i := range answered {
			answered[i] = mdEscape(answered[i])
		}
		s := t.Summary
		fmt.Fprintf(b, "| %s | %s | %d | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n",
			mdCell(t.Name), mdCell(t.Implementation()), t.ExitCode, mdEscape(ServedSummary(t.Served)),
			s[Pass], s[Fail], s[Warn], s[Expected], s[Stale], s[NA], s[Untestable], s[Error], strings.Join(answered, "<br>"))
	}
	b.WriteString("\n")
}

func (m *Matrix) markdownDeviations(b *strings.Builder) {
	devs := m.Deviations()
	b.WriteString("## Deviations\n\n")
	if len(devs) == 0 {
		b.WriteString("None: every check that ran passed, or did not apply.\n\n")
		return
	}
	b.WriteString("| requirement | target | status | where | message |\n|---|---|---|---|---|\n")
	for _, d := range devs {
		fmt.Fprintf(b, "| %s [%s] %s | %s | %s | %s | %s |\n", mdCell(d.ID), mdCell(d.Level), mdCell(d.Summary),
			mdCell(d.Target), d.Status, mdCell(strings.Join(d.Where, ", ")), mdEscape(oneLine(d.Message, matrixMessageWidth)))
	}
	b.WriteString("\n")
}

func (m *Matrix) markdownRows(b *strings.Builder) {
	b.WriteString("## Requirements\n\n" + matrixLegend + "\n\n| requirement |")
	for _, c := range m.Columns {
		b.WriteString(" " + strings.ReplaceAll(mdCell(m.ColumnLabel(c)), " ", "<br>") + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat(":-:|", len(m.Columns)) + "\n")
	for _, r := range m.Rows {
		fmt.Fprintf(b, "| %s [%s] |", mdCell(r.ID), mdCell(r.Level))
		for _, c := range m.Columns {
			b.WriteString(" " + statusSymbol(r.Cells[c.Key].Status) + " |")
		}
		b.WriteString("\n")
	}
	if len(m.Rows) == 0 {
		b.WriteString("\nNo check ran on any target.\n")
	}
}

// Implementation names what the target reported itself as: its serverInfo, or for a client
// "client: " and its clientInfo.
func (t MatrixTarget) Implementation() string {
	name := serverName(t.ServerInfo)
	if t.Kind == KindClient {
		return strings.TrimSuffix("client: "+name, ": ")
	}
	return name
}

// serverName is "name version" from a serverInfo (or a clientInfo), or empty.
func serverName(info map[string]any) string {
	name, _ := info["name"].(string)
	ver, _ := info["version"].(string)
	return strings.TrimSpace(name + " " + ver)
}

func sortedPairs(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
