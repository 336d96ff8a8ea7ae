package probe

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/secrets"
)

// The probe authorization server: protected resource metadata (RFC 9728), authorization server
// metadata (RFC 8414, or OpenID Provider metadata), dynamic registration (RFC 7591), Client ID
// Metadata Documents, an authorization endpoint that redirects at once (no person in the loop:
// the client GETs it itself and reads the Location), and a token endpoint for
// authorization_code with PKCE, refresh_token and client_credentials. It is served on the
// probe's own loopback origin, and records every request and answer in the probe's Recorder,
// its secrets (tokens, codes, client secrets, code verifiers) replaced by labels, so the client
// checks judge one recording and no report ever holds a secret.

// ChanOAuth is the channel of a request to the authorization server's side of the probe (any
// path but the MCP endpoint) and of its answer.
const ChanOAuth = "OAUTH"

// CIMDFetchTimeout bounds the authorization server's fetch of a loopback Client ID Metadata
// Document.
const CIMDFetchTimeout = 5 * time.Second

// grant is what an authorization code or token was issued for.
type grant struct {
	clientID, redirectURI, challenge, method, resource, scope string
	used                                                      bool
}

type token struct {
	label, resource, scope, clientID string
	issuer                           string // the issuer path of the AS that issued it
	jkt                              string // the thumbprint of the DPoP key it is bound to ("" none)
	expired                          bool
}

type client struct {
	id, secret, method string
	redirectURIs       []string
	// private_key_jwt: the public key its assertions verify with, and the private key the
	// context gives it.
	key *ecdsa.PublicKey
	pem string
	// issuer is the issuer path of the authorization server the client is registered at.
	issuer string
}

// authServer is the authorization server of one scenario run.
type authServer struct {
	plan   AuthPlan
	rec    *Recorder
	origin string // http://127.0.0.1:PORT
	mu     sync.Mutex
	// secrets maps each secret seen or minted to the label it is recorded as; creds to what
	// a record says of it where a request carries it.
	secrets  map[string]string
	creds    map[string]record.Credential
	counts   map[string]int
	clients  map[string]*client
	codes    map[string]*grant
	access   map[string]*token
	refresh  map[string]*token
	authReqs int // authorization requests served
	pre      client
	// expiredOnce: AuthPlan.ExpireFirst's token has been answered as expired.
	expiredOnce bool
	// perOperation: the 403 insufficient_scope names the scope the operation needs alone, not
	// the union with what was granted (2026-07-28 leaves the union to the client).
	perOperation bool
	// migrated: AuthPlan.Migrate's protected resource metadata names the second
	// authorization server now.
	migrated bool
	// tokenKey signs JWT access tokens (AuthPlan.JWTAccessTokens).
	tokenKey *ecdsa.PrivateKey
	// jb is the JWT bearer grant side of those scenarios (authwif.go), nil in the others.
	jb *jwtBearer
	// dpop is the DPoP side of AuthPlan.DPoP (nil otherwise).
	dpop *dpopState
}

func newAuthServer(plan AuthPlan, rec *Recorder) *authServer {
	a := &authServer{plan: plan, rec: rec, secrets: map[string]string{}, creds: map[string]record.Credential{}, counts: map[string]int{},
		clients: map[string]*client{}, codes: map[string]*grant{}, access: map[string]*token{}, refresh: map[string]*token{},
		dpop: newDPoPState(plan)}
	if plan.Registration == RegPre {
		a.pre = client{id: PreRegisteredClientID, method: plan.AuthMethods[0], issuer: plan.IssuerPath}
		if a.pre.method == "private_key_jwt" {
			if err := a.newJWTKey(); err != nil {
				panic(err) // the system's random source failed
			}
		} else {
			a.pre.secret = "mcpspec-cs-" + randHex(16)
			a.secret(a.pre.secret, "client_secret")
		}
		a.clients[a.pre.id] = &a.pre
	}
	a.jb = newJWTBearer(a)
	return a
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// secret registers s as a secret of kind and returns its label; a secret seen before keeps its
// label.
func (a *authServer) secret(s, kind string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.secretLocked(s, kind)
}

func (a *authServer) secretLocked(s, kind string) string {
	if s == "" {
		return ""
	}
	if l, ok := a.secrets[s]; ok {
		return l
	}
	a.counts[kind]++
	label := fmt.Sprintf("<redacted:%s-%d>", kind, a.counts[kind])
	cred := record.Credential{Kind: kind}
	if kind == record.SecretAccessToken && a.dpop != nil {
		label, cred.ATH = dpopLabel(a.counts[kind], s), ATH(s)
	}
	if kind == record.SecretVerifier {
		cred.VerifierOK, cred.S256 = validVerifier(s), s256(s)
		// The challenge a verifier yields is public (it travelled in the authorization URL): the
		// credential carries it, so a check can match the two without the verifier, and whether
		// the verifier has RFC 7636's syntax, so a check can judge that too; the label shows
		// both to a reader of the evidence.
		syntax := "ok"
		if !validVerifier(s) {
			syntax = fmt.Sprintf("bad(%d chars)", len(s))
		}
		label = fmt.Sprintf("<redacted:code_verifier rfc7636=%s S256=%s>", syntax, s256(s))
	}
	cred.Label = label
	a.secrets[s] = label
	a.creds[s] = cred
	return label
}

// credsOf lists the known secrets a request carries: in its Authorization header (the value
// after the scheme, or the whole value), and as the value of a query or form parameter.
func (a *authServer) credsOf(r *http.Request, form url.Values) []record.Credential {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []record.Credential
	add := func(in, name, v string) {
		if c, ok := a.creds[strings.TrimSpace(v)]; ok && v != "" {
			c.In, c.Name = in, name
			out = append(out, c)
		}
	}
	if v := r.Header.Get("Authorization"); v != "" {
		if _, cred, ok := strings.Cut(v, " "); ok && a.creds[strings.TrimSpace(cred)].Label != "" {
			add(record.InHeader, "Authorization", cred)
		} else {
			add(record.InHeader, "Authorization", v)
		}
	}
	for _, kv := range []struct {
		in string
		vs url.Values
	}{{record.InQuery, r.URL.Query()}, {record.InForm, form}} {
		names := make([]string, 0, len(kv.vs))
		for k := range kv.vs {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			for _, v := range kv.vs[k] {
				add(kv.in, k, v)
			}
		}
	}
	return out
}

// Secrets lists every secret the run minted or saw, and the forms a report could hold them in.
func (a *authServer) Secrets() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for s := range a.secrets {
		out = append(append(out, s), escapes(s)...)
	}
	return out
}

// redact replaces every known secret in s by its label, longest first.
func (a *authServer) redact(s string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	keys := make([]string, 0, len(a.secrets))
	for k := range a.secrets {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	var pairs []string
	var short []string
	for _, k := range keys {
		// A value too short to be told from ordinary text ("x" as a client_secret) is labelled
		// only where it stands as a whole value: replaced everywhere it would garble the
		// recording the checks judge, and change their verdicts.
		if !secrets.IsSecret(k) {
			short = append(short, k)
			continue
		}
		pairs = append(pairs, k, a.secrets[k])
		for _, q := range escapes(k) {
			pairs = append(pairs, q, a.secrets[k])
		}
	}
	if len(pairs) > 0 {
		s = strings.NewReplacer(pairs...).Replace(s)
	}
	for _, k := range short {
		for _, form := range append([]string{k}, escapes(k)...) {
			s = replaceWholeValue(s, form, a.secrets[k])
		}
	}
	return s
}

// replaceWholeValue replaces v in s where it is a whole value: after "=", a space, ":" or a quote,
// and before "&", a space, ",", a quote or the end.
func replaceWholeValue(s, v, label string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+len(v) <= len(s); {
		j := strings.Index(s[i:], v)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(v)
		before := at == 0 || strings.IndexByte("= :\"", s[at-1]) >= 0
		after := end == len(s) || strings.IndexByte("& ,\"\r\n", s[end]) >= 0
		if before && after {
			b.WriteString(s[last:at])
			b.WriteString(label)
			last, i = end, end
			continue
		}
		i = at + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// escapes are the forms other than itself in which a form body or query may carry s: Go's
// QueryEscape, and the WHATWG form encoding browsers and JavaScript's URLSearchParams use, which
// escapes "~" (a PKCE verifier character) and leaves "*" as is, with hex digits in either case.
func escapes(s string) []string {
	q := url.QueryEscape(s)
	w := strings.NewReplacer("~", "%7E", "%2A", "*").Replace(q)
	var out []string
	for _, e := range []string{q, w, strings.ReplaceAll(w, "%7E", "%7e")} {
		if e != s && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// validVerifier reports whether v is a code_verifier as RFC 7636 section 4.1 defines it: 43 to 128
// characters of the unreserved set.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
			return false
		}
	}
	return true
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// learnSecrets registers the secrets an incoming request carries before it is recorded.
func (a *authServer) learnSecrets(r *http.Request, form url.Values) {
	if v := r.Header.Get("Authorization"); v != "" {
		scheme, cred, _ := strings.Cut(v, " ")
		switch strings.ToLower(scheme) {
		case "bearer", "dpop":
			a.secret(strings.TrimSpace(cred), "unknown-token")
		case "basic":
			if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
				_, pw, _ := strings.Cut(string(raw), ":")
				if pw, err := url.QueryUnescape(pw); err == nil {
					a.secret(pw, "client_secret")
				}
			}
			a.secret(strings.TrimSpace(cred), "basic-credentials")
		default:
			a.secret(strings.TrimSpace(v), "credentials")
		}
	}
	for _, k := range []string{"access_token", "code_verifier", "client_secret", "refresh_token", "code", "client_assertion", "assertion", "subject_token"} {
		for _, v := range append(r.URL.Query()[k], form[k]...) {
			kind := k
			if k == "access_token" {
				kind = "unknown-token"
			}
			a.secret(v, kind)
		}
	}
}

// recordRequest records a request the probe got, its secrets labelled and listed; form is its
// parsed form body (nil for none).
func (a *authServer) recordRequest(r *http.Request, channel string, body []byte, form url.Values) {
	// Host is kept too: the canonical URI of the MCP server is the checks' measure of the
	// resource parameter.
	h := map[string]string{"Host": r.Host}
	for k, vs := range r.Header {
		h[k] = a.redact(strings.Join(vs, ", "))
	}
	a.rec.Add(record.Record{Dir: record.Recv, Channel: channel, Method: r.Method, Path: r.URL.Path, Query: a.redact(r.URL.RawQuery), Header: h, Creds: a.credsOf(r, form), Body: a.redact(string(body))})
}

// reply writes and records an answer of the authorization server.
func (a *authServer) reply(w http.ResponseWriter, status int, header map[string]string, body []byte) {
	rh := map[string]string{}
	for k, v := range header {
		w.Header().Set(k, v)
		rh[k] = a.redact(v)
	}
	a.rec.Add(record.Record{Dir: record.Send, Channel: ChanOAuth, Status: status, Header: rh, Body: a.redact(string(body))})
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (a *authServer) replyJSON(w http.ResponseWriter, status int, v any) {
	a.reply(w, status, map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store"}, mustJSON(v))
}

func (a *authServer) oauthError(w http.ResponseWriter, status int, code, desc string) {
	a.replyJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// note records an event, its words redacted.
func (a *authServer) note(ev record.Event, format string, args ...any) {
	a.rec.note(ev, a.redact(fmt.Sprintf(format, args...)))
}

// serve answers a request to any path but the MCP endpoint.
func (a *authServer) serve(w http.ResponseWriter, r *http.Request, canonical string) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	form := url.Values{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		form, _ = url.ParseQuery(string(body))
	}
	a.learnSecrets(r, form)
	a.recordRequest(r, ChanOAuth, body, form)
	p := a.plan
	iss := a.origin + a.currentIssuer()
	path := r.URL.Path
	// ip is the issuer path of the authorization server the request is for.
	ip := p.IssuerPath
	if p.Migrate && strings.HasPrefix(path, MigratedIssuerPath+"/") {
		ip = MigratedIssuerPath
	}
	switch {
	case r.Method == http.MethodGet && p.PRMPath != "" && path == p.PRMPath:
		resource := p.metadataResource(canonical)
		doc := map[string]any{"resource": resource, "authorization_servers": []string{iss}, "bearer_methods_supported": []string{"header"}}
		if p.ScopesSupported != nil {
			doc["scopes_supported"] = p.ScopesSupported
		}
		a.replyJSON(w, http.StatusOK, doc)
	case r.Method == http.MethodGet && p.ASMetaPath != "" && path == p.ASMetaPath:
		a.replyJSON(w, http.StatusOK, a.metadata(p.IssuerPath))
	case r.Method == http.MethodGet && p.Migrate && path == asOAuth+MigratedIssuerPath:
		a.replyJSON(w, http.StatusOK, a.metadata(MigratedIssuerPath))
	case path == ip+"/authorize" && r.Method == http.MethodGet:
		a.authorize(w, r, ip)
	case path == ip+"/token" && r.Method == http.MethodPost:
		a.token(w, r, form, canonical, ip)
	case path == ip+"/register" && r.Method == http.MethodPost && (p.Registration == RegDynamic || p.Registration == RegFixed || p.DCRToo):
		a.register(w, body, ip)
	case a.jb != nil && a.jb.serves(path):
		a.jb.serveIdP(w, r, form)
	default:
		a.reply(w, http.StatusNotFound, nil, nil)
	}
}

// currentIssuer is the issuer path of the authorization server the protected resource
// metadata names: the plan's, or the second one once AuthPlan.Migrate has migrated.
func (a *authServer) currentIssuer() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.migrated {
		return MigratedIssuerPath
	}
	return a.plan.IssuerPath
}

// foreign reports whether client c is registered at another authorization server than the
// one at issuer path ip, and notes it: that server does not know it.
func (a *authServer) foreign(c *client, ip string) bool {
	if c.issuer == ip {
		return false
	}
	a.note(record.Event{Kind: record.EvCrossAS, ClientID: c.id, Issuer: a.origin + ip, RegisteredAt: a.origin + c.issuer},
		"auth: credentials of another authorization server: %s presented at %s, registered at %s", c.id, a.origin+ip, a.origin+c.issuer)
	return true
}

// metadata is the metadata document of the authorization server at issuer path ip.
func (a *authServer) metadata(ip string) map[string]any {
	p := a.plan
	base := a.origin + ip
	grants := []string{"authorization_code", "refresh_token"}
	if p.ClientCredentials {
		grants = append(grants, "client_credentials")
	}
	if IsJWTBearer(p.Name) {
		grants = []string{JWTBearerGrant}
	}
	endpoints := base
	if p.Lax.RelativeEndpoints {
		endpoints = ip
	}
	m := map[string]any{
		"issuer":                                base,
		"authorization_endpoint":                endpoints + "/authorize",
		"token_endpoint":                        endpoints + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 grants,
		"token_endpoint_auth_methods_supported": p.AuthMethods,
	}
	if p.Registration == RegDynamic || p.DCRToo {
		m["registration_endpoint"] = endpoints + "/register"
	}
	if p.ASScopesSupported != nil {
		m["scopes_supported"] = p.ASScopesSupported
	}
	if !p.NoPKCE {
		m["code_challenge_methods_supported"] = []string{"S256"}
	}
	if p.Registration == RegCIMD {
		m["client_id_metadata_document_supported"] = true
	}
	if p.ISS {
		m["authorization_response_iss_parameter_supported"] = true
	}
	if p.MetadataIssuer != "" {
		m["issuer"] = p.MetadataIssuer
	}
	if contains(p.AuthMethods, "private_key_jwt") {
		m["token_endpoint_auth_signing_alg_values_supported"] = []string{"ES256"}
	}
	a.dpopMetadata(m)
	if p.OpenID {
		m["jwks_uri"] = base + "/jwks.json"
		m["subject_types_supported"] = []string{"public"}
		m["id_token_signing_alg_values_supported"] = []string{"RS256"}
	}
	return m
}

// register is RFC 7591 dynamic registration: any loopback redirect URI, the method asked for
// among those supported.
func (a *authServer) register(w http.ResponseWriter, body []byte, ip string) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		Method       string   `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		a.oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration request is not a JSON object: "+err.Error())
		return
	}
	if len(req.RedirectURIs) == 0 {
		a.oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	method := req.Method
	if method == "" {
		method = "client_secret_basic" // RFC 7591 §2's default
	}
	if !contains(a.plan.AuthMethods, method) {
		method = a.plan.AuthMethods[0]
	}
	a.mu.Lock()
	a.counts["client"]++
	c := &client{id: fmt.Sprintf("mcpspec-dcr-client-%d", a.counts["client"]), method: method, redirectURIs: req.RedirectURIs, issuer: ip}
	if method != "none" {
		c.secret = "mcpspec-cs-" + randHex(16)
		a.secretLocked(c.secret, "client_secret")
	}
	a.clients[c.id] = c
	a.mu.Unlock()
	resp := map[string]any{"client_id": c.id, "redirect_uris": c.redirectURIs, "token_endpoint_auth_method": method,
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}}
	if c.secret != "" {
		resp["client_secret"] = c.secret
		resp["client_secret_expires_at"] = 0
	}
	a.replyJSON(w, http.StatusCreated, resp)
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// loopbackRedirect reports whether a redirect URI is http on a loopback host.
func loopbackRedirect(u *url.URL) bool {
	h := u.Hostname()
	return u.Scheme == "http" && (h == "127.0.0.1" || h == "localhost" || h == "::1")
}

// lookupClient finds a registered client, or a URL client_id where the AS takes Client ID
// Metadata Documents.
func (a *authServer) lookupClient(id, redirectURI, ip string) (*client, string) {
	a.mu.Lock()
	c := a.clients[id]
	a.mu.Unlock()
	if c != nil && a.foreign(c, ip) {
		return nil, "unknown client_id " + id + " (registered at another authorization server)"
	}
	if c != nil {
		return c, ""
	}
	if a.plan.Registration != RegCIMD || !strings.HasPrefix(id, "http") {
		return nil, "unknown client_id " + id
	}
	u, err := url.Parse(id)
	if err != nil {
		return nil, "client_id is not a URL: " + err.Error()
	}
	c = &client{id: id, method: "none", redirectURIs: []string{redirectURI}, issuer: ip}
	if loopbackRedirect(u) {
		// A document on loopback is fetched and must name itself and the redirect URI.
		doc, err := fetchCIMD(id)
		if err != nil {
			a.note(record.Event{Kind: record.EvCIMD, ClientID: id, CIMD: record.CIMDUnfetched}, "auth: client id metadata document %s could not be fetched: %v", id, err)
			return nil, "client id metadata document: " + err.Error()
		}
		if doc.ClientID != id || !contains(doc.RedirectURIs, redirectURI) {
			a.note(record.Event{Kind: record.EvCIMD, ClientID: id, CIMD: record.CIMDMismatch, RedirectURIs: doc.RedirectURIs},
				"auth: client id metadata document %s names client_id %q and redirect_uris %v", id, doc.ClientID, doc.RedirectURIs)
			return nil, "the client id metadata document does not name its own URL and the redirect URI"
		}
		a.note(record.Event{Kind: record.EvCIMD, ClientID: id, CIMD: record.CIMDFetched, RedirectURIs: doc.RedirectURIs},
			"auth: client id metadata document %s fetched: it names itself and redirect_uris %v", id, doc.RedirectURIs)
		a.note(record.Event{Kind: record.EvCIMDGrants, GrantTypes: doc.GrantTypes}, "auth: client id metadata grant_types %v", doc.GrantTypes)
	} else {
		// Off loopback the probe fetches nothing; it takes the URL as the official suite does.
		a.note(record.Event{Kind: record.EvCIMD, ClientID: id, CIMD: record.CIMDNotFetched}, "auth: client id metadata document %s taken without fetching (not on loopback)", id)
	}
	a.mu.Lock()
	a.clients[id] = c
	a.mu.Unlock()
	return c, ""
}

type cimdDoc struct {
	ClientID     string   `json:"client_id"`
	RedirectURIs []string `json:"redirect_uris"`
	GrantTypes   []string `json:"grant_types"`
}

func fetchCIMD(u string) (cimdDoc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CIMDFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return cimdDoc{}, err
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{}).DialContext}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return cimdDoc{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return cimdDoc{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var d cimdDoc
	err = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&d)
	return d, err
}

// authorize answers at once with a redirect carrying a code (or error=…), as an authorization
// server whose user consented would.
func (a *authServer) authorize(w http.ResponseWriter, r *http.Request, ip string) {
	q := r.URL.Query()
	a.mu.Lock()
	a.authReqs++
	a.mu.Unlock()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if q.Get("redirect_uri") == "" || err != nil || !redirect.IsAbs() {
		a.oauthError(w, http.StatusBadRequest, "invalid_request", "redirect_uri is missing or not an absolute URL")
		return
	}
	c, why := a.lookupClient(q.Get("client_id"), redirect.String(), ip)
	if c == nil {
		// An unknown client gets no redirect (OAuth 2.1 §4.1.2.1).
		a.oauthError(w, http.StatusBadRequest, "invalid_client", why)
		return
	}
	// A pre-registered client may name any loopback redirect URI (the contract); a registered
	// one, only those it registered.
	if (len(c.redirectURIs) > 0 && !contains(c.redirectURIs, redirect.String())) || !loopbackRedirect(redirect) {
		a.oauthError(w, http.StatusBadRequest, "invalid_request", "redirect_uri is not one the client registered, or not on loopback")
		return
	}
	back := redirect.Query()
	state := q.Get("state")
	refuse := func(code, desc string) {
		back.Set("error", code)
		back.Set("error_description", desc)
		if state != "" {
			back.Set("state", state)
		}
		if iss := a.responseISS(); iss != "" {
			back.Set("iss", iss) // RFC 9207 § 2: error responses carry it too
		}
		redirect.RawQuery = back.Encode()
		a.reply(w, http.StatusFound, map[string]string{"Location": redirect.String()}, nil)
	}
	switch {
	case q.Get("response_type") != "code":
		refuse("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "":
		refuse("invalid_request", "PKCE is required: no code_challenge")
		return
	case q.Get("code_challenge_method") != "S256":
		refuse("invalid_request", "PKCE: code_challenge_method must be S256")
		return
	}
	code := "mcpspec-code-" + randHex(16)
	a.secret(code, "code")
	a.mu.Lock()
	a.codes[code] = &grant{clientID: c.id, redirectURI: redirect.String(), challenge: q.Get("code_challenge"),
		method: q.Get("code_challenge_method"), resource: q.Get("resource"), scope: q.Get("scope")}
	a.mu.Unlock()
	back.Set("code", code)
	if a.plan.TamperState {
		state += "-not-yours"
	}
	if state != "" {
		back.Set("state", state)
	}
	iss := a.responseISS()
	if iss != "" {
		back.Set("iss", iss)
	}
	a.note(record.Event{Kind: record.EvCodeIssued, Issuer: iss}, "auth: authorization response with a code, iss %q", iss)
	redirect.RawQuery = back.Encode()
	a.reply(w, http.StatusFound, map[string]string{"Location": redirect.String()}, nil)
}

// responseISS is the iss of the scenario's authorization responses ("" none).
func (a *authServer) responseISS() string {
	switch a.plan.ISSSent {
	case ISSRight:
		return a.plan.Issuer(a.origin)
	case ISSWrong:
		return WrongIssuer
	case ISSNormalized:
		// The issuer with a trailing slash: equal after normalization, not as strings.
		return a.plan.Issuer(a.origin) + "/"
	}
	return ""
}

// authenticate checks the client's authentication at the token endpoint by the method it
// registered, and returns the client.
func (a *authServer) authenticate(r *http.Request, form url.Values, ip string) (*client, string) {
	id, secret, method := form.Get("client_id"), form.Get("client_secret"), "none"
	if secret != "" {
		method = "client_secret_post"
	}
	assertion := form.Get("client_assertion")
	if form.Get("client_assertion_type") == AssertionType || assertion != "" {
		method = "private_key_jwt"
	}
	if u, pw, ok := r.BasicAuth(); ok {
		uu, err1 := url.QueryUnescape(u)
		pp, err2 := url.QueryUnescape(pw)
		if err1 != nil || err2 != nil {
			return nil, "the Basic credentials are not form-encoded"
		}
		id, secret, method = uu, pp, "client_secret_basic"
	}
	if id == "" && method == "private_key_jwt" {
		id = assertionSubject(assertion) // RFC 7523 § 3: client_id may be left to the assertion
	}
	a.mu.Lock()
	c := a.clients[id]
	a.mu.Unlock()
	switch {
	case c == nil:
		return nil, "unknown client_id " + id
	case a.foreign(c, ip):
		return nil, "unknown client_id " + id + " (registered at another authorization server)"
	case c.method != method:
		return nil, fmt.Sprintf("the client registered token_endpoint_auth_method %s but authenticated by %s", c.method, method)
	case method == "private_key_jwt":
		if form.Get("client_assertion_type") != AssertionType {
			a.note(record.Event{Kind: record.EvAssertion}, "auth: client assertion rejected: client_assertion_type %q", form.Get("client_assertion_type"))
			return nil, "client_assertion_type must be " + AssertionType
		}
		if err := a.verifyAssertion(assertion, c); err != nil {
			a.note(record.Event{Kind: record.EvAssertion}, "auth: client assertion rejected: %v", err)
			return nil, "client_assertion: " + err.Error()
		}
		a.note(record.Event{Kind: record.EvAssertion, Verified: true}, "auth: client assertion verified: ES256, signed by the key given, iss and sub the client_id, aud the authorization server")
	case c.secret != secret:
		return nil, "wrong client_secret"
	}
	return c, ""
}

// token serves the token endpoint.
func (a *authServer) token(w http.ResponseWriter, r *http.Request, form url.Values, canonical, ip string) {
	if a.jb != nil {
		a.jb.token(w, r, form, canonical, ip)
		return
	}
	c, why := a.authenticate(r, form, ip)
	if c == nil {
		a.oauthError(w, http.StatusUnauthorized, "invalid_client", why)
		return
	}
	if ip != a.currentIssuer() {
		// AuthPlan.Migrate: the first server no longer issues tokens for the resource.
		a.oauthError(w, http.StatusBadRequest, "invalid_grant", "this authorization server no longer issues tokens for the resource")
		return
	}
	jkt, ok := a.dpopTokenRequest(w, r, ip)
	if !ok {
		return
	}
	resource, scope := form.Get("resource"), form.Get("scope")
	switch form.Get("grant_type") {
	case "authorization_code":
		a.mu.Lock()
		g := a.codes[form.Get("code")]
		lax := a.plan.Lax
		ok := g != nil && (!g.used || lax.CodeReusable)
		if ok {
			g.used = true
		}
		a.mu.Unlock()
		verifier := form.Get("code_verifier")
		// The reference authorization server's faults: the verifier is not checked.
		laxPKCE := ok && (verifier == "" && lax.PKCEMissing || verifier == g.challenge && lax.PKCEPlain ||
			verifier != "" && verifier != g.challenge && lax.PKCEWrong)
		switch {
		case !ok:
			a.oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or used authorization code")
			return
		case g.clientID != c.id && !lax.CodeAnyClient, g.redirectURI != form.Get("redirect_uri") && !lax.CodeAnyRedirect:
			a.oauthError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another client or redirect_uri")
			return
		case !laxPKCE && !validVerifier(verifier):
			a.oauthError(w, http.StatusBadRequest, "invalid_grant", "PKCE: code_verifier is not 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_', '~' (RFC 7636 section 4.1)")
			return
		case !laxPKCE && s256(verifier) != g.challenge:
			a.oauthError(w, http.StatusBadRequest, "invalid_grant", "PKCE: code_verifier does not match the code_challenge (S256)")
			return
		case resource != "" && g.resource != "" && resource != g.resource:
			a.oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request's")
			return
		}
		if resource == "" {
			resource = g.resource
		}
		if scope == "" {
			scope = g.scope
		}
		a.issue(w, "authorization_code", c, resource, scope, canonical, ip, jkt, true)
	case "refresh_token":
		a.mu.Lock()
		t := a.refresh[form.Get("refresh_token")]
		if t != nil {
			delete(a.refresh, form.Get("refresh_token")) // rotated, as OAuth 2.1 asks for public clients
		}
		a.mu.Unlock()
		if t == nil || t.clientID != c.id {
			a.oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
		if resource != "" && t.resource != "" && resource != t.resource {
			a.oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the original grant's")
			return
		}
		if resource == "" {
			resource = t.resource
		}
		if scope == "" {
			scope = t.scope
		}
		a.issue(w, "refresh_token", c, resource, scope, canonical, ip, jkt, true)
	case "client_credentials":
		if !a.plan.ClientCredentials || (c.secret == "" && c.key == nil) {
			a.oauthError(w, http.StatusBadRequest, "unauthorized_client", "client_credentials is not offered to this client")
			return
		}
		a.issue(w, "client_credentials", c, resource, scope, canonical, ip, jkt, false)
	default:
		a.oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type "+form.Get("grant_type"))
	}
}

// issue mints an access token bound to resource (the canonical URI when the request named
// none: the probe is lenient, so that a missing resource is AUTH-CLIENT-RESOURCE's finding
// alone), and a refresh token where the grant gives one.
func (a *authServer) issue(w http.ResponseWriter, grantType string, c *client, resource, scope, canonical, ip, jkt string, withRefresh bool) {
	if resource == "" {
		resource = canonical
	}
	at := "mcpspec-at-" + randHex(20)
	if a.plan.JWTAccessTokens {
		aud := resource
		if a.plan.Lax.AudienceIgnored {
			aud = a.origin + ip
		}
		var err error
		if at, err = a.accessJWT(aud, c.id, scope); err != nil {
			a.oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
			return
		}
	}
	t := &token{label: a.secret(at, "access_token"), resource: resource, scope: scope, clientID: c.id, issuer: ip}
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600}
	if jkt != "" {
		// Bound to the proof's key (RFC 9449 § 5, § 6): the binding is kept with the token.
		t.jkt, resp["token_type"] = jkt, "DPoP"
		a.note(record.Event{Kind: record.EvDPoPBound, Token: t.label, JKT: jkt}, "auth: dpop-bound token %s jkt %s", t.label, jkt)
	}
	if scope != "" {
		resp["scope"] = scope
	}
	a.mu.Lock()
	a.access[at] = t
	a.mu.Unlock()
	if withRefresh {
		rt := "mcpspec-rt-" + randHex(20)
		a.secret(rt, "refresh_token")
		a.mu.Lock()
		a.refresh[rt] = &token{resource: resource, scope: scope, clientID: c.id, issuer: ip}
		a.mu.Unlock()
		resp["refresh_token"] = rt
	}
	a.note(record.Event{Kind: record.EvTokenIssued, Token: t.label, Grant: grantType, Resource: resource, Scope: scope, Issuer: a.origin + ip},
		"auth: issued %s by %s for resource %s scope %q from issuer %s", t.label, grantType, resource, scope, a.origin+ip)
	a.replyJSON(w, http.StatusOK, resp)
}

// AuthorizationRequests counts the authorization requests served.
func (a *authServer) AuthorizationRequests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.authReqs
}

// gate decides whether the MCP endpoint serves a request: it returns the challenge event of a
// refusal (its status and WWW-Authenticate), or nil when the request's token is good for it.
func (a *authServer) gate(r *http.Request, msgs []message, canonical string) *record.Event {
	p := a.plan
	challenge := func(status int, errCode string, parts ...string) *record.Event {
		if p.PRMInChallenge {
			parts = append(parts, fmt.Sprintf("resource_metadata=%q", p.PRMURL(a.origin)))
		}
		ev := &record.Event{Kind: record.EvChallenge, Status: status, Error: errCode, Challenge: "Bearer " + strings.Join(parts, ", ")}
		if a.dpop != nil {
			ev.Challenge = a.dpopChallenge(parts)
		}
		return ev
	}
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") && !a.dpopScheme(scheme) || strings.TrimSpace(cred) == "" {
		var parts []string
		if p.ChallengeScope != "" {
			parts = append(parts, fmt.Sprintf("scope=%q", p.ChallengeScope))
		}
		return challenge(http.StatusUnauthorized, "", parts...)
	}
	a.mu.Lock()
	t := a.access[strings.TrimSpace(cred)]
	a.mu.Unlock()
	invalid := func(desc string) *record.Event {
		return challenge(http.StatusUnauthorized, "invalid_token", `error="invalid_token"`, fmt.Sprintf("error_description=%q", desc))
	}
	expired := func() *record.Event {
		ev := invalid("the token expired")
		ev.Expired = true
		return ev
	}
	switch {
	case t == nil:
		return invalid("the token was not issued by this server's authorization server")
	case t.resource != canonical && !p.rootResource(t.resource, canonical):
		return invalid("the token was issued for " + t.resource + ", not this server")
	case t.expired:
		return expired()
	case t.issuer != a.currentIssuer():
		return invalid("the token was issued by an authorization server this server no longer uses")
	}
	if ev := a.dpopResource(r, challenge); ev != nil {
		return ev
	}
	calls := false
	for _, m := range msgs {
		calls = calls || m.Method == "tools/call"
	}
	if calls && p.Migrate {
		a.mu.Lock()
		first := !a.migrated
		a.migrated = true
		a.mu.Unlock()
		if first {
			a.note(record.Event{Kind: record.EvMigrated, Issuer: a.origin + MigratedIssuerPath}, "auth: authorization server migrated to %s", a.origin+MigratedIssuerPath)
			return invalid("the authorization server has changed")
		}
	}
	if calls && p.ExpireFirst {
		a.mu.Lock()
		first := !a.expiredOnce
		if first {
			t.expired, a.expiredOnce = true, true
		}
		a.mu.Unlock()
		if first {
			return expired()
		}
	}
	if calls && p.StepUp && (p.StepUpAlways || !contains(strings.Fields(t.scope), ScopeWrite)) {
		scope := StepUpScope
		if a.perOperation {
			scope = ScopeWrite
		}
		return challenge(http.StatusForbidden, "insufficient_scope", `error="insufficient_scope"`, fmt.Sprintf("scope=%q", scope),
			`error_description="tools/call needs the scope `+ScopeWrite+`"`)
	}
	a.rec.note(record.Event{Kind: record.EvTokenAccepted, Token: t.label}, "auth: accepted "+t.label)
	return nil
}

// ContextFields are the scenario's authorization fields of MCP_CONFORMANCE_CONTEXT: the
// pre-registered client's credentials, or the JWT bearer scenarios' JWTs (authwif.go), under
// the official suite's names, and nothing otherwise.
func (a *authServer) ContextFields() map[string]any {
	if a.jb != nil {
		return a.jb.contextFields()
	}
	if a.plan.Registration != RegPre {
		return nil
	}
	if a.pre.method == "private_key_jwt" {
		return map[string]any{"client_id": a.pre.id, "private_key_pem": a.pre.pem, "signing_algorithm": "ES256"}
	}
	return map[string]any{"client_id": a.pre.id, "client_secret": a.pre.secret}
}
