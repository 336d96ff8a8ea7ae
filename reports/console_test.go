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
	if len(lines) != 2+7 {
		t.Fatalf("got %d lines, want verdict, counts and 7 non-passing checks:\n%s", len(lines), out)
	}
	if lines[0] != "mcpspec: ERROR — 1 check ended in error, 1 unexpected failure, 1 stale baseline entry" {
		t.Errorf("verdict line %q", lines[0])
	}
	if !strings.Contains(lines[1], "pass 1, fail 1, warn 1") {
		t.Errorf("counts line %q", lines[1])
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[2]), "error") || !strings.Contains(lines[2], "ERROR-ONE") {
		t.Errorf("the most serious check should come first: %q", lines[2])
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
