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
		"| Status | Count |", "| stale | 1 |", "| **total** | **8** |",
		"| fail | batch | FAIL-ONE | MUST | 2025-03-26 | stdio | server said \\<script\\>alert(1)\\</script\\> … |",
		"| expected | batch | EXPECTED-ONE | MUST | 2025-03-26 | http | baseline: known bug \\#12 — expected message for EXPECTED-ONE |",
		"| na | lifecycle | NA-ONE | MUST | 2024-11-05 | http | na message for NA-ONE |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "PASS-ONE") {
		t.Error("passing checks belong only in the counts")
	}
	// Every table row must keep exactly its column count, whatever the server said.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "-ONE") {
			if cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); cells != 8 {
				t.Errorf("row has %d separators, want 8: %s", cells, line)
			}
		}
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
		run.Results = append(run.Results, sampleResult(fmt.Sprintf("F-%04d", i), Fail, "2025-03-26", "stdio"))
	}
	md := string(encodeSummaryMarkdown(run))
	if !strings.Contains(md, "… and 5 more") || strings.Contains(md, fmt.Sprintf("F-%04d", markdownRowLimit)) {
		t.Error("the non-passing table should stop at the row limit and say how many were left out")
	}
}

func TestSummaryMarkdownLeadsWithFindings(t *testing.T) {
	md := string(encodeSummaryMarkdown(unservedRun()))
	for _, want := range []string{
		"### Not served (2)",
		"| 2025-06-18 | stdio | 40 | initialize without a result: ",
		"| 2025-11-25 | stdio | 40 | initialize without a result: ",
		"### Checks that did not pass (7)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "does not serve revision"); n != 0 {
		t.Errorf("the not-served sentence appears %d times: it belongs to one line per revision", n)
	}
	// The table rows in the order of the findings: fail, error, stale, warn, untestable, then na.
	var last = -1
	for _, id := range []string{"ZZ-FAIL", "ZZ-OWN-CONN", "YY-ERROR", "YY-STALE", "ZZ-WARN", "ZZ-SLOW", "CAP-NONE"} {
		i := strings.Index(md, "| "+strings.ReplaceAll(id, "-", "-")+" |")
		if i < 0 || i < last {
			t.Errorf("%s is missing or out of order in:\n%s", id, md)
		}
		last = i
	}
	if strings.Contains(md, "AAA-00") {
		t.Error("passes and not-served checks belong only in the counts and the not-served lines")
	}
}
