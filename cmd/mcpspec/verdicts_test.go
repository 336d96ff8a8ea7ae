package main

// Verdicts on servers unlike the reference: one clear failure for a server without an MCP
// handshake, whatever the selection.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

func TestNoHandshakeIsOneFailure(t *testing.T) {
	t.Parallel()
	server := bins.mcpspec + " reference --fault LIFE-INIT-RESULT:no-handshake"
	for _, c := range []struct {
		name  string
		focus string
	}{
		{"every check", ""},
		// The carrier is not selected: the failure is reported all the same.
		{"a focus that leaves the carrier out", "^(BATCH|CANCEL|LIFE-PRE|LIFE-VERSION)-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"run", "--stdio", server, "--out", out}
			if c.focus != "" {
				args = append(args, "--focus", c.focus)
			}
			r := runBinary(t, referenceRunTimeout, bins.mcpspec, args...)
			if r.code != reports.ExitFailures {
				t.Errorf("exit code %d, want %d", r.code, reports.ExitFailures)
			}
			run := assertReports(t, out)
			var fails []reports.Result
			for _, res := range run.Results {
				switch res.Status {
				case reports.Fail:
					fails = append(fails, res)
				case reports.NA:
					if !strings.Contains(res.Message, "no MCP handshake") {
						t.Errorf("%s %s: na without the reason: %s", res.ID, res.Version, res.Message)
					}
				default:
					t.Errorf("%s %s: %s, want na: %s", res.ID, res.Version, res.Status, res.Message)
				}
			}
			if len(fails) != 1 {
				t.Fatalf("%d failures, want one: %v", len(fails), fails)
			}
			f := fails[0]
			if f.ID != "LIFE-INIT-RESULT" || !strings.Contains(f.Message, `initialize was answered with error -32603`) || !strings.Contains(f.Message, `server/discover was answered with error -32603`) {
				t.Errorf("the failure does not name what initialize and server/discover got: %s %s: %s", f.ID, f.Version, f.Message)
			}
		})
	}
}

// A server that serves only 2026-07-28 refuses initialize at every older revision: every check
// at those revisions is na, the checks that send initialize on a connection of their own
// (CANCEL-NO-INIT-CANCEL, LIFE-PRE-INIT-REQUEST, LIFE-VERSION-FALLBACK) included.
func TestUnservedRevisionsAreNA(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	r := runBinary(t, referenceRunTimeout, bins.mcpspec, "run", "--stdio", bins.mcpspec+" reference --era stateless",
		"--focus", "^(CANCEL-NO-INIT|LIFE-|VER26-DISCOVER)", "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\n%s", r.code, reports.ExitOK, r.stdout)
	}
	run := assertReports(t, out)
	na := 0
	for _, res := range run.Results {
		if res.Version == "2026-07-28" {
			continue
		}
		switch res.Status {
		case reports.NA:
			na++
			if !strings.Contains(res.Message, "does not serve revision "+res.Version) {
				t.Errorf("%s %s: na without the reason: %s", res.ID, res.Version, res.Message)
			}
		case reports.Fail, reports.Warn, reports.Error:
			t.Errorf("%s %s: %s at a revision the server does not serve: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}
	if na == 0 {
		t.Error("no check was na at the unserved revisions")
	}
}

// A server slow to answer initialize (it serves ping meanwhile) is slow, not refusing: the
// check that cancels initialize waits for the answer as long as for a start, and passes.
func TestSlowInitializeIsNotRefusal(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	r := runBinary(t, referenceRunTimeout, bins.mcpspec, "run", "--stdio", bins.mcpspec+" reference --init-delay 2s",
		"--focus", "^CANCEL-NO-INIT-CANCEL", "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\n%s", r.code, reports.ExitOK, r.stdout)
	}
	run := assertReports(t, out)
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, res := range run.Results {
		if res.ID == "CANCEL-NO-INIT-CANCEL" && res.Status != reports.Pass {
			t.Errorf("%s %s %s: %s, want pass: %s", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
	}
}

// Untestable only when the run had nothing to judge: a read-only tool the server lists is
// enough for TASK-IGNORE-IF-UNDECLARED, and the slow tool's progress is enough for
// MSG-NOTIF-NO-ID, without the flags each once demanded. And na when the rule binds nothing the
// server does: one that serves no subscriptions/listen has no task notifications to refuse.
func TestJudgedWithoutTheirOwnFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, server, focus string
		flags               []string
		want                reports.Status
	}{
		{"task ignored on a read-only tool", "--without tasks", "^TASK-IGNORE-IF-UNDECLARED", nil, reports.Pass},
		{"task refused on a read-only tool", "--without tasks --fault TASK-IGNORE-IF-UNDECLARED", "^TASK-IGNORE-IF-UNDECLARED", nil, reports.Fail},
		{"no task notifications to refuse", "--without subscriptions", "^TASKX-LISTEN-UNDECLARED", nil, reports.NA},
		{"no task notifications offered", "--without subscriptions", "^TASKX-LISTEN ", []string{"--slow-tool", "slow", "--slow-tool-args", `{"steps":3,"stepMs":20}`}, reports.NA},
		{"refused as unknown while served declared", "--fault TASKX-LISTEN-UNDECLARED:not-found", "^TASKX-LISTEN-UNDECLARED", nil, reports.Fail},
		{"progress with an id, no log tool", "--fault MSG-NOTIF-NO-ID:progress", "^MSG-NOTIF-NO-ID", []string{"--slow-tool", "slow", "--slow-tool-args", `{"steps":3,"stepMs":20}`}, reports.Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--stdio", bins.mcpspec + " reference " + c.server, "--focus", c.focus, "--out", out}, c.flags...)
			runBinary(t, referenceRunTimeout, bins.mcpspec, args...)
			run := assertReports(t, out)
			if len(run.Results) == 0 {
				t.Fatal("no results")
			}
			for _, res := range run.Results {
				if res.Status != c.want {
					t.Errorf("%s %s: %s, want %s: %s", res.ID, res.Version, res.Status, c.want, res.Message)
				}
			}
		})
	}
}

// A server that answers a ping as JSON but streams the slow tool's call, and drops the
// connection of that stream right after its response: the SSE checks judge the slow tool's
// stream, and an abrupt close after a complete answer is neither a timeout nor a stream left
// open.
func TestAbruptCloseAfterACompleteAnswer(t *testing.T) {
	t.Parallel()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	server := bins.mcpspec + " reference --http-responses calls --sse-abort --http " + addr
	out := filepath.Join(t.TempDir(), "out")
	runBinary(t, referenceRunTimeout, bins.mcpspec, "run", "--http-cmd", server, "--url", "http://"+addr+"/mcp",
		"--slow-tool", "slow", "--slow-tool-args", `{"steps":3,"stepMs":20}`,
		"--focus", "^HTTP-(SSE-(RELATED|INCLUDES|CLOSE-AFTER|PRIME|NO-EARLY)|EVENT-ID)", "--out", out)
	run := assertReports(t, out)
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, res := range run.Results {
		if res.Status != reports.Pass {
			t.Errorf("%s %s: %s, want pass: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}
}

// Untestable only when the run had nothing to judge: without --log-tool, LOG-LEVEL-ENUM judges
// the log messages a server that logs on its own sent the state session (which sets a log
// level), and fails on a bad one; without --slow-tool, PROG-TASK-TOKEN judges the progress of
// the listed task tool the 2025-11-25 tasks checks call.
func TestJudgedWithoutTheNamedTools(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, server, focus string
		want                reports.Status
	}{
		{"log messages of the state session", "--log-on-set-level", "^LOG-LEVEL-ENUM", reports.Pass},
		{"a bad one among them", "--log-on-set-level --fault LOG-LEVEL-ENUM", "^LOG-LEVEL-ENUM", reports.Fail},
		{"no log message at all", "", "^LOG-LEVEL-ENUM", reports.Untestable},
		{"the listed task tool's progress", "", "^PROG-TASK-TOKEN", reports.Pass},
		{"its progress after the task ended", "--fault PROG-TASK-TOKEN", "^PROG-TASK-TOKEN", reports.Fail},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			r := runBinary(t, referenceRunTimeout, bins.mcpspec, "run", "--stdio", bins.mcpspec+" reference "+c.server,
				"--versions", "2025-11-25", "--focus", c.focus, "--out", out)
			// A run whose one check could not test ran nothing (exit 4).
			want := map[reports.Status]int{reports.Pass: reports.ExitOK, reports.Fail: reports.ExitFailures, reports.Untestable: reports.ExitNothingRan}[c.want]
			if r.code != want {
				t.Errorf("exit code %d, want %d\n%s", r.code, want, r.stdout)
			}
			run := assertReports(t, out)
			if len(run.Results) == 0 {
				t.Fatal("no result")
			}
			for _, res := range run.Results {
				if res.Status != c.want {
					t.Errorf("%s %s %s: %s, want %s: %s", res.ID, res.Version, res.Transport, res.Status, c.want, res.Message)
				}
			}
		})
	}
}

// A MUST check judges only MUST evidence. Pages whose items change each time they are served
// (the PAGE-STABLE fault) warn PAGE-STABLE, and are neither state kept outside a cursor
// (STATELESS-EXPLICIT-STATE) nor a list that varies with the connection or other requests (the
// *26-LIST-STABLE checks), which failed on them at MUST; a cursor served on its own connection
// but refused on another (the STATELESS-NO-SAME-CONN fault) warns STATELESS-NO-SAME-CONN, and
// failed STATELESS-EXPLICIT-STATE at MUST.
func TestSHOULDEvidenceWarnsOnly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fault string
		ids   int // the checks the focus selects
	}{{"PAGE-STABLE", 5}, {"STATELESS-NO-SAME-CONN", 5}} {
		t.Run(c.fault, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			r := runBinary(t, referenceRunTimeout, bins.mcpspec, "run", "--stdio", bins.mcpspec+" reference --fault "+c.fault,
				"--focus", "^("+c.fault+"|STATELESS-EXPLICIT-STATE|[A-Z]+26-LIST-STABLE) ", "--out", out)
			if r.code != reports.ExitOK {
				t.Errorf("exit code %d, want %d\n%s", r.code, reports.ExitOK, r.stdout)
			}
			warned, ids := 0, map[string]bool{}
			for _, res := range assertReports(t, out).Results {
				ids[res.ID] = true
				want := reports.Pass
				if res.ID == c.fault {
					want = reports.Warn
					warned++
				}
				if res.Status != want {
					t.Errorf("%s %s: %s, want %s: %s", res.ID, res.Version, res.Status, want, res.Message)
				}
			}
			if warned == 0 || len(ids) != c.ids {
				t.Errorf("checks run: %v, want %s, STATELESS-EXPLICIT-STATE and the three *26-LIST-STABLE", ids, c.fault)
			}
		})
	}
}
