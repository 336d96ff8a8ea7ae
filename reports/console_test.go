package reports

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrintSummary(t *testing.T) {
	var plain bytes.Buffer
	if err := PrintSummary(&plain, sampleRun(), false); err != nil {
		t.Fatal(err)
	}
	out := plain.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "mcpspec: ERROR — 1 check ended in error, 1 unexpected failure, 1 stale baseline entry" {
		t.Errorf("verdict line %q", lines[0])
	}
	if !strings.Contains(lines[1], "1 fail, 1 error, 1 stale, 1 warn, 1 untestable, 1 expected, 1 na, 1 pass (total 8)") {
		t.Errorf("counts line %q", lines[1])
	}
	if lines[2] != "fail (1)" || !strings.Contains(lines[3], "FAIL-ONE") {
		t.Errorf("the failures should come first:\n%s", out)
	}
	if strings.Contains(out, "PASS-ONE") || strings.Contains(out, "NA-ONE") {
		t.Errorf("passes and na checks are counted, not listed:\n%s", out)
	}
	if !strings.Contains(out, "by area\n  batch     1 fail, 1 error, 1 stale, 1 warn, 1 untestable, 1 expected, 1 pass\n  lifecycle 1 na\n") {
		t.Errorf("no counts by area:\n%s", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Error("plain output contains ANSI escapes")
	}

	var colored bytes.Buffer
	run := sampleRun()
	run.Results[1].Message = "evil \x1b[2J clear screen"
	if err := PrintSummary(&colored, run, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(colored.String(), "\x1b[31m") {
		t.Error("colour output lacks ANSI colour")
	}
	if strings.Contains(colored.String(), "\x1b[2J") || !strings.Contains(colored.String(), `evil \x1b[2J`) {
		t.Error("server text must not carry raw escape sequences to the terminal")
	}
}

func TestPrintSummaryLeadsWithFindings(t *testing.T) {
	var buf bytes.Buffer
	if err := PrintSummary(&buf, unservedRun(), false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	t.Log("\n" + out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"  not served 2025-06-18 stdio: 40 checks na; it answered initialize without a result: ",
		"  not served 2025-11-25 stdio: 40 checks na; it answered initialize without a result: ",
		"fail (2)",
		"  zz ZZ-FAIL     2026-07-28 stdio the id came back as a string",
		"  zz ZZ-OWN-CONN 2025-06-18 stdio a check on its own connection failed at a refused revision",
		"error (1)",
		"  yy YY-ERROR    2026-07-28 stdio connection reset",
		"stale (1)",
		"  yy YY-STALE    2026-07-28 stdio listed in the baseline",
		"warn (1)",
		"  zz ZZ-WARN     2026-07-28 stdio the message is two paragraphs",
		"untestable (1)",
		"  zz ZZ-SLOW     2026-07-28 stdio no slow tool",
		"by area",
		"  aaa  80 na, 40 pass",
		"  caps 1 na",
		"  yy   1 error, 1 stale",
		"  zz   2 fail, 1 warn, 1 untestable",
	}
	if len(lines) != 2+len(want) {
		t.Fatalf("got %d lines, want %d", len(lines), 2+len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[2+i], w) {
			t.Errorf("line %d = %q, want it to begin %q", 2+i, lines[2+i], w)
		}
	}
}

func TestPrintSummaryQuotesServerStderrOnce(t *testing.T) {
	run := &Run{Errors: []string{"server exited" + stderrMarker + "panic: boom\ngoroutine 1"}}
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		r := sampleResult("DIED", Error, v, "stdio")
		r.Message = "the server stopped answering" + stderrMarker + "panic: boom\ngoroutine 1"
		run.Results = append(run.Results, r)
	}
	other := sampleResult("HUNG", Fail, "2025-11-25", "http")
	other.Message = "no response" + stderrMarker + "listening on :3001\x1b[2J"
	run.Results = append(run.Results, other)
	var buf bytes.Buffer
	if err := PrintSummary(&buf, run, false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, "  panic: boom\n  goroutine 1\n"); n != 1 {
		t.Errorf("the same stderr tail is shown %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{"server stderr (last lines), as a harness error quotes it:\n",
		"server stderr (last lines), as HUNG 2025-11-25 http quotes it:\n  listening on :3001\\x1b[2J\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
