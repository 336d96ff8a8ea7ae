package main

// The client command through the binary: the clean reference client passes, a fault given on the
// command line fails (or warns, at its level) its check, over each transport; and a client that
// never connects, crashes or hangs ends the run in bounded time with exit 3, its stderr in the
// reports, and nothing left running. suites/selftest/client_mutation_test.go proves every client
// check and every fault in process, through the same engine.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refclient"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
)

// clientRunTimeout bounds one `mcpspec client` run in these tests; the reference client needs
// well under a second per transport.
const clientRunTimeout = 60 * time.Second

// clientTestFlags keep a fault that leaves the probe's ping unanswered cheap, yet leave the
// reference client's every request room on a loaded machine: the per-request timeout the
// cancellation scenarios give the client is a fifth of --timeout-request, and at 500ms (100 ms
// each) a tools/list timed out at load 10+, so the client never called probe_slow and
// LIFE-TIMEOUT-CANCEL was untestable. These runs launch one client at a time: the package's
// tests already run many clients at once, and more would crowd a small machine's cores.
// TestClientParallelMatchesSequential tests --parallel.
var clientTestFlags = []string{"--timeout-request", "3s", "--timeout-idle", "10s", "--timeout-startup", "10s", "--parallel", "1"}

// selfTestScenarios: the default scenarios and those served on request whose checks no default
// scenario judges (task-cancel, subscriptions, the official suite's skills, schema and invalid
// header scenarios), so that every check has a result.
var selfTestScenarios = strings.Join(append(slices.Clone(probe.Scenarios), probe.ScenarioTaskCancel, probe.ScenarioSubscriptions, probe.ScenarioSkills,
	probe.ScenarioInvalidToolHeaders, probe.ScenarioRefNoDeref, probe.ScenarioSchemaPreservation,
	probe.ScenarioSkillVerifyDigest, probe.ScenarioSkillVerifySize, probe.ScenarioSkillVerifyFrontmatter,
	probe.ScenarioTasksExtension, probe.ScenarioTasksUndeclared), ",")

// runClientScenarios runs `mcpspec client --scenario scenarios` on the reference client (with
// faults, "" for none) over a transport; "" scenarios serves the default ones.
func runClientScenarios(t *testing.T, d runDir, transport, scenarios string, faults ...string) (procRun, *reports.Run) {
	t.Helper()
	cmd := d.mcpspec + " reference-client"
	if transport == "sse" {
		cmd += " --sse"
	}
	for _, f := range faults {
		if f != "" {
			cmd += " --fault " + f
		}
	}
	out := t.TempDir()
	args := append([]string{"client", "--cmd", cmd, "--out", out}, clientTestFlags...)
	if scenarios != "" {
		args = append(args, "--scenario", scenarios)
	}
	if transport != "http" {
		args = append(args, "--"+transport)
	}
	r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
	return r, assertReports(t, out)
}

// TestClientReferencePasses: through the binary, in the default scenarios, the clean reference
// client passes every result with its evidence and spec link, the report names it by its
// clientInfo, and nothing is left running. That every client check has a result and passes is
// proven in process (suites/selftest's TestClientReferencePassesEveryCheck).
func TestClientReferencePasses(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio", "sse"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			r, run := runClientScenarios(t, d, transport, "")
			if r.code != reports.ExitOK {
				t.Errorf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			for _, res := range run.Results {
				if res.Status != reports.Pass {
					t.Errorf("%s %s: %s, want pass: %s", res.ID, res.Version, res.Status, res.Message)
				}
				if res.Transport != transport || len(res.Evidence) == 0 || res.SpecURL == "" {
					t.Errorf("%s %s: transport %q, %d exchanges, spec %q", res.ID, res.Version, res.Transport, len(res.Evidence), res.SpecURL)
				}
			}
			if len(run.Results) == 0 {
				t.Error("no result")
			}
			if run.Target.ServerInfo["name"] != "mcpspec-reference-client" {
				t.Errorf("the report names the client %v, want its clientInfo", run.Target.ServerInfo)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// TestClientInitializeScenario: served by the name of the official suite's client scenario, the
// handshake alone is judged by the handshake and transport checks; a client that skips
// notifications/initialized fails there too.
func TestClientInitializeScenario(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			want := map[string]bool{"LIFE-INITIALIZED-NOTIF": true, "MSG-JSONRPC": true}
			if transport == "http" {
				for _, id := range []string{"HTTP-POST-ACCEPT", "HTTP-SESSION-CLIENT", "LIFE-HTTP-VERSION-HEADER", "HTTP-PROTO-HEADER-NEGOTIATED"} {
					want[id] = true
				}
			}
			for _, fault := range []string{"", "LIFE-INITIALIZED-NOTIF"} {
				d := newRunDir(t)
				r, run := runClientScenarios(t, d, transport, "initialize", fault)
				seen := map[string]bool{}
				for _, res := range run.Results {
					seen[res.ID] = true
					if res.Version >= "2026-07-28" {
						t.Errorf("%s %s: the handshake scenario has no place at the stateless revision", res.ID, res.Version)
					}
					wantStatus := reports.Pass
					if res.ID == fault {
						wantStatus = reports.Fail
					}
					if res.Status != wantStatus && !(fault != "" && res.Status == reports.NA) {
						t.Errorf("fault %q: %s %s: %s, want %s: %s", fault, res.ID, res.Version, res.Status, wantStatus, res.Message)
					}
					if strings.Contains(res.ID, "PING") || strings.Contains(res.ID, "ROOTS") {
						t.Errorf("%s judged, but the initialize scenario calls no tool", res.ID)
					}
				}
				for id := range want {
					if !seen[id] {
						t.Errorf("fault %q: %s has no result", fault, id)
					}
				}
				wantCode := map[bool]int{true: reports.ExitOK, false: reports.ExitFailures}[fault == ""]
				if r.code != wantCode {
					t.Errorf("fault %q: exit %d, want %d\nstderr:\n%s", fault, r.code, wantCode, r.stderr)
				}
				assertNoLeftovers(t, d)
			}
		})
	}
}

// TestClientFaultSmoke: a fault given through the CLI reaches the client under test and its
// verdict the exit code, over each transport: a MUST check fails (exit 1), a SHOULD one warns
// (exit 0), and nothing else fails or warns. suites/selftest's TestClientEveryFaultFailsItsCheck
// proves every fault over every transport, in process through the same engine.
func TestClientFaultSmoke(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ transport, fault, scenario string }{
		{"http", refclient.FaultPostAccept, probe.ScenarioTools},
		{"stdio", refclient.FaultVersionDisconnect, probe.ScenarioVersionUnsupported},
		{"sse", refclient.FaultSSEPost, probe.ScenarioTools},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			t.Parallel()
			c, ok := clientsuite.Lookup(tc.fault)
			if !ok {
				t.Fatalf("no client check %s", tc.fault)
			}
			want, wantCode := reports.Fail, reports.ExitFailures
			if c.Level == "SHOULD" {
				want, wantCode = reports.Warn, reports.ExitOK
			}
			d := newRunDir(t)
			r, run := runClientScenarios(t, d, tc.transport, tc.scenario, tc.fault)
			broken := 0
			for _, res := range run.Results {
				switch {
				case res.ID == c.ID && res.Status == want:
					broken++
				case res.Status != reports.Pass && res.Status != reports.NA:
					t.Errorf("the fault %s made %s %s %s: %s", c.ID, res.ID, res.Version, res.Status, res.Message)
				}
			}
			if broken == 0 {
				t.Errorf("the fault %s made no %s result %s\nstdout:\n%s", c.ID, c.ID, want, r.stdout)
			}
			if r.code != wantCode {
				t.Errorf("exit %d, want %d\nstderr:\n%s", r.code, wantCode, r.stderr)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// TestClientBrokenClientsExit3: clients that never connect, crash or hang end the run within
// their named timeouts with exit 3, the reason and the client's stderr in the reports.
func TestClientBrokenClientsExit3(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, script string
		stdio        bool
		want         string
	}{
		{"never-connects", "echo waiting forever >&2\nsleep 60\n", false, "sent the probe nothing within the startup timeout"},
		{"crashes", "echo boom: no such config >&2\nexit 7\n", false, "without sending the probe anything"},
		// Over stdio it launches the probe, sends one ping, and then neither talks nor exits.
		{"hangs", "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}' | \"$1\" >/dev/null\necho stuck >&2\nsleep 60\n", true, "hung and was stopped"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			script := filepath.Join(strings.TrimSuffix(d.marker, "/"), tc.name+".sh")
			if err := os.WriteFile(script, []byte("#!/bin/sh\n"+tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			args := []string{"client", "--cmd", script, "--out", out, "--timeout-startup", "1s", "--timeout-request", "500ms", "--timeout-idle", "1s", "--timeout-shutdown", "500ms"}
			if tc.stdio {
				args = append(args, "--stdio")
			}
			start := time.Now()
			r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
			if r.code != reports.ExitHarness {
				t.Errorf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("took %s: the timeouts did not bound it", el)
			}
			run := assertReports(t, out)
			all := strings.Join(run.Errors, "\n")
			for _, res := range run.Results {
				all += "\n" + res.Message
			}
			if !strings.Contains(all, tc.want) {
				t.Errorf("the reports do not say %q:\n%s", tc.want, all)
			}
			wantStderr := map[string]string{"never-connects": "waiting forever", "crashes": "boom: no such config", "hangs": "stuck"}[tc.name]
			if !strings.Contains(all, wantStderr) {
				t.Errorf("the reports do not carry the client's stderr %q:\n%s", wantStderr, all)
			}
			assertNoLeftovers(t, d)
		})
	}
}

func TestClientBadFlagsExit2(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "--cmd is required"},
		{[]string{"--cmd", ""}, "--cmd " + emptyMsg},
		{[]string{"--cmd", "a", "--cmd", "b"}, "--cmd given 2 times"},
		{[]string{"--cmd", "'a"}, `--cmd "'a"`},
		{[]string{"--cmd", "c {server}"}, "--cmd holds {server}"},
		{[]string{"--cmd", "c {url}", "--stdio"}, "--cmd holds {url}"},
		{[]string{"--cmd", "c", "--versions", "2020-01-01"}, `client: --versions: unknown revision "2020-01-01"`},
		{[]string{"--cmd", "c", "--focus", "("}, "client: --focus:"},
		{[]string{"--cmd", "c", "--label-filter", "("}, "client: --label-filter:"},
		{[]string{"--cmd", "c", "--timeout-idle", "0s"}, "--timeout-idle must be positive"},
		{[]string{"--cmd", "c", "--timeout-launch", "-1s"}, "--timeout-launch must be positive"},
		{[]string{"--cmd", "c", "--timeout-idle", "1s", "--timeout-request", "2s"}, "--timeout-idle (1s) must exceed --timeout-request (2s)"},
		{[]string{"--cmd", "c", "--parallel", "0"}, "client: --parallel must be at least 1, got 0"},
		{[]string{"--cmd", "c", "--parallel", "two"}, `invalid value "two" for flag -parallel`},
		{[]string{"--cmd", "c", "--env", "NOVALUE"}, `--env "NOVALUE": want K=V`},
		{[]string{"--cmd", "c", "--cwd", "/no/such/dir"}, `--cwd "/no/such/dir" is not a directory`},
		{[]string{"--cmd", "c", "--baseline", "/no/such/file"}, "client: --baseline:"},
		{[]string{"--cmd", "c", "extra"}, `unexpected argument "extra"`},
		{[]string{"--cmd", "c", "--sse", "--stdio"}, "--stdio and --sse exclude each other"},
		{[]string{"--cmd", "c {server}", "--sse"}, "--cmd holds {server}"},
		{[]string{"--cmd", "c", "--scenario", "nope"}, `--scenario: unknown scenario "nope" (known: tools_call, version-unsupported, session-expiry, sse-retry, request-timeout, initialize, elicitation-sep1034-client-defaults, task-cancel, subscriptions, sep-2640-client-no-prefetch, http-invalid-tool-headers, json-schema-ref-no-deref`},
		{[]string{"--cmd", "c", "--scenario", "oauth/*"}, `--scenario: no scenario in the group "oauth/*"`},
		{[]string{"--cmd", "c", "--scenario", "initialize,initialize"}, "--scenario: initialize given twice"},
	}
	for _, tc := range cases {
		var stdout, stderr strings.Builder
		code := Main(append([]string{"client"}, tc.args...), &stdout, &stderr)
		msg := stderr.String()
		if code != reports.ExitUsage || !strings.Contains(msg, tc.want) || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
			t.Errorf("client %q: exit %d, stderr %q; want exit 2 and one line with %q", tc.args, code, msg, tc.want)
		}
	}
	for _, args := range [][]string{{}, {"--fault", "NO-SUCH"}, {"--fault", ""}, {"--timeout", "0s", "http://127.0.0.1:1/mcp"}, {"--sse", "server-command", "arg"}, {"--chatty", "-1s", "http://127.0.0.1:1/mcp"}} {
		var stdout, stderr strings.Builder
		if code := Main(append([]string{"reference-client"}, args...), &stdout, &stderr); code != reports.ExitUsage {
			t.Errorf("reference-client %q: exit %d, want 2 (stderr %q)", args, code, stderr.String())
		}
	}
}

// TestClientUnknownScenarioIsNA: a client that knows only some scenarios, as the SDKs' own
// conformance clients do, exits non-zero on the others saying "Unknown scenario: NAME" without
// connecting: those scenarios' checks are na quoting that line, and the run is not a harness
// error (exit 4 here, as for any run whose every result is na: this client knows none).
// MCP_CONFORMANCE_PROTOCOL_VERSION carries the launch's revision, which the client quotes.
func TestClientUnknownScenarioIsNA(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	script := filepath.Join(strings.TrimSuffix(d.marker, "/"), "knows-nothing.sh")
	body := "#!/bin/sh\necho \"Unknown scenario: $MCP_CONFORMANCE_SCENARIO (protocol $MCP_CONFORMANCE_PROTOCOL_VERSION)\" >&2\nexit 1\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r := runBinary(t, clientRunTimeout, d.mcpspec, "client", "--cmd", script, "--out", out, "--versions", "2025-06-18",
		"--scenario", "tools_call,sse-retry", "--timeout-startup", "30s")
	if r.code != reports.ExitNothingRan {
		t.Errorf("exit %d, want 4\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	if len(run.Errors) > 0 || len(run.Results) == 0 {
		t.Fatalf("errors %q, %d results: want none and some", run.Errors, len(run.Results))
	}
	for _, res := range run.Results {
		want := fmt.Sprintf(`its stderr saying "Unknown scenario: %s (protocol 2025-06-18)"`, res.Scenario)
		if res.Status != reports.NA || !strings.Contains(res.Message, want) {
			t.Errorf("%s (%s): %s %q, want na with %s", res.ID, res.Scenario, res.Status, res.Message, want)
		}
	}
	assertNoLeftovers(t, d)
}
