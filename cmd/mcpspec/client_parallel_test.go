package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/reports"
)

// clientParallelFlags give the reference client room on a loaded machine: what a verdict may
// depend on (the probe's wait for an answer, the client's own request timeout, a fifth of it)
// is far longer than any launch needs, so launches running at once cannot change a verdict.
var clientParallelFlags = []string{"--timeout-request", "5s", "--timeout-idle", "30s", "--timeout-startup", "30s"}

// varying are the parts of a message that differ from run to run whatever the parallelism:
// loopback ports, the probe's random session ids, timings.
var varying = regexp.MustCompile(`127\.0\.0\.1:\d+|probe-[0-9a-f]{24}|\b\d+(\.\d+)? ?(ms|s)\b`)

// number: in task-cancel the reference client polls its task until its own request timeout
// passes, so how many requests and records it made is a matter of time, run to run; in
// request-timeout the record of a closed stream falls where the probe's server learns of it.
var number = regexp.MustCompile(`\d+`)

// TestClientParallelMatchesSequential: launches run at once report exactly what the same
// launches one after another report, in the same order, in results.json and on the console.
func TestClientParallelMatchesSequential(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			d := newRunDir(t)
			var runs [2]*reports.Run
			var consoles [2]string
			for i, parallel := range []string{"1", "4"} {
				out := t.TempDir()
				args := append([]string{"client", "--cmd", d.mcpspec + " reference-client", "--out", out, "--scenario", selfTestScenarios,
					"--parallel", parallel, "-v", "--no-color"}, clientParallelFlags...)
				if transport == "stdio" {
					args = append(args, "--stdio")
				}
				r := runBinary(t, clientRunTimeout, d.mcpspec, args...)
				if r.code != reports.ExitOK {
					t.Fatalf("--parallel %s: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", parallel, r.code, tail(r.stdout, 40), r.stderr)
				}
				runs[i], consoles[i] = assertReports(t, out), varying.ReplaceAllString(r.stdout, "…")
			}
			seq, par := runs[0].Results, runs[1].Results
			if len(seq) == 0 || len(seq) != len(par) {
				t.Fatalf("%d results at --parallel 1, %d at --parallel 4", len(seq), len(par))
			}
			for i := range seq {
				a, b := seq[i], par[i]
				key := func(r reports.Result) string {
					msg := varying.ReplaceAllString(r.Message, "…")
					// Where the probe's own notes fall among the client's messages (a task's
					// status, a closed stream learnt when the server's reader runs) moves the
					// record numbers a message cites, not what it says.
					if r.Scenario == probe.ScenarioTaskCancel || r.Scenario == probe.ScenarioRequestTimeout {
						msg = number.ReplaceAllString(msg, "N")
					}
					return strings.Join([]string{r.ID, r.Version, r.Scenario, string(r.Status), msg}, " | ")
				}
				if key(a) != key(b) {
					t.Errorf("result %d differs:\n  --parallel 1: %s\n  --parallel 4: %s", i, key(a), key(b))
				}
			}
			if strings.Join(runs[0].Errors, "\n") != strings.Join(runs[1].Errors, "\n") {
				t.Errorf("run errors differ: %q vs %q", runs[0].Errors, runs[1].Errors)
			}
			verdicts := func(s string) string { // each -v line's status, check and place, in order
				v, _, _ := strings.Cut(s, "\nmcpspec: ")
				var heads []string
				for _, l := range strings.Split(v, "\n") {
					head, _, _ := strings.Cut(l, ": ")
					heads = append(heads, head)
				}
				return strings.Join(heads, "\n")
			}
			// The messages are compared above; here the order and statuses the console shows.
			if a, b := verdicts(consoles[0]), verdicts(consoles[1]); a != b {
				t.Errorf("the console differs:\n--parallel 1:\n%s\n--parallel 4:\n%s", tail(a, 20), tail(b, 20))
			}
			assertNoLeftovers(t, d)
		})
	}
}
