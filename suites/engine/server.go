package engine

// The server half: build one Ginkgo spec per selected check × revision × transport, run them
// against the plan's targets through conform's runner, optionally follow the server's
// authorization server, and hand back the run's results. Writing reports, baselines and the
// console summary is the caller's.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/conform"

	_ "github.com/mcpspec/mcpspec/suites" // registers every server check
)

// ServerPlan is what a server run is to do.
type ServerPlan struct {
	Targets   []harness.Target // one per transport
	Revisions []string
	// Focus selects checks by "Title (revision, transport)" (a regular expression); "" for all.
	Focus string
	// Labels is a Ginkgo label filter on the checks' labels; "" for all.
	Labels   string
	Timeouts harness.Timeouts
	Options  conform.Options // what the checks read: the slow, list-changed, input and log tools, tokens
	// Parallel bounds the checks under way at once; SlowParallel those that mostly wait, beside
	// them; Sessions is the number of shared sessions per revision and transport.
	Parallel, SlowParallel, Sessions int
	// Secrets are redacted from every result before it is recorded or shown.
	Secrets []string
	// Validator checks every inbound message against the schema; nil for a new one.
	Validator harness.Validator
	// Name is the target's name in the results ("" for none).
	Name string
	// AuthServer: after the MCP checks, follow the HTTP target's protected resource metadata to
	// its authorization server and run the authorization-server checks on it.
	AuthServer bool
	// Archive receives every session's whole transcript; nil for none. RunServer closes it.
	Archive *transcript.Archive
}

// ServerHooks receive what a server run yields as it goes. Every field may be left zero.
type ServerHooks struct {
	// Interrupt, once interrupted, stops the run: its servers are stopped and its unfinished
	// checks become errors naming why. SIGINT and SIGTERM interrupt it too (see RunServer).
	Interrupt *Interruption
	// Signals is the channel of the caller's WatchSignals (which interrupts Interrupt), for a
	// caller that keeps hearing the signals after the run, while it writes its reports: Ginkgo
	// takes them from every channel, and RunServer gives them back to this one. Nil: RunServer
	// watches them itself, during the run only.
	Signals chan os.Signal
	// Planned gets the number of checks selected, once known, before any result.
	Planned func(n int)
	// Result gets each check's result as soon as it is recorded, from the checks' goroutines:
	// it must be safe for concurrent use.
	Result func(reports.Result)
	// AuthServer gets the authorization-server checks' results and the secrets they saw (codes,
	// tokens, client secrets) before they join the run, which redacts nothing of them itself.
	AuthServer func(results []reports.Result, secrets []string)
	// Specs shows Ginkgo's own spec-by-spec output on the process's stdout, in colour with
	// Color; without it Ginkgo is silent.
	Specs, Color bool
}

// errSecondServerRun: Ginkgo keeps its suite in package globals and ends the process when
// RunSpecs is called twice, so one process can make one server run.
var errSecondServerRun = errors.New("engine: a server run already ran in this process: Ginkgo runs one suite per process (start another process, as `mcpspec matrix` does)")

// serverRan is set by the first RunServer.
var serverRan atomic.Bool

// ginkgoT receives Ginkgo's verdict on the whole suite; the results say more.
type ginkgoT struct{ failed bool }

func (g *ginkgoT) Fail() { g.failed = true }

// RunServer runs the plan's checks against its targets and returns the run: its target,
// served revisions, results in spec order, harness errors (an interruption among them),
// server info and statistics. The run is never nil; an error is a failure that kept the checks
// from running, to be reported with it. Tool and Strict are the caller's to fill in.
//
// The checks run under Ginkgo, whose suite lives in package globals: a process can make one
// server run, and a second call returns an error without running anything. Ginkgo installs its
// own handler of SIGINT and SIGTERM (which would dump goroutines and skip specs); RunServer takes
// the signals back from it, to h.Signals or else to a watch of its own for the run: the first
// interrupts the run, as h.Interrupt does, and later ones are swallowed so that the servers are
// stopped and every check still gets a result.
func RunServer(p *ServerPlan, h ServerHooks) (*reports.Run, error) {
	run := &reports.Run{
		SchemaVersion: reports.SchemaVersion,
		Target:        DescribeTargets(p.Name, p.Targets),
		Revisions:     p.Revisions,
	}
	if !serverRan.CompareAndSwap(false, true) {
		run.StartedAt = time.Now()
		return run, errSecondServerRun
	}
	val := p.Validator
	if val == nil {
		val = schema.New()
	}
	cfg := conform.Config{Validator: val, Targets: p.Targets, Revisions: p.Revisions, Timeouts: p.Timeouts,
		Options: p.Options, Secrets: p.Secrets, Archive: p.Archive, OnResult: h.Result}
	// Ginkgo's own console output is a mark per check and a block per failure: only asked for.
	if !h.Specs {
		quiet := formatter.ColorableStdOut
		formatter.ColorableStdOut = io.Discard
		defer func() { formatter.ColorableStdOut = quiet }()
	}
	runner := conform.NewRunner(cfg)
	run.StartedAt = runner.Started()
	intr := h.Interrupt
	if intr == nil {
		intr = NewInterruption()
	}
	runner.HoldStart() // until interruptOnSignal holds the signals
	stopWatch := interruptOnSignal(runner, intr, h.Signals)
	defer stopWatch()
	if err := conform.Build(runner, conform.Selection{Focus: p.Focus, LabelFilter: p.Labels, Workers: p.Parallel, Sessions: p.Sessions, Waiting: p.SlowParallel}); err != nil {
		return run, fmt.Errorf("building the spec tree: %w", err)
	}
	// conform.Build registered only the specs Focus and Labels select.
	if h.Planned != nil {
		h.Planned(runner.Planned())
	}
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.RandomSeed = 1
	suiteConfig.Timeout = 24 * time.Hour
	reporterConfig.NoColor = !h.Color
	reporterConfig.Succinct = !h.Specs
	reporterConfig.Verbose = h.Specs
	ginkgo.RunSpecs(&ginkgoT{}, "mcpspec", suiteConfig, reporterConfig)
	// Ginkgo skips its BeforeSuite and the specs left once it has seen a signal itself: the
	// checks still run (as interrupted ones, after runner.Interrupt) so that every one has a result.
	runner.ReleaseStart()
	runner.Wait()
	// AuthServer: while a launched server still runs, its metadata leads to the authorization
	// server.
	var asResults []reports.Result
	var asErr error
	if p.AuthServer && runner.Interruption() == "" {
		var secrets []string
		asResults, secrets, asErr = followAuthServer(p, runner.ServedRevisions(), runner.Planned() > 0)
		if h.AuthServer != nil {
			h.AuthServer(asResults, secrets)
		}
	}
	runner.Close()
	// Every connection has ended, so the archive holds every session.
	if err := p.Archive.Close(); err != nil {
		runner.RecordError(fmt.Errorf("--transcript: %w", err))
	}

	run.Results = runner.Results()
	run.Revisions = runner.ServedRevisions() // the summary names only revisions the server serves
	run.Errors = runner.Errors()
	if why := runner.Interruption(); why != "" {
		run.Errors = append(run.Errors, fmt.Sprintf("interrupted (%s): the servers were stopped and the unfinished checks are errors", why))
	}
	run.Target.ServerInfo = runner.ServerInfo()
	run.Results = append(run.Results, asResults...)
	if asErr != nil {
		run.Errors = append(run.Errors, fmt.Sprintf("--authserver: %v", asErr))
	}
	run.Stats = runner.Env().Stats.Snapshot()
	run.DurationMs = time.Since(runner.Started()).Milliseconds()
	return run, nil
}

// DescribeTargets is the report's target of a server run: its name, transports and how each is
// reached.
func DescribeTargets(name string, ts []harness.Target) reports.Target {
	t := reports.Target{Name: name}
	var parts []string
	for _, x := range ts {
		parts = append(parts, x.Describe())
		t.Transports = append(t.Transports, x.Transport)
	}
	t.Description = strings.Join(parts, "; ")
	return t
}
