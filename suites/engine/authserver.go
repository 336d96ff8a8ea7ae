package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/assuite"
)

// followAuthServer finds the authorization server the HTTP target's protected resource
// metadata names (RFC 9728: the well-known URI with the endpoint's path, then the root one,
// then the resource_metadata of a 401's challenge) and runs the authorization-server checks
// on it at the revisions given, asking tokens for the metadata's resource. ranChecks says
// whether any MCP check ran: a launched server is started only for them. It returns the
// results and the secrets the checks saw.
func followAuthServer(p *ServerPlan, revisions []string, ranChecks bool) ([]reports.Result, []string, error) {
	var endpoint string
	for _, t := range p.Targets {
		if t.Transport == "http" {
			endpoint = t.URL
			if len(t.Command.Argv) > 0 && !ranChecks {
				return nil, nil, errors.New("--focus and --label-filter select no MCP check, so the --http-cmd server was never launched and its metadata cannot be read: keep one (such as AUTH-PRM)")
			}
		}
	}
	if len(revisions) == 0 {
		revisions = p.Revisions
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	remote := !assuite.IsLoopbackURL(endpoint)
	issuer, resource, err := discoverAuthServer(endpoint, remote, p.Timeouts.Request)
	if err != nil {
		if !slices.Contains(revisions, harness.Rev20250326) {
			return nil, nil, err
		}
		// 2025-03-26 has no protected resource metadata: the authorization server's base URL
		// is the MCP server's origin. The later revisions still need the metadata.
		u, _ := neturl.Parse(endpoint)
		out, rerr := RunAuthServerChecks(ctx, assuite.Plan{Issuer: u.Scheme + "://" + u.Host, Resource: endpoint,
			AllowRemote: remote, Revisions: []string{harness.Rev20250326}, Timeout: p.Timeouts.Request, Focus: focusFilter(p.Focus), Labels: LabelFilter(p.Labels)})
		if rerr == nil && slices.ContainsFunc(revisions, func(r string) bool { return r > harness.Rev20250326 }) {
			rerr = fmt.Errorf("the revisions after 2025-03-26 were not judged: %w", err)
		}
		return out.Results, out.Secrets, rerr
	}
	if !remote && !assuite.IsLoopbackURL(issuer) {
		return nil, nil, fmt.Errorf("the authorization server %s is not on loopback, though the server is: test it alone with `mcpspec authserver --allow-remote %s`", issuer, issuer)
	}
	out, err := RunAuthServerChecks(ctx, assuite.Plan{Issuer: issuer, Resource: resource, AllowRemote: remote, Revisions: revisions, Timeout: p.Timeouts.Request,
		Focus: focusFilter(p.Focus), Labels: LabelFilter(p.Labels)})
	return out.Results, out.Secrets, err
}

// RunAuthServerChecks runs the authorization-server checks of plan and returns their results,
// each one's records (for --transcript) and the secrets they saw (so that no report holds a
// code or token). An error means the
// authorization server could not be reached, or the run was interrupted.
func RunAuthServerChecks(ctx context.Context, plan assuite.Plan) (assuite.Outcome, error) {
	out, err := assuite.Run(ctx, plan)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted (%v): the unfinished checks did not run", context.Cause(ctx))
	}
	return out, err
}

// focusFilter is a plan's Focus as a title filter (nil: every check).
func focusFilter(focus string) func(string) bool {
	if focus == "" {
		return nil
	}
	return regexp.MustCompile(focus).MatchString // checked when the plan was made
}

// LabelFilter is a label filter as a function (nil: every check); an invalid one selects
// nothing (the commands check it when they parse it).
func LabelFilter(labels string) func([]string) bool {
	if labels == "" {
		return nil
	}
	filter, err := types.ParseLabelFilter(labels)
	if err != nil {
		return func([]string) bool { return false }
	}
	return filter
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
