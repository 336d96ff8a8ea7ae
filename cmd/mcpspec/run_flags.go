package main

// The flags of `mcpspec run`, by concern: the target, the selection of checks, the limits
// (concurrency and timeouts), the options the checks read; parseRun turns them into the
// engine's plan, and runArgs (run_args.go) turns a plan back into them.

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

func parseRun(args []string, stdout io.Writer) (*serverRun, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	target := addTargetFlags(fs)
	selection := addSelectionFlags(fs)
	limits := addLimitFlags(fs)
	options := addCheckOptionFlags(fs)
	outputs := addOutputFlags(fs, "Ginkgo's full spec output, and in the summary every message in full, the untestable checks and the counts by area")
	onlyOnce(fs, targetFlagNames...)
	onlyOnce(fs, "name") // two names would leave a merged matrix guessing
	if err := parseFlags(fs, args, "mcpspec run [flags]", stdout); err != nil {
		return nil, err
	}
	if err := checkGiven(fs); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usageErrorf("run: unexpected argument %q (quote the server command: --stdio \"CMD ARGS\")", fs.Arg(0))
	}
	cfg := &serverRun{}
	for _, apply := range []func(*serverRun) error{limits.apply, selection.apply, options.apply, target.apply} {
		if err := apply(cfg); err != nil {
			return nil, err
		}
	}
	if err := outputs.apply("run", &cfg.runConfig, stdout); err != nil {
		return nil, err
	}
	cfg.plan.Labels = cfg.labels
	if cfg.jsonrpc {
		// Without a target the profile runs the bundled plain JSON-RPC server.
		if err := useJSONRPCProfile(fs, cfg); err != nil {
			return nil, err
		}
	}
	// The bundled reference is the target only when none is named: an empty one is refused above.
	if !given(fs, targetFlagNames...) && !cfg.jsonrpc {
		if err := useReference(cfg); err != nil {
			return nil, err
		}
	}
	cfg.plan.Secrets = cfg.secrets
	return cfg, nil
}

// targetFlags name the server under test and how it is launched or reached.
type targetFlags struct {
	stdio, url, sse, httpCmd, cwd, name *string
	authServer, jsonrpc                 *bool
	envs, headers                       repeatFlag
}

func addTargetFlags(fs *flag.FlagSet) *targetFlags {
	f := &targetFlags{
		stdio:      fs.String("stdio", "", "launch `CMD` (split like a shell would) and speak MCP over its stdin/stdout"),
		url:        fs.String("url", "", "the Streamable HTTP endpoint `URL` of the server"),
		sse:        fs.String("sse", "", "the legacy HTTP+SSE stream `URL` of the server (the transport of 2024-11-05)"),
		httpCmd:    fs.String("http-cmd", "", "launch `CMD` first and wait until --url (or --sse) answers"),
		cwd:        fs.String("cwd", "", "working `DIR` of launched commands"),
		name:       fs.String("name", "", "record `NAME` as the target's name in results.json (letters, digits, '.', '_', '-'), the column heading `mcpspec matrix --merge` gives it"),
		authServer: fs.Bool("authserver", false, "also test the authorization server the --url server's protected resource metadata (RFC 9728) names, as `mcpspec authserver` does (loopback only, unless --url is not on loopback itself; each exchange bounded by --timeout-request)"),
		jsonrpc:    fs.Bool("jsonrpc", false, "the JSON-RPC profile: test the JSON-RPC 2.0 layer alone, with no MCP handshake (version "+harness.RevJSONRPC+"; not with --sse or --versions; no target: the bundled plain JSON-RPC server)"),
	}
	fs.Var(&f.envs, "env", "`K=V` added to the environment of launched commands (repeatable)")
	fs.Var(&f.headers, "header", "`\"Name: value\"` sent with every HTTP request (repeatable)")
	return f
}

func (f *targetFlags) apply(cfg *serverRun) error {
	if *f.authServer && (*f.url == "" || *f.jsonrpc) {
		return usageErrorf("run: --authserver needs --url: the authorization server is found through a Streamable HTTP server's protected resource metadata")
	}
	if *f.name != "" && !targetNamePattern().MatchString(*f.name) {
		return usageErrorf("run: --name %q: use letters, digits, '.', '_' and '-', beginning with a letter or digit", *f.name)
	}
	cfg.plan.Name, cfg.plan.AuthServer, cfg.jsonrpc = *f.name, *f.authServer, *f.jsonrpc
	spec := targetSpec{stdio: *f.stdio, url: *f.url, sse: *f.sse, httpCmd: *f.httpCmd, cwd: *f.cwd, header: http.Header{}}
	for _, kv := range f.envs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usageErrorf("run: --env %q: want K=V", kv)
		}
		spec.env = append(spec.env, kv)
		if len(v) >= minSecretLen {
			cfg.secrets = append(cfg.secrets, v)
		}
	}
	for _, h := range f.headers {
		if err := checkHeaderValue("run", h); err != nil {
			return err
		}
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(strings.TrimSpace(name), " \t") {
			return usageErrorf("run: --header %q: want \"Name: value\"", h)
		}
		value = strings.TrimSpace(value)
		spec.header.Add(strings.TrimSpace(name), value)
		if len(value) >= minSecretLen {
			cfg.secrets = append(cfg.secrets, value)
		}
		// The credential of "Scheme credential" is a secret on its own too: it may appear
		// elsewhere, such as in the command that launches the server.
		if _, cred, ok := strings.Cut(value, " "); ok && strings.EqualFold(strings.TrimSpace(name), "Authorization") && len(strings.TrimSpace(cred)) >= minSecretLen {
			cfg.secrets = append(cfg.secrets, strings.TrimSpace(cred))
		}
	}
	targets, err := spec.targets()
	if err != nil {
		return err
	}
	if *f.cwd != "" {
		if st, err := os.Stat(*f.cwd); err != nil || !st.IsDir() {
			return usageErrorf("run: --cwd %q is not a directory", *f.cwd)
		}
	}
	cfg.plan.Targets, cfg.cwd, cfg.env, cfg.header = targets, spec.cwd, spec.env, spec.header
	return nil
}

// targetSpec is a server target as the flags (or a matrix config's target) spell it.
type targetSpec struct {
	stdio, url, sse, httpCmd string // each "" when not given
	cwd                      string
	env                      []string // K=V
	header                   http.Header
}

// targets are the harness targets the spec names, one per transport; a bad one is a usage error.
func (s targetSpec) targets() ([]harness.Target, error) {
	if s.httpCmd != "" && s.url == "" && s.sse == "" {
		return nil, usageErrorf("run: --http-cmd needs --url or --sse, the endpoint the launched server will answer on")
	}
	if s.httpCmd != "" && s.url != "" && s.sse != "" {
		return nil, usageErrorf("run: --http-cmd goes with one of --url and --sse, not both")
	}
	command := func(flag, line string) (stdio.Command, error) {
		argv, err := splitCommand(line)
		if err != nil || len(argv) == 0 {
			return stdio.Command{}, usageErrorf("run: --%s %q: %v", flag, line, orEmpty(err))
		}
		return stdio.Command{Argv: argv, Env: s.env, Dir: s.cwd}, nil
	}
	var out []harness.Target
	if s.stdio != "" {
		cmd, err := command("stdio", s.stdio)
		if err != nil {
			return nil, err
		}
		out = append(out, harness.Target{Transport: wire.Stdio, Command: cmd})
	}
	for _, u := range []struct{ flag, url, transport string }{{"url", s.url, wire.HTTP}, {"sse", s.sse, wire.SSE}} {
		if u.url == "" {
			continue
		}
		if err := checkHTTPURL(u.url); err != nil {
			return nil, usageErrorf("run: --%s %q: %v", u.flag, u.url, err)
		}
		t := harness.Target{Transport: u.transport, URL: u.url, Header: s.header}
		if s.httpCmd != "" {
			cmd, err := command("http-cmd", s.httpCmd)
			if err != nil {
				return nil, err
			}
			t.Command = cmd
		}
		out = append(out, t)
	}
	return out, nil
}

// selectionFlags choose the checks and revisions (--label-filter is among the output flags).
type selectionFlags struct{ versions, focus *string }

func addSelectionFlags(fs *flag.FlagSet) *selectionFlags {
	return &selectionFlags{
		versions: fs.String("versions", "all", "revisions to test: `LIST` (comma-separated) or all"),
		focus:    fs.String("focus", "", "run only specs whose title matches `REGEX` (titles begin with the requirement ID)"),
	}
}

func (f *selectionFlags) apply(cfg *serverRun) error {
	revs, err := parseVersions(*f.versions)
	if err != nil {
		return err
	}
	if _, err := regexp.Compile(*f.focus); err != nil {
		return usageErrorf("run: --focus: %v", err)
	}
	cfg.plan.Revisions, cfg.plan.Focus = revs, *f.focus
	return nil
}

// limitFlags bound the run: how much runs at once, and how long each wait may take.
type limitFlags struct {
	sessions, workers, slowParallel       *int
	tStartup, tRequest, tQuiet, tShutdown *time.Duration
}

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	d := harness.DefaultTimeouts()
	return &limitFlags{
		sessions:     fs.Int("sessions", defaultSessions, "shared sessions per revision and transport (`N`), each running its share of the checks that need no fresh server (over stdio at most 2: each is a server process of its own)"),
		workers:      fs.Int("parallel", defaultParallel, "how many checks may run at once (`N`); checks sharing a session always run one after another"),
		slowParallel: fs.Int("slow-parallel", conform.DefaultWaiting, "how many checks that mostly wait (calls of the slow tool, windows of silence) may run at once (`N`), beside --parallel (over stdio at most 8: each is a server process of its own); each has a session of its own, so the server gets up to N such sessions at once (lower it for a server that cannot take that)"),
		tStartup:     fs.Duration("timeout-startup", d.Startup, "bound on starting a server and its initialize"),
		tRequest:     fs.Duration("timeout-request", d.Request, "bound on one request's response"),
		tQuiet:       fs.Duration("timeout-quiet", d.Quiet, "quiet window after a sentinel ping when proving silence"),
		tShutdown:    fs.Duration("timeout-shutdown", d.Shutdown, "bound on each step of stopping a server"),
	}
}

// The defaults of --sessions and --parallel.
const (
	defaultSessions = 3
	defaultParallel = 16
)

func (f *limitFlags) apply(cfg *serverRun) error {
	for _, n := range []struct {
		flag string
		v    int
	}{{"sessions", *f.sessions}, {"parallel", *f.workers}, {"slow-parallel", *f.slowParallel}} {
		if n.v < 1 {
			return usageErrorf("run: --%s must be at least 1, got %d", n.flag, n.v)
		}
	}
	cfg.plan.Sessions, cfg.plan.Parallel, cfg.plan.SlowParallel = *f.sessions, *f.workers, *f.slowParallel
	cfg.plan.Timeouts = harness.Timeouts{Startup: *f.tStartup, Request: *f.tRequest, Quiet: *f.tQuiet, Shutdown: *f.tShutdown}
	if err := cfg.plan.Timeouts.Validate(); err != nil {
		return usageErrorf("run: %v", err)
	}
	return nil
}

// checkOptionFlags are what some checks read: the server's tools for them, and tokens.
type checkOptionFlags struct {
	slowTool, slowArgs, listTool, listArgs, inputTool, inputArgs, logTool, logArgs *string
	authNarrow, authForeign, authExpired                                           *string
}

func addCheckOptionFlags(fs *flag.FlagSet) *checkOptionFlags {
	return &checkOptionFlags{
		slowTool:    fs.String("slow-tool", "", "`NAME` of a tool of the server's that takes a while and reports progress (the tasks extension's checks run it as a task)"),
		slowArgs:    fs.String("slow-tool-args", "{}", "arguments of the slow tool, as a JSON object"),
		listTool:    fs.String("list-changed-tool", "", "`NAME` of a tool of the server's whose every call changes its tools (and resources, prompts) lists; the subscription and *-LISTCHANGED checks call it"),
		listArgs:    fs.String("list-changed-tool-args", "{}", "arguments of the list-changed tool, as a JSON object"),
		inputTool:   fs.String("input-tool", "", "`NAME` of a tool of the server's that asks for elicitation input (2026-07-28: answers with an InputRequiredResult; 2025-06-18 and 2025-11-25: sends elicitation/create or sampling/createMessage during the call, judged by the ELICIT-* and SAMPLING-* checks)"),
		inputArgs:   fs.String("input-tool-args", "{}", "arguments of the input tool, as a JSON object"),
		logTool:     fs.String("log-tool", "", "`NAME` of a tool of the server's that writes log messages while it runs (the checks that judge log messages)"),
		logArgs:     fs.String("log-tool-args", "{}", "arguments of the log tool, as a JSON object"),
		authNarrow:  fs.String("auth-token-narrow", "", "a valid access `TOKEN` of the server's that lacks a scope tools/call needs (AUTH-403-INSUFFICIENT-SCOPE calls the first listed tool with it); the run's own token goes in --header \"Authorization: Bearer …\""),
		authForeign: fs.String("auth-token-foreign", "", "an access `TOKEN` issued for another resource (audience), which the server must refuse (AUTH-AUDIENCE)"),
		authExpired: fs.String("auth-token-expired", "", "an access `TOKEN` the server's authorization server issued that has expired, which the server must refuse (AUTH-JWT-EXPIRED)"),
	}
}

func (f *checkOptionFlags) apply(cfg *serverRun) error {
	for _, a := range []struct{ flag, v string }{{"slow-tool-args", *f.slowArgs}, {"list-changed-tool-args", *f.listArgs},
		{"input-tool-args", *f.inputArgs}, {"log-tool-args", *f.logArgs}} {
		if !json.Valid([]byte(a.v)) || !strings.HasPrefix(strings.TrimSpace(a.v), "{") {
			return usageErrorf("run: --%s must be a JSON object, got %q", a.flag, a.v)
		}
	}
	cfg.plan.Options = conform.Options{SlowTool: *f.slowTool, SlowToolArgs: json.RawMessage(*f.slowArgs),
		ListTool: *f.listTool, ListToolArgs: json.RawMessage(*f.listArgs),
		InputTool: *f.inputTool, InputToolArgs: json.RawMessage(*f.inputArgs),
		LogTool: *f.logTool, LogToolArgs: json.RawMessage(*f.logArgs),
		AuthTokenNarrow: *f.authNarrow, AuthTokenForeign: *f.authForeign, AuthTokenExpired: *f.authExpired}
	for _, tok := range []string{*f.authNarrow, *f.authForeign, *f.authExpired} {
		if tok != "" {
			cfg.secrets = append(cfg.secrets, tok)
		}
	}
	return nil
}

// useReference makes the bundled reference server the run's target, with its tools for the
// options not given.
func useReference(cfg *serverRun) error {
	targets, err := referenceTargets()
	if err != nil {
		return err
	}
	cfg.plan.Targets, cfg.bundled = targets, true
	o := &cfg.plan.Options
	if o.SlowTool == "" {
		o.SlowTool, o.SlowToolArgs = referenceSlowTool, json.RawMessage(referenceSlowToolArgs)
	}
	if o.ListTool == "" {
		o.ListTool = referenceListTool
	}
	if o.InputTool == "" {
		o.InputTool, o.InputToolArgs = referenceInputTool, json.RawMessage(referenceInputToolArgs)
	}
	if o.LogTool == "" {
		o.LogTool, o.LogToolArgs = referenceLogTool, json.RawMessage("{}")
	}
	return nil
}
