package engine

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
)

// TestRunServerOnReference runs a few checks in process against the reference server served
// in process over Streamable HTTP, with one fault that breaks one of them: the run reports
// each planned check once, through the hook as it goes and in the run, the broken one failed
// and the others passed. A second server run in the same process is refused (Ginkgo runs one
// suite per process), so this is the package's only RunServer test.
//
// Ginkgo refuses to run under `go test -parallel`, which make test passes: the test runs itself
// again in a child process started without the flag, and the child makes the run.
func TestRunServerOnReference(t *testing.T) {
	if os.Getenv(serverChildEnv) == "" {
		ctx, cancel := context.WithTimeout(context.Background(), serverChildTimeout)
		defer cancel()
		child := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRunServerOnReference$", "-test.count=1", "-test.v")
		child.Env = append(os.Environ(), serverChildEnv+"=1")
		if out, err := child.CombinedOutput(); err != nil {
			t.Fatalf("the run in a child process: %v\n%s", err, out)
		}
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- reference.ServeHTTP(ctx, ln, reference.Options{Faults: []string{reference.FaultPingRespond}})
	}()
	defer func() {
		cancel()
		<-served
	}()

	plan := &ServerPlan{
		Name:      "ref",
		Targets:   []harness.Target{{Transport: wire.HTTP, URL: "http://" + ln.Addr().String() + "/mcp"}},
		Revisions: []string{harness.Rev20251125},
		Focus:     `^(PING-RESPOND|JRPC-ID-ECHO|LIFE-INIT-RESULT) `,
		Timeouts:  harness.Timeouts{Startup: 30 * time.Second, Request: 10 * time.Second, Quiet: harness.DefaultTimeouts().Quiet, Shutdown: 5 * time.Second},
		Parallel:  4, SlowParallel: 2, Sessions: 1,
	}
	var mu sync.Mutex
	planned, seen := -1, map[string]reports.Status{}
	run, err := RunServer(plan, ServerHooks{
		Planned: func(n int) { planned = n },
		Result: func(r reports.Result) {
			mu.Lock()
			defer mu.Unlock()
			seen[r.ID] = r.Status
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Errors) > 0 {
		t.Errorf("harness errors: %q", run.Errors)
	}
	if run.Target.Name != "ref" || !strings.Contains(run.Target.Description, ln.Addr().String()) || run.StartedAt.IsZero() {
		t.Errorf("target %+v, started %v", run.Target, run.StartedAt)
	}
	if planned < 2 || len(run.Results) != planned || len(seen) != planned {
		t.Fatalf("%d planned, %d results in the run, %d through the hook: want the same, at least 2", planned, len(run.Results), len(seen))
	}
	for _, r := range run.Results {
		want := reports.Pass
		if r.ID == reference.FaultPingRespond {
			want = reports.Fail
		}
		if r.Status != want || seen[r.ID] != r.Status || r.Version != harness.Rev20251125 || r.Transport != wire.HTTP {
			t.Errorf("%s (%s, %s): %s (hook: %s), want %s: %s", r.ID, r.Version, r.Transport, r.Status, seen[r.ID], want, r.Message)
		}
	}
	if _, ok := seen[reference.FaultPingRespond]; !ok {
		t.Errorf("PING-RESPOND did not run: %v", seen)
	}

	t.Logf("results: %v", seen)

	again, err := RunServer(plan, ServerHooks{})
	if !errors.Is(err, errSecondServerRun) || again == nil || len(again.Results) > 0 {
		t.Errorf("a second run in the process: %v, %+v; want it refused without results", err, again)
	}
}

// serverChildEnv marks the child process of TestRunServerOnReference, and serverChildTimeout
// bounds it: a handful of checks against an in-process server, generous for a loaded machine.
const (
	serverChildEnv     = "MCPSPEC_ENGINE_SERVER_TEST_CHILD"
	serverChildTimeout = 5 * time.Minute
)
