package main

// The command line as scripts and CI see it: one case per exit code, run as a real process.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/mcpspec/mcpspec/reports"
)

const (
	// usageRunTimeout bounds a run that must stop at flag parsing.
	usageRunTimeout = 10 * time.Second
	// referenceRunTimeout bounds a run against the bundled reference server with a narrow
	// --focus: it takes well under a second, the rest is room for a loaded machine.
	referenceRunTimeout = 30 * time.Second
)

// handshakeRevisions are the revisions a default run tests: every one with an initialize handshake.
var handshakeRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

func TestCLIUsageErrorsExit2WithOneLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		want string // what the one line on stderr must say
	}{
		{"unknown flag", []string{"run", "--nope"}, "flag provided but not defined: -nope"},
		{"malformed revision", []string{"run", "--versions", "2025-13-01"}, `unknown revision "2025-13-01"`},
		{"header without colon", []string{"run", "--header", "nocolon"}, `--header "nocolon": want "Name: value"`},
		{"input tool args not an object", []string{"run", "--input-tool", "confirm", "--input-tool-args", "[1]"}, `--input-tool-args must be a JSON object`},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown reference flag", []string{"reference", "--nope"}, "reference: flag provided but not defined: -nope"},
		{"unknown list flag", []string{"list", "--nope"}, "list: flag provided but not defined: -nope"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := c.args
			if args[0] == "run" {
				args = append(args, "--out", out)
			}
			assertUsageError(t, runBinary(t, usageRunTimeout, bins.mcpspec, args...), c.want)
		})
	}
}

// assertUsageError checks what bad usage must produce: exit 2, nothing on stdout, and one line on
// stderr that says want.
func assertUsageError(t *testing.T, r procRun, want string) {
	t.Helper()
	if r.code != reports.ExitUsage {
		t.Errorf("exit code %d, want %d (bad usage)", r.code, reports.ExitUsage)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("stderr has %d lines, want exactly one:\n%s", len(lines), r.stderr)
	}
	if !strings.HasPrefix(lines[0], "mcpspec: ") || !strings.Contains(lines[0], want) {
		t.Errorf("stderr line %q: want it to start with \"mcpspec: \" and say %q", lines[0], want)
	}
	if r.stdout != "" {
		t.Errorf("stdout of a usage error should be empty, got:\n%s", r.stdout)
	}
}

// TestCLIHelpExit0: every command with flags prints its usage and flags on --help, to stdout,
// and exits 0 (a help request is not bad usage).
func TestCLIHelpExit0(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"run", "list", "reference", "matrix", "diff", "authserver", "reference-authserver"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, usageRunTimeout, bins.mcpspec, cmd, "--help")
			if r.code != reports.ExitOK {
				t.Errorf("exit code %d, want 0\nstderr:\n%s", r.code, r.stderr)
			}
			if !strings.HasPrefix(r.stdout, "Usage: mcpspec "+cmd) {
				t.Errorf("stdout does not start with the usage of %s:\n%s", cmd, r.stdout)
			}
			if r.stderr != "" {
				t.Errorf("stderr of a help request should be empty, got:\n%s", r.stderr)
			}
		})
	}
}

func TestCLINothingRanExit4(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--focus", "NO-SUCH-REQ", "--out", out)
	if r.code != reports.ExitNothingRan {
		t.Errorf("exit code %d, want %d (nothing ran)\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitNothingRan, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if len(run.Results) != 0 || len(run.Errors) != 0 {
		t.Errorf("results.json has %d results and errors %q, want none", len(run.Results), run.Errors)
	}
	assertNoLeftovers(t, d)
}

func TestCLIReferencePassesExit0(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	// No target: the bundled reference server, launched from this very binary over stdio, HTTP
	// and (at 2024-11-05, its revision) legacy HTTP+SSE.
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--focus", "PING-RESPOND", "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitOK, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	want := []string{"2024-11-05/sse"}
	var got []string
	for _, rev := range handshakeRevisions {
		for _, tr := range []string{"stdio", "http"} {
			want = append(want, rev+"/"+tr)
		}
	}
	for _, res := range run.Results {
		got = append(got, res.Version+"/"+res.Transport)
		if res.ID != "PING-RESPOND" || res.Status != reports.Pass {
			t.Errorf("result %s %s %s: status %s, want a PING-RESPOND pass: %s", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("results cover %v, want one per revision × transport: %v", got, want)
	}
	assertNoLeftovers(t, d)
}

func TestCLIFaultFailsExit1(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	server := d.mcpspec + " reference --fault PING-RESPOND"
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", server, "--focus", "PING-RESPOND", "--out", out)
	if r.code != reports.ExitFailures {
		t.Errorf("exit code %d, want %d (failures)\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitFailures, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if len(run.Results) != len(handshakeRevisions) {
		t.Errorf("%d results, want %d (one per revision over stdio)", len(run.Results), len(handshakeRevisions))
	}
	for _, res := range run.Results {
		if res.Status != reports.Fail {
			t.Errorf("%s %s %s: status %s, want fail: %s", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
		if len(res.Evidence) == 0 {
			t.Errorf("%s %s: a failure without evidence", res.ID, res.Version)
		}
	}
	suites, err := junit.IngestFile(filepath.Join(out, reports.JUnitFile))
	if err != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	failed := 0
	for _, s := range suites {
		failed += s.Totals.Failed
	}
	if failed != len(run.Results) || failed == 0 {
		t.Errorf("junit.xml has %d failures, want %d (every result)", failed, len(run.Results))
	}
	assertNoLeftovers(t, d)
}

// TestCLIViolationKeepsAnsweringSession: a check that finds a violation on a shared session
// leaves it in use when the server still answers, so the checks after it cost no new server.
// (Its counterpart, a session replaced because the server stopped answering, is the misbehaving
// mode "wedge".)
func TestCLIViolationKeepsAnsweringSession(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	server := d.mcpspec + " reference --fault JRPC-VERSION"
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", server, "--versions", "2025-11-25", "--sessions", "1",
		"--focus", "JRPC-VERSION|PING-RESPOND", "--out", out) // in this order, on the one session
	if r.code != reports.ExitFailures {
		t.Errorf("exit code %d, want %d (failures)\nstdout:\n%s", r.code, reports.ExitFailures, r.stdout)
	}
	run := assertReports(t, out)
	for _, res := range run.Results {
		want := reports.Pass
		if res.ID == "JRPC-VERSION" {
			want = reports.Fail
		}
		if res.Status != want {
			t.Errorf("%s: %s, want %s: %s", res.ID, res.Status, want, res.Message)
		}
	}
	if len(run.Results) != 2 {
		t.Errorf("%d results, want 2", len(run.Results))
	}
	if n := run.Stats["serversSpawned"]; n != 1 {
		t.Errorf("%d servers spawned, want 1: the session that still answered after the violation was replaced", n)
	}
	assertNoLeftovers(t, d)
}

// TestCLIReadyCheckSparesAServer: a check with a server of its own that cannot run here (no
// --list-changed-tool) says so without starting one; only the shared session's server starts.
func TestCLIReadyCheckSparesAServer(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", d.mcpspec+" reference", "--versions", "2025-11-25",
		"--focus", "TOOL-LISTCHANGED|PING-RESPOND", "--out", out) // the ping keeps the run from being all untestable
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\nstdout:\n%s", r.code, reports.ExitOK, r.stdout)
	}
	run := assertReports(t, out)
	if got := resultsOf(run, "TOOL-LISTCHANGED"); len(got) != 1 || got[0].Status != reports.Untestable || !strings.Contains(got[0].Message, "--list-changed-tool") {
		t.Errorf("TOOL-LISTCHANGED: %+v, want one untestable naming --list-changed-tool", got)
	}
	if n := run.Stats["serversSpawned"]; n != 1 {
		t.Errorf("%d servers spawned, want 1 (the shared session's)", n)
	}
	assertNoLeftovers(t, d)
}

// TestCLIObservedChecksShareAServer: the checks that judge the pristine session (the stdio
// framing checks, JRPC-ID-ECHO, LIFE-OPERATION-NEGOTIATED, CANCEL-SAME-DIRECTION) share one
// server of their own per revision, and the ping before initialize is observed once for every
// revision; a fault still fails every check that judges what it breaks, with the shared
// server's transcript as evidence.
func TestCLIObservedChecksShareAServer(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	focus := "STDIO-NEWLINE|STDIO-STDOUT-ONLY-MCP|STDIO-UTF8|JRPC-ID-ECHO|LIFE-OPERATION-NEGOTIATED|CANCEL-SAME-DIRECTION|LIFE-PING-BEFORE-INIT"
	versions := "2025-06-18,2025-11-25"

	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", d.mcpspec+" reference", "--versions", versions, "--sessions", "1",
		"--focus", focus, "--out", out)
	if r.code != reports.ExitOK {
		t.Errorf("exit code %d, want %d\nstdout:\n%s", r.code, reports.ExitOK, r.stdout)
	}
	run := assertReports(t, out)
	if len(run.Results) != 14 {
		t.Errorf("%d results, want 14 (7 checks at 2 revisions)", len(run.Results))
	}
	// Per revision the shared session and the pristine one, plus one ping before initialize.
	if n := run.Stats["serversSpawned"]; n != 5 {
		t.Errorf("%d servers spawned, want 5", n)
	}

	out = t.TempDir()
	r = runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", d.mcpspec+" reference --fault STDIO-NEWLINE", "--versions", versions,
		"--focus", "STDIO-NEWLINE|STDIO-UTF8", "--out", out)
	if r.code != reports.ExitFailures {
		t.Errorf("exit code %d, want %d (failures)\nstdout:\n%s", r.code, reports.ExitFailures, r.stdout)
	}
	for _, res := range assertReports(t, out).Results {
		want := reports.Pass
		if res.ID == "STDIO-NEWLINE" {
			want = reports.Fail
		}
		if res.Status != want {
			t.Errorf("%s %s: %s, want %s: %s", res.ID, res.Version, res.Status, want, res.Message)
		}
		if res.Status == reports.Fail && len(res.Evidence) == 0 {
			t.Errorf("%s %s failed without evidence", res.ID, res.Version)
		}
	}
	assertNoLeftovers(t, d)
}

// TestCLISessionStartSharesAServer: LIFE-PRE-INIT-REQUEST, CANCEL-NO-INIT-CANCEL and
// LIFE-SERVER-WAIT-INITIALIZED share one server per revision over stdio (the start of a session,
// suites/sessionstart.go). Under each check's fault the parts that cannot be judged on it are
// made on servers of their own, and every verdict is the one each check has alone: the faulty
// check's broken, the others passed.
func TestCLISessionStartSharesAServer(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	const focus = "^(LIFE-PRE-INIT-REQUEST|CANCEL-NO-INIT-CANCEL|LIFE-SERVER-WAIT-INITIALIZED) "
	for _, c := range []struct {
		fault   string
		servers int64 // per revision
		why     string
	}{
		{"", 2, "the shared session and the start"},
		{"LIFE-PRE-INIT-REQUEST", 4, "the shared session, the start, CANCEL-NO-INIT-CANCEL's and LIFE-SERVER-WAIT-INITIALIZED's own"},
		// The sentinel beats the held initialize, which the fault then drops, and the plain
		// initialize after it is refused (already initialized): every part is made apart.
		{"CANCEL-NO-INIT-CANCEL", 5, "the shared session, the start and each check's own"},
		{"LIFE-SERVER-WAIT-INITIALIZED", 4, "the shared session, the start, LIFE-SERVER-WAIT-INITIALIZED's and CANCEL-NO-INIT-CANCEL's own"},
	} {
		server := d.mcpspec + " reference"
		if c.fault != "" {
			server += " --fault " + c.fault
		}
		out := t.TempDir()
		r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", server, "--versions", "2025-06-18,2025-11-25", "--sessions", "1",
			"--focus", focus, "--out", out)
		if r.code != reports.ExitOK && r.code != reports.ExitFailures {
			t.Fatalf("fault %q: exit code %d\nstdout:\n%s", c.fault, r.code, r.stdout)
		}
		run := assertReports(t, out)
		if len(run.Results) != 6 {
			t.Errorf("fault %q: %d results, want 6 (3 checks at 2 revisions)", c.fault, len(run.Results))
		}
		for _, res := range run.Results {
			broken := res.Status == reports.Fail || res.Status == reports.Warn
			if res.ID == c.fault && !broken || res.ID != c.fault && res.Status != reports.Pass {
				t.Errorf("fault %q: %s %s: %s: %s", c.fault, res.ID, res.Version, res.Status, res.Message)
			}
		}
		if n := run.Stats["serversSpawned"]; n != 2*c.servers {
			t.Errorf("fault %q: %d servers spawned, want %d: per revision %s", c.fault, n, 2*c.servers, c.why)
		}
	}
	assertNoLeftovers(t, d)
}

// TestCLIUnservedRevisionStartsOneServer: a revision the first shared session finds unserved
// is not asked again by the other shared sessions; their checks are na without a server each.
func TestCLIUnservedRevisionStartsOneServer(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", d.mcpspec+" reference --era stateless", "--versions", "2025-06-18",
		"--sessions", "3", "--focus", "PING-RESPOND|JRPC-METHOD-NOT-FOUND|JRPC-INVALID-PARAMS", "--out", out)
	if r.code != reports.ExitNothingRan { // every result is na
		t.Errorf("exit code %d, want %d\nstdout:\n%s", r.code, reports.ExitNothingRan, r.stdout)
	}
	run := assertReports(t, out)
	for _, res := range run.Results {
		if res.Status != reports.NA {
			t.Errorf("%s: %s, want na: %s", res.ID, res.Status, res.Message)
		}
	}
	if len(run.Results) != 3 {
		t.Errorf("%d results, want 3", len(run.Results))
	}
	if n := run.Stats["serversSpawned"]; n != 1 {
		t.Errorf("%d servers spawned, want 1: each shared session asked the unserved revision again", n)
	}
	assertNoLeftovers(t, d)
}

func TestCLIServerCannotStartExit3(t *testing.T) {
	t.Parallel()
	const missing = "/no/such/binary"
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, bins.mcpspec, "run", "--stdio", missing, "--focus", "PING-RESPOND", "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit code %d, want %d (infrastructure error)\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitHarness, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout+r.stderr, missing) {
		t.Errorf("the output does not name the command %s:\nstdout:\n%s\nstderr:\n%s", missing, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if len(run.Results) == 0 && len(run.Errors) == 0 {
		t.Fatal("results.json records neither results nor errors")
	}
	for _, res := range run.Results {
		if res.Status != reports.Error || !strings.Contains(res.Message, missing) {
			t.Errorf("%s %s: status %s, message %q: want an error naming %s", res.ID, res.Version, res.Status, res.Message, missing)
		}
	}
}

// secretLeaks lists where secret appears: stdout, stderr or a file of the report directory.
func secretLeaks(t *testing.T, secret string, r procRun, out string) []string {
	t.Helper()
	var leaks []string
	for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if strings.Contains(text, secret) {
			leaks = append(leaks, name)
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatalf("report dir: %v", err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatalf("read %s: %v", e.Name(), err)
		}
		if strings.Contains(string(b), secret) {
			leaks = append(leaks, e.Name())
		}
	}
	return leaks
}

func TestCLIHeaderSecretStaysOut(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-token"
	d := newRunDir(t)
	out := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	// The fault makes the checks fail, so the reports carry the HTTP exchanges as evidence: the
	// place a header would leak through.
	server := d.mcpspec + " reference --http " + addr + " --fault PING-RESPOND"
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run",
		"--http-cmd", server, "--url", "http://"+addr+"/mcp",
		"--header", "Authorization: Bearer "+secret,
		"--focus", "PING-RESPOND", "--out", out)
	if r.code != reports.ExitFailures {
		t.Errorf("exit code %d, want %d (the fault fails PING-RESPOND)\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitFailures, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	evidence := 0
	for _, res := range run.Results {
		evidence += len(res.Evidence)
	}
	if evidence == 0 {
		t.Error("no evidence in results.json: the test would not see a header leaking through it")
	}
	if leaks := secretLeaks(t, secret, r, out); len(leaks) > 0 {
		t.Errorf("the --header secret appears in %v", leaks)
	}
	assertNoLeftovers(t, d)
}

func TestCLIEnvSecretEchoedByServerStaysOut(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-env-value"
	d := newRunDir(t)
	out := t.TempDir()
	// A server that logs its configuration, secret included, to stderr and then never answers
	// (misbehave's no-init mode): the stderr tail becomes part of every message, so the secret
	// reaches the result messages.
	server := fmt.Sprintf(`sh -c 'echo token=$MCPSPEC_E2E_TOKEN >&2; exec "$0" --mode no-init' %s`, d.misbehave)
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", server,
		"--env", "MCPSPEC_E2E_TOKEN="+secret, "--focus", "PING-RESPOND", "--versions", "2025-11-25",
		"--timeout-startup", "1s", "--timeout-request", "1s", "--timeout-shutdown", "1s", "--out", out)
	if r.code != reports.ExitHarness {
		t.Errorf("exit code %d, want %d (the server never answers initialize)", r.code, reports.ExitHarness)
	}
	b, err := os.ReadFile(filepath.Join(out, reports.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "token="+reports.Redacted) {
		t.Fatalf("results.json does not show the redacted stderr line: the secret never reached a message, the test proves nothing:\n%s", b)
	}
	t.Run("reports", func(t *testing.T) {
		if leaks := secretLeaks(t, secret, procRun{}, out); len(leaks) > 0 {
			t.Errorf("the --env secret appears in %v", leaks)
		}
	})
	t.Run("console", func(t *testing.T) {
		for _, name := range []string{"stdout", "stderr"} {
			text := map[string]string{"stdout": r.stdout, "stderr": r.stderr}[name]
			if strings.Contains(text, secret) {
				t.Errorf("the --env secret appears on %s:\n%s", name, tail(text, 20))
			}
		}
	})
	assertNoLeftovers(t, d)
}

// --focus is matched against the spec's title alone, so an anchored pattern selects the check,
// and what the console counts is exactly what was checked.
func TestAnchoredFocusSelectsTheCheck(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--focus", "^VER26-DISCOVER ", "--out", out)
	if r.code != reports.ExitOK {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, reports.ExitOK, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if len(run.Results) != 2 {
		t.Errorf("%d results, want VER26-DISCOVER over stdio and HTTP: %+v", len(run.Results), run.Results)
	}
	for _, res := range run.Results {
		if res.ID != "VER26-DISCOVER" || res.Status != reports.Pass {
			t.Errorf("result %s %s %s: status %s: %s", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("(total %d)", len(run.Results))) {
		t.Errorf("the console does not count the checks that ran:\n%s", r.stdout)
	}
	assertNoLeftovers(t, d)
}
