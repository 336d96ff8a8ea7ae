package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refauthserver"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/assuite"
	"github.com/mcpspec/mcpspec/suites/engine"
)

// authServerConfig is everything `mcpspec authserver` was asked to do.
type authServerConfig struct {
	run  runConfig // out, strict, color, baseline, write-baseline: as `run`
	plan assuite.Plan
	name string
}

func cmdAuthServer(args []string, stdout, stderr io.Writer) (int, error) {
	cfg, err := parseAuthServer(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return reports.ExitOK, nil
		}
		return reports.ExitUsage, err
	}
	return executeAuthServer(cfg, stdout, stderr)
}

func parseAuthServer(args []string, stdout io.Writer) (*authServerConfig, error) {
	fs := flag.NewFlagSet("authserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		versions = fs.String("versions", "all", "MCP revisions whose wording to judge by: `LIST` (comma-separated) or all (the checks begin at 2025-03-26)")
		focus    = fs.String("focus", "", "run only checks whose title matches `REGEX` (titles begin with the requirement ID)")
		resource = fs.String("resource", "", "the protected resource `URL` (an MCP server's canonical URI) to ask tokens for (RFC 8707); without it AS-RESOURCE-AUDIENCE is untestable")
		remote   = fs.Bool("allow-remote", false, "let the checks reach an authorization server that is not on loopback")
		timeout  = fs.Duration("timeout-request", assuite.DefaultTimeout, "bound on each HTTP exchange with the authorization server")
		clientID = fs.String("client-id", "", "drive the flows with the client `ID` registered beforehand (with --redirect-uri) instead of registering one")
		secret   = fs.String("client-secret", "", "with --client-id: its `SECRET` (sent with HTTP Basic); without it the client is public")
		redirect = fs.String("redirect-uri", "", "with --client-id: a redirect `URI` it registered (loopback, as a native client's; never connected to)")
		name     = fs.String("name", "", "record `NAME` as the target's name in results.json (letters, digits, '.', '_', '-')")
		outputs  = addOutputFlags(fs, "each check's verdict as it is judged, and in the summary every message in full")
	)
	onlyOnce(fs, "name", "resource", "client-id", "client-secret", "redirect-uri")
	if err := parseFlags(fs, args, "mcpspec authserver [flags] ISSUER-URL", stdout); err != nil {
		return nil, err
	}
	if err := checkGiven(fs); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		return nil, usageErrorf("authserver: want one argument after the flags, the authorization server's issuer URL (got %q)", fs.Args())
	}
	issuer := fs.Arg(0)
	if err := checkHTTPURL(issuer); err != nil {
		return nil, usageErrorf("authserver: issuer %q: %v", issuer, err)
	}
	if !*remote && !assuite.IsLoopbackURL(issuer) {
		return nil, usageErrorf("authserver: issuer %q is not on loopback: add --allow-remote to test it", issuer)
	}
	if *resource != "" {
		if err := checkHTTPURL(*resource); err != nil {
			return nil, usageErrorf("authserver: --resource %q: %v", *resource, err)
		}
	}
	if (*secret != "" || *redirect != "") && *clientID == "" {
		return nil, usageErrorf("authserver: --client-secret and --redirect-uri go with --client-id")
	}
	if *clientID != "" {
		if err := checkHTTPURL(*redirect); err != nil {
			return nil, usageErrorf("authserver: --client-id needs --redirect-uri, a redirect URI the client registered: %q: %v", *redirect, err)
		}
	}
	if *timeout <= 0 {
		return nil, usageErrorf("authserver: --timeout-request must be positive, got %s", *timeout)
	}
	if *name != "" && !targetNamePattern().MatchString(*name) {
		return nil, usageErrorf("authserver: --name %q: use letters, digits, '.', '_' and '-', beginning with a letter or digit", *name)
	}
	revs, err := parseVersions(*versions)
	if err != nil {
		return nil, usageErrorf("authserver: %s", strings.TrimPrefix(err.Error(), "run: "))
	}
	// Only the revisions some check judges by: 2024-11-05 has no authorization.
	revs = slices.DeleteFunc(revs, func(r string) bool { return r < harness.Rev20250326 })
	if len(revs) == 0 {
		return nil, usageErrorf("authserver: --versions %s: the authorization-server checks begin at %s", *versions, harness.Rev20250326)
	}
	cfg := &authServerConfig{name: *name, plan: assuite.Plan{Issuer: issuer, Resource: *resource, AllowRemote: *remote, Revisions: revs, Timeout: *timeout}}
	if *clientID != "" {
		cfg.plan.Client = &assuite.Client{ID: *clientID, Secret: *secret, RedirectURI: *redirect}
		if *secret != "" {
			cfg.run.secrets = append(cfg.run.secrets, *secret)
		}
	}
	if *focus != "" {
		re, err := regexp.Compile(*focus)
		if err != nil {
			return nil, usageErrorf("authserver: --focus: %v", err)
		}
		cfg.plan.Focus = re.MatchString
	}
	if err := outputs.apply("authserver", &cfg.run, stdout); err != nil {
		return nil, err
	}
	cfg.plan.Labels = engine.LabelFilter(cfg.run.labels)
	return cfg, nil
}

func executeAuthServer(cfg *authServerConfig, stdout, stderr io.Writer) (int, error) {
	started := time.Now()
	run := &reports.Run{
		SchemaVersion: reports.SchemaVersion,
		Tool:          reports.Tool{Name: "mcpspec", Version: version},
		Target: reports.Target{Name: cfg.name, Kind: reports.KindAuthServer, Transports: []string{"http"},
			Description: "authorization server: " + cfg.plan.Issuer},
		StartedAt: started,
		Revisions: cfg.plan.Revisions,
		Strict:    cfg.run.strict,
	}
	archive, err := openTranscript(&cfg.run)
	if err != nil {
		return reports.ExitUsage, usageErrorf("authserver: --transcript %q: %v", cfg.run.transcriptDir, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, runErr := runAuthServerChecks(ctx, &cfg.run, cfg.plan, stdout)
	run.Results = out.Results
	if cfg.run.base != nil {
		run.Results = cfg.run.base.Apply(run.Results)
	}
	if err := writeTranscript(archive, out); err != nil {
		run.Errors = append(run.Errors, fmt.Sprintf("--transcript: %v", err))
	}
	run.DurationMs = time.Since(started).Milliseconds()
	if cfg.run.writeBase != "" {
		if err := reports.WriteBaseline(cfg.run.writeBase, run.Results); err != nil {
			run.Errors = append(run.Errors, fmt.Sprintf("write baseline: %v", err))
		}
	}
	return finish(&cfg.run, run, stdout, stderr, runErr)
}

// runAuthServerChecks runs the authorization-server checks of plan, adds the secrets they saw
// to cfg's (so that no report holds a code or token), and prints each verdict with -v. An
// error means the authorization server could not be reached, or the run was interrupted.
func runAuthServerChecks(ctx context.Context, cfg *runConfig, plan assuite.Plan, stdout io.Writer) (assuite.Outcome, error) {
	out, err := engine.RunAuthServerChecks(ctx, plan)
	authServerJudged(cfg, out.Results, out.Secrets, stdout)
	return out, err
}

// authServerJudged takes in what the authorization-server checks found: the secrets they saw
// join cfg's, and with -v each verdict is printed.
func authServerJudged(cfg *runConfig, results []reports.Result, secrets []string, stdout io.Writer) {
	cfg.secrets = append(cfg.secrets, secrets...)
	if cfg.verbose {
		redact := reports.Redactor(cfg.secrets)
		for _, res := range results {
			msg, _, _ := strings.Cut(res.Message, "\n")
			fmt.Fprintln(stdout, redact(fmt.Sprintf("%-10s %s (%s): %s", res.Status, res.ID, res.Version, msg)))
		}
	}
}

// cmdReferenceAuthServer runs the bundled reference authorization server.
func cmdReferenceAuthServer(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reference-authserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("listen", "127.0.0.1:0", "serve at `ADDR` (its issuer is http://ADDR; port 0 picks a free one, printed on stderr)")
	allowRemote := fs.Bool("allow-remote", false, "let --listen take an address that is not loopback")
	var faults listFlag
	fs.Var(&faults, "fault", "switch on the fault `ID` (repeatable, or comma-separated): one of "+strings.Join(refAuthFaultIDs(), ", "))
	if err := parseFlags(fs, args, "mcpspec reference-authserver [--listen ADDR] [--fault ID]", stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("reference-authserver: unexpected argument %q", fs.Arg(0))
	}
	if err := checkGiven(fs); err != nil {
		return err
	}
	listen, err := loopbackAddr("reference-authserver", *addr, *allowRemote)
	if err != nil {
		return err
	}
	if _, err := refauthserver.Plan(faults); err != nil {
		return usageErrorf("%v", err)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("reference-authserver: listen on %s: %w", listen, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stderr, "mcpspec reference-authserver: issuer http://%s\n", ln.Addr())
	return refauthserver.Serve(ctx, ln, faults)
}

func refAuthFaultIDs() []string {
	var ids []string
	for _, f := range refauthserver.Faults() {
		ids = append(ids, f.ID)
	}
	return ids
}

// openTranscript opens the --transcript archive (nil without the flag); it redacts with the
// secrets known when each line is written, those the run saw among them.
func openTranscript(cfg *runConfig) (*transcript.Archive, error) {
	if cfg.transcriptDir == "" {
		return nil, nil
	}
	return transcript.NewArchive(cfg.transcriptDir, func(s string) string { return reports.Redactor(cfg.secrets)(s) })
}

// writeTranscript archives each result's exchanges, whole, as a session of its own.
func writeTranscript(archive *transcript.Archive, out assuite.Outcome) error {
	for i, r := range out.Results {
		archive.Write(r.Transport, r.ID+"@"+r.Version, out.Records[i])
	}
	return archive.Close()
}
