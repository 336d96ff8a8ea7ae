package main

// Misbehaving servers (fixtures/misbehaving) against the real mcpspec binary: whatever a server
// does, the run ends in bounded time with the right exit code, says why with the server's own
// stderr, writes its four reports, and leaves no process behind.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/reports"
)

// The timeouts every run here passes to mcpspec, and the bounds derived from them.
const (
	startupTimeout  = 3 * time.Second
	requestTimeout  = 2 * time.Second
	shutdownTimeout = 1 * time.Second
	// stopBound is the most stopping one server may take: stdio.Process.Stop waits up to one
	// shutdown timeout after each of stdin EOF, SIGTERM and SIGKILL.
	stopBound = 3 * shutdownTimeout
	// slack covers what no timeout bounds: starting processes, building the spec tree, writing
	// the reports, a loaded machine running these cases in parallel.
	slack = 3 * time.Second
	// answersPromptly bounds a run in which no wait should reach a timeout: one startup (the
	// longest single wait the harness may make while a server starts) and one stop.
	answersPromptly = startupTimeout + stopBound + slack
	// httpNeverAnswers bounds a launched HTTP server that fails initialize: waiting for its port
	// (startup timeout), then for the initialize answer (startup timeout), then stopping it.
	httpNeverAnswers = 2*startupTimeout + stopBound + slack
	// floodRequestTimeout is the request timeout of the flood mode: long enough to read 64 MiB
	// behind which the answer comes, on a loaded machine.
	floodRequestTimeout = 8 * time.Second
)

// timeoutArgs are the timeout flags of every run here.
var timeoutArgs = []string{
	"--timeout-startup", startupTimeout.String(),
	"--timeout-request", requestTimeout.String(),
	"--timeout-shutdown", shutdownTimeout.String(),
}

// misbehaviour is one mode of the fixture and what a run against it must end with.
type misbehaviour struct {
	mode  string
	http  bool
	focus string // --focus, where the full suite would make the bound depend on its size
	// versions narrows --versions ("" = all), for the same reason.
	versions string
	extra    []string // more run flags
	// bound is the most the run may take, from the timeouts above (see each case).
	bound    time.Duration
	wantExit int
	why      string // the reason for wantExit
	// stderr lines of the server that every non-passing result's message must quote: in these
	// modes each of them is where the server died or never answered.
	stderr []string
	// check makes the mode's own assertions on the results.
	check func(t *testing.T, run *reports.Run)
	// blocked names the subtests a harness bug keeps from passing, with the bug.
	blocked map[string]string
	// request replaces requestTimeout for this mode (0: requestTimeout).
	request time.Duration
}

var misbehaviours = []misbehaviour{
	{
		mode: "no-init", bound: answersPromptly, // initialize waits one startup timeout; the server exits at stdin EOF
		wantExit: reports.ExitHarness, why: "the server never answers initialize: an infrastructure error, not a rule broken",
		stderr: []string{"misbehave: mode no-init", "misbehave: not answering initialize"},
		check:  allErrors("did not answer initialize"),
	},
	{
		mode: "crash-mid", focus: "PING-RESPOND|STDIO-STDOUT-ONLY-MCP", bound: answersPromptly, // a dead server ends every wait at once
		wantExit: reports.ExitFailures, why: "the server answers initialize, then dies mid-session: the checks that lose it fail",
		stderr: []string{"misbehave: fatal error: simulated crash"},
		check: func(t *testing.T, run *reports.Run) {
			// Its workload (ping, a list, an unknown method, then a sentinel ping) outlives the
			// fixture's four answers; PING-RESPOND's three requests do not.
			wantStatus(t, run, "STDIO-STDOUT-ONLY-MCP", reports.Fail, "")
			wantStatus(t, run, "PING-RESPOND", reports.Pass, "")
		},
	},
	{
		mode: "banner", focus: "PING-RESPOND|STDIO-STDOUT-ONLY-MCP", bound: answersPromptly,
		wantExit: reports.ExitFailures, why: "the server answers everything, but writes text that is not JSON-RPC to stdout",
		check: func(t *testing.T, run *reports.Run) {
			wantStatus(t, run, "STDIO-STDOUT-ONLY-MCP", reports.Fail, "Welcome to misbehave v1")
			wantStatus(t, run, "PING-RESPOND", reports.Pass, "") // the noise costs nothing else
		},
	},
	{
		// Two connections, each draining 64 MiB of garbage; a request may wait up to its timeout
		// behind each flood. Reading 64 MiB takes more than 2 s on a loaded 2-core machine (the
		// ping then ran out behind the flood), so this mode waits longer for each answer.
		mode: "flood", focus: "PING-RESPOND|STDIO-STDOUT-ONLY-MCP", versions: "2025-11-25",
		request:  floodRequestTimeout,
		bound:    startupTimeout + 2*floodRequestTimeout + stopBound + slack,
		wantExit: reports.ExitFailures, why: "the server answers everything, but floods stdout with lines that are not JSON",
		check: func(t *testing.T, run *reports.Run) {
			wantStatus(t, run, "STDIO-STDOUT-ONLY-MCP", reports.Fail, "garbage!")
			wantStatus(t, run, "PING-RESPOND", reports.Pass, "") // the harness reads on through the flood
		},
	},
	{
		mode: "no-read", bound: answersPromptly, // initialize waits one startup timeout; stop needs EOF, then SIGTERM
		wantExit: reports.ExitHarness, why: "the server never reads stdin, so never answers initialize",
		stderr: []string{"misbehave: never reading stdin"},
		check:  allErrors("did not answer initialize"),
	},
	{
		mode: "wrong-ids", focus: "PING-RESPOND|JRPC-REPLY-REQUIRED|JRPC-ID-ECHO", bound: answersPromptly,
		wantExit: reports.ExitFailures, why: "the server answers, but every response comes once with a wrong id and twice with the right one",
		check: func(t *testing.T, run *reports.Run) {
			wantStatus(t, run, "JRPC-REPLY-REQUIRED", reports.Fail, "responses")
			wantStatus(t, run, "JRPC-ID-ECHO", reports.Fail, "")
			wantStatus(t, run, "PING-RESPOND", reports.Pass, "") // stray ids are not taken for answers
		},
	},
	{
		// One shared session, so both checks use it in turn: the unknown method waits one request
		// timeout, the probe behind the violation another, then a new server is started.
		mode: "wedge", focus: "JRPC-METHOD-NOT-FOUND|PING-RESPOND", versions: "2025-11-25", extra: []string{"--sessions", "1"},
		bound:    startupTimeout + 2*requestTimeout + 2*stopBound + slack,
		wantExit: reports.ExitFailures, why: "an unknown method wedges the server: that check fails, and the session it leaves behind is replaced",
		stderr: []string{"misbehave: wedged by"},
		check: func(t *testing.T, run *reports.Run) {
			wantStatus(t, run, "JRPC-METHOD-NOT-FOUND", reports.Fail, "")
			wantStatus(t, run, "PING-RESPOND", reports.Pass, "") // on a new server: the wedged one was let go
			if n := run.Stats["serversSpawned"]; n != 2 {
				t.Errorf("%d servers spawned, want 2: the wedged session must be replaced", n)
			}
		},
	},
	{
		mode: "exit0", bound: answersPromptly, // its stdout closes at once: nothing waits a timeout
		wantExit: reports.ExitHarness, why: "the server exits before initialize",
		stderr: []string{"misbehave: mode exit0"},
		check:  allErrors("exit status 0"),
	},
	{
		// Four shared sessions stopped together at the end, and four fresh STDIO-NEWLINE
		// connections stopped one after the other: each stop runs through all three steps.
		mode: "ignore-term", focus: "PING-RESPOND|STDIO-NEWLINE",
		bound:    startupTimeout + 5*stopBound + slack,
		wantExit: reports.ExitOK, why: "the server answers correctly; how it dies is for the harness to handle, and no implemented check judges it",
		check: func(t *testing.T, run *reports.Run) {
			wantStatus(t, run, "PING-RESPOND", reports.Pass, "")
			wantStatus(t, run, "STDIO-NEWLINE", reports.Pass, "")
		},
	},
	{
		mode: "http-hang", http: true, bound: httpNeverAnswers,
		wantExit: reports.ExitHarness, why: "the server reads every request and never answers, initialize included",
		stderr: []string{"misbehave: mode http-hang", "never answering"},
		check:  allErrors("did not answer initialize"),
	},
	{
		mode: "http-html", http: true, bound: httpNeverAnswers,
		wantExit: reports.ExitHarness, why: "the server answers initialize with a web page: no MCP endpoint there",
		stderr: []string{"misbehave: mode http-html", "misbehave: answering POST with text/html"},
		check:  allErrors("initialize"),
	},
	{
		mode: "http-500", http: true, bound: httpNeverAnswers,
		wantExit: reports.ExitHarness, why: "the server answers every POST, initialize included, with 500: an infrastructure error at every revision",
		check: func(t *testing.T, run *reports.Run) {
			// The message names the status; the body is in the message or the evidence.
			for _, r := range run.Results {
				if !strings.Contains(r.Message, "HTTP 500") {
					t.Errorf("%s %s: %q does not name the HTTP 500", r.ID, r.Version, r.Message)
				}
				if !strings.Contains(r.Message, "simulated failure") && !evidenceContains(r, "simulated failure") {
					t.Errorf("%s %s: neither the message nor the evidence shows the 500's body: %q", r.ID, r.Version, r.Message)
				}
			}
		},
	},
	{
		// Every PING-RESPOND (one per revision) waits one request timeout for a response that
		// never comes.
		mode: "http-endless-sse", http: true, focus: "PING-RESPOND",
		bound:    2*startupTimeout + 4*requestTimeout + stopBound + slack,
		wantExit: reports.ExitFailures, why: "the server answers initialize, then leaves every request unanswered behind SSE comments: PING-RESPOND is broken",
		stderr: []string{"misbehave: answering ping with an endless SSE stream"},
		check: func(t *testing.T, run *reports.Run) {
			wantStatus(t, run, "PING-RESPOND", reports.Fail, "no response")
		},
	},
	{
		// 5000 notifications before every answer, more than a session keeps: the inbox drops
		// notifications, never the answer, and says so in the evidence of the check.
		// Reading and parsing 5000 events takes more than 2 s on a loaded 2-core machine.
		mode: "http-flood-notify", http: true, focus: "PING-RESPOND", versions: "2025-06-18",
		request:  floodRequestTimeout,
		bound:    answersPromptly + floodRequestTimeout,
		wantExit: reports.ExitOK, why: "the server answers every request, after a flood of notifications",
		check: func(t *testing.T, run *reports.Run) {
			wantStatus(t, run, "PING-RESPOND", reports.Pass, "")
			for _, r := range run.Results {
				if !evidenceContains(r, "messages are dropped from here on") {
					t.Errorf("%s %s: the evidence does not say the session dropped messages", r.ID, r.Version)
				}
			}
		},
	},
}

func TestMisbehavingServers(t *testing.T) {
	t.Parallel()
	for _, m := range misbehaviours {
		t.Run(m.mode, func(t *testing.T) {
			t.Parallel()
			m.run(t)
		})
	}
}

func (m misbehaviour) run(t *testing.T) {
	d := newRunDir(t)
	out := t.TempDir()
	args := []string{"run", "--out", out}
	server := fmt.Sprintf("%s --mode %s --max-lifetime 2m", d.misbehave, m.mode)
	if m.http {
		addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
		args = append(args, "--http-cmd", server+" --addr "+addr, "--url", "http://"+addr+"/mcp")
	} else {
		args = append(args, "--stdio", server)
	}
	if m.focus != "" {
		args = append(args, "--focus", m.focus)
	}
	if m.versions != "" {
		args = append(args, "--versions", m.versions)
	}
	args = append(args, m.extra...)
	if m.request > 0 {
		args = append(args, "--timeout-startup", startupTimeout.String(), "--timeout-request", m.request.String(),
			"--timeout-shutdown", shutdownTimeout.String())
	} else {
		args = append(args, timeoutArgs...)
	}

	// Killed at twice the bound, so an overrun is measured rather than cut at the bound.
	r := runBinary(t, 2*m.bound, d.mcpspec, args...)
	t.Logf("mode %s: exit %d in %s (bound %s)", m.mode, r.code, r.elapsed.Round(time.Millisecond), m.bound)
	// Read once, before the subtests: it fails the test if results.json is missing.
	run := assertReports(t, out)

	m.subtest(t, "bounded-time", func(t *testing.T) {
		if r.elapsed > m.bound {
			t.Errorf("the run took %s, more than its bound %s", r.elapsed, m.bound)
		}
	})
	m.subtest(t, "exit-code", func(t *testing.T) {
		if r.code != m.wantExit {
			t.Errorf("exit code %d, want %d: %s\nsummary %v, errors %q\nstdout:\n%s", r.code, m.wantExit, m.why, run.Summary, run.Errors, tail(r.stdout, 30))
		}
	})
	m.subtest(t, "server-stderr-in-message", func(t *testing.T) { m.assertStderr(t, run, r) })
	m.subtest(t, "results", func(t *testing.T) {
		if len(run.Results) == 0 && len(run.Errors) == 0 {
			t.Fatal("results.json records neither results nor errors")
		}
		if m.check != nil {
			m.check(t, run)
		}
	})
	if m.mode == "no-init" {
		m.subtest(t, "initialize-waits-startup-timeout", func(t *testing.T) {
			// The server never answers, so the run cannot end before the startup timeout passed.
			if r.elapsed < startupTimeout {
				t.Errorf("the run ended after %s: initialize was not given the startup timeout %s", r.elapsed, startupTimeout)
			}
		})
	}
	m.subtest(t, "no-leftover-process", func(t *testing.T) { assertNoLeftovers(t, d) })
}

// subtest runs one aspect of the mode, skipped with its reason when a known bug blocks it.
func (m misbehaviour) subtest(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		if why, ok := m.blocked[name]; ok {
			blocked(t, why)
		}
		f(t)
	})
}

// assertStderr checks that every message about the server dying or not answering quotes the
// server's own stderr lines, in results.json and in the summary on stdout.
func (m misbehaviour) assertStderr(t *testing.T, run *reports.Run, r procRun) {
	if len(m.stderr) == 0 {
		return
	}
	n := 0
	for _, res := range run.Results {
		// na is a revision the server does not serve, said with its answer: nothing died.
		if res.Status == reports.Pass || res.Status == reports.NA {
			continue
		}
		n++
		// The message quotes the tail of stderr (its last lines): a server that logs a line per
		// request pushes its first lines out, so one of the expected lines is enough.
		quoted := false
		for _, line := range m.stderr {
			quoted = quoted || strings.Contains(res.Message, line)
		}
		if !quoted {
			t.Errorf("%s %s %s: the message quotes none of the server's stderr lines %q:\n%s", res.ID, res.Version, res.Transport, m.stderr, res.Message)
		}
	}
	for _, e := range run.Errors {
		n++
		for _, line := range m.stderr {
			if !strings.Contains(e, line) {
				t.Errorf("run error lacks the server's stderr %q:\n%s", line, e)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no result says the server died or never answered; summary %v", run.Summary)
	}
	shown := false
	for _, line := range m.stderr {
		shown = shown || strings.Contains(r.stdout, line)
	}
	if !shown {
		t.Errorf("stdout shows none of the server's stderr lines %q:\n%s", m.stderr, tail(r.stdout, 30))
	}
}

// allErrors asserts every result is an error whose message contains want. At the stateless
// revision the harness opens sessions with server/discover instead of initialize, so there the
// same failure reads "server/discover"; a server that answers discover with something that is
// no JSON-RPC response at all (HTML) does not serve that revision, which is na with the answer.
func allErrors(want string) func(t *testing.T, run *reports.Run) {
	return func(t *testing.T, run *reports.Run) {
		// Whichever session fails first breaks the target for every check, so a handshake
		// revision's check may repeat the discover failure and the other way round.
		stateless := strings.ReplaceAll(want, "initialize", "server/discover")
		for _, r := range run.Results {
			if r.Version == "2026-07-28" && r.Status == reports.NA && strings.Contains(r.Message, "does not serve revision 2026-07-28") {
				continue
			}
			if r.Status != reports.Error || !(strings.Contains(r.Message, want) || strings.Contains(r.Message, stateless)) {
				t.Errorf("%s %s %s: status %s, message %q: want an error saying %q", r.ID, r.Version, r.Transport, r.Status, r.Message, want)
			}
		}
	}
}

// evidenceContains reports whether any exchange of r's evidence contains s.
func evidenceContains(r reports.Result, s string) bool {
	for _, e := range r.Evidence {
		if strings.Contains(e.Body, s) || strings.Contains(e.Meta, s) {
			return true
		}
	}
	return false
}

// wantStatus asserts requirement id has results, all with status want and a message containing
// msg.
func wantStatus(t *testing.T, run *reports.Run, id string, want reports.Status, msg string) {
	t.Helper()
	var rs []reports.Result
	for _, r := range resultsOf(run, id) {
		// The misbehaving servers are of the handshake era: 2026-07-28 is not theirs to serve.
		if want != reports.NA && r.Status == reports.NA && strings.Contains(r.Message, "does not serve revision") {
			continue
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		t.Errorf("no result for %s at a revision the server serves", id)
	}
	for _, r := range rs {
		if r.Status != want || !strings.Contains(r.Message, msg) {
			t.Errorf("%s %s %s: status %s, message %q: want %s with %q", id, r.Version, r.Transport, r.Status, r.Message, want, msg)
		}
	}
}

// A server that serves no revision at all must never pass: with every initialize failing, a
// focused run has only na results, and "nothing failed" would be a verdict no check earned.
func TestServerServingNoRevisionDoesNotPass(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	args := append([]string{"run", "--out", out, "--focus", "PING-RESPOND",
		"--http-cmd", d.misbehave + " --mode http-500 --addr " + addr, "--url", "http://" + addr + "/mcp"}, timeoutArgs...)
	r := runBinary(t, 2*httpNeverAnswers, d.mcpspec, args...)
	run := assertReports(t, out)
	if r.code == reports.ExitOK || statuses(run)[reports.Pass] > 0 {
		t.Errorf("exit code %d with %v against a server that answers only 500: want a non-zero exit", r.code, run.Summary)
	}
	assertNoLeftovers(t, d)
}
