package selftest

import (
	"strings"
	"sync"
	"testing"

	"github.com/mcpspec/mcpspec/fixtures/jsonrpcserver"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// The JSON-RPC profile (mcpspec run --jsonrpc) proven like the rest: every check of it passes
// against the plain JSON-RPC server and fails (or warns) under that server's fault for it.

// plainTargets are the plain JSON-RPC server over stdio and HTTP with the given faults.
func plainTargets(t *testing.T, faults ...string) []harness.Target {
	argv := []string{binary, "jsonrpc-server"}
	for _, f := range faults {
		argv = append(argv, "--fault", f)
	}
	addr := freeAddr(t)
	return []harness.Target{
		{Transport: wire.Stdio, Command: stdio.Command{Argv: argv}},
		{Transport: wire.HTTP, URL: "http://" + addr + "/rpc", Command: stdio.Command{Argv: append(append([]string(nil), argv...), "--http", addr)}},
	}
}

// runProfile executes the profile's checks that include selects over each target.
func runProfile(t *testing.T, targets []harness.Target, include func(*conform.Check) bool) map[key]reports.Result {
	checks, err := conform.ProfileChecks()
	if err != nil {
		t.Fatal(err)
	}
	r := conform.NewRunner(conform.Config{Validator: validator, Targets: targets, Revisions: []string{harness.RevJSONRPC}, Timeouts: selftestTimeouts})
	defer r.Close()
	var specs []conform.Spec
	for _, target := range targets {
		for _, c := range checks {
			if include(c) && c.AppliesTo(harness.RevJSONRPC, target.Transport) {
				specs = append(specs, conform.Spec{Check: c, Revision: harness.RevJSONRPC, Transport: target.Transport})
			}
		}
	}
	r.StartShared(specs, selftestWorkers, selftestSessions)
	out := map[key]reports.Result{}
	for _, s := range specs {
		out[key{s.Check.ID, s.Revision, s.Transport}] = r.Result(s)
	}
	return out
}

func everyCheck(*conform.Check) bool { return true }

var (
	plainOnce  sync.Once
	plainClean map[key]reports.Result
)

func plainResults(t *testing.T) map[key]reports.Result {
	plainOnce.Do(func() { plainClean = runProfile(t, plainTargets(t), everyCheck) })
	return plainClean
}

// TestJSONRPCProfilePassesOnPlainServer: no false positives against a conformant JSON-RPC
// server, and every check of the profile ran over both transports it covers.
func TestJSONRPCProfilePassesOnPlainServer(t *testing.T) {
	results := plainResults(t)
	checks, err := conform.ProfileChecks()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		for _, tr := range []string{wire.Stdio, wire.HTTP} {
			if _, ran := results[key{c.ID, harness.RevJSONRPC, tr}]; !ran && c.AppliesTo(harness.RevJSONRPC, tr) {
				t.Errorf("%s did not run over %s", c.ID, tr)
			}
		}
	}
	for k, res := range results {
		if res.Status != reports.Pass {
			t.Errorf("%s: %s: %s", k, res.Status, res.Message)
		}
	}
}

// TestJSONRPCProfileFaults: no false negatives. Each fault of the plain server makes its check
// fail (MUST) or warn (SHOULD) over every transport the check covers.
func TestJSONRPCProfileFaults(t *testing.T) {
	plainResults(t) // the clean run first: the faults' runs then share the machine only with each other
	for _, f := range jsonrpcserver.Faults() {
		t.Run(f.ID, func(t *testing.T) {
			t.Parallel()
			c, ok := conform.Lookup(f.ID)
			if !ok || !c.Side.JSONRPC {
				t.Fatalf("fault %s names no check of the JSON-RPC profile", f.ID)
			}
			want := reports.Fail
			if c.Level != "MUST" {
				want = reports.Warn
			}
			got := runProfile(t, plainTargets(t, f.ID), func(o *conform.Check) bool { return o.ID == c.ID })
			if len(got) == 0 {
				t.Fatalf("%s did not run under fault %s", c.ID, f.ID)
			}
			for k, res := range got {
				if res.Status != want && !(want == reports.Warn && res.Status == reports.Fail) {
					t.Errorf("%s under fault %s: %s, want %s (%s)", k, f.ID, res.Status, want, res.Message)
				}
			}
		})
	}
}

// TestJSONRPCProfileEveryCheckHasAFault: a profile check the plain server cannot break could be
// a check that cannot fail there.
func TestJSONRPCProfileEveryCheckHasAFault(t *testing.T) {
	faults := map[string]bool{}
	for _, f := range jsonrpcserver.Faults() {
		faults[f.ID] = true
	}
	checks, err := conform.ProfileChecks()
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) == 0 {
		t.Fatal("the JSON-RPC profile has no checks")
	}
	for _, c := range checks {
		if !faults[c.ID] {
			t.Errorf("%s is in the JSON-RPC profile but the plain server has no fault that breaks it", c.ID)
		}
	}
}

// The MCP reference server without a handshake: over stdio it is judged as any JSON-RPC server.
// MCP lets it refuse what JSON-RPC alone would serve, and it does: requests before initialize
// get -32600 (so an unknown method is not -32601), and batches, which MCP has only at
// 2025-03-26, are refused with one -32600 in a session that negotiated no revision. Those
// checks must report that refusal as the violation it is of plain JSON-RPC; every other check
// must pass. (Over HTTP the reference refuses every POST without a session with HTTP 400.)
var refusedBeforeInitialize = map[string]string{
	"JRPC-METHOD-NOT-FOUND":    "not initialized",
	"JRPC-RPC-PREFIX":          "not initialized",
	"BATCH-SUPPORT-2503":       "batches are not supported",
	"BATCH-INVALID-ONE":        "batches are not supported",
	"BATCH-INVALID-MANY":       "batches are not supported",
	"BATCH-RESPOND-ARRAY":      "batches are not supported",
	"BATCH-NO-NOTIF-RESPONSES": "batches are not supported",
	"BATCH-ALL-NOTIFICATIONS":  "batches are not supported",
	"BATCH-MIXED":              "batches are not supported",
}

func TestJSONRPCProfileOnReference(t *testing.T) {
	target := harness.Target{Transport: wire.Stdio, Command: stdio.Command{Argv: []string{binary, "reference"}}}
	results := runProfile(t, []harness.Target{target}, everyCheck)
	if len(results) == 0 {
		t.Fatal("no check ran against the reference")
	}
	for k, res := range results {
		why, refused := refusedBeforeInitialize[k.id]
		switch {
		case !refused && res.Status != reports.Pass:
			t.Errorf("%s: %s: %s", k, res.Status, res.Message)
		case refused && (res.Status == reports.Pass || res.Status == reports.Error || !strings.Contains(res.Message, why)):
			t.Errorf("%s: %s, want the reference's refusal (%q) judged as a violation: %s", k, res.Status, why, res.Message)
		}
	}
}
