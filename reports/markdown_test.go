package reports

import (
	"fmt"
	"strings"
	"testing"
)

func TestSummaryMarkdown(t *testing.T) {
	md := string(encodeSummaryMarkdown(sampleRun()))
	for _, want := range []string{
		"**mcpspec: ERROR** — 1 check ended in error, 1 unexpected failure, 1 stale baseline entry",
		"### Failures: 1 requirement\n\n| Requirement | Level | What it asks | Where | Message |\n|---|---|---|---|---|\n" +
			"| [FAIL-ONE](https://modelcontextprotocol.io/specification/2025-03-26/basic) | MUST | the FAIL-ONE check | stdio: 2025-03-26 | server said \\<script\\>alert(1)\\</script\\> … |\n",
		"### Errors: 1 check, 1 cause\n",
		"| 1 | http: 2025-11-25 | connection reset \"\\>\\<img src=x onerror=alert(1)\\> |  |\n",
		"| [EXPECTED-ONE](https://modelcontextprotocol.io/specification/2025-03-26/basic) | MUST | the EXPECTED-ONE check | http: 2025-03-26 | baseline: known bug \\#12 |",
		"\n1 fail, 1 error, 1 stale, 1 warn, 1 untestable, 1 expected, 1 na, 1 pass (total 8); report.html lists every check",
		"\nThe commonest reasons for untestable checks:\n\n- 1 check: untestable message for UNTESTABLE-ONE\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	for _, id := range []string{"PASS-ONE", "NA-ONE", "| [UNTESTABLE-ONE"} {
		if strings.Contains(md, id) {
			t.Errorf("%s: passes, na and untestable checks belong only in the counts", id)
		}
	}
	// Every table row must keep exactly its column count, whatever the server said.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| [") {
			if cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); cells != 6 {
				t.Errorf("row has %d separators, want 6: %s", cells, line)
			}
		}
	}
	if len(md) > 4096 {
		t.Errorf("summary.md of 8 results is %d bytes", len(md))
	}
}

func TestMarkdownCellEscaping(t *testing.T) {
	got := mdCell("a|b `code` <b>x</b>\nsecond line")
	want := "a\\|b \\`code\\` \\<b\\>x\\</b\\> …"
	if got != want {
		t.Errorf("mdCell = %q, want %q", got, want)
	}
	if got := mdCell("bell\x07 esc\x1b"); got != `bell\\x07 esc\\x1b` {
		t.Errorf("control characters: %q", got)
	}
}

func TestSummaryMarkdownVerdicts(t *testing.T) {
	pass := &Run{Results: []Result{sampleResult("A", Pass, "2025-03-26", "stdio"),
		sampleResult("B", Expected, "2025-03-26", "stdio")}}
	if md := string(encodeSummaryMarkdown(pass)); !strings.HasPrefix(md, "**mcpspec: PASS** — 1 check passed, 1 expected failure") {
		t.Errorf("pass verdict: %s", md)
	}
	if md := string(encodeSummaryMarkdown(&Run{})); !strings.HasPrefix(md, "**mcpspec: NOTHING RAN**") {
		t.Errorf("empty verdict: %s", md)
	}
}

func TestSummaryMarkdownCapsRows(t *testing.T) {
	run := &Run{}
	for i := range markdownRowLimit + 5 {
		for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
			r := sampleResult(fmt.Sprintf("F-%04d", i), Fail, v, "stdio")
			r.Message = strings.Repeat("a long message ", 40)
			run.Results = append(run.Results, r)
		}
	}
	md := string(encodeSummaryMarkdown(run))
	if !strings.Contains(md, "… and 5 more") || strings.Contains(md, fmt.Sprintf("F-%04d", markdownRowLimit)) {
		t.Error("the table should stop at the row limit and say how many were left out")
	}
	if n := strings.Count(md, "| [F-0000]"); n != 1 {
		t.Errorf("a requirement failing at 3 revisions has %d rows, want 1", n)
	}
	// GitHub's job summary takes at most 1 MiB.
	if len(md) > 128<<10 {
		t.Errorf("summary.md is %d bytes", len(md))
	}
}

func TestSummaryMarkdownLeadsWithFindings(t *testing.T) {
	md := string(encodeSummaryMarkdown(unservedRun()))
	for _, want := range []string{
		"### Not served (2)",
		"| 2025-06-18 | stdio | 40 | initialize without a result: ",
		"| 2025-11-25 | stdio | 40 | initialize without a result: ",
		"### Failures: 2 requirements",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "does not serve revision"); n != 0 {
		t.Errorf("the not-served sentence appears %d times: it belongs to one line per revision", n)
	}
	// Failures, errors, stale entries, warnings, then what was not served.
	var last = -1
	for _, id := range []string{"ZZ-FAIL", "ZZ-OWN-CONN", "connection reset", "YY-STALE", "ZZ-WARN", "### Not served"} {
		i := strings.Index(md, id)
		if i < 0 || i < last {
			t.Errorf("%s is missing or out of order in:\n%s", id, md)
		}
		last = i
	}
	for _, id := range []string{"AAA-00", "ZZ-SLOW", "CAP-NONE"} {
		if strings.Contains(md, id) {
			t.Errorf("%s: passes, untestable and na checks belong only in the counts", id)
		}
	}
}
