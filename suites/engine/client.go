// Package engine runs checks as a library, for the commands to turn flags into a plan and
// show what it yields. This is its client half: plan the launches the selected client checks
// need, launch the client under test against the probe server for each, bound every wait,
// stop on request, and judge each recording into results with bounded evidence.
package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
	"github.com/mcpspec/mcpspec/suites/conform"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Environment variables a client under test is launched with, as the official conformance
// suite names them: the scenario, its data as a JSON object, and the launch's revision (the
// SDKs' conformance clients pick their lifecycle by it: initialize, or server/discover at
// 2026-07-28).
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
	envVersion  = "MCP_CONFORMANCE_PROTOCOL_VERSION"
)

// ClientTimeouts bound every wait of `mcpspec client`.
type ClientTimeouts struct {
	Startup  time.Duration // launch until the client's first message reaches the probe
	Request  time.Duration // the probe's wait for the client's answer to a request it sent
	Idle     time.Duration // a connected client silent this long, and still running, is hung
	Shutdown time.Duration // each step of stopping the client (SIGTERM, SIGKILL)
	// Launch bounds one launch as a whole: a client that keeps talking is never idle, and
	// would otherwise hold the run forever.
	Launch time.Duration
}

func DefaultClientTimeouts() ClientTimeouts {
	d := harness.DefaultTimeouts()
	return ClientTimeouts{Startup: d.Startup, Request: d.Request, Idle: 15 * time.Second, Shutdown: d.Shutdown, Launch: 60 * time.Second}
}

// DefaultClientParallel is how many launches run at once by default. Launches mostly wait on the
// probe's timers (a retry delay, a request timeout), so more than the cores pay; but each is a
// process start of the client under test, and a heavy one (node, python) started many at once
// on a small machine could miss --timeout-startup, a verdict hanging on load. A launch whose
// client waits on a timer of its own gives its place to the next meanwhile (RunClient).
const DefaultClientParallel = 4

// maxAlivePerPlace bounds the client processes alive at once, waiting ones included, as a
// multiple of the parallel bound: a waiting launch gives its place up, not its process.
const maxAlivePerPlace = 3

// ClientPlan is what a client run is to do.
type ClientPlan struct {
	Argv      []string // the client under test; the probe's URL or path goes last or in place of {url} ({server})
	Env       []string // K=V added to its environment
	Dir       string   // its working directory ("" for mcpspec's)
	Transport string   // wire.HTTP, wire.Stdio or wire.SSE
	Revisions []string
	Focus     *regexp.Regexp // selects checks by "Title (revision, transport)"; nil for every one
	Labels    string         // a Ginkgo label filter on the labels server checks carry; "" for every check
	Scenarios []string       // the scenarios to serve
	Timeouts  ClientTimeouts
	Self      string // the mcpspec binary, which serves the stdio probe (probe-stdio)
	// Parallel is how many launches run at once, each on its own probe; below 1 means 1. Above
	// 1, a launch whose client waits on a timer of its own (probe.Recorder.Waiting) no longer
	// counts: the next starts beside it.
	Parallel int
	// InProcess, when set, runs the client under test in mcpspec's own process instead of
	// Argv (Env's variables reach it in env, Dir is unused): a self-test's reference client,
	// which then costs no process start. target is the probe's URL, or over stdio the command
	// of the probe server the client launches (still Self); env holds the MCP_CONFORMANCE_*
	// variables; stderr keeps what it writes as a launched client's stderr is kept. It must
	// return soon after ctx is done; a nil error is a clean exit.
	InProcess func(ctx context.Context, target []string, env map[string]string, stderr io.Writer) error
}

// Launch is one launch of the client: a scenario at a revision, and the checks judging it.
type Launch struct {
	Script   probe.Script
	Revision string // the revision its results carry
	Checks   []*clientsuite.Check
}

// Session names the launch in a transcript: scenario@revision.
func (l Launch) Session() string { return l.Script.Scenario + "@" + l.Revision }

// Launches lists the launches the selected checks need, in order.
func (cfg *ClientPlan) Launches() ([]Launch, error) {
	all, err := clientsuite.Checks()
	if err != nil {
		return nil, err
	}
	var revs []string
	for _, r := range cfg.Revisions {
		if slices.Contains(harness.TransportRevisions(cfg.Transport), r) {
			revs = append(revs, r)
		}
	}
	// --label-filter was checked when parsed; "" selects every check.
	selected, err := types.ParseLabelFilter(cfg.Labels)
	if err != nil {
		return nil, err
	}
	var runs []Launch
	for _, scenario := range cfg.Scenarios {
		if probe.IsAuth(scenario) && cfg.Transport != wire.HTTP {
			continue // authorization is Streamable HTTP's alone (AUTH-STDIO)
		}
		for _, rev := range revs {
			if !probe.ServesAt(scenario, rev) {
				continue
			}
			sr := Launch{Script: probe.Script{Scenario: scenario, Revision: rev, AnswerWait: cfg.Timeouts.Request}, Revision: rev}
			var riders []*clientsuite.Check
			for _, c := range all {
				if !c.Side.Judges(scenario) || !c.AppliesTo(rev, cfg.Transport) {
					continue
				}
				if c.Side.Once && rev != newestApplicable(c, revs, cfg.Transport) {
					continue
				}
				if cfg.Focus != nil && !cfg.Focus.MatchString(fmt.Sprintf("%s (%s, %s)", c.Title(), rev, cfg.Transport)) ||
					!selected(conform.CheckLabels(c.ID, c.Level, c.Area(), rev, cfg.Transport)) {
					continue
				}
				if c.Side.Rides && scenario != c.Side.Scenario {
					riders = append(riders, c)
					continue
				}
				sr.Checks = append(sr.Checks, c)
			}
			if len(sr.Checks) > 0 {
				sr.Checks = append(sr.Checks, riders...)
				runs = append(runs, sr)
			}
		}
	}
	return runs, nil
}

func newestApplicable(c *clientsuite.Check, revs []string, transport string) string {
	newest := ""
	for _, r := range revs {
		if c.AppliesTo(r, transport) && r > newest {
			newest = r
		}
	}
	return newest
}

// ClientHooks receive what a client run yields as it goes.
type ClientHooks struct {
	// Interrupt, once interrupted, stops the launch under way; its checks and those of the later
	// launches become errors naming why. Nil: never interrupted.
	Interrupt *Interruption
	// Launched gets each launch's secrets (an authorization scenario's tokens, codes, …) and its
	// whole recording with bodies clipped, before its checks are judged. It may be nil.
	Launched func(l Launch, secrets []string, recording []record.Record)
	// Result gets each result as it is judged.
	Result func(reports.Result)
}

// ClientOutcome is what a client run found beside its results.
type ClientOutcome struct {
	Errors     []string       // harness-level problems: never connected, hung, crashed, interrupted
	ClientInfo map[string]any // the client's clientInfo, from its first launch that gave one
}

// RunClient runs the launches, p.Parallel at once (1 when unset), the client under test against
// its own probe each, and judges each recording. The hooks get every launch and result in the
// launches' order whatever order they finish in, so a parallel run reports as a sequential one.
// Above 1, a launch stops counting once its client waits on a timer of its own, idle (a request
// held past its timeout, a stream cut before its retry): the bound is on clients busy starting
// and talking, and a cancellation scenario's wait no longer holds a place for its whole length.
func RunClient(p *ClientPlan, launches []Launch, h ClientHooks) ClientOutcome {
	intr := h.Interrupt
	if intr == nil {
		intr = NewInterruption()
	}
	val := schema.New() // safe for concurrent use; shared so each schema compiles once
	// Each launch's outcome has a slot of its own, buffered so a worker never waits on the hooks.
	slots := make([]chan launched, len(launches))
	for i := range slots {
		slots[i] = make(chan launched, 1)
	}
	workers := max(1, min(p.Parallel, len(launches)))
	order := dispatchOrder(launches)
	if workers == 1 {
		order = nil // nothing runs beside a slow launch: each result comes as soon as judged
		for i := range launches {
			order = append(order, i)
		}
	}
	// places holds a token per launch that counts against the bound; alive one per client
	// process, waiting or not, so that waiting clients (a Node or Python process each) cannot
	// pile up on a small machine whatever the plan holds.
	places := make(chan struct{}, workers)
	alive := make(chan struct{}, workers*maxAlivePerPlace)
	go func() {
		for _, i := range order {
			alive <- struct{}{}
			places <- struct{}{}
			var once sync.Once
			leave := func() { once.Do(func() { <-places }) }
			waiting := leave
			if workers == 1 {
				waiting = nil // one at a time, even while one waits: the sequential reference
			}
			go func() {
				defer func() { <-alive }()
				defer leave()
				slots[i] <- p.runLaunch(launches[i], intr, val, waiting)
			}()
		}
	}()
	var o ClientOutcome
	for i, l := range launches {
		r := <-slots[i]
		if r.ran && h.Launched != nil {
			h.Launched(l, r.out.secrets, r.out.archived())
		}
		if r.ran && r.interrupted == "" {
			if r.out.clientInfo != nil && o.ClientInfo == nil {
				o.ClientInfo = r.out.clientInfo
			}
			if r.out.err != "" {
				o.Errors = append(o.Errors, fmt.Sprintf("%s at %s: %s", l.Script.Scenario, l.Revision, r.out.err))
			}
		}
		for _, res := range r.results {
			h.Result(res)
		}
	}
	if why := intr.Reason(); why != "" {
		o.Errors = append(o.Errors, fmt.Sprintf("interrupted (%s): the client was stopped and the unfinished checks are errors", why))
	}
	return o
}

// dispatchOrder starts the launches that wait longest first (leastWait), the others in the
// plan's order: started last, a long wait would add itself to the run's end; started first, the
// others run beside it.
func dispatchOrder(launches []Launch) []int {
	order := make([]int, len(launches))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(leastWait(launches[b].Script), leastWait(launches[a].Script)) })
	return order
}

// leastWait is how long a launch of s waits on the client's timers, however fast its client: a
// cancellation scenario's client waits out its request timeout, sse-retry's a delay before it
// reconnects: the probe's retry field where the revision has one, elsewhere a delay of the
// client's own (the TypeScript SDK's is 1 s), counted as the retry field.
func leastWait(s probe.Script) time.Duration {
	switch s.Scenario {
	case probe.ScenarioRequestTimeout, probe.ScenarioTaskCancel:
		return s.RequestTimeout()
	case probe.ScenarioSSERetry:
		return probe.RetryMs * time.Millisecond
	}
	return 0
}

// launched is what one launch came to: its outcome and its checks' results.
type launched struct {
	ran         bool   // the client was launched
	interrupted string // why the run was interrupted before the launch ended, "" if it was not
	out         launchOutcome
	results     []reports.Result
}

// runLaunch launches the client for l, unless the run is interrupted, and judges its recording.
// waiting, unless nil, is called once the client waits on a timer of its own.
func (p *ClientPlan) runLaunch(l Launch, intr *Interruption, val *schema.Validator, waiting func()) launched {
	if why := intr.Reason(); why != "" {
		return launched{interrupted: why, results: interruptedResults(l, p.Transport, why, "before its launch")}
	}
	r := launched{ran: true, out: p.launch(l.Script, intr.Done(), waiting)}
	if why := intr.Reason(); why != "" {
		r.interrupted, r.results = why, interruptedResults(l, p.Transport, why, "while the client ran")
		return r
	}
	view := clientsuite.NewView(l.Script.Scenario, l.Revision, p.Transport, l.Script.Offered(), r.out.records, val)
	for _, c := range l.Checks {
		r.results = append(r.results, clientResult(c, l.Revision, p.Transport, view, r.out))
	}
	return r
}

// Interruption is closed once, by the first Interrupt (a signal, say).
type Interruption struct {
	done chan struct{}
	once chan struct{} // holds a token until the first Interrupt takes it
	why  string        // written before done is closed
}

// NewInterruption returns an interruption not yet interrupted.
func NewInterruption() *Interruption {
	i := &Interruption{done: make(chan struct{}), once: make(chan struct{}, 1)}
	i.once <- struct{}{}
	return i
}

// Interrupt interrupts the run, saying why; only the first call counts.
func (i *Interruption) Interrupt(why string) {
	select {
	case <-i.once:
		i.why = why
		close(i.done)
	default:
	}
}

// Done is closed once interrupted.
func (i *Interruption) Done() <-chan struct{} { return i.done }

// Reason is why the run was interrupted, "" while it was not.
func (i *Interruption) Reason() string {
	select {
	case <-i.done:
		return i.why
	default:
		return ""
	}
}

// interruptedResults are a launch's checks when a signal ended the run before they were judged.
func interruptedResults(sr Launch, transport, why, when string) []reports.Result {
	var out []reports.Result
	for _, c := range sr.Checks {
		e, _ := catalog.Lookup(c.ID)
		out = append(out, reports.Result{ID: c.ID, Title: c.Title(), Area: c.Area(), Level: c.Level, Version: sr.Revision, Transport: transport, Scenario: sr.Script.Scenario,
			SpecURL: e.SpecURL(sr.Revision), Status: reports.Error, Message: fmt.Sprintf("interrupted (%s) %s: the check was not judged", why, when)})
	}
	return out
}

// clientResult judges one check on one launch's recording.
func clientResult(c *clientsuite.Check, revision, transport string, view *clientsuite.View, out launchOutcome) reports.Result {
	e, _ := catalog.Lookup(c.ID)
	res := reports.Result{ID: c.ID, Title: c.Title(), Area: c.Area(), Level: c.Level, Version: revision, Transport: transport,
		Scenario: view.Scenario, SpecURL: e.SpecURL(revision)}
	if x, ok := e.ExtensionOf(); ok {
		res.Extension = x.ID
	}
	start := time.Now()
	if !out.connected && out.declined != "" {
		res.Status, res.Message = reports.NA, out.declined
		res.Evidence = evidence(out, "")
		return res
	}
	if !out.connected {
		res.Status, res.Message = reports.Error, "the client never reached the probe: "+out.err
		res.Evidence = evidence(out, "")
		return res
	}
	f := c.Side.Judge(view)
	res.DurationMs = time.Since(start).Milliseconds() + out.durationMs
	res.Message = f.Message
	res.Evidence = evidence(out, f.Message)
	res.Status = f.Outcome.Status(c.Level)
	if f.Outcome == clientsuite.Violation && f.Severe {
		res.Status = reports.Fail // a SHOULD check whose evidence breaks a MUST
	}
	return res
}

// citedRecord finds the records a verdict cites: its messages name them "record N".
var citedRecord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\brecord (\d+)\b`) })

// evidence is a launch's recording and the client's stderr, bounded as a server check's
// evidence is (transcript.Evidence), always with the records the message cites.
func evidence(out launchOutcome, message string) []reports.Exchange {
	cited := map[int]bool{}
	for _, m := range citedRecord().FindAllStringSubmatch(message, -1) {
		n, _ := strconv.Atoi(m[1])
		cited[n] = true
	}
	ex := finding.Evidence(out.records, out.started, func(seq int) bool { return cited[seq] })
	if out.stderr != "" {
		ex = append(ex, reports.Exchange{Seq: len(out.records) + 1, Direction: record.Note, Channel: record.ChanStderr, Meta: stderrMeta, Body: out.stderr})
	}
	return ex
}

// stderrMeta says what the client's stderr record holds.
const stderrMeta = "the client's stderr (tail)"

// archived is the launch's whole recording for --transcript, bodies clipped as a server
// session's transcript is, and the client's stderr tail.
func (out launchOutcome) archived() []record.Record {
	recs := make([]record.Record, len(out.records), len(out.records)+1)
	for i, r := range out.records {
		r.Body = transcript.ClipBody(r.Body)
		recs[i] = r
	}
	if out.stderr != "" {
		recs = append(recs, record.Record{Seq: len(out.records) + 1, At: out.started.Add(time.Duration(out.durationMs) * time.Millisecond), Dir: record.Note, Channel: record.ChanStderr, Meta: stderrMeta, Body: out.stderr})
	}
	return recs
}

// launchOutcome is what one launch of the client came to.
type launchOutcome struct {
	started    time.Time // when the recording began: records are timed from it
	records    []record.Record
	connected  bool   // the client's first message reached the probe
	err        string // a harness-level problem: never connected, hung, crashed; "" if none
	declined   string // why the client, which never connected, does not follow the scenario; "" if it did not say
	stderr     string
	clientInfo map[string]any
	durationMs int64
	secrets    []string // an authorization scenario's tokens, codes, client secrets, verifiers
}

// launch serves one scenario and runs the client against it until it exits, a named
// timeout ends it, or stop is closed. The client's process group is killed in any case.
// waiting, unless nil, is called once the probe has made the client wait on a timer of its own.
func (cfg *ClientPlan) launch(script probe.Script, stop <-chan struct{}, waiting func()) launchOutcome {
	rec := probe.NewRecorder(nil)
	start := rec.Started()
	var target, placeholder string
	var stopProbe func()
	settle := func() {} // once the client left by itself, before the probe stops
	var authContext map[string]any
	secrets := func() []string { return nil }
	switch cfg.Transport {
	case wire.Stdio:
		token := randomToken()
		col, err := probe.NewCollector(rec, token)
		if err != nil {
			return launchOutcome{err: err.Error()}
		}
		dir, err := os.MkdirTemp("", "mcpspec-probe-")
		if err != nil {
			col.Close(0)
			return launchOutcome{err: fmt.Sprintf("probe script: %v", err)}
		}
		defer os.RemoveAll(dir)
		target = filepath.Join(dir, "mcpspec-probe")
		script := fmt.Sprintf("#!/bin/sh\nexec %s probe-stdio --report %s --token %s --scenario %s --revision %s --answer-wait %s --state %s\n",
			shellQuote(cfg.Self), col.Addr(), token, script.Scenario, script.Revision, script.AnswerWait, shellQuote(dir))
		// A process forked while the script is open for writing holds it open until it execs, and
		// the client's exec of the script then fails "text file busy" (golang/go#22315): launches
		// run in parallel, and an in-process client forks beside them. No fork while it is written.
		syscall.ForkLock.RLock()
		err = os.WriteFile(target, []byte(script), 0o755)
		syscall.ForkLock.RUnlock()
		if err != nil {
			col.Close(0)
			return launchOutcome{err: fmt.Sprintf("probe script: %v", err)}
		}
		placeholder = "{server}"
		stopProbe = func() { col.Close(cfg.Timeouts.Shutdown) }
	case wire.SSE:
		srv, err := probe.StartSSE(script, rec)
		if err != nil {
			return launchOutcome{err: err.Error()}
		}
		target, placeholder = srv.URL(), "{url}"
		stopProbe = srv.Close
	default:
		srv, err := probe.StartHTTP(script, rec)
		if err != nil {
			return launchOutcome{err: err.Error()}
		}
		target, placeholder = srv.URL(), "{url}"
		stopProbe = srv.Close
		settle = func() { srv.AwaitReleased(cfg.Timeouts.Shutdown) }
		authContext, secrets = srv.AuthContext(), srv.Secrets
	}
	env := append([]string{envScenario + "=" + script.Scenario, envContext + "=" + scenarioContext(script, authContext),
		envVersion + "=" + script.Revision}, cfg.Env...)
	var proc clientProcess
	if cfg.InProcess != nil {
		proc = startInProcess(cfg.InProcess, []string{target}, env)
	} else {
		p, err := stdio.Start(stdio.Command{Argv: withTarget(cfg.Argv, placeholder, target), Env: env, Dir: cfg.Dir}, false)
		if err != nil {
			stopProbe()
			return launchOutcome{err: fmt.Sprintf("launch the client: %v", err), secrets: secrets()}
		}
		proc = p
	}
	problem := awaitClient(proc, rec, cfg.Timeouts, stop, waiting)
	if problem == "" {
		settle()
	}
	proc.Stop(cfg.Timeouts.Shutdown) // the group: a probe the client launched goes too
	stopProbe()
	out := launchOutcome{started: start, records: rec.Records(), stderr: proc.StderrTail(), durationMs: time.Since(start).Milliseconds(), secrets: secrets()}
	out.connected = len(out.records) > 0
	out.clientInfo = clientInfo(out.records)
	switch {
	case problem != "":
		out.err = problem
	case !out.connected && !exitedZero(proc) && unknownScenario(script.Scenario, out.stderr) != "":
		// Not a harness error: the client cannot follow this scenario, and said so.
		out.declined = fmt.Sprintf("the client does not follow scenario %s: it exited (%v) without connecting, its stderr saying %q",
			script.Scenario, proc.ExitErr(), unknownScenario(script.Scenario, out.stderr))
	case !out.connected:
		out.err = fmt.Sprintf("it exited (%v) without sending the probe anything", proc.ExitErr())
	case (script.Scenario == probe.ScenarioTools || script.Scenario == probe.ScenarioInitialize) && proceeded(out.records) && !exitedZero(proc):
		// A client that leaves a revision it does not speak may exit with an error; one that
		// went on through the scenario should finish cleanly.
		out.err = fmt.Sprintf("the client crashed or failed (%v)", proc.ExitErr())
	}
	if out.err != "" && out.stderr != "" {
		out.err += stderrHint(out.stderr)
	}
	return out
}

// awaitClient waits until the client exits, or a bound passes: Startup until its first message,
// then Idle without a new record, and Launch in all, unless stop is closed first. It returns why
// it stopped waiting early, "" when it exited. waiting, unless nil, is called once the recording
// shows the client waiting on a timer of its own.
func awaitClient(proc clientProcess, rec *probe.Recorder, t ClientTimeouts, stop <-chan struct{}, waiting func()) string {
	timer := time.NewTimer(t.Startup)
	defer timer.Stop()
	overall := time.NewTimer(t.Launch)
	defer overall.Stop()
	connected := false
	var waits <-chan struct{} // nil: nobody to tell, or told
	if waiting != nil {
		waits = rec.Waiting()
	}
	for {
		select {
		case <-proc.Done():
			return ""
		case <-waits:
			waiting()
			waits = nil
		case <-stop:
			return "interrupted"
		case <-overall.C:
			return fmt.Sprintf("the client was still running at the launch timeout (%s); it was stopped", t.Launch)
		case <-rec.Activity():
			connected = true
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(t.Idle)
		case <-timer.C:
			if !connected {
				return fmt.Sprintf("the client sent the probe nothing within the startup timeout (%s); it was stopped", t.Startup)
			}
			return fmt.Sprintf("the client neither sent anything nor exited for the idle timeout (%s): it hung and was stopped", t.Idle)
		}
	}
}

func exitedZero(p clientProcess) bool {
	err := p.ExitErr()
	return err != nil && err.Error() == "exit status 0"
}

// clientProcess is a launched client as the engine waits on it, stops it and reads it: a
// process (*stdio.Process), or a client run in process (ClientPlan.InProcess).
type clientProcess interface {
	Done() <-chan struct{}
	// ExitErr describes how it ended ("exit status 0" for a clean exit), nil while it runs.
	ExitErr() error
	StderrTail() string
	// Stop ends it, waiting up to grace for each step; over stdio the probe it launched goes too.
	Stop(grace time.Duration) bool
}

// inProcess is a client run in a goroutine (ClientPlan.InProcess), seen as a launched one.
type inProcess struct {
	cancel context.CancelFunc
	done   chan struct{}
	exit   error // set before done is closed
	stderr tail
}

// errExitedZero is how a clean exit reads, as a process's does (exitedZero).
var errExitedZero = errors.New("exit status 0")

func startInProcess(run func(context.Context, []string, map[string]string, io.Writer) error, target, env []string) *inProcess {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &inProcess{cancel: cancel, done: make(chan struct{}), stderr: tail{max: stdio.StderrLimit}}
	go func() {
		defer close(p.done)
		p.exit = run(ctx, target, vars, &p.stderr)
		if p.exit == nil {
			p.exit = errExitedZero
		}
	}()
	return p
}

func (p *inProcess) Done() <-chan struct{} { return p.done }

func (p *inProcess) ExitErr() error {
	select {
	case <-p.done:
		return p.exit
	default:
		return nil
	}
}

func (p *inProcess) StderrTail() string { return p.stderr.String() }

// Stop cancels the client's context and waits up to grace for it to return; it reports whether
// the client was still running then (a goroutine cannot be killed: it ends when it heeds ctx).
func (p *inProcess) Stop(grace time.Duration) bool {
	p.cancel()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return false
	case <-t.C:
		return true
	}
}

// tail keeps the last max bytes written to it, as a launched client's stderr is kept.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// proceeded reports whether the client sent more than its initialize.
func proceeded(recs []record.Record) bool {
	v := clientsuite.NewView("", "", "", "", recs, nil)
	return v.Proceeded()
}

// clientInfo is the clientInfo of the client's initialize, or at the stateless revision of its
// first request's _meta, for the report's target line.
func clientInfo(recs []record.Record) map[string]any {
	v := clientsuite.NewView("", "", "", "", recs, nil)
	for _, m := range v.Msgs {
		if !m.IsRequest() {
			continue
		}
		var p struct {
			Params struct {
				ClientInfo map[string]any             `json:"clientInfo"`
				Meta       map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &p) != nil {
			continue
		}
		if m.Method == "initialize" && p.Params.ClientInfo != nil {
			return p.Params.ClientInfo
		}
		var info map[string]any
		if json.Unmarshal(p.Params.Meta[harness.MetaClientInfo], &info) == nil && info != nil {
			return info
		}
	}
	return nil
}

// withTarget puts target in place of placeholder, or last when CMD has none.
func withTarget(argv []string, placeholder, target string) []string {
	out := make([]string, 0, len(argv)+1)
	found := false
	for _, a := range argv {
		if strings.Contains(a, placeholder) {
			found = true
			a = strings.ReplaceAll(a, placeholder, target)
		}
		out = append(out, a)
	}
	if !found {
		out = append(out, target)
	}
	return out
}

// goLogPrefix is the date and time Go's log package puts before a line: not quoted, so the
// reason reads the same in every run.
var goLogPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? `) })

// refusal is how a line of a client's stderr says it does not know a scenario: "Unknown
// scenario: X" (the Go, TypeScript and Python SDKs' conformance clients), or the like.
var scenarioWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bscenario\b`) })

var refusal = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(unknown|unsupported|not supported|not implemented|not recogni[sz]ed|unrecogni[sz]ed|no handler)\b`)
})

// unknownScenario is the line of a client's stderr that says it does not know the scenario: a
// line naming the scenario, with the word "scenario", and saying it is unknown (or unsupported,
// not implemented, …); "" when none does. A line that only names the scenario beside an
// unknown host, say, is no refusal of it. Only a client that never connected and exited non-zero is asked: one that
// crashed says neither, and its launch stays a harness error.
func unknownScenario(scenario, stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(goLogPrefix().ReplaceAllString(l, ""))
		// The refusal must be outside the name: version-unsupported names itself so.
		rest := strings.ReplaceAll(l, scenario, " ")
		if strings.Contains(l, scenario) && scenarioWord().MatchString(rest) && refusal().MatchString(rest) {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return l
		}
	}
	return ""
}

// scenarioContext is MCP_CONFORMANCE_CONTEXT: the scenario's data, and in an authorization
// scenario that pre-registers the client its client_id and client_secret (auth).
func scenarioContext(s probe.Script, auth map[string]any) string {
	// name: the key the official suite's context gives the scenario under.
	ctx := map[string]any{"scenario": s.Scenario, "name": s.Scenario, "protocolVersion": s.Offered(), "tools": s.ContextTools()}
	if s.Scenario == probe.ScenarioRequestTimeout || s.Scenario == probe.ScenarioTaskCancel {
		ctx["requestTimeoutMs"] = s.RequestTimeout().Milliseconds()
	}
	for k, v := range auth {
		ctx[k] = v
	}
	b, _ := json.Marshal(ctx)
	return string(b)
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// stderrHint quotes a client's stderr: the lines that say why it failed first, which a cut tail
// could lose, then how it ends.
func stderrHint(s string) string {
	hint := ""
	if why := reports.ErrorLines(s, 2); len(why) > 0 {
		hint = "; its stderr says: " + strings.Join(why, " | ")
	}
	return hint + "; its stderr ends: " + stderrTail(s, 400)
}

func stderrTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}
