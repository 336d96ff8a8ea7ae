package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpspec/mcpspec/fixtures/refauthserver"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/assuite"
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
	cfg.plan.Labels = labelsOf(&cfg.run)
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
	results, runErr := runAuthServerChecks(ctx, &cfg.run, cfg.plan, stdout)
	run.Results = results
	if cfg.run.base != nil {
		run.Results = cfg.run.base.Apply(run.Results)
	}
	if err := writeTranscript(archive, started, results); err != nil {
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
func runAuthServerChecks(ctx context.Context, cfg *runConfig, plan assuite.Plan, stdout io.Writer) ([]reports.Result, error) {
	out, err := assuite.Run(ctx, plan)
	cfg.secrets = append(cfg.secrets, out.Secrets...)
	if cfg.verbose {
		redact := reports.Redactor(cfg.secrets)
		for _, res := range out.Results {
			msg, _, _ := strings.Cut(res.Message, "\n")
			fmt.Fprintln(stdout, redact(fmt.Sprintf("%-10s %s (%s): %s", res.Status, res.ID, res.Version, msg)))
		}
	}
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted (%v): the unfinished checks did not run", context.Cause(ctx))
	}
	return out.Results, err
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

// followAuthServer finds the authorization server the --url server's protected resource
// metadata names (RFC 9728: the well-known URI with the endpoint's path, then the root one,
// then the resource_metadata of a 401's challenge) and runs the authorization-server checks
// on it at the revisions given, asking tokens for the metadata's resource. ranChecks says
// whether any MCP check ran: a launched server is started only for them.
func followAuthServer(cfg *runConfig, revisions []string, ranChecks bool, stdout io.Writer) ([]reports.Result, error) {
	var endpoint string
	for _, t := range cfg.conform.Targets {
		if t.Transport == "http" {
			endpoint = t.URL
			if len(t.Command.Argv) > 0 && !ranChecks {
				return nil, errors.New("--focus and --label-filter select no MCP check, so the --http-cmd server was never launched and its metadata cannot be read: keep one (such as AUTH-PRM)")
			}
		}
	}
	if len(revisions) == 0 {
		revisions = cfg.conform.Revisions
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	remote := !assuite.IsLoopbackURL(endpoint)
	issuer, resource, err := discoverAuthServer(endpoint, remote, cfg.conform.Timeouts.Request)
	if err != nil {
		if !slices.Contains(revisions, harness.Rev20250326) {
			return nil, err
		}
		// 2025-03-26 has no protected resource metadata: the authorization server's base URL
		// is the MCP server's origin. The later revisions still need the metadata.
		u, _ := neturl.Parse(endpoint)
		results, rerr := runAuthServerChecks(ctx, cfg, assuite.Plan{Issuer: u.Scheme + "://" + u.Host, Resource: endpoint,
			AllowRemote: remote, Revisions: []string{harness.Rev20250326}, Timeout: cfg.conform.Timeouts.Request, Focus: focusOf(cfg), Labels: labelsOf(cfg)}, stdout)
		if rerr == nil && slices.ContainsFunc(revisions, func(r string) bool { return r > harness.Rev20250326 }) {
			rerr = fmt.Errorf("the revisions after 2025-03-26 were not judged: %w", err)
		}
		return results, rerr
	}
	if !remote && !assuite.IsLoopbackURL(issuer) {
		return nil, fmt.Errorf("the authorization server %s is not on loopback, though the server is: test it alone with `mcpspec authserver --allow-remote %s`", issuer, issuer)
	}
	plan := assuite.Plan{Issuer: issuer, Resource: resource, AllowRemote: remote, Revisions: revisions, Timeout: cfg.conform.Timeouts.Request,
		Focus: focusOf(cfg), Labels: labelsOf(cfg)}
	return runAuthServerChecks(ctx, cfg, plan, stdout)
}

// labelsOf is --label-filter as a label filter (nil: every check).
func labelsOf(cfg *runConfig) func([]string) bool {
	if cfg.labels == "" {
		return nil
	}
	filter, _ := types.ParseLabelFilter(cfg.labels) // checked when the flags were parsed
	return filter
}

// openTranscript opens the --transcript archive (nil without the flag); it redacts with the
// secrets known when each line is written, those the run saw among them.
func openTranscript(cfg *runConfig) (*transcript.Archive, error) {
	if cfg.transcriptDir == "" {
		return nil, nil
	}
	return transcript.NewArchive(cfg.transcriptDir, func(s string) string { return reports.Redactor(cfg.secrets)(s) })
}

// writeTranscript archives each result's exchanges as a session of its own.
func writeTranscript(archive *transcript.Archive, started time.Time, results []reports.Result) error {
	for _, r := range results {
		entries := make([]transcript.Entry, len(r.Evidence))
		for i, e := range r.Evidence {
			entries[i] = transcript.Entry{Seq: e.Seq, At: started.Add(time.Duration(e.AtMs) * time.Millisecond), Dir: e.Direction, Channel: e.Channel, Meta: e.Meta, Body: e.Body}
		}
		archive.Write(r.Transport, r.ID+"@"+r.Version, entries)
	}
	return archive.Close()
}

// focusOf is run's --focus as a title filter (nil: every check).
func focusOf(cfg *runConfig) func(string) bool {
	if cfg.focus == "" {
		return nil
	}
	return regexp.MustCompile(cfg.focus).MatchString // checked when the flags were parsed
}

// discoverAuthServer reads the protected resource metadata of endpoint: the first authorization
// server it names, and its resource.
func discoverAuthServer(endpoint string, remote bool, timeout time.Duration) (issuer, resource string, err error) {
	u, err := neturl.Parse(endpoint)
	if err != nil {
		return "", "", err
	}
	hc := &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	origin := u.Scheme + "://" + u.Host
	const wk = "/.well-known/oauth-protected-resource"
	candidates := []string{origin + wk + strings.TrimSuffix(u.Path, "/"), origin + wk}
	// A 401's challenge may name the metadata elsewhere.
	if resp, err := hc.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err == nil {
		resp.Body.Close()
		if m := resourceMetadataParam().FindStringSubmatch(resp.Header.Get("WWW-Authenticate")); m != nil {
			candidates = append([]string{m[1]}, candidates...)
		}
	}
	var tried []string
	for i, c := range candidates {
		if slices.Contains(candidates[:i], c) {
			continue
		}
		if !remote && !assuite.IsLoopbackURL(c) {
			tried = append(tried, c+": not on loopback, not fetched")
			continue
		}
		resp, err := hc.Get(c)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		var doc struct {
			Resource string   `json:"resource"`
			Servers  []string `json:"authorization_servers"`
		}
		derr := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || derr != nil || len(doc.Servers) == 0 {
			tried = append(tried, fmt.Sprintf("%s: HTTP %d, no authorization_servers", c, resp.StatusCode))
			continue
		}
		if doc.Resource == "" {
			doc.Resource = endpoint
		}
		return doc.Servers[0], doc.Resource, nil
	}
	return "", "", fmt.Errorf("no protected resource metadata names an authorization server (%s)", strings.Join(tried, "; "))
}

// resourceMetadataParam finds the resource_metadata parameter of a Bearer challenge.
var resourceMetadataParam = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`resource_metadata="([^"]+)"`) })
