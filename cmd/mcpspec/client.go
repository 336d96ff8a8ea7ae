package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
)

// Environment variables a client under test is launched with, as the official conformance
// suite names them: the scenario, and its data as a JSON object.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

// clientTimeouts bound every wait of `mcpspec client`.
type clientTimeouts struct {
	Startup  time.Duration // launch until the client's first message reaches the probe
	Request  time.Duration // the probe's wait for the client's answer to a request it sent
	Idle     time.Duration // a connected client silent this long, and still running, is hung
	Shutdown time.Duration // each step of stopping the client (SIGTERM, SIGKILL)
}

func defaultClientTimeouts() clientTimeouts {
	d := harness.DefaultTimeouts()
	return clientTimeouts{Startup: d.Startup, Request: d.Request, Idle: 15 * time.Second, Shutdown: d.Shutdown}
}

// clientConfig is everything `mcpspec client` was asked to do.
type clientConfig struct {
	run       runConfig // out, strict, color, baseline, write-baseline, secrets: as `run`
	argv      []string
	env       []string
	dir       string
	transport string
	revisions []string
	focus     *regexp.Regexp
	scenarios []string // the scenarios to serve (--scenario; default probe.Scenarios)
	timeouts  clientTimeouts
	self      string // this binary, which serves the stdio probe
	name      string // the target's name in results.json (--name), for `mcpspec matrix --merge`
}

func cmdClient(args []string, stdout, stderr io.Writer) (int, error) {
	cfg, err := parseClient(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return reports.ExitOK, nil
		}
		return reports.ExitUsage, err
	}
	return executeClient(cfg, stdout, stderr)
}

func parseClient(args []string, stdout io.Writer) (*clientConfig, error) {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	d := defaultClientTimeouts()
	var (
		cmd       = fs.String("cmd", "", "launch the client under test as `CMD` (split like a shell would), once per scenario; it gets the probe's URL (or, with --stdio, the probe server's path) as its last argument or in place of {url} ({server})")
		overStdio = fs.Bool("stdio", false, "test the client over stdio: CMD gets the path of an executable that starts the probe server, and launches it itself")
		overSSE   = fs.Bool("sse", false, "test the client over the legacy HTTP+SSE transport of 2024-11-05: CMD gets the probe's SSE endpoint URL")
		cwd       = fs.String("cwd", "", "working `DIR` of the client")
		versions  = fs.String("versions", "all", "revisions to test: `LIST` (comma-separated) or all")
		focus     = fs.String("focus", "", "run only checks whose title matches `REGEX` (titles begin with the requirement ID)")
		scenarios = fs.String("scenario", "", "serve only the scenarios in `LIST` (comma-separated; a trailing /* selects a group, e.g. 'auth/*': the authorization scenarios, Streamable HTTP only, with the probe authorization server), among them those served only on request, such as the official suite's initialize and every auth/* one (default: "+strings.Join(probe.Scenarios, ",")+")")
		out       = fs.String("out", "mcpspec-report", "write junit.xml, results.json, summary.md and report.html into `DIR`")
		baseline  = fs.String("baseline", "", "YAML `FILE` of expected failures")
		writeBase = fs.String("write-baseline", "", "write the current failures and warnings as a baseline to `FILE`")
		strict    = fs.Bool("strict", false, "warnings (broken SHOULDs) fail the run")
		noColor   = fs.Bool("no-color", false, "no ANSI colours (also NO_COLOR)")
		name      = fs.String("name", "", "record `NAME` as the client's name in results.json (letters, digits, '.', '_', '-'), the column heading `mcpspec matrix --merge` gives it")
		tStartup  = fs.Duration("timeout-startup", d.Startup, "bound on launching the client until its first message reaches the probe")
		tRequest  = fs.Duration("timeout-request", d.Request, "bound on the client's answer to a request the probe sends it (ping)")
		tIdle     = fs.Duration("timeout-idle", d.Idle, "a connected client that neither sends anything nor exits for this long is hung, and stopped")
		tShutdown = fs.Duration("timeout-shutdown", d.Shutdown, "bound on each step of stopping the client")
		envs      repeatFlag
	)
	fs.Var(&envs, "env", "`K=V` added to the client's environment (repeatable)")
	onlyOnce(fs, "cmd", "name", "scenario")
	if err := parseFlags(fs, args, "mcpspec client --cmd CMD [--stdio | --sse] [flags]", stdout); err != nil {
		return nil, err
	}
	if err := checkGiven(fs); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usageErrorf("client: unexpected argument %q (quote the client command: --cmd \"CMD ARGS\")", fs.Arg(0))
	}
	if *cmd == "" {
		return nil, usageErrorf("client: --cmd is required: the command that runs the client under test")
	}
	argv, err := splitCommand(*cmd)
	if err != nil || len(argv) == 0 {
		return nil, usageErrorf("client: --cmd %q: %v", *cmd, orEmpty(err))
	}
	if *name != "" && !targetNamePattern.MatchString(*name) {
		return nil, usageErrorf("client: --name %q: use letters, digits, '.', '_' and '-', beginning with a letter or digit", *name)
	}
	if *overStdio && *overSSE {
		return nil, usageErrorf("client: --stdio and --sse exclude each other: one transport per run")
	}
	cfg := &clientConfig{argv: argv, dir: *cwd, transport: wire.HTTP, name: *name}
	switch {
	case *overStdio:
		cfg.transport = wire.Stdio
	case *overSSE:
		cfg.transport = wire.SSE
	}
	placeholder := "{url}"
	if *overStdio {
		placeholder = "{server}"
	}
	for _, other := range []string{"{url}", "{server}"} {
		if other != placeholder && strings.Contains(*cmd, other) {
			return nil, usageErrorf("client: --cmd holds %s, which only %s fills (want %s)", other, map[bool]string{true: "an HTTP or --sse run", false: "a --stdio run"}[other == "{url}"], placeholder)
		}
	}
	cfg.timeouts = clientTimeouts{Startup: *tStartup, Request: *tRequest, Idle: *tIdle, Shutdown: *tShutdown}
	for name, v := range map[string]time.Duration{"startup": *tStartup, "request": *tRequest, "idle": *tIdle, "shutdown": *tShutdown} {
		if v <= 0 {
			return nil, usageErrorf("client: --timeout-%s must be positive, got %s", name, v)
		}
	}
	// The probe waits up to the request timeout for an answer while the client may rightly be
	// silent: a shorter idle bound would call a client hung while the probe still waits.
	if *tIdle <= *tRequest {
		return nil, usageErrorf("client: --timeout-idle (%s) must exceed --timeout-request (%s)", *tIdle, *tRequest)
	}
	revs, err := parseVersions(*versions)
	if err != nil {
		return nil, usageErrorf("client: %s", strings.TrimPrefix(err.Error(), "run: "))
	}
	cfg.revisions = revs
	if cfg.focus, err = regexp.Compile(*focus); err != nil {
		return nil, usageErrorf("client: --focus: %v", err)
	}
	if cfg.scenarios, err = parseScenarios(*scenarios); err != nil {
		return nil, err
	}
	for _, kv := range envs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("client: --env %q: want K=V", kv)
		}
		cfg.env = append(cfg.env, kv)
		if len(v) >= minSecretLen {
			cfg.run.secrets = append(cfg.run.secrets, v)
		}
	}
	if *cwd != "" {
		if st, err := os.Stat(*cwd); err != nil || !st.IsDir() {
			return nil, usageErrorf("client: --cwd %q is not a directory", *cwd)
		}
	}
	cfg.run.out, cfg.run.strict, cfg.run.writeBase = *out, *strict, *writeBase
	if err := checkWritableFile("client", "write-baseline", *writeBase); err != nil {
		return nil, err
	}
	cfg.run.color = !*noColor && os.Getenv("NO_COLOR") == ""
	if *baseline != "" {
		if cfg.run.base, err = reports.LoadBaseline(*baseline, catalog.Known); err != nil {
			return nil, usageErrorf("client: --baseline: %v", err)
		}
	}
	if cfg.self, err = os.Executable(); err != nil {
		return nil, fmt.Errorf("find the mcpspec binary to serve the stdio probe: %w", err)
	}
	return cfg, nil
}

// parseScenarios reads --scenario: known names, each once, or a group (`auth/*`: every
// scenario whose name begins with `auth/`); empty means the default ones.
func parseScenarios(list string) ([]string, error) {
	if list == "" {
		return probe.Scenarios, nil
	}
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		names := []string{name}
		if group, ok := strings.CutSuffix(name, "/*"); ok {
			names = nil
			for _, k := range probe.Known() {
				if strings.HasPrefix(k, group+"/") {
					names = append(names, k)
				}
			}
			if len(names) == 0 {
				return nil, usageErrorf("client: --scenario: no scenario in the group %q (known: %s)", name, knownScenarios())
			}
		}
		for _, n := range names {
			switch {
			case !slices.Contains(probe.Known(), n):
				return nil, usageErrorf("client: --scenario: unknown scenario %q (known: %s)", n, knownScenarios())
			case slices.Contains(out, n):
				return nil, usageErrorf("client: --scenario: %s given twice", n)
			}
			out = append(out, n)
		}
	}
	return out, nil
}

// knownScenarios names the scenarios for a usage error: the authorization ones as their group.
func knownScenarios() string {
	var plain []string
	for _, k := range probe.Known() {
		if !probe.IsAuth(k) {
			plain = append(plain, k)
		}
	}
	return fmt.Sprintf("%s; auth/* for the %d authorization scenarios: %s", strings.Join(plain, ", "), len(probe.AuthScenarios()), strings.Join(probe.AuthScenarios(), ", "))
}

// transportRevisions are the revisions a transport's probe serves: Streamable HTTP begins at
// 2025-03-26, the legacy HTTP+SSE transport is 2024-11-05's, and the stateless 2026-07-28 is
// served over Streamable HTTP and stdio.
func transportRevisions(transport string) []string {
	switch transport {
	case wire.HTTP:
		return []string{harness.Rev20250326, harness.Rev20250618, harness.Rev20251125, harness.Rev20260728}
	case wire.SSE:
		return []string{harness.Rev20241105}
	}
	return append(slices.Clone(harness.HandshakeRevisions), harness.Rev20260728)
}

// scenarioRun is one launch of the client: a scenario at a revision, and the checks judging it.
type scenarioRun struct {
	script probe.Script
	label  string // the revision its results carry
	checks []*clientsuite.Check
}

// plan lists the launches the selected checks need, in order.
func (cfg *clientConfig) plan() ([]scenarioRun, error) {
	all, err := clientsuite.Checks()
	if err != nil {
		return nil, err
	}
	var revs []string
	for _, r := range cfg.revisions {
		if slices.Contains(transportRevisions(cfg.transport), r) {
			revs = append(revs, r)
		}
	}
	var runs []scenarioRun
	for _, scenario := range cfg.scenarios {
		if probe.IsAuth(scenario) && cfg.transport != wire.HTTP {
			continue // authorization is Streamable HTTP's alone (AUTH-STDIO)
		}
		for _, rev := range revs {
			if !probe.ServesAt(scenario, rev) {
				continue
			}
			sr := scenarioRun{script: probe.Script{Scenario: scenario, Revision: rev, AnswerWait: cfg.timeouts.Request}, label: rev}
			var riders []*clientsuite.Check
			for _, c := range all {
				if !c.Judges(scenario) || !c.AppliesTo(rev, cfg.transport) {
					continue
				}
				if c.Once && rev != newestApplicable(c, revs, cfg.transport) {
					continue
				}
				if !cfg.focus.MatchString(fmt.Sprintf("%s (%s, %s)", c.Title(), rev, cfg.transport)) {
					continue
				}
				if c.Rides && scenario != c.Scenario {
					riders = append(riders, c)
					continue
				}
				sr.checks = append(sr.checks, c)
			}
			if len(sr.checks) > 0 {
				sr.checks = append(sr.checks, riders...)
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

func executeClient(cfg *clientConfig, stdout, stderr io.Writer) (int, error) {
	started := time.Now()
	run := &reports.Run{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpspec", Version: version},
		Target: reports.Target{Name: cfg.name, Kind: reports.KindClient, Transports: []string{cfg.transport},
			Description: "client (" + cfg.transport + "): " + strings.Join(cfg.argv, " ")},
		StartedAt: started,
		Revisions: cfg.revisions,
		Strict:    cfg.run.strict,
	}
	runs, err := cfg.plan()
	if err != nil {
		return finish(&cfg.run, run, stdout, stderr, err)
	}
	val := schema.New()
	for _, sr := range runs {
		out := launchClient(cfg, sr.script)
		// Whatever the authorization scenario minted or saw is redacted from every report.
		cfg.run.secrets = append(cfg.run.secrets, out.secrets...)
		if out.clientInfo != nil && run.Target.ServerInfo == nil {
			run.Target.ServerInfo = out.clientInfo
		}
		if out.err != "" {
			run.Errors = append(run.Errors, fmt.Sprintf("%s at %s: %s", sr.script.Scenario, sr.label, out.err))
		}
		view := clientsuite.NewView(sr.script.Scenario, sr.label, cfg.transport, sr.script.Offered(), out.records, val)
		for _, c := range sr.checks {
			run.Results = append(run.Results, clientResult(c, sr.label, cfg.transport, view, out))
		}
	}
	if cfg.run.base != nil {
		run.Results = cfg.run.base.Apply(run.Results)
	}
	run.DurationMs = time.Since(started).Milliseconds()
	if cfg.run.writeBase != "" {
		if err := reports.WriteBaseline(cfg.run.writeBase, run.Results); err != nil {
			run.Errors = append(run.Errors, fmt.Sprintf("write baseline: %v", err))
		}
	}
	return finish(&cfg.run, run, stdout, stderr, nil)
}

// clientResult judges one check on one launch's recording.
func clientResult(c *clientsuite.Check, revision, transport string, view *clientsuite.View, out launchOutcome) reports.Result {
	e, _ := catalog.Lookup(c.ID)
	res := reports.Result{ID: c.ID, Title: c.Title(), Area: c.Area(), Level: c.Level, Version: revision, Transport: transport,
		SpecURL: e.SpecURL(revision), Evidence: evidence(view.Records, out.stderr)}
	start := time.Now()
	if !out.connected {
		res.Status, res.Message = reports.Error, "the client never reached the probe: "+out.err
		return res
	}
	f := c.Judge(view)
	res.DurationMs = time.Since(start).Milliseconds() + out.durationMs
	res.Message = f.Message
	switch f.Outcome {
	case clientsuite.Pass:
		res.Status = reports.Pass
	case clientsuite.NotApplicable:
		res.Status = reports.NA
	case clientsuite.Untestable:
		res.Status = reports.Untestable
	case clientsuite.Violation:
		res.Status = reports.Fail
		if c.Level == "SHOULD" {
			res.Status = reports.Warn
		}
	}
	return res
}

// maxEvidence bounds the exchanges one result keeps, as for server checks.
const maxEvidence = 200

func evidence(recs []probe.Record, stderr string) []reports.Exchange {
	var out []reports.Exchange
	for _, r := range recs {
		if len(out) == maxEvidence-1 {
			out = append(out, reports.Exchange{Seq: r.Seq, AtMs: r.AtMs, Direction: probe.Note, Channel: "probe", Body: fmt.Sprintf("… %d more records", len(recs)-len(out))})
			break
		}
		out = append(out, reports.Exchange{Seq: r.Seq, AtMs: r.AtMs, Direction: r.Dir, Channel: r.Channel, Meta: r.Meta(), Body: r.Body})
	}
	if stderr != "" {
		out = append(out, reports.Exchange{Seq: len(recs) + 1, Direction: probe.Note, Channel: "stderr", Meta: "the client's stderr (tail)", Body: stderr})
	}
	return out
}

// launchOutcome is what one launch of the client came to.
type launchOutcome struct {
	records    []probe.Record
	connected  bool   // the client's first message reached the probe
	err        string // a harness-level problem: never connected, hung, crashed; "" if none
	stderr     string
	clientInfo map[string]any
	durationMs int64
	secrets    []string // an authorization scenario's tokens, codes, client secrets, verifiers
}

// launchClient serves one scenario and runs the client against it until it exits, or until a
// named timeout ends it. The client's process group is killed in any case.
func launchClient(cfg *clientConfig, script probe.Script) launchOutcome {
	start := time.Now()
	rec := probe.NewRecorder(nil)
	var target, placeholder string
	var stopProbe func()
	var authContext map[string]any
	secrets := func() []string { return nil }
	switch cfg.transport {
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
			shellQuote(cfg.self), col.Addr(), token, script.Scenario, script.Revision, script.AnswerWait, shellQuote(dir))
		if err := os.WriteFile(target, []byte(script), 0o755); err != nil {
			col.Close(0)
			return launchOutcome{err: fmt.Sprintf("probe script: %v", err)}
		}
		placeholder = "{server}"
		stopProbe = func() { col.Close(cfg.timeouts.Shutdown) }
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
		authContext, secrets = srv.AuthContext(), srv.Secrets
	}
	argv := withTarget(cfg.argv, placeholder, target)
	env := append([]string{envScenario + "=" + script.Scenario, envContext + "=" + scenarioContext(script, authContext)}, cfg.env...)
	proc, err := stdio.Start(stdio.Command{Argv: argv, Env: env, Dir: cfg.dir}, false)
	if err != nil {
		stopProbe()
		return launchOutcome{err: fmt.Sprintf("launch the client: %v", err), secrets: secrets()}
	}
	problem := awaitClient(proc, rec, cfg.timeouts)
	proc.Stop(cfg.timeouts.Shutdown) // the group: a probe the client launched goes too
	stopProbe()
	out := launchOutcome{records: rec.Records(), stderr: proc.StderrTail(), durationMs: time.Since(start).Milliseconds(), secrets: secrets()}
	out.connected = len(out.records) > 0
	out.clientInfo = clientInfo(out.records)
	switch {
	case problem != "":
		out.err = problem
	case !out.connected:
		out.err = fmt.Sprintf("it exited (%v) without sending the probe anything", proc.ExitErr())
	case (script.Scenario == probe.ScenarioTools || script.Scenario == probe.ScenarioInitialize) && proceeded(out.records) && !exitedZero(proc):
		// A client that leaves a revision it does not speak may exit with an error; one that
		// went on through the scenario should finish cleanly.
		out.err = fmt.Sprintf("the client crashed or failed (%v)", proc.ExitErr())
	}
	if out.err != "" && out.stderr != "" {
		out.err += "; its stderr ends: " + stderrTail(out.stderr, 400)
	}
	return out
}

// awaitClient waits until the client exits, or a bound passes: Startup until its first message,
// then Idle without a new record. It returns why it stopped waiting early, "" when it exited.
func awaitClient(proc *stdio.Process, rec *probe.Recorder, t clientTimeouts) string {
	timer := time.NewTimer(t.Startup)
	defer timer.Stop()
	connected := false
	for {
		select {
		case <-proc.Done():
			return ""
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

func exitedZero(p *stdio.Process) bool {
	err := p.ExitErr()
	return err != nil && err.Error() == "exit status 0"
}

// proceeded reports whether the client sent more than its initialize.
func proceeded(recs []probe.Record) bool {
	v := clientsuite.NewView("", "", "", "", recs, nil)
	return v.Proceeded()
}

// clientInfo is the clientInfo of the client's initialize, or at the stateless revision of its
// first request's _meta, for the report's target line.
func clientInfo(recs []probe.Record) map[string]any {
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

// scenarioContext is MCP_CONFORMANCE_CONTEXT: the scenario's data, and in an authorization
// scenario that pre-registers the client its client_id and client_secret (auth).
func scenarioContext(s probe.Script, auth map[string]any) string {
	ctx := map[string]any{"scenario": s.Scenario, "protocolVersion": s.Offered(), "tools": s.ContextTools()}
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

func stderrTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}
