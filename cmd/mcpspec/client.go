package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/engine"
)

// clientConfig is everything `mcpspec client` was asked to do.
type clientConfig struct {
	run  runConfig // out, strict, color, baseline, write-baseline, secrets, outputs: as `run`
	plan engine.ClientPlan
	name string // the target's name in results.json (--name), for `mcpspec matrix --merge`
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
	d := engine.DefaultClientTimeouts()
	var (
		cmd       = fs.String("cmd", "", "launch the client under test as `CMD` (split like a shell would), once per scenario; it gets the probe's URL (or, with --stdio, the probe server's path) as its last argument or in place of {url} ({server})")
		overStdio = fs.Bool("stdio", false, "test the client over stdio: CMD gets the path of an executable that starts the probe server, and launches it itself")
		overSSE   = fs.Bool("sse", false, "test the client over the legacy HTTP+SSE transport of 2024-11-05: CMD gets the probe's SSE endpoint URL")
		cwd       = fs.String("cwd", "", "working `DIR` of the client")
		versions  = fs.String("versions", "all", "revisions to test: `LIST` (comma-separated) or all")
		focus     = fs.String("focus", "", "run only checks whose title matches `REGEX` (titles begin with the requirement ID)")
		scenarios = fs.String("scenario", "", "serve only the scenarios in `LIST` (comma-separated; a trailing /* selects a group, e.g. 'auth/*': the authorization scenarios, Streamable HTTP only, with the probe authorization server), among them those served only on request, such as the official suite's initialize and every auth/* one (default: "+strings.Join(probe.Scenarios, ",")+")")
		name      = fs.String("name", "", "record `NAME` as the client's name in results.json (letters, digits, '.', '_', '-'), the column heading `mcpspec matrix --merge` gives it")
		tStartup  = fs.Duration("timeout-startup", d.Startup, "bound on launching the client until its first message reaches the probe")
		tRequest  = fs.Duration("timeout-request", d.Request, "bound on the client's answer to a request the probe sends it (ping)")
		tIdle     = fs.Duration("timeout-idle", d.Idle, "a connected client that neither sends anything nor exits for this long is hung, and stopped")
		tShutdown = fs.Duration("timeout-shutdown", d.Shutdown, "bound on each step of stopping the client")
		tLaunch   = fs.Duration("timeout-launch", d.Launch, "bound on one launch of the client as a whole, however much it talks: a client still running then is stopped")
		workers   = fs.Int("parallel", engine.DefaultClientParallel, "how many launches of the client (scenario × revision) may run at once (`N`), each against its own probe; above 1, one whose client waits on a timer of its own (a request timeout, a retry delay) does not count while it waits (at most 3N clients are alive at once); the results are the same in the same order at any N")
		envs      repeatFlag
		outputs   = addOutputFlags(fs, "each check's verdict as it is judged, and in the summary every message in full, the untestable checks and the counts by area")
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
	if *name != "" && !targetNamePattern().MatchString(*name) {
		return nil, usageErrorf("client: --name %q: use letters, digits, '.', '_' and '-', beginning with a letter or digit", *name)
	}
	if *workers < 1 {
		return nil, usageErrorf("client: --parallel must be at least 1, got %d", *workers)
	}
	if *overStdio && *overSSE {
		return nil, usageErrorf("client: --stdio and --sse exclude each other: one transport per run")
	}
	cfg := &clientConfig{plan: engine.ClientPlan{Argv: argv, Dir: *cwd, Transport: wire.HTTP, Parallel: *workers}, name: *name}
	switch {
	case *overStdio:
		cfg.plan.Transport = wire.Stdio
	case *overSSE:
		cfg.plan.Transport = wire.SSE
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
	cfg.plan.Timeouts = engine.ClientTimeouts{Startup: *tStartup, Request: *tRequest, Idle: *tIdle, Shutdown: *tShutdown, Launch: *tLaunch}
	for name, v := range map[string]time.Duration{"startup": *tStartup, "request": *tRequest, "idle": *tIdle, "shutdown": *tShutdown, "launch": *tLaunch} {
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
	cfg.plan.Revisions = revs
	if cfg.plan.Focus, err = regexp.Compile(*focus); err != nil {
		return nil, usageErrorf("client: --focus: %v", err)
	}
	if cfg.plan.Scenarios, err = parseScenarios(*scenarios); err != nil {
		return nil, err
	}
	for _, kv := range envs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("client: --env %q: want K=V", kv)
		}
		cfg.plan.Env = append(cfg.plan.Env, kv)
		if len(v) >= minSecretLen {
			cfg.run.secrets = append(cfg.run.secrets, v)
		}
	}
	if *cwd != "" {
		if st, err := os.Stat(*cwd); err != nil || !st.IsDir() {
			return nil, usageErrorf("client: --cwd %q is not a directory", *cwd)
		}
	}
	if err := outputs.apply("client", &cfg.run, stdout); err != nil {
		return nil, err
	}
	cfg.plan.Labels = cfg.run.labels
	if cfg.plan.Self, err = os.Executable(); err != nil {
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

func executeClient(cfg *clientConfig, stdout, stderr io.Writer) (int, error) {
	started := time.Now()
	p := &cfg.plan
	run := &reports.Run{
		SchemaVersion: reports.SchemaVersion,
		Tool:          mcpspecTool(),
		Target: reports.Target{Name: cfg.name, Kind: reports.KindClient, Transports: []string{p.Transport},
			Description: "client (" + p.Transport + "): " + strings.Join(p.Argv, " ")},
		StartedAt: started,
		Revisions: p.Revisions,
		Strict:    cfg.run.strict,
	}
	// Secrets grow as authorization scenarios mint them: the archive redacts with those known
	// when each launch's lines are written.
	redact := reports.Redactor(cfg.run.secrets)
	var archive *transcript.Archive
	if cfg.run.transcriptDir != "" {
		var err error
		if archive, err = transcript.NewArchive(cfg.run.transcriptDir, func(s string) string { return redact(s) }); err != nil {
			return reports.ExitUsage, usageErrorf("client: --transcript %q: %v", cfg.run.transcriptDir, err)
		}
	}
	launches, err := p.Launches()
	if err != nil {
		return finish(&cfg.run, run, stdout, stderr, err)
	}
	// The console gets what `run` gives it: with -v each verdict as it is judged, else on a
	// terminal the progress line; the summary at the end either way.
	line := newProgress(&cfg.run, stdout)
	if line != nil {
		total := 0
		for _, l := range launches {
			total += len(l.Checks)
		}
		line.setTotal(total)
		defer line.clear()
	}
	// SIGINT and SIGTERM stop the launch under way as `run` stops its servers: the client and
	// probe are stopped, the unfinished checks become errors, and the reports are written.
	intr := engine.NewInterruption()
	_, stopWatch := watchSignals(intr.Interrupt)
	defer stopWatch()
	outcome := engine.RunClient(p, launches, engine.ClientHooks{
		Interrupt: intr,
		Launched: func(l engine.Launch, secrets []string, recording []record.Record) {
			// Whatever the authorization scenario minted or saw is redacted from every report.
			cfg.run.secrets = append(cfg.run.secrets, secrets...)
			redact = reports.Redactor(cfg.run.secrets)
			archive.Write(p.Transport, l.Session(), recording)
		},
		Result: func(res reports.Result) {
			run.Results = append(run.Results, res)
			switch {
			case line != nil:
				line.result(res)
			case cfg.run.verbose:
				msg, _, _ := strings.Cut(res.Message, "\n")
				fmt.Fprintln(stdout, redact(fmt.Sprintf("%-10s %s (%s, %s): %s", res.Status, res.ID, res.Version, res.Transport, msg)))
			}
		},
	})
	run.Target.ServerInfo = outcome.ClientInfo
	run.Errors = append(run.Errors, outcome.Errors...)
	if err := archive.Close(); err != nil {
		run.Errors = append(run.Errors, fmt.Sprintf("--transcript: %v", err))
	}
	if line != nil {
		line.clear()
	}
	run.DurationMs = time.Since(started).Milliseconds()
	return conclude(&cfg.run, run, stdout, stderr, nil)
}
