package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func printed(t *testing.T, r *Run, opt ConsoleOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := PrintSummary(&buf, r, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestPrintSummary(t *testing.T) {
	out := printed(t, sampleRun(), ConsoleOptions{})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"mcpspec: ERROR — 1 check ended in error, 1 unexpected failure, 1 stale baseline entry",
		"  1 fail, 1 error, 1 stale, 1 warn, 1 untestable, 1 expected, 1 na, 1 pass (total 8)",
		"fail: 1 requirement",
		"  FAIL-ONE [MUST] the FAIL-ONE check (stdio: 2025-03-26): server said <script>alert(1)</script> …",
		"error: 1 check, 1 cause",
		`  1 check (http: 2025-11-25): connection reset "><img src=x onerror=alert(1)>`,
		"stale: 1 requirement",
		"  STALE-ONE [MUST] the STALE-ONE check (sse: 2025-03-26): " + staleMessage,
		"warn: 1 requirement",
		"  WARN-ONE [MUST] the WARN-ONE check (http: 2025-06-18): warn message for WARN-ONE",
		"expected: 1 requirement",
		"  EXPECTED-ONE [MUST] the EXPECTED-ONE check (http: 2025-03-26): baseline: known bug #12",
		"untestable: 1 check, each missing a prerequisite (-v or report.html lists them)",
		"  1 check: untestable message for UNTESTABLE-ONE",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(out, "\x1b") {
		t.Error("plain output contains ANSI escapes")
	}

	run := sampleRun()
	run.Results[1].Message = "evil \x1b[2J clear screen"
	colored := printed(t, run, ConsoleOptions{Color: true})
	if !strings.Contains(colored, "\x1b[31m") {
		t.Error("colour output lacks ANSI colour")
	}
	if strings.Contains(colored, "\x1b[2J") || !strings.Contains(colored, `evil \x1b[2J`) {
		t.Error("server text must not carry raw escape sequences to the terminal")
	}
}

func TestPrintSummaryVerbose(t *testing.T) {
	out := printed(t, sampleRun(), ConsoleOptions{Verbose: true})
	for _, want := range []string{
		"    2025-03-26 stdio:\n      server said <script>alert(1)</script>\n      second line | with pipe\n",
		"untestable: 1 requirement\n  UNTESTABLE-ONE [MUST]",
		"by area\n  batch     1 fail, 1 error, 1 stale, 1 warn, 1 untestable, 1 expected, 1 pass\n  lifecycle 1 na\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-v output lacks %q:\n%s", want, out)
		}
	}
}

// A requirement failing at every revision and transport is one line, whatever the number of cells.
func TestPrintSummaryOneLinePerRequirement(t *testing.T) {
	run := &Run{Revisions: []string{"2025-03-26", "2025-06-18", "2025-11-25"}}
	for i := range 15 {
		for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
			for _, tr := range []string{"stdio", "http"} {
				r := sampleResult(fmt.Sprintf("REQ-%02d", i), Fail, v, tr)
				r.Message = "broken at " + v + " " + tr + "\nsecond line"
				run.Results = append(run.Results, r)
			}
		}
	}
	for i := range 60 {
		r := sampleResult(fmt.Sprintf("SLOW-%02d", i), Untestable, "2025-06-18", "stdio")
		r.Message = []string{"needs a tool that takes a while; name one with --slow-tool NAME", "needs a log tool; --log-tool NAME",
			"needs an input tool", "needs a list tool", "needs a list tool"}[i%5] + "\nmore"
		run.Results = append(run.Results, r)
	}
	out := printed(t, run, ConsoleOptions{})
	if n := strings.Count(out, "\n  REQ-"); n != 15 {
		t.Errorf("%d requirement lines for 15 failed requirements:\n%s", n, out)
	}
	if !strings.Contains(out, "fail: 15 requirements\n  REQ-00 [MUST] the REQ-00 check (http: every revision; stdio: every revision): broken at 2025-03-26 http …\n") {
		t.Errorf("the line of a requirement lacks its cells or message:\n%s", out)
	}
	if strings.Contains(out, "SLOW-") || !strings.Contains(out, "untestable: 60 checks") {
		t.Errorf("untestable checks are a count without -v:\n%s", out)
	}
	// With their three commonest reasons, which name the flag that makes them run.
	if !strings.Contains(out, "\n  24 checks: needs a list tool\n  12 checks: needs a tool that takes a while; name one with --slow-tool NAME\n  12 checks: needs a log tool; --log-tool NAME\n") ||
		strings.Contains(out, "input tool") {
		t.Errorf("the untestable count lacks its three commonest reasons:\n%s", out)
	}
	if lines := strings.Count(out, "\n"); lines > 23 {
		t.Errorf("%d lines for 15 findings and a count:\n%s", lines, out)
	}
}

// A SHOULD check that failed on a broken MUST says so on its line.
func TestPrintSummaryEscalatedLevel(t *testing.T) {
	r := sampleResult("JRPC-ERROR-MESSAGE", Fail, "2025-06-18", "stdio")
	r.Level, r.Title = "SHOULD", "JRPC-ERROR-MESSAGE [SHOULD] an error message is one short sentence"
	r.Message = "JRPC-REPLY-REQUIRED [MUST]: request 7 (ping) was never answered\nthe message was long"
	out := printed(t, &Run{Results: []Result{r}}, ConsoleOptions{})
	want := "  JRPC-ERROR-MESSAGE [MUST (SHOULD check)] an error message is one short sentence (stdio: 2025-06-18): JRPC-REPLY-REQUIRED [MUST]: request 7 (ping) was never answered …\n"
	if !strings.Contains(out, want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
}

// A target that cannot be started is one cause, not a line per check.
func TestPrintSummaryOneCause(t *testing.T) {
	run := &Run{}
	for i := range 500 {
		r := sampleResult(fmt.Sprintf("REQ-%03d", i), Error, []string{"2025-06-18", "2025-11-25"}[i%2], "stdio")
		r.Message = `target unavailable: cannot start the server nope: exec: "nope": executable file not found in $PATH`
		run.Results = append(run.Results, r)
	}
	out := printed(t, run, ConsoleOptions{})
	want := "mcpspec: ERROR — 500 checks ended in error\n  500 error (total 500)\nerror: 500 checks, 1 cause\n" +
		`  500 checks (stdio: 2025-06-18, 2025-11-25): cannot start the server nope: exec: "nope": executable file not found in $PATH` + "\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// A stdio server that writes a banner and never answers: the cause quotes the stderr line that
// looks like an error and what it wrote on stdout.
func TestPrintSummaryCauseQuotesTheTarget(t *testing.T) {
	run := &Run{}
	for i := range 90 {
		r := sampleResult(fmt.Sprintf("REQ-%03d", i), Error, "2025-06-18", "stdio")
		r.Message = "target unavailable: the server did not answer initialize (2025-06-18): nothing within 20s" +
			stderrMarker + "listening\nError: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules\nbye"
		r.Evidence = []Exchange{{Seq: 1, Direction: "recv", Channel: "stdout", Meta: "violation: non-json-line", Body: "Starting server v1\x1b[2J"}}
		run.Results = append(run.Results, r)
	}
	out := printed(t, run, ConsoleOptions{})
	for _, want := range []string{
		"  90 checks (stdio: 2025-06-18): the server did not answer initialize (2025-06-18): nothing within 20s\n",
		"    stderr: Error: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules\n",
		`    stdout, not JSON-RPC: "Starting server v1\x1b[2J"` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 8 {
		t.Errorf("%d lines for one cause:\n%s", n, out)
	}
}

func TestPrintSummaryLeadsWithFindings(t *testing.T) {
	out := printed(t, unservedRun(), ConsoleOptions{})
	t.Log("\n" + out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"  not served 2025-06-18 stdio: 40 checks na; it answered initialize without a result: ",
		"  not served 2025-11-25 stdio: 40 checks na; it answered initialize without a result: ",
		"fail: 2 requirements",
		"  ZZ-FAIL [MUST] the ZZ-FAIL check (stdio: 2026-07-28): the id came back as a string",
		"  ZZ-OWN-CONN [MUST] the ZZ-OWN-CONN check (stdio: 2025-06-18): a check on its own connection failed at a refused revision",
		"error: 1 check, 1 cause",
		"  1 check (stdio: 2026-07-28): connection reset",
		"stale: 1 requirement",
		"  YY-STALE [MUST] the YY-STALE check (stdio: 2026-07-28): listed in the baseline",
		"warn: 1 requirement",
		"  ZZ-WARN [MUST] the ZZ-WARN check (stdio: 2026-07-28): the message is two paragraphs",
		"untestable: 1 check",
		"  1 check: no slow tool",
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
		r := sampleResult("DIED", Fail, v, "stdio")
		r.Message = "the server stopped answering" + stderrMarker + "panic: boom\ngoroutine 1"
		run.Results = append(run.Results, r)
	}
	other := sampleResult("HUNG", Fail, "2025-11-25", "http")
	other.Message = "no response" + stderrMarker + "listening on :3001\x1b[2J"
	run.Results = append(run.Results, other)
	out := printed(t, run, ConsoleOptions{})
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

func TestErrorLines(t *testing.T) {
	stderr := "starting client\nnode v22\nError: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules\n    at main (index.js:3)\nbye\n"
	got := ErrorLines(stderr, 2)
	if len(got) != 1 || got[0] != "Error: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules" {
		t.Errorf("ErrorLines = %q", got)
	}
	if got := ErrorLines("all fine\n", 2); len(got) != 0 {
		t.Errorf("ErrorLines of a calm stderr = %q", got)
	}
}

// The same harness error in many scenarios is one line naming where it happened.
func TestPrintSummaryGroupsHarnessErrors(t *testing.T) {
	run := &Run{}
	for _, where := range []string{"tools_call at 2025-03-26", "tools_call at 2025-06-18", "sse-retry at 2025-06-18"} {
		run.Errors = append(run.Errors, where+`: launch the client: exec: "nope": executable file not found in $PATH`)
	}
	run.Errors = append(run.Errors, "interrupted (SIGINT): the servers were stopped", "session-expiry at 2025-06-18: the client hung")
	out := printed(t, run, ConsoleOptions{})
	for _, want := range []string{
		"  harness error: launch the client: exec: \"nope\": executable file not found in $PATH (3 times: tools_call at 2025-03-26, tools_call at 2025-06-18, sse-retry at 2025-06-18)\n",
		"  harness error: interrupted (SIGINT): the servers were stopped\n",
		"  harness error: session-expiry at 2025-06-18: the client hung\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "harness error:"); n != 3 {
		t.Errorf("%d harness error lines, want 3:\n%s", n, out)
	}
}
