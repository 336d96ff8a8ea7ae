package main

// Client verdicts on clients unlike the reference: judged at the revisions they say they
// speak, by the rule they break.

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
)

// A client that speaks only the handshake revisions and sends a request before initialize is
// not judged by 2026-07-28's rules (it never said it speaks that revision), and its request
// before initialize breaks "initialization MUST be the first interaction": a failure, not a
// warning.
func TestOlderClientJudgedAtItsRevisions(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	cmd := d.mcpspec + " reference-client --handshake-only --fault LIFE-PRE-INIT-REQUEST"
	args := append([]string{"client", "--cmd", cmd, "--out", out, "--scenario", "tools_call"}, clientTestFlags...)
	runBinary(t, clientRunTimeout, d.mcpspec, args...)
	run := assertReports(t, out)
	preInit := 0
	for _, res := range run.Results {
		switch {
		case res.Version == harness.Rev20260728:
			if res.Status != reports.NA {
				t.Errorf("%s %s: %s, want na for a client that never said it speaks it: %s", res.ID, res.Version, res.Status, res.Message)
			}
		case res.ID == "LIFE-PRE-INIT-REQUEST":
			preInit++
			if res.Status != reports.Fail {
				t.Errorf("%s %s: %s, want fail: %s", res.ID, res.Version, res.Status, res.Message)
			}
		case res.Status == reports.Fail || res.Status == reports.Error:
			t.Errorf("%s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}
	if preInit == 0 {
		t.Error("LIFE-PRE-INIT-REQUEST did not run")
	}
}

// A client that never follows nextCursor shows no page-size assumption and no reading of
// nextCursor "": the paging checks are untestable ("did not page"), and nothing fails.
func TestClientThatDoesNotPage(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	args := append([]string{"client", "--cmd", d.mcpspec + " reference-client --no-paging", "--out", out, "--scenario", "tools_call"}, clientTestFlags...)
	runBinary(t, clientRunTimeout, d.mcpspec, args...)
	run := assertReports(t, out)
	judged := 0
	for _, res := range run.Results {
		if res.Scenario == "" {
			t.Errorf("%s %s %s: the row names no scenario", res.ID, res.Version, res.Transport)
		}
		switch res.ID {
		case "PAGE-CLIENT-NO-FIXED-SIZE", "PAGE-EMPTY-STRING-CURSOR":
			judged++
			if res.Status != reports.Untestable || !strings.Contains(res.Message, "did not page") {
				t.Errorf("%s %s: %s, want untestable (did not page): %s", res.ID, res.Version, res.Status, res.Message)
			}
		default:
			if res.Status == reports.Fail || res.Status == reports.Warn || res.Status == reports.Error {
				t.Errorf("%s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
			}
		}
	}
	if judged == 0 {
		t.Error("no paging check ran")
	}
}

// A client that writes notifications/initialized right behind initialize, before it has read
// the InitializeResult, sends it all the same: LIFE-INITIALIZED-NOTIF passes, every run.
func TestPipeliningClientInitialized(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	args := append([]string{"client", "--stdio", "--cmd", d.mcpspec + " reference-client --pipeline", "--out", out, "--scenario", "tools_call"}, clientTestFlags...)
	r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
	if r.code != reports.ExitOK {
		t.Errorf("exit %d, want 0\n%s", r.code, r.stdout)
	}
	run := assertReports(t, out)
	judged := 0
	for _, res := range run.Results {
		if res.ID == "LIFE-INITIALIZED-NOTIF" {
			judged++
		}
		if res.Status != reports.Pass && res.Status != reports.NA {
			t.Errorf("%s %s: %s: %s", res.ID, res.Version, res.Status, res.Message)
		}
	}
	if judged == 0 {
		t.Error("LIFE-INITIALIZED-NOTIF did not run")
	}
}

// The transport rules bind every exchange of every scenario: a client that goes on with the
// ended session's id after a re-initialize (session-expiry) breaks HTTP-SESSION-CLIENT there,
// though its tools_call exchange is clean.
func TestSessionRuleInEveryScenario(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	args := append([]string{"client", "--cmd", d.mcpspec + " reference-client --fault HTTP-SESSION-CLIENT:reinit", "--out", out, "--scenario", "tools_call,session-expiry"}, clientTestFlags...)
	r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
	if r.code != reports.ExitFailures {
		t.Errorf("exit %d, want %d\n%s", r.code, reports.ExitFailures, r.stdout)
	}
	run := assertReports(t, out)
	failed := 0
	for _, res := range run.Results {
		if res.ID != "HTTP-SESSION-CLIENT" {
			continue
		}
		want := reports.Pass
		if res.Scenario == "session-expiry" {
			want = reports.Fail
			failed++
		}
		if res.Status != want {
			t.Errorf("%s %s (%s): %s, want %s: %s", res.ID, res.Version, res.Scenario, res.Status, want, res.Message)
		}
	}
	if failed == 0 {
		t.Error("HTTP-SESSION-CLIENT was not judged in session-expiry")
	}
}

// Untestable only with nothing to judge: a client that leaves the probe's roots/list unanswered
// while the probe waits broke JSON-RPC's reply rule, and the roots check it binds fails on it
// (ROOTS-CLIENT-RESULT, as the client declared roots; it was untestable, as if the request had
// never been sent); the other roots checks name the miss and leave it to that one, and no other
// check fails.
func TestUnansweredServerRequestFails(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	args := append([]string{"client", "--cmd", d.mcpspec + " reference-client --fault ROOTS-CLIENT-RESULT:unanswered", "--out", out,
		"--scenario", "tools_call", "--versions", "2025-06-18"}, clientTestFlags...)
	r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
	if r.code != reports.ExitFailures {
		t.Errorf("exit %d, want %d\n%s", r.code, reports.ExitFailures, r.stdout)
	}
	failed := 0
	for _, res := range assertReports(t, out).Results {
		switch {
		case strings.HasPrefix(res.ID, "ROOTS-CLIENT-"):
			failed++
			want := reports.Untestable
			if res.ID == "ROOTS-CLIENT-RESULT" {
				want = reports.Fail
			}
			if res.Status != want || !strings.Contains(res.Message, "never answered the probe's roots/list") {
				t.Errorf("%s: %s, want %s naming the unanswered roots/list: %s", res.ID, res.Status, want, res.Message)
			}
		case res.Status == reports.Fail || res.Status == reports.Warn || res.Status == reports.Error:
			t.Errorf("%s: %s: %s", res.ID, res.Status, res.Message)
		}
	}
	if failed != 3 {
		t.Errorf("%d roots results, want the three roots checks", failed)
	}
}
