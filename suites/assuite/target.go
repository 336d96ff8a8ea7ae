package assuite

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Plan is one authorization server to judge.
type Plan struct {
	// Issuer is the authorization server's issuer identifier: the URL its metadata is found
	// from and must name.
	Issuer string
	// Resource is the protected resource tokens are asked for (RFC 8707): the MCP server's
	// canonical URI; "" asks for none, and AS-RESOURCE-AUDIENCE is untestable.
	Resource string
	// AllowRemote lets the checks reach an authorization server that is not on loopback.
	AllowRemote bool
	// Revisions are the MCP revisions whose wording the checks judge by.
	Revisions []string
	// Timeout bounds each HTTP exchange with the authorization server.
	Timeout time.Duration
	// Focus selects checks by title ("" every one).
	Focus func(title string) bool
	// Labels selects checks by their labels (nil every one): the ID, the level, area:as,
	// version:REV and transport:http, as a server check's Ginkgo labels.
	Labels func(labels []string) bool
	// Client is a pre-registered client (nil: mcpspec registers its own).
	Client *Client
}

// DefaultTimeout bounds one HTTP exchange with the authorization server.
const DefaultTimeout = 10 * time.Second

// The redirect URIs of mcpspec's clients: loopback, as a native MCP client's are. Nothing
// listens there: the authorization endpoint's redirect is read, never followed.
const (
	defaultRedirectA = "http://127.0.0.1:33418/mcpspec-callback"
	defaultRedirectB = "http://127.0.0.1:33418/mcpspec-callback-other"
)

// Client is a client registered beforehand at the authorization server (Plan.Client): the
// flows use it rather than registering one. Secret "" makes it a public client; with a secret
// it authenticates with HTTP Basic (client_secret_basic).
type Client struct {
	ID, Secret string
	// RedirectURI is one it registered; the checks that need a second one use it with
	// "-other" appended, which the client did not register.
	RedirectURI string
}

// redirectA is the redirect URI of every authorization request; redirectB another one.
func (t *T) redirectA() string {
	if c := t.tg.plan.Client; c != nil {
		return c.RedirectURI
	}
	return defaultRedirectA
}

func (t *T) redirectB() string {
	if c := t.tg.plan.Client; c != nil {
		return c.RedirectURI + "-other"
	}
	return defaultRedirectB
}

// target is the state the checks of one run share: the metadata fetched and the clients
// registered, so that each is asked for once.
type target struct {
	plan   Plan
	hc     *http.Client
	mu     sync.Mutex
	fetch  map[string]*fetched
	secret []string
	ctl    *control
	// docs serves the Client ID Metadata Documents of the clients mcpspec names by URL, on
	// loopback, started on first use.
	docs     *http.Server
	docsBase string
	docsN    int
	// dead is the first failure to get any answer: the server hung or went away, and every
	// later exchange fails at once with it, so that a hung server costs one timeout, not one
	// per exchange.
	dead error
}

// fetched is one GET of a metadata URL, kept with its evidence.
type fetched struct {
	url      string
	status   int
	doc      map[string]any
	err      error
	evidence []record.Record
}

// control is a whole correct authorization-code flow: the refusal checks judge only a server
// that serves it. failed is nil when it did.
type control struct {
	failed *Finding
}

// T is one check at one revision.
type T struct {
	Revision string
	tg       *target
	ctx      context.Context
	evidence []record.Record
	start    time.Time
}

// ErrUnreachable: no metadata URL of the issuer could be reached at all.
var ErrUnreachable = errors.New("the authorization server cannot be reached")

// loopbackOnly refuses to dial anything but loopback addresses.
func loopbackOnly(allow bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if allow {
			return d.DialContext(ctx, network, addr)
		}
		ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, err
		}
		for _, ip := range ips {
			if !ip.IP.IsLoopback() {
				return nil, fmt.Errorf("%s: %w", host, errOffLoopback)
			}
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("%s: no address", host)
		}
		// The address checked is the one dialled: a second lookup could answer otherwise.
		return d.DialContext(ctx, network, net.JoinHostPort(ips[0].IP.String(), port))
	}
}

// errOffLoopback is mcpspec's own refusal to dial a host off loopback: the server is not at
// fault, and later exchanges with loopback hosts may go on.
var errOffLoopback = errors.New("not a loopback address: add --allow-remote to reach it")

func refusedDial(err error) bool { return errors.Is(err, errOffLoopback) }

// IsLoopbackURL reports whether u names a loopback host.
func IsLoopbackURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := p.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func newTarget(p Plan) *target {
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	hc := &http.Client{
		Transport:     &http.Transport{DialContext: loopbackOnly(p.AllowRemote), Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       p.Timeout,
	}
	tg := &target{plan: p, hc: hc, fetch: map[string]*fetched{}}
	if p.Client != nil {
		tg.addSecret(p.Client.Secret)
	}
	return tg
}

func (tg *target) addSecret(s string) {
	if s == "" {
		return
	}
	tg.mu.Lock()
	tg.secret = append(tg.secret, s)
	tg.mu.Unlock()
}

// exchange sends req and records both sides; the answer's body is read whole (bounded).
func (t *T) exchange(req *http.Request, sent string) (*http.Response, []byte, error) {
	t.note(record.Send, fmt.Sprintf("%s %s", req.Method, req.URL), sent)
	t.tg.mu.Lock()
	dead := t.tg.dead
	t.tg.mu.Unlock()
	if dead != nil {
		err := fmt.Errorf("not sent: an earlier exchange got no answer (%w)", dead)
		t.note(record.Note, "", err.Error())
		return nil, nil, err
	}
	resp, err := t.tg.hc.Do(req.WithContext(t.ctx))
	if err != nil {
		t.note(record.Note, "", "no answer: "+err.Error())
		if !refusedDial(err) {
			t.tg.mu.Lock()
			if t.tg.dead == nil {
				t.tg.dead = err
			}
			t.tg.mu.Unlock()
		}
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	meta := fmt.Sprintf("HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	if loc := resp.Header.Get("Location"); loc != "" {
		meta += "; Location: " + loc
	}
	t.note(record.Recv, meta, string(body))
	return resp, body, err
}

func (t *T) note(dir, meta, body string) {
	t.evidence = append(t.evidence, record.Record{Seq: len(t.evidence) + 1, At: time.Now(),
		Dir: dir, Channel: record.ChanHTTP, Meta: meta, Body: transcript.ClipBody(body)})
}

// metadataURLs are the well-known URIs a client of revision tries for the issuer, in order:
// RFC 8414's alone until 2025-11-25, then OpenID Connect Discovery's too (path insertion, then
// appending, for an issuer with a path).
func metadataURLs(issuer, revision string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.Path, "/")
	const oauth, oidc = "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"
	if revision < harness.Rev20251125 {
		return []string{origin + oauth + path}
	}
	if path == "" {
		return []string{origin + oauth, origin + oidc}
	}
	return []string{origin + oauth + path, origin + oidc + path, origin + path + oidc}
}

// get fetches one metadata URL once per run.
func (t *T) get(u string) *fetched {
	t.tg.mu.Lock()
	f, ok := t.tg.fetch[u]
	t.tg.mu.Unlock()
	if ok {
		t.evidence = append(t.evidence, f.evidence...)
		return f
	}
	mark := len(t.evidence)
	f = &fetched{url: u}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err == nil {
		req.Header.Set("Accept", "application/json")
		var resp *http.Response
		var body []byte
		if resp, body, err = t.exchange(req, ""); err == nil {
			f.status = resp.StatusCode
			if resp.StatusCode == http.StatusOK {
				if jerr := json.Unmarshal(body, &f.doc); jerr != nil || f.doc == nil {
					f.doc = nil
				}
			}
		}
	}
	f.err = err
	f.evidence = append([]record.Record(nil), t.evidence[mark:]...)
	t.tg.mu.Lock()
	t.tg.fetch[u] = f
	t.tg.mu.Unlock()
	return f
}

// metadata is the document found at the revision's well-known URIs (nil none) and where.
func (t *T) metadata() (map[string]any, string, []*fetched) {
	var tried []*fetched
	for _, u := range metadataURLs(t.tg.plan.Issuer, t.Revision) {
		f := t.get(u)
		tried = append(tried, f)
		if f.doc != nil {
			return f.doc, u, tried
		}
	}
	return nil, "", tried
}

// endpoints are the authorization server's authorization, token and registration endpoints:
// the metadata's, or, at 2025-03-26 without metadata, the defaults at the issuer's origin.
type endpoints struct {
	authorize, token, register string
	meta                       map[string]any
}

func (t *T) endpoints() (*endpoints, *Finding) {
	m, _, _ := t.metadata()
	if m == nil {
		if t.Revision == harness.Rev20250326 {
			u, _ := url.Parse(t.tg.plan.Issuer)
			o := u.Scheme + "://" + u.Host
			return &endpoints{authorize: o + "/authorize", token: o + "/token", register: o + "/register"}, nil
		}
		f := untestable("no authorization server metadata at the well-known URIs (AS-METADATA): the endpoints are unknown")
		return nil, &f
	}
	e := &endpoints{authorize: str(m, "authorization_endpoint"), token: str(m, "token_endpoint"), register: str(m, "registration_endpoint"), meta: m}
	for _, u := range []string{e.authorize, e.token} {
		if p, err := url.Parse(u); err != nil || !p.IsAbs() {
			f := untestable("the metadata's authorization_endpoint %q and token_endpoint %q are not both absolute URLs (AS-METADATA-ENDPOINTS)", e.authorize, e.token)
			return nil, &f
		}
	}
	return e, nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func strs(m map[string]any, k string) []string {
	var out []string
	if xs, ok := m[k].([]any); ok {
		for _, x := range xs {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// client is one client mcpspec registered.
type client struct {
	id, secret, method string
}

// client is the client of a flow: the pre-registered one, or a new one.
func (t *T) client(e *endpoints) (*client, *Finding) {
	if c := t.tg.plan.Client; c != nil {
		method := "none"
		if c.Secret != "" {
			method = "client_secret_basic"
		}
		return &client{id: c.ID, secret: c.Secret, method: method}, nil
	}
	return t.newClient(e)
}

// newClient registers a public client with both redirect URIs (RFC 7591), or, where the
// server offers no registration but takes Client ID Metadata Documents, names one by the URL
// of a document mcpspec serves on loopback.
func (t *T) newClient(e *endpoints) (*client, *Finding) {
	if e.register == "" {
		if cimd, _ := e.meta["client_id_metadata_document_supported"].(bool); cimd && IsLoopbackURL(t.tg.plan.Issuer) {
			return t.documentClient()
		}
		f := untestable("the authorization server offers no registration_endpoint (nor, on loopback, Client ID Metadata Documents), so mcpspec has no client to drive a flow with; give it one registered beforehand (--client-id)")
		return nil, &f
	}
	return t.registerDCR(e)
}

// registerDCR registers a public client with both redirect URIs at the registration endpoint.
func (t *T) registerDCR(e *endpoints) (*client, *Finding) {
	body := mustJSON(map[string]any{"client_name": "mcpspec", "redirect_uris": []string{t.redirectA(), t.redirectB()},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code"}, "response_types": []string{"code"}})
	req, _ := http.NewRequest(http.MethodPost, e.register, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	resp, rb, err := t.exchange(req, string(body))
	if err != nil {
		f := broken("registration at %s: %v", e.register, err)
		return nil, &f
	}
	var doc map[string]any
	_ = json.Unmarshal(rb, &doc)
	if resp.StatusCode/100 != 2 || str(doc, "client_id") == "" {
		f := untestable("the registration of a public client with loopback redirect URIs was refused (HTTP %d): %s", resp.StatusCode, clip(string(rb)))
		return nil, &f
	}
	c := &client{id: str(doc, "client_id"), secret: str(doc, "client_secret"), method: str(doc, "token_endpoint_auth_method")}
	if c.method == "" {
		c.method = "none"
		if c.secret != "" {
			c.method = "client_secret_basic"
		}
	}
	t.tg.addSecret(c.secret)
	return c, nil
}

// documentClient is a public client whose client_id is the URL of its Client ID Metadata
// Document, served by mcpspec on loopback (only an authorization server on the same machine
// can fetch it; one that wants HTTPS client_ids refuses it, and the flow is untestable).
func (t *T) documentClient() (*client, *Finding) {
	tg := t.tg
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if tg.docs == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			f := broken("serve Client ID Metadata Documents: %v", err)
			return nil, &f
		}
		tg.docsBase = "http://" + ln.Addr().String()
		base := tg.docsBase
		redirects := []string{t.redirectA(), t.redirectB()}
		tg.docs = &http.Server{ReadHeaderTimeout: tg.plan.Timeout, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(mustJSON(map[string]any{"client_id": base + r.URL.Path, "client_name": "mcpspec",
				"redirect_uris": redirects, "grant_types": []string{"authorization_code"},
				"response_types": []string{"code"}, "token_endpoint_auth_method": "none"}))
		})}
		go func() { _ = tg.docs.Serve(ln) }()
	}
	tg.docsN++
	c := &client{id: fmt.Sprintf("%s/mcpspec-client-%d.json", tg.docsBase, tg.docsN), method: "none"}
	t.note(record.Note, "", "client_id "+c.id+": a Client ID Metadata Document mcpspec serves (the authorization server offers no registration_endpoint)")
	return c, nil
}

// close stops what the run started.
func (tg *target) close() {
	tg.hc.CloseIdleConnections()
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if tg.docs != nil {
		_ = tg.docs.Close()
	}
}

// grant is an authorization response: its code and what it was asked with.
type grant struct {
	code, verifier, challenge, redirect string
	iss                                 string
	hasISS                              bool
}

func randomVerifier() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// authorize makes an authorization request with PKCE S256 and reads the code from the
// redirect. An endpoint that answers with a page (a person must log in or consent) makes the
// calling check untestable: mcpspec drives no browser.
func (t *T) authorize(e *endpoints, c *client, redirect string) (*grant, *Finding) {
	g := &grant{verifier: randomVerifier(), redirect: redirect}
	g.challenge = s256(g.verifier)
	t.tg.addSecret(g.verifier)
	state := randomVerifier()[:16]
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {redirect},
		"code_challenge": {g.challenge}, "code_challenge_method": {"S256"}, "state": {state}}
	if r := t.tg.plan.Resource; r != "" {
		q.Set("resource", r)
	}
	u, err := url.Parse(e.authorize)
	if err != nil {
		f := broken("authorization_endpoint %q: %v", e.authorize, err)
		return nil, &f
	}
	extra := u.Query()
	for k, v := range q {
		extra[k] = v
	}
	u.RawQuery = extra.Encode()
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	resp, body, err := t.exchange(req, "")
	if err != nil {
		f := broken("authorization request: %v", err)
		return nil, &f
	}
	loc := resp.Header.Get("Location")
	back, perr := url.Parse(loc)
	if resp.StatusCode/100 != 3 || loc == "" || perr != nil || !strings.HasPrefix(loc, redirect) {
		f := untestable("the authorization endpoint did not redirect to the client at once (HTTP %d%s): a login or consent page needs a person, and mcpspec drives an authorization server only where it redirects without user interaction; %s",
			resp.StatusCode, map[bool]string{true: ", Location " + loc, false: ""}[loc != ""], clip(string(body)))
		return nil, &f
	}
	bq := back.Query()
	if bq.Get("code") == "" {
		f := untestable("the authorization request was answered without a code (error %q: %s)", bq.Get("error"), bq.Get("error_description"))
		return nil, &f
	}
	g.code = bq.Get("code")
	t.tg.addSecret(g.code)
	g.iss, g.hasISS = bq.Get("iss"), bq.Has("iss")
	return g, nil
}

// tokenAnswer is a token endpoint's answer.
type tokenAnswer struct {
	status int
	doc    map[string]any
	body   string
}

// issued reports whether the answer carries an access token.
func (a tokenAnswer) issued() bool { return a.status/100 == 2 && str(a.doc, "access_token") != "" }

func (a tokenAnswer) String() string {
	if e := str(a.doc, "error"); e != "" {
		return fmt.Sprintf("HTTP %d, error %s", a.status, e)
	}
	if a.issued() {
		return fmt.Sprintf("HTTP %d with an access token", a.status)
	}
	return fmt.Sprintf("HTTP %d: %s", a.status, clip(a.body))
}

// redeem sends the token request for g's code as client c; verifier "-" sends none.
func (t *T) redeem(e *endpoints, c *client, g *grant, redirect, verifier string) (tokenAnswer, *Finding) {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {g.code}, "redirect_uri": {redirect}}
	if verifier != "-" {
		form.Set("code_verifier", verifier)
	}
	if r := t.tg.plan.Resource; r != "" {
		form.Set("resource", r)
	}
	basic := c.method == "client_secret_basic"
	if !basic {
		form.Set("client_id", c.id)
	}
	if c.method == "client_secret_post" {
		form.Set("client_secret", c.secret)
	}
	req, _ := http.NewRequest(http.MethodPost, e.token, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
	}
	resp, body, err := t.exchange(req, form.Encode())
	if err != nil {
		f := broken("token request: %v", err)
		return tokenAnswer{}, &f
	}
	a := tokenAnswer{status: resp.StatusCode, body: string(body)}
	_ = json.Unmarshal(body, &a.doc)
	t.tg.addSecret(str(a.doc, "access_token"))
	t.tg.addSecret(str(a.doc, "refresh_token"))
	return a, nil
}

// flow is the common start of the flow checks: endpoints, a client, a code asked with
// redirectA.
func (t *T) flow() (*endpoints, *client, *grant, *Finding) {
	e, f := t.endpoints()
	if f != nil {
		return nil, nil, nil, f
	}
	c, f := t.client(e)
	if f != nil {
		return nil, nil, nil, f
	}
	g, f := t.authorize(e, c, t.redirectA())
	if f != nil {
		return nil, nil, nil, f
	}
	return e, c, g, nil
}

// served makes sure a correct flow yields a token, once per run: a token endpoint that
// refuses everything would pass every refusal check.
func (t *T) served() *Finding {
	t.tg.mu.Lock()
	ctl := t.tg.ctl
	t.tg.mu.Unlock()
	if ctl == nil {
		ctl = &control{}
		e, c, g, f := t.flow()
		if f == nil {
			var a tokenAnswer
			if a, f = t.redeem(e, c, g, t.redirectA(), g.verifier); f == nil && !a.issued() {
				u := untestable("a correct token request (the right code, client, redirect_uri and code_verifier) was refused too: %s", a)
				f = &u
			}
		}
		ctl.failed = f
		t.tg.mu.Lock()
		t.tg.ctl = ctl
		t.tg.mu.Unlock()
	}
	return ctl.failed
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// Outcome is what a run of the checks produced.
type Outcome struct {
	Results []reports.Result
	// Records are each result's exchanges, whole, in the order of Results (for --transcript).
	Records [][]record.Record
	// Secrets are every code, verifier, token and client secret the run saw: none may reach a
	// report.
	Secrets []string
}

// Run runs every selected check at every revision it applies to, in the catalogue's order.
// It fails only when the authorization server cannot be reached at all.
func Run(ctx context.Context, p Plan) (Outcome, error) {
	all, err := Checks()
	if err != nil {
		return Outcome{}, err
	}
	tg := newTarget(p)
	defer tg.close()
	if err := tg.reachable(ctx); err != nil {
		return Outcome{Secrets: tg.secret}, err
	}
	var out Outcome
	for _, c := range all {
		for _, rev := range p.Revisions {
			labels := []string{c.ID, c.LevelAt(rev), "area:" + c.Area(), "version:" + rev, "transport:http"}
			if !slices.Contains(c.Versions, rev) || (p.Focus != nil && !p.Focus(Title(c, rev))) || (p.Labels != nil && !p.Labels(labels)) {
				continue
			}
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			res, recs := tg.runOne(ctx, c, rev)
			out.Results = append(out.Results, res)
			out.Records = append(out.Records, recs)
		}
	}
	out.Secrets = tg.secret
	return out, nil
}

// reachable answers whether anything answers at the issuer's origin.
func (tg *target) reachable(ctx context.Context) error {
	u, err := url.Parse(tg.plan.Issuer)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("issuer %q is not an absolute URL", tg.plan.Issuer)
	}
	if !tg.plan.AllowRemote && !IsLoopbackURL(tg.plan.Issuer) {
		return fmt.Errorf("%w: %s is not on loopback (add --allow-remote to test it)", ErrUnreachable, tg.plan.Issuer)
	}
	urls := metadataURLs(tg.plan.Issuer, harness.Rev20251125)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, urls[0], nil)
	resp, err := tg.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, tg.plan.Issuer, err)
	}
	resp.Body.Close()
	return nil
}

func (tg *target) runOne(ctx context.Context, c *Check, rev string) (reports.Result, []record.Record) {
	t := &T{Revision: rev, tg: tg, ctx: ctx, start: time.Now()}
	f := c.Side.Run(t)
	level := c.LevelAt(rev)
	e, _ := catalog.Lookup(c.ID)
	return reports.Result{ID: c.ID, Title: Title(c, rev), Area: c.Area(), Level: level, Version: rev, Transport: "http",
		Status: f.Outcome.Status(level), SpecURL: e.SpecURL(rev), Message: f.Message, Evidence: finding.Evidence(t.evidence, t.start, nil),
		DurationMs: time.Since(t.start).Milliseconds()}, t.evidence
}
