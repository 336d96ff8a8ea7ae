package suites

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/authorization. The AUTH checks judge an HTTP server that requires
// authorization. The run's own token comes with every request (--header "Authorization: Bearer …");
// the checks replace or drop that header on single requests of the shared session. A server that
// serves a request without any token does not require authorization, and the checks are na for it.

func init() {
	conform.Register(
		conform.Check{ID: "AUTH-401-INVALID-TOKEN", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a request with an unknown bearer token is refused with 401",
			Side:    conform.Server{Run: checkAuthInvalidToken}},
		conform.Check{ID: "AUTH-PRM", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "the protected resource metadata (RFC 9728) is served, found through the challenge or the well-known URI, and names at least one authorization server",
			Side:    conform.Server{Run: checkAuthPRM}},
		conform.Check{ID: "AUTH-WWW-AUTHENTICATE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a 401 names the metadata URL in a WWW-Authenticate resource_metadata parameter (from 2025-11-25 a working well-known metadata URI may stand in for it)",
			LevelReason: "2025-06-18 demands the header on every 401; from 2025-11-25 either discovery mechanism is enough, so a missing parameter fails only when the well-known URIs serve no metadata either.",
			Side:        conform.Server{Run: checkAuthWWWAuthenticate}},
		conform.Check{ID: "AUTH-SCOPE-CHALLENGE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "the Bearer challenge of a 401 names the scopes needed in a scope parameter",
			Side:    conform.Server{Run: checkAuthScopeChallenge}},
		conform.Check{ID: "AUTH-403-INSUFFICIENT-SCOPE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a tools/call with a valid token lacking the needed scope gets 403 with an insufficient_scope Bearer challenge",
			Side:    conform.Server{Run: checkAuthInsufficientScope}},
		conform.Check{ID: "AUTH-STATUS-CODES", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a request without a token gets 401; one with another scheme's credentials gets 401 or 400",
			LevelReason: "The spec's table gives 401 for missing or invalid authorization, 403 for insufficient scope and 400 for a malformed request; credentials of another scheme are no bearer token (401) or a malformed authorization (400), so either is accepted.",
			Side:        conform.Server{Run: checkAuthStatusCodes}},
		conform.Check{ID: "AUTH-AUDIENCE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a token issued for another resource (audience) is refused with 401",
			LevelReason: "The spec demands that tokens be validated as issued for this server; one issued for another is thereby invalid, and invalid tokens must get 401.",
			Side:        conform.Server{Run: checkAuthAudience}},
		conform.Check{ID: "AUTH-MALFORMED-HEADER", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a malformed Authorization header (Bearer without a token, the run's token under another scheme, two tokens) is refused with 401 (or 400) and no result",
			LevelReason: "Tokens must travel as a Bearer credential in the Authorization header; one that does not is no valid token (401), or a malformed request (400, RFC 6750 invalid_request), so either is accepted, but serving the request is not.",
			Side:        conform.Server{Run: checkAuthMalformedHeader}},
		conform.Check{ID: "AUTH-GARBAGE-TOKEN", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a bearer token that is not even token syntax (random printable garbage) is refused with 401 and no result",
			Side:    conform.Server{Run: checkAuthGarbageToken}},
		conform.Check{ID: "AUTH-JWT-ALG-NONE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "an unsigned JWT (alg none) whose claims name this server is refused with 401 and no result",
			LevelReason: "A token whose signature is absent cannot be validated (OAuth 2.1 §5.2), so it is invalid, and invalid tokens must get 401.",
			Side:        conform.Server{Run: checkAuthJWTAlgNone}},
		conform.Check{ID: "AUTH-JWT-EXPIRED", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "an expired token is refused with 401 and no result: the one given with --auth-token-expired, and a JWT naming this server that expired an hour ago (signed with a key of mcpspec's own)",
			LevelReason: "Expired tokens must get 401. mcpspec cannot sign for the server's authorization server, so a server that checks signatures refuses its own JWT before it looks at the expiry: without --auth-token-expired the check catches servers that trust a JWT's claims unverified, not one that checks the signature but not the expiry.",
			Side:        conform.Server{Run: checkAuthJWTExpired}},
		conform.Check{ID: "AUTH-QUERY-TOKEN", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "the run's own valid token in the query string (?access_token=), with no Authorization header, is refused with 401 and no result",
			LevelReason: "Access tokens must be sent in the Authorization header and must not be put in the query string; a request whose only token is there carries no token the server may use, so it gets 401.",
			Side:        conform.Server{Run: checkAuthQueryToken}},
	)
}

// prmWellKnown is the RFC 9728 well-known URI suffix of protected resource metadata.
const prmWellKnown = "/.well-known/oauth-protected-resource"

// prober sends the AUTH checks' probes on a connection of their own that joins the shared
// session (same session id, revision headers): refusals come with OAuth error bodies, which
// have no place among the session's JSON-RPC messages.
type prober struct {
	t *conform.T
	c *streamhttp.Conn
}

func newProber(t *conform.T) (*prober, *conform.Finding) {
	s2, err := t.Connect()
	if err != nil {
		f := conform.Failed(fmt.Errorf("another connection: %w", err))
		return nil, &f
	}
	c, ok := s2.Conn.(*streamhttp.Conn)
	if !ok {
		f := conform.Failed(fmt.Errorf("another connection is not Streamable HTTP"))
		return nil, &f
	}
	c.SetSession(httpConn(t).Session())
	switch {
	case t.S.Stateless():
		c.SetProtocolVersion(t.Revision)
		c.SetStateless(true)
	case t.S.Negotiated() >= harness.Rev20250618:
		c.SetProtocolVersion(t.S.Negotiated())
	}
	return &prober{t: t, c: c}, nil
}

// probe POSTs a request that needs nothing but a session (ping; server/discover at 2026-07-28)
// with authorization as its Authorization header ("" sends none).
func (p *prober) probe(authorization string) (*wire.Delivery, error) {
	frame, _ := pingFrame(p.t)
	return p.post(frame, authorization)
}

// post sends frame with authorization ("" none, "-" the run's own) and waits for the status;
// an error response is read to its end.
func (p *prober) post(frame []byte, authorization string) (*wire.Delivery, error) {
	return p.postTo("", frame, authorization)
}

// postTo is post to another URL ("" the endpoint).
func (p *prober) postTo(u string, frame []byte, authorization string) (*wire.Delivery, error) {
	r := streamhttp.Request{URL: u}
	if authorization != "-" {
		r.Header = http.Header{"Authorization": nil}
		if authorization != "" {
			r.Header["Authorization"] = []string{authorization}
		}
	}
	d := p.c.Do(p.t.Ctx, frame, r)
	if err := waitReady(p.t, d); err != nil {
		return d, err
	}
	if d.Status >= 300 {
		ctx, cancel := contextWithTimeout(p.t, p.t.S.Env().Timeouts.Request)
		defer cancel()
		if err := d.Finished(ctx); err != nil {
			return d, fmt.Errorf("reading the HTTP %d response: %w", d.Status, err)
		}
	}
	return d, nil
}

// needAuth opens the prober and returns the response to a request without a token, or the
// finding when there is nothing to judge: the server serves such requests (na), or refuses the
// same request with the run's own token as well (the refusal is not about authorization).
func needAuth(t *conform.T) (*prober, *wire.Delivery, *conform.Finding) {
	d, f := withoutToken(t)
	if f != nil {
		return nil, nil, f
	}
	if d.Status < 300 {
		f := conform.NA("the server serves requests without a token (HTTP %d): it does not require authorization", d.Status)
		return nil, nil, &f
	}
	p, f := newProber(t)
	if f != nil {
		return nil, nil, f
	}
	own, err := p.probe("-")
	if err != nil || own.Status >= 300 {
		f := conform.CannotTest("the request is refused with the run's own headers too (%s), so its refusal without a token says nothing about authorization", statusOf(own, err))
		return nil, nil, &f
	}
	return p, d, nil
}

// withoutToken is the answer to a request without a token, asked once per revision for every
// AUTH check (T.Ask): whether the server requires authorization at all, and how it refuses.
// The request and what is judged of its answer (status, challenge, body) are the same for every
// check; a server that serves it makes each of them na.
func withoutToken(t *conform.T) (*wire.Delivery, *conform.Finding) {
	type reply struct {
		d *wire.Delivery
		f *conform.Finding
	}
	r, ok := t.Ask("a request without a token", func() any {
		p, f := newProber(t)
		if f != nil {
			return reply{f: f}
		}
		d, err := p.probe("")
		if err != nil {
			f := conform.Violated("a request without a token: %v", err)
			return reply{f: &f}
		}
		return reply{d: d}
	}).(reply)
	if !ok {
		f := conform.Failed(fmt.Errorf("waiting for another check's request without a token: %w", t.Ctx.Err()))
		return nil, &f
	}
	return r.d, r.f
}

func statusOf(d *wire.Delivery, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("HTTP %d", d.Status)
}

// invalidToken is a bearer credential no server issued.
func invalidToken() string { return "Bearer mcpspec-invalid-" + randomHex(16) }

// unauthorized is a 401 to examine: the one to a request without a token, else the one to an
// unknown token. nil when neither was answered 401.
func (p *prober) unauthorized(none *wire.Delivery) (*wire.Delivery, string) {
	if none.Status == http.StatusUnauthorized {
		return none, "a request without a token"
	}
	d, err := p.probe(invalidToken())
	if err == nil && d.Status == http.StatusUnauthorized {
		return d, "a request with an unknown token"
	}
	return nil, ""
}

// described shows a refusal: status, challenge and the start of its body.
func described(d *wire.Delivery) string {
	s := fmt.Sprintf("HTTP %d", d.Status)
	for _, v := range d.Header.Values("WWW-Authenticate") {
		s += fmt.Sprintf("; WWW-Authenticate: %s", v)
	}
	if len(d.Body) > 0 {
		s += "; body " + clip(string(d.Body), 160)
	}
	return s
}

func checkAuthInvalidToken(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	if f := p.refusedAll([][2]string{{"an unknown bearer token", invalidToken()}}, http.StatusUnauthorized); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkAuthStatusCodes(t *conform.T) conform.Finding {
	p, none, f := needAuth(t)
	if f != nil {
		return *f
	}
	if none.Status != http.StatusUnauthorized {
		return conform.Violated("a request without a token got %s, want 401 Unauthorized", described(none))
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("mcpspec:not-a-bearer-token"))
	d, err := p.probe(basic)
	if err != nil {
		return conform.Violated("a request with Basic credentials: %v", err)
	}
	if d.Status != http.StatusUnauthorized && d.Status != http.StatusBadRequest {
		return conform.Violated("a request with Basic credentials instead of a bearer token got %s, want 401 (or 400)", described(d))
	}
	return conform.Passed("")
}

func checkAuthAudience(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	foreign := t.Options().AuthTokenForeign
	if foreign == "" {
		return conform.CannotTest("needs --auth-token-foreign: a token issued for another resource")
	}
	if f := p.refusedAll([][2]string{{"a token issued for another resource", "Bearer " + foreign}}, http.StatusUnauthorized); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkAuthScopeChallenge(t *conform.T) conform.Finding {
	p, none, f := needAuth(t)
	if f != nil {
		return *f
	}
	d, what := p.unauthorized(none)
	if d == nil {
		return conform.CannotTest("no 401 to examine: a request without a token got %s", described(none))
	}
	params, ok := bearerChallenge(d.Header)
	switch {
	case !ok:
		return conform.Violated("the 401 to %s carries no Bearer challenge, so no scope: %s", what, described(d))
	case params["scope"] == "":
		return conform.Violated("the Bearer challenge of the 401 to %s names no scope: %s", what, described(d))
	}
	return conform.Passed("scope=%q", params["scope"])
}

func checkAuthWWWAuthenticate(t *conform.T) conform.Finding {
	p, none, f := needAuth(t)
	if f != nil {
		return *f
	}
	d, what := p.unauthorized(none)
	if d == nil {
		return conform.CannotTest("no 401 to examine: a request without a token got %s", described(none))
	}
	params, _ := bearerChallenge(d.Header)
	if rm, ok := params["resource_metadata"]; ok {
		if !absoluteURL(rm) {
			return conform.Violated("the resource_metadata of the 401 to %s is not an absolute URL: %s", what, described(d))
		}
		return conform.Passed("resource_metadata=%q", rm)
	}
	if t.Revision == harness.Rev20250618 {
		return conform.Violated("the 401 to %s names no resource_metadata in a WWW-Authenticate Bearer challenge: %s", what, described(d))
	}
	var tried []string
	for _, u := range wellKnownPRM(httpConn(t).URL()) {
		doc, got := p.fetchPRM(u)
		if doc != nil {
			return conform.Passed("no resource_metadata in the challenge, but %s serves the metadata", u)
		}
		tried = append(tried, u+": "+got)
	}
	return conform.Violated("no discovery mechanism: the 401 to %s names no resource_metadata (%s), and no well-known URI serves metadata (%s)", what, described(d), strings.Join(tried, "; "))
}

func checkAuthPRM(t *conform.T) conform.Finding {
	p, none, f := needAuth(t)
	if f != nil {
		return *f
	}
	var candidates []string
	if d, _ := p.unauthorized(none); d != nil {
		if params, _ := bearerChallenge(d.Header); params["resource_metadata"] != "" {
			candidates = []string{params["resource_metadata"]}
		}
	}
	if candidates == nil {
		candidates = wellKnownPRM(httpConn(t).URL())
	}
	var tried []string
	for _, u := range candidates {
		doc, got := p.fetchPRM(u)
		if doc == nil {
			tried = append(tried, u+": "+got)
			continue
		}
		if problem := prmProblem(doc); problem != "" {
			return conform.Violated("the metadata at %s %s: %s", u, problem, got)
		}
		return conform.Passed("%s: %s", u, got)
	}
	return conform.Violated("no protected resource metadata: %s", strings.Join(tried, "; "))
}

// prmProblem says what an RFC 9728 document lacks of what the MCP spec demands ("" if nothing).
func prmProblem(doc map[string]json.RawMessage) string {
	var resource string
	if json.Unmarshal(doc["resource"], &resource) != nil || resource == "" {
		return "has no resource identifier (RFC 9728 requires resource)"
	}
	var servers []string
	if json.Unmarshal(doc["authorization_servers"], &servers) != nil || len(servers) == 0 {
		return "names no authorization server (authorization_servers must list at least one)"
	}
	for _, s := range servers {
		if !absoluteURL(s) {
			return fmt.Sprintf("names an authorization server that is not an absolute URL (%q)", s)
		}
	}
	return ""
}

func checkAuthInsufficientScope(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	narrow := t.Options().AuthTokenNarrow
	if narrow == "" {
		return conform.CannotTest("needs --auth-token-narrow: a valid token that lacks a scope tools/call needs")
	}
	tools, err := listTools(t)
	if err != nil {
		return conform.Violated("%v", err)
	}
	name, _ := firstToolName(tools)
	if name == "" {
		return conform.CannotTest("the server lists no tools to call with the narrow token")
	}
	frame := rawRequest(t.S.NextID(), "tools/call", t.S.StatelessParams(map[string]any{"name": name, "arguments": map[string]any{}}))
	d, err := p.post(frame, "Bearer "+narrow)
	switch {
	case err != nil:
		return conform.Violated("tools/call %q with the narrow token: %v", name, err)
	case d.Status < 300:
		return conform.Violated("tools/call %q with a token lacking its scope was served (HTTP %d), want 403 (is --auth-token-narrow really short of that scope?)", name, d.Status)
	case d.Status != http.StatusForbidden:
		return conform.Violated("tools/call %q with a token lacking its scope got %s, want 403", name, described(d))
	}
	if params, ok := bearerChallenge(d.Header); !ok || params["error"] != "insufficient_scope" {
		return conform.Violated(`the 403 to tools/call %q carries no Bearer challenge with error="insufficient_scope": %s`, name, described(d))
	}
	return conform.Passed("")
}

func firstToolName(tools []toolDef) (string, bool) {
	for _, tool := range tools {
		if tool.name != "" {
			return tool.name, true
		}
	}
	return "", false
}

// fetchPRM GETs protected resource metadata without a token, as a client does before it has
// one. doc is nil unless a JSON object came with 200; got describes what came.
func (p *prober) fetchPRM(u string) (doc map[string]json.RawMessage, got string) {
	t := p.t
	d := p.c.Do(t.Ctx, nil, streamhttp.Request{Method: http.MethodGet, URL: u, Accept: "application/json",
		NoSession: true, NoProtocol: true, NoStatelessHeaders: true, Header: http.Header{"Authorization": nil}})
	ctx, cancel := contextWithTimeout(t, t.S.Env().Timeouts.Request)
	defer cancel()
	if err := d.Finished(ctx); err != nil {
		return nil, fmt.Sprintf("no response within %s: %v", t.S.Env().Timeouts.Request, err)
	}
	if d.Err != nil {
		return nil, d.Err.Error()
	}
	got = fmt.Sprintf("HTTP %d %s", d.Status, clip(string(d.Body), 300))
	if d.Status != http.StatusOK || json.Unmarshal(d.Body, &doc) != nil {
		return nil, got
	}
	return doc, got
}

// wellKnownPRM are the metadata URIs of endpoint: the well-known suffix inserted before the
// endpoint's path (RFC 9728 §3.1), then at the root, the order in which clients try them.
func wellKnownPRM(endpoint string) []string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil
	}
	root := u.Scheme + "://" + u.Host + prmWellKnown
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		return []string{root + p, root}
	}
	return []string{root}
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// bearerChallenge returns the parameters of the Bearer challenge among the WWW-Authenticate
// values (RFC 9110 §11.6.1; scheme and parameter names are case-insensitive, names returned in
// lower case).
func bearerChallenge(h http.Header) (map[string]string, bool) {
	for _, c := range parseChallenges(h.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.scheme, "Bearer") {
			return c.params, true
		}
	}
	return map[string]string{}, false
}

type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges reads challenges: a scheme, then comma-separated name=value parameters
// (token or quoted-string values) until the next scheme. A token68 after a scheme is skipped.
func parseChallenges(values []string) []challenge {
	var out []challenge
	for _, v := range values {
		p := &challengeLexer{s: v}
		for {
			p.skip(" \t,")
			if p.done() {
				break
			}
			name := p.token()
			if name == "" { // a stray character: skip it
				p.i++
				continue
			}
			p.skip(" \t")
			if p.peek() == '=' && len(out) > 0 {
				p.i++
				p.skip(" \t")
				out[len(out)-1].params[strings.ToLower(name)] = p.value()
				continue
			}
			out = append(out, challenge{scheme: name, params: map[string]string{}})
		}
	}
	return out
}

type challengeLexer struct {
	s string
	i int
}

func (p *challengeLexer) done() bool { return p.i >= len(p.s) }

func (p *challengeLexer) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *challengeLexer) skip(set string) {
	for !p.done() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// token reads up to a separator (token68 characters included, except a trailing "=").
func (p *challengeLexer) token() string {
	start := p.i
	for !p.done() && strings.IndexByte(" \t,=\"", p.s[p.i]) < 0 {
		p.i++
	}
	return p.s[start:p.i]
}

// value reads a quoted-string (with backslash escapes) or a token.
func (p *challengeLexer) value() string {
	if p.peek() != '"' {
		v := p.token()
		for p.peek() == '=' { // token68 padding
			p.i++
		}
		return v
	}
	p.i++
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// refusal says what is wrong with the answer to a request that must be refused with one of
// want: "" when it was, without a JSON-RPC result in its body or stream.
func refusal(d *wire.Delivery, want ...int) string {
	switch {
	case d.Status < 300:
		return fmt.Sprintf("was served (HTTP %d)", d.Status)
	case !slices.Contains(want, d.Status):
		codes := make([]string, len(want))
		for i, c := range want {
			codes[i] = fmt.Sprint(c)
		}
		return fmt.Sprintf("got %s, want %s", described(d), strings.Join(codes, " or "))
	case carriesResult(d.Body):
		return fmt.Sprintf("was refused with HTTP %d but its body carries a JSON-RPC result: %s", d.Status, clip(string(d.Body), 160))
	}
	for _, ev := range d.EventsSoFar() {
		if carriesResult([]byte(ev.Data)) {
			return fmt.Sprintf("was refused with HTTP %d but its stream carries a JSON-RPC result: %s", d.Status, clip(ev.Data, 160))
		}
	}
	return ""
}

// carriesResult reports whether raw is a JSON-RPC response with a result, or a batch holding one.
func carriesResult(raw []byte) bool {
	var batch []json.RawMessage
	if json.Unmarshal(raw, &batch) == nil {
		return slices.ContainsFunc(batch, func(m json.RawMessage) bool { return carriesResult(m) })
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(raw, &msg) != nil {
		return false
	}
	_, rpc := msg["jsonrpc"]
	_, result := msg["result"]
	return rpc && result
}

// refusedAll sends each probe (what → Authorization value) and returns the first problem.
func (p *prober) refusedAll(probes [][2]string, want ...int) *conform.Finding {
	for _, pr := range probes {
		d, err := p.probe(pr[1])
		if err != nil {
			f := conform.Violated("a request with %s: %v", pr[0], err)
			return &f
		}
		if problem := refusal(d, want...); problem != "" {
			f := conform.Violated("a request with %s %s", pr[0], problem)
			return &f
		}
	}
	return nil
}

func checkAuthMalformedHeader(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	own := t.TargetCredential()
	if own == "" {
		own = "mcpspec-" + randomHex(16) // the header probes still say something without it
	}
	probes := [][2]string{
		{`"Authorization: Bearer" (the scheme without a token)`, "Bearer"},
		{"the run's own token under the Basic scheme", "Basic " + own},
		{"the run's own token followed by a second token", "Bearer " + own + " mcpspec-" + randomHex(8)},
	}
	if f := p.refusedAll(probes, http.StatusUnauthorized, http.StatusBadRequest); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkAuthGarbageToken(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	probes := [][2]string{
		{"a bearer token of characters no token has", `Bearer {"<mcpspec>"}@[` + randomHex(8) + `]%;\`},
		{"a bearer token of random bytes in base64 with padding inside", "Bearer =" + base64.StdEncoding.EncodeToString([]byte(randomHex(12))) + "==" + randomHex(4)},
	}
	if f := p.refusedAll(probes, http.StatusUnauthorized); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkAuthJWTAlgNone(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	now := time.Now()
	tok := forgedJWT(t, map[string]any{"alg": "none", "typ": "JWT"}, now.Add(time.Hour), now, nil)
	if f := p.refusedAll([][2]string{{"an unsigned JWT (alg none) naming this server as its audience", "Bearer " + tok}}, http.StatusUnauthorized); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkAuthJWTExpired(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	now := time.Now()
	sig := make([]byte, 32)
	_, _ = rand.Read(sig)
	tok := forgedJWT(t, map[string]any{"alg": "HS256", "typ": "JWT"}, now.Add(-time.Hour), now.Add(-2*time.Hour), sig)
	probes := [][2]string{{"a JWT naming this server as its audience that expired an hour ago", "Bearer " + tok}}
	if stale := t.Options().AuthTokenExpired; stale != "" {
		probes = append([][2]string{{"the expired token (--auth-token-expired)", "Bearer " + stale}}, probes...)
	}
	if f := p.refusedAll(probes, http.StatusUnauthorized); f != nil {
		return *f
	}
	if t.Options().AuthTokenExpired == "" {
		return conform.Passed("a JWT of mcpspec's making only; --auth-token-expired (an expired token the authorization server issued) would judge the expiry itself")
	}
	return conform.Passed("")
}

func checkAuthQueryToken(t *conform.T) conform.Finding {
	p, _, f := needAuth(t)
	if f != nil {
		return *f
	}
	own := t.TargetCredential()
	if own == "" {
		return conform.CannotTest(`needs the run's token in an Authorization header (--header "Authorization: Bearer …") to move into the query string`)
	}
	u, err := url.Parse(httpConn(t).URL())
	if err != nil {
		return conform.Failed(fmt.Errorf("the endpoint URL: %w", err))
	}
	q := u.Query()
	q.Set("access_token", own)
	u.RawQuery = q.Encode()
	frame, _ := pingFrame(t)
	// The URL holds the secret: errors are told without it.
	d, err := p.postTo(u.String(), frame, "")
	if err != nil {
		return conform.Violated("a request with the run's token in the query string and no Authorization header got no answer in time")
	}
	if problem := refusal(d, http.StatusUnauthorized); problem != "" {
		return conform.Violated("a request with the run's own token in the query string (?access_token=) and no Authorization header %s", problem)
	}
	return conform.Passed("")
}

// forgedJWT is a JWT of mcpspec's making with header and signature as given (nil: none, as alg
// none has): its claims are those of the run's own token when that is a JWT, so that only the
// signature or the expiry is wrong, else claims naming this server as audience and issuer-less.
// Tokens made here are never shown: they may carry the claims of the run's own.
func forgedJWT(t *conform.T, header map[string]any, exp, iat time.Time, sig []byte) string {
	claims := map[string]any{}
	if parts := strings.Split(t.TargetCredential(), "."); len(parts) == 3 {
		if raw, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
			_ = json.Unmarshal(raw, &claims) // not JSON: the claims below stand alone
		}
		if raw, err := base64.RawURLEncoding.DecodeString(parts[0]); err == nil {
			var own map[string]any
			if json.Unmarshal(raw, &own) == nil && header["alg"] != "none" {
				if kid, ok := own["kid"]; ok {
					header["kid"] = kid // a key the server knows, so the signature is what fails
				}
				if alg, ok := own["alg"]; ok {
					header["alg"] = alg
				}
			}
		}
	}
	if _, ok := claims["aud"]; !ok {
		claims["aud"] = t.TargetURL()
	}
	if _, ok := claims["sub"]; !ok {
		claims["sub"] = "mcpspec"
	}
	claims["exp"], claims["iat"], claims["nbf"] = exp.Unix(), iat.Unix(), iat.Unix()
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc(h) + "." + enc(c) + "." + enc(sig)
}
