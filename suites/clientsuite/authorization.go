package clientsuite

import (
	"encoding/json"
	"fmt"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
)

// The client checks of authorization: each judges what a client did in the auth/* scenarios,
// where the probe MCP server answers 401 with a Bearer challenge until the probe authorization
// server (on the same loopback origin) has issued the client a token for it. The records hold
// no secret: tokens, codes, verifiers and client secrets appear as the labels the probe gave
// them, and each request lists the credentials it carried as data (record.Credential: a
// verifier's syntax and S256 challenge, a token's kind and label), which the checks read.

// The checks run at every revision their catalogue rows name: 2026-07-28 keeps every client
// obligation 2025-11-25 states (its text moved to subpages), and first states RFC 9207's iss
// validation.

func init() {
	checks := []Check{
		{ID: "AUTH-CLIENT-PRM-DISCOVERY", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "the client fetches the protected resource metadata the 401 challenge names, else (2025-11-25) the well-known URIs, path-based first",
			Side:    Client{Scenario: probe.AuthMetadataDefault, Also: []string{probe.AuthMetadataVar1, probe.AuthMetadataVar2, probe.AuthMetadataVar3}, Judge: judgePRMDiscovery}},
		{ID: "AUTH-CLIENT-AS-DISCOVERY", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "the client asks the authorization server's metadata at the well-known URIs in its revision's order (2025-03-26: at the MCP server's origin, then the default endpoints)",
			Side:    Client{Scenario: probe.AuthMetadataDefault, Also: []string{probe.AuthMetadataVar1, probe.AuthMetadataVar2, probe.AuthMetadataVar3, probe.AuthBackcompat0326, probe.AuthEndpointFallback}, Judge: judgeASDiscovery}},
		{ID: "AUTH-CLIENT-PKCE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "the authorization request carries an S256 code_challenge and the token request the code_verifier that yields it, 43 to 128 unreserved characters",
			Side:    Client{Scenario: probe.AuthMetadataDefault, Also: []string{probe.AuthBackcompat0326}, Judge: judgePKCE}},
		{ID: "AUTH-CLIENT-RESOURCE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "the authorization and token requests carry resource, the MCP server's canonical URI",
			Side:    Client{Scenario: probe.AuthMetadataDefault, Also: []string{probe.AuthTokenRefresh}, Judge: judgeResource}},
		{ID: "AUTH-CLIENT-BEARER-HEADER", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "once it holds a token the client sends it in the Authorization header of every request, never in the query string",
			Side:    Client{Scenario: probe.AuthMetadataDefault, Also: []string{probe.AuthBackcompat0326, probe.AuthWIFJWTBearer, probe.AuthEnterpriseManaged, probe.AuthCrossAppAccess}, Judge: judgeBearerHeader}},
		{ID: "AUTH-CLIENT-SCOPE", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,

			Summary: "the client asks for the challenge's scope, else all of scopes_supported, else no scope",
			Side:    Client{Scenario: probe.AuthScopeFromChallenge, Also: []string{probe.AuthScopeFromSupported, probe.AuthScopeOmitted}, Judge: judgeScope}},
		{ID: "AUTH-CLIENT-STEP-UP", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,

			Summary: "answered 403 insufficient_scope, the client re-authorizes with the challenged scope, and gives up after a few attempts",
			Side:    Client{Scenario: probe.AuthScopeStepUp, Also: []string{probe.AuthScopeRetryLimit}, Judge: judgeStepUp}},
		{ID: "AUTH-CLIENT-STATE", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,
			Summary: "the client sends a state and does not redeem a code whose response carries another",
			Side:    Client{Scenario: probe.AuthStateMismatch, Judge: judgeState}},
		{ID: "AUTH-CLIENT-PKCE-REFUSE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "an authorization server whose metadata lacks code_challenge_methods_supported gets no authorization request",
			Side:    Client{Scenario: probe.AuthPKCENotAdvertised, Judge: judgePKCERefuse}},
		{ID: "AUTH-CLIENT-PRM-RESOURCE-MATCH", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "protected resource metadata naming another resource than the MCP server is not used to authorize",
			Side:    Client{Scenario: probe.AuthResourceMismatch, Judge: judgePRMResourceMatch}},
		{ID: "AUTH-CLIENT-REGISTRATION", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,

			Summary: "the client uses the pre-registered client_id it was given, else a Client ID Metadata Document URL where the server takes one, before dynamic registration",
			Side:    Client{Scenario: probe.AuthPreRegistration, Also: []string{probe.AuthBasicCIMD}, Judge: judgeRegistration}},
		{ID: "AUTH-CLIENT-REFRESH", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,
			Summary: "answered 401 invalid_token for an expired access token, a client holding a refresh token uses the refresh_token grant",
			Side:    Client{Scenario: probe.AuthTokenRefresh, Judge: judgeRefresh}},
		{ID: "AUTH-CLIENT-TOKEN-AUTH-METHOD", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "the client authenticates at the token endpoint by the method it registered (client_secret_basic, client_secret_post, none, or private_key_jwt with an assertion its key signed)",
			Side:    Client{Scenario: probe.AuthTokenEndpointBasic, Also: []string{probe.AuthTokenEndpointPost, probe.AuthTokenEndpointNone, probe.AuthPreRegistration, probe.AuthClientCredentialsBa, probe.AuthClientCredentialsJWT}, Judge: judgeTokenAuthMethod}},
		{ID: "AUTH-CLIENT-ISS", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "the client redeems no code whose authorization response has an iss other than the issuer (compared as strings), or none where the server advertises authorization_response_iss_parameter_supported; it redeems one whose iss is the issuer",
			Side:    Client{Scenario: probe.AuthISSWrongIssuer, Also: []string{probe.AuthISSMissing, probe.AuthISSUnexpected, probe.AuthISSNormalized, probe.AuthISSSupported}, Judge: judgeISS}},
		{ID: "AUTH-CLIENT-REDIRECT-URI", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "the redirect_uri of every authorization request is a localhost or https URL, and one the client registered (dynamically or in its Client ID Metadata Document)",
			Side:    Client{Scenario: probe.AuthMetadataDefault, Also: []string{probe.AuthBackcompat0326, probe.AuthBasicCIMD, probe.AuthPreRegistration}, Judge: judgeRedirectURI}},
		{ID: "AUTH-CLIENT-REFRESH-GRANT-TYPE", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,

			Summary: "the client's metadata (its dynamic registration or its Client ID Metadata Document) lists refresh_token in grant_types",
			Side:    Client{Scenario: probe.AuthOfflineAccessScope, Also: []string{probe.AuthMetadataDefault, probe.AuthBasicCIMD}, Judge: judgeRefreshGrantType}},
		{ID: "AUTH-CLIENT-APPLICATION-TYPE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,

			Summary: "a dynamic registration request carries application_type",
			Side:    Client{Scenario: probe.AuthMetadataDefault, Also: []string{probe.AuthTokenEndpointBasic, probe.AuthTokenEndpointPost, probe.AuthTokenEndpointNone}, Judge: judgeApplicationType}},
		{ID: "AUTH-CLIENT-AS-BINDING", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "when the protected resource metadata comes to name another authorization server, the client registers with it anew and presents it no credentials the old one gave",
			Side:    Client{Scenario: probe.AuthASMigration, Judge: judgeASBinding}},
		{ID: "AUTH-CLIENT-TOKEN-ISSUER", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "the client sends the server no token but those of the authorization server its protected resource metadata names: once it has learnt the server moved to another, never the old one's",
			Side:    Client{Scenario: probe.AuthASMigration, Judge: judgeTokenIssuer}},
		{ID: "AUTH-CLIENT-AS-METADATA-ISSUER", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "authorization server metadata whose issuer is not the one the client built its well-known URL from is not used",
			Side:    Client{Scenario: probe.AuthMetadataIssuerMismatch, Judge: judgeMetadataIssuer}},
	}
	// At the stateless revision a client that speaks only the handshake era never got past
	// initialize: its authorization, however it went, is not judged as 2026-07-28's.
	for i := range checks {
		checks[i].Side.Judge = gateStateless(checks[i].Side.Judge)
	}
	Register(checks...)
}

// oauthReq is a request the client made to the authorization server's side of the probe.
type oauthReq struct {
	at     int // index in View.Records
	method string
	path   string
	query  url.Values
	form   url.Values
}

func (v *View) plan() probe.AuthPlan {
	p, _ := probe.PlanFor(v.Scenario)
	return p
}

func (v *View) oauthReqs() []oauthReq {
	var out []oauthReq
	for i, r := range v.Records {
		if r.Dir != record.Recv || r.Channel != probe.ChanOAuth {
			continue
		}
		q, _ := url.ParseQuery(r.Query)
		f := url.Values{}
		if ct, _ := r.HasHeader("Content-Type"); strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
			f, _ = url.ParseQuery(r.Body)
		}
		out = append(out, oauthReq{at: i, method: r.Method, path: r.Path, query: q, form: f})
	}
	return out
}

func (v *View) seq(i int) int { return v.Records[i].Seq }

// challenged is the index of the probe's first refusal for want of authorization, -1 if none.
func (v *View) challenged() int {
	for i, r := range v.Records {
		if r.Is(record.EvChallenge) {
			return i
		}
	}
	return -1
}

// canonical is the MCP server's canonical URI, from the Host the client's requests named.
func (v *View) canonical() string {
	for _, r := range v.Records {
		if h, ok := r.HasHeader("Host"); ok && r.Dir == record.Recv {
			return "http://" + h + probe.Path
		}
	}
	return ""
}

// notChallenged is the finding of a run in which the probe never refused the client.
func (v *View) notChallenged() Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent the MCP server nothing, so it was never challenged")
	}
	return untestable("the probe never answered the client 401")
}

func (v *View) authorizeReqs() []oauthReq {
	var out []oauthReq
	for _, o := range v.oauthReqs() {
		if o.method == "GET" && strings.HasSuffix(o.path, "/authorize") {
			out = append(out, o)
		}
	}
	return out
}

func (v *View) tokenReqs() []oauthReq {
	var out []oauthReq
	for _, o := range v.oauthReqs() {
		if o.method == "POST" && strings.HasSuffix(o.path, "/token") {
			out = append(out, o)
		}
	}
	return out
}

// wellKnown lists the client's GETs whose path contains marker, in order.
func (v *View) wellKnown(marker string) []oauthReq {
	var out []oauthReq
	for _, o := range v.oauthReqs() {
		if o.method == "GET" && strings.Contains(o.path, marker) {
			out = append(out, o)
		}
	}
	return out
}

// prmReqs are the client's requests for protected resource metadata: at a well-known URI, or at
// the plan's own location.
func (v *View) prmReqs() []oauthReq {
	p := v.plan()
	var out []oauthReq
	for _, o := range v.oauthReqs() {
		if o.method == "GET" && (strings.Contains(o.path, "/.well-known/oauth-protected-resource") || (p.PRMPath != "" && o.path == p.PRMPath)) {
			out = append(out, o)
		}
	}
	return out
}

func paths(os []oauthReq) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.path)
	}
	return out
}

// discovered reports whether the client asked the authorization side anything: a client that
// discovers before its first request (mcp-go) is judged by those requests although the probe
// never challenged it.
func (v *View) discovered() bool { return len(v.oauthReqs()) > 0 }

// fetched reports whether the client requested path (a GET).
func (v *View) fetched(path string) bool {
	for _, o := range v.oauthReqs() {
		if o.method == "GET" && o.path == path {
			return true
		}
	}
	return false
}

// judgePRMDiscovery: the challenge's resource_metadata when the client was challenged with
// one; else (2025-11-25 on) the well-known URIs in order. "Otherwise" in the 2025-11-25 text
// (§ Protected Resource Metadata Discovery Requirements: the header's URL "when present;
// otherwise … the well-known URIs in the order listed") covers a client that asks before any
// request too, so requests made before the first challenge are judged by that order.
func judgePRMDiscovery(v *View) Finding {
	ch := v.challenged()
	if ch < 0 && !v.discovered() {
		return v.notChallenged()
	}
	p := v.plan()
	var early, late []oauthReq
	for _, o := range v.prmReqs() {
		if ch < 0 || o.at < ch {
			early = append(early, o)
		} else {
			late = append(late, o)
		}
	}
	order := probe.PRMDiscoveryOrder()
	// onlyEarly: the client found its metadata before any challenge and asked none after one
	// (a later challenge, for a request sent without the token, taught it nothing new).
	onlyEarly := len(late) == 0
	if len(early) > 0 {
		if v.Revision < harness.Rev20251125 {
			if onlyEarly {
				return untestable("%s: the client asked %v before any challenge; the well-known fallback is 2025-11-25's", v.Scenario, paths(early))
			}
		} else {
			for i, o := range early {
				if i >= len(order) || o.path != order[i] {
					return violated("%s: before any challenge the client asked %v; the order is %v, up to the one served (%s)", v.Scenario, paths(early), order, p.PRMPath)
				}
				if o.path == p.PRMPath {
					return passed("%s: before any challenge the client asked %v, the well-known URIs in order", v.Scenario, paths(early[:i+1]))
				}
			}
			if onlyEarly && ch >= 0 && p.PRMInChallenge {
				return violated("%s: challenged (record %d) with resource_metadata %s, the client never asked it (before the challenge it asked %v)", v.Scenario, v.seq(ch), p.PRMPath, paths(early))
			}
			if onlyEarly {
				if slices.Contains(order, p.PRMPath) {
					return violated("%s: the client asked %v and never %s, where the metadata is", v.Scenario, paths(early), p.PRMPath)
				}
				return untestable("%s: the metadata is only at the URL the challenge names, and the client, having asked %v, never sent the MCP server a request to be challenged", v.Scenario, paths(early))
			}
		}
	}
	got := late
	if len(got) == 0 {
		return violated("%s: challenged (record %d), the client never asked for the protected resource metadata", v.Scenario, v.seq(ch))
	}
	if p.PRMInChallenge {
		if got[0].path != p.PRMPath {
			return violated("%s: the challenge named resource_metadata %s, but the client asked %s first (record %d)", v.Scenario, p.PRMPath, got[0].path, v.seq(got[0].at))
		}
		return passed("%s: the client fetched the resource_metadata the challenge named, %s (record %d)", v.Scenario, p.PRMPath, v.seq(got[0].at))
	}
	if v.Revision < harness.Rev20251125 {
		return na("%s: the well-known fallback is 2025-11-25's", v.Scenario)
	}
	for i, o := range got {
		if i >= len(order) || o.path != order[i] {
			return violated("%s: with no resource_metadata in the challenge the client asked %v; the order is %v, up to the one served (%s)", v.Scenario, paths(got), order, p.PRMPath)
		}
		if o.path == p.PRMPath {
			return passed("%s: the client asked %v, the well-known URIs in order", v.Scenario, paths(got[:i+1]))
		}
	}
	return violated("%s: the client asked %v and never %s, where the metadata is", v.Scenario, paths(got), p.PRMPath)
}

func judgeASDiscovery(v *View) Finding {
	if v.challenged() < 0 && !v.discovered() {
		return v.notChallenged()
	}
	p := v.plan()
	if p.PRMPath != "" && !v.fetched(p.PRMPath) {
		// The miss is AUTH-CLIENT-PRM-DISCOVERY's; where the client looked for the
		// authorization server without the metadata naming it is not judged twice.
		return untestable("%s: the client never found the protected resource metadata that names the authorization server", v.Scenario)
	}
	var got []oauthReq
	for _, o := range v.oauthReqs() {
		if o.method == "GET" && (strings.Contains(o.path, "/.well-known/oauth-authorization-server") || strings.Contains(o.path, "/.well-known/openid-configuration")) {
			got = append(got, o)
		}
	}
	order := p.ASDiscoveryOrder(v.Revision)
	auths := v.authorizeReqs()
	if p.ASMetaPath == "" {
		// 2025-03-26 without metadata: the metadata first, then the default endpoints.
		if len(got) == 0 || got[0].path != order[0] {
			return violated("%s: the client did not ask %s before anything else of the authorization server (it asked %v)", v.Scenario, order[0], paths(got))
		}
		if len(auths) == 0 {
			return violated("%s: with no metadata the client never used the default authorization endpoint /authorize", v.Scenario)
		}
		if auths[0].path != "/authorize" {
			return violated("%s: with no metadata the client sent its authorization request to %s, not the default /authorize", v.Scenario, auths[0].path)
		}
		return passed("%s: the client asked %s (404), then used the default endpoints", v.Scenario, order[0])
	}
	if len(got) == 0 {
		return violated("%s: the client never asked for the authorization server's metadata", v.Scenario)
	}
	for i, o := range got {
		if i >= len(order) || o.path != order[i] {
			return violated("%s: the client asked %v for the metadata of issuer %q; at %s the order is %v, up to the one served (%s)", v.Scenario, paths(got), p.IssuerPath, v.Revision, order, p.ASMetaPath)
		}
		if o.path == p.ASMetaPath {
			if len(auths) > 0 && auths[0].path != p.IssuerPath+"/authorize" {
				return violated("%s: the metadata names %s/authorize, but the client sent its authorization request to %s", v.Scenario, p.IssuerPath, auths[0].path)
			}
			return passed("%s: the client asked %v, in %s's order", v.Scenario, paths(got[:i+1]), v.Revision)
		}
	}
	return violated("%s: the client asked %v and never %s, where the metadata is", v.Scenario, paths(got), p.ASMetaPath)
}

// noAuthorization is the finding of a run in which the client made no authorization request.
func (v *View) noAuthorization() Finding {
	if v.challenged() < 0 && !v.discovered() {
		return v.notChallenged()
	}
	return untestable("%s: the client made no authorization request", v.Scenario)
}

func judgePKCE(v *View) Finding {
	auths := v.authorizeReqs()
	if len(auths) == 0 {
		return v.noAuthorization()
	}
	a := auths[0]
	challenge, method := a.query.Get("code_challenge"), a.query.Get("code_challenge_method")
	if challenge == "" {
		return violated("%s: the authorization request (record %d) carries no code_challenge", v.Scenario, v.seq(a.at))
	}
	if method != "S256" {
		return violated("%s: the authorization request (record %d) has code_challenge_method %q, not S256", v.Scenario, v.seq(a.at), method)
	}
	for _, t := range v.tokenReqs() {
		if t.form.Get("grant_type") != "authorization_code" {
			continue
		}
		verifier := t.form.Get("code_verifier") // its label
		c, _ := v.Records[t.at].Cred(record.InForm, "code_verifier")
		switch {
		case verifier == "":
			return violated("%s: the token request (record %d) carries no code_verifier", v.Scenario, v.seq(t.at))
		case !c.VerifierOK:
			return violated("%s: the code_verifier of the token request (record %d) is not 43 to 128 characters of the unreserved set (RFC 7636 section 4.1): %s", v.Scenario, v.seq(t.at), verifier)
		case c.S256 != challenge:
			return violated("%s: the code_verifier of the token request (record %d) does not yield the code_challenge %s by S256 (%s)", v.Scenario, v.seq(t.at), challenge, verifier)
		}
		return passed("%s: S256 challenge in the authorization request, its verifier in the token request (record %d)", v.Scenario, v.seq(t.at))
	}
	return untestable("%s: the client never redeemed its authorization code", v.Scenario)
}

func judgeResource(v *View) Finding {
	auths := v.authorizeReqs()
	if len(auths) == 0 {
		return v.noAuthorization()
	}
	want := v.canonical()
	for _, a := range auths {
		if got := a.query.Get("resource"); got != want {
			return violated("%s: the authorization request (record %d) has resource %q, want the MCP server's canonical URI %q", v.Scenario, v.seq(a.at), got, want)
		}
	}
	n := 0
	for _, t := range v.tokenReqs() {
		n++
		if got := t.form.Get("resource"); got != want {
			return violated("%s: the %s token request (record %d) has resource %q, want %q", v.Scenario, t.form.Get("grant_type"), v.seq(t.at), got, want)
		}
	}
	if n == 0 {
		return untestable("%s: the client made no token request", v.Scenario)
	}
	return passed("%s: %d authorization and %d token requests name resource %s", v.Scenario, len(auths), n, want)
}

// issued is the index of the probe's first token issue, -1 if none.
func (v *View) issued() int {
	for i, r := range v.Records {
		if r.Is(record.EvTokenIssued) {
			return i
		}
	}
	return -1
}

func judgeBearerHeader(v *View) Finding {
	first := v.issued()
	if first < 0 {
		if len(v.authorizeReqs()) == 0 {
			return v.noAuthorization()
		}
		return untestable("%s: the client was issued no token", v.Scenario)
	}
	n := 0
	for i, r := range v.Records {
		if r.Dir != record.Recv || r.Channel == probe.ChanOAuth {
			continue
		}
		if strings.Contains(r.Query, "access_token") || slices.ContainsFunc(r.Creds, func(c record.Credential) bool { return c.In == record.InQuery }) {
			return violated("%s: %s to the MCP endpoint (record %d) carries a token in its query string: %s", v.Scenario, r.Channel, r.Seq, r.Query)
		}
		if i < first {
			continue
		}
		n++
		a, _ := r.HasHeader("Authorization")
		if c, ok := r.Cred(record.InHeader, "Authorization"); !ok || c.Kind != record.SecretAccessToken || !strings.HasPrefix(a, "Bearer ") {
			return violated("%s: %s (record %d), sent after the client was issued a token, has Authorization %q, not Bearer and the token", v.Scenario, r.Channel, r.Seq, a)
		}
	}
	if n == 0 {
		return untestable("%s: the client sent the MCP server nothing after it got its token", v.Scenario)
	}
	return passed("%s: all %d requests after the token was issued carry it in the Authorization header, none in a query string", v.Scenario, n)
}

func scopeSet(s string) []string {
	f := strings.Fields(s)
	slices.Sort(f)
	return slices.Compact(f)
}

func judgeScope(v *View) Finding {
	auths := v.authorizeReqs()
	if len(auths) == 0 {
		return v.noAuthorization()
	}
	p := v.plan()
	got, has := auths[0].query["scope"]
	gotS := strings.Join(got, " ")
	var want string
	var why string
	switch {
	case p.ChallengeScope != "":
		want, why = p.ChallengeScope, "the challenge's scope"
	case p.ScopesSupported != nil:
		want, why = strings.Join(p.ScopesSupported, " "), "all of scopes_supported (the challenge named none)"
	default:
		if has && strings.TrimSpace(gotS) != "" {
			return violated("%s: neither the challenge nor the metadata defines a scope, yet the authorization request (record %d) asks for %q", v.Scenario, v.seq(auths[0].at), gotS)
		}
		return passed("%s: no scope defined, none asked for", v.Scenario)
	}
	if !slices.Equal(scopeSet(gotS), scopeSet(want)) {
		return violated("%s: the authorization request (record %d) asks for scope %q, want %s: %q", v.Scenario, v.seq(auths[0].at), gotS, why, want)
	}
	return passed("%s: the client asked for %s, %q", v.Scenario, why, want)
}

// refusals are the indices of the probe's notes of a 403 insufficient_scope.
func (v *View) stepUpChallenges() []int {
	var out []int
	for i, r := range v.Records {
		if r.Is(record.EvChallenge) && r.Event.Status == 403 {
			out = append(out, i)
		}
	}
	return out
}

func judgeStepUp(v *View) Finding {
	auths := v.authorizeReqs()
	p := v.plan()
	if p.StepUpAlways {
		if len(auths) > probe.RetryLimit {
			return violated("%s: refused 403 insufficient_scope at every tools/call, the client made %d authorization requests; it should stop after a few (at most %d)", v.Scenario, len(auths), probe.RetryLimit)
		}
		if len(v.stepUpChallenges()) == 0 {
			return untestable("%s: the client never called a tool with a token, so it was never refused 403", v.Scenario)
		}
		return passed("%s: refused 403 at every tools/call, the client stopped after %d authorization requests", v.Scenario, len(auths))
	}
	ups := v.stepUpChallenges()
	if len(ups) == 0 {
		if len(auths) == 0 {
			return v.noAuthorization()
		}
		return untestable("%s: the client never called a tool with a token, so it was never refused 403", v.Scenario)
	}
	// At 2026-07-28 the challenge names the operation's scope alone, and the client asks for
	// the union of it and what it asked before (§ Step-Up Authorization Flow, step 2).
	want, challenged := []string{probe.ScopeWrite}, probe.StepUpScope
	if harness.IsStateless(v.Revision) {
		challenged = probe.ScopeWrite
		for _, a := range auths {
			if a.at < ups[0] {
				want = append(want, scopeSet(a.query.Get("scope"))...)
			}
		}
	}
	for _, a := range auths {
		if a.at < ups[0] {
			continue
		}
		got := scopeSet(a.query.Get("scope"))
		for _, s := range want {
			if !slices.Contains(got, s) {
				return violated("%s: after 403 insufficient_scope with scope %q the client re-authorized (record %d) with scope %q, without %s", v.Scenario, challenged, v.seq(a.at), a.query.Get("scope"), s)
			}
		}
		return passed("%s: after 403 insufficient_scope with scope %q the client re-authorized with scope %q (record %d)", v.Scenario, challenged, a.query.Get("scope"), v.seq(a.at))
	}
	return violated("%s: after 403 insufficient_scope (record %d) the client never re-authorized", v.Scenario, v.seq(ups[0]))
}

func judgeState(v *View) Finding {
	auths := v.authorizeReqs()
	if len(auths) == 0 {
		return v.noAuthorization()
	}
	a := auths[0]
	if a.query.Get("state") == "" {
		return violated("%s: the authorization request (record %d) carries no state", v.Scenario, v.seq(a.at))
	}
	for _, t := range v.tokenReqs() {
		if t.form.Get("grant_type") == "authorization_code" {
			return violated("%s: the authorization response came back with a state other than the one sent, and the client redeemed its code anyway (record %d)", v.Scenario, v.seq(t.at))
		}
	}
	return passed("%s: the authorization response's state was not the one sent, and the client did not redeem the code", v.Scenario)
}

func judgePKCERefuse(v *View) Finding {
	if v.challenged() < 0 && !v.discovered() {
		return v.notChallenged()
	}
	p := v.plan()
	meta := v.wellKnown(p.ASMetaPath)
	if len(meta) == 0 {
		return untestable("%s: the client never fetched the authorization server metadata (%s)", v.Scenario, p.ASMetaPath)
	}
	if auths := v.authorizeReqs(); len(auths) > 0 {
		return violated("%s: the metadata has no code_challenge_methods_supported, yet the client sent an authorization request (record %d)", v.Scenario, v.seq(auths[0].at))
	}
	return passed("%s: the metadata has no code_challenge_methods_supported, and the client did not proceed", v.Scenario)
}

func judgePRMResourceMatch(v *View) Finding {
	if v.challenged() < 0 && !v.discovered() {
		return v.notChallenged()
	}
	if len(v.prmReqs()) == 0 {
		return untestable("%s: the client never fetched the protected resource metadata", v.Scenario)
	}
	p := v.plan()
	for _, o := range v.oauthReqs() {
		if (o.method == "GET" && strings.HasSuffix(o.path, "/authorize")) || (o.method == "POST" && (strings.HasSuffix(o.path, "/token") || strings.HasSuffix(o.path, "/register"))) {
			return violated("%s: the protected resource metadata names resource %s, not %s, yet the client went on to %s %s (record %d)", v.Scenario, p.PRMResource, v.canonical(), o.method, o.path, v.seq(o.at))
		}
	}
	return passed("%s: the metadata names resource %s, and the client did not use it to authorize", v.Scenario, p.PRMResource)
}

func judgeRegistration(v *View) Finding {
	auths := v.authorizeReqs()
	if len(auths) == 0 {
		if v.Scenario == probe.AuthBasicCIMD && len(v.wellKnown(v.plan().ASMetaPath)) > 0 {
			return violated("%s: the authorization server takes Client ID Metadata Documents (and offers no registration endpoint), yet the client never sent an authorization request with a URL client_id", v.Scenario)
		}
		return v.noAuthorization()
	}
	for _, o := range v.oauthReqs() {
		if o.method == "POST" && strings.HasSuffix(o.path, "/register") {
			return violated("%s: the client registered dynamically (record %d) although %s", v.Scenario, v.seq(o.at), map[bool]string{true: "it was given a pre-registered client_id", false: "the server takes Client ID Metadata Documents"}[v.Scenario == probe.AuthPreRegistration])
		}
	}
	id := auths[0].query.Get("client_id")
	if v.Scenario == probe.AuthPreRegistration {
		if id != probe.PreRegisteredClientID {
			return violated("%s: the authorization request (record %d) has client_id %q, not the pre-registered %q", v.Scenario, v.seq(auths[0].at), id, probe.PreRegisteredClientID)
		}
		return passed("%s: the client used the pre-registered client_id %s", v.Scenario, id)
	}
	u, err := url.Parse(id)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return violated("%s: the server takes Client ID Metadata Documents, yet the client_id of the authorization request (record %d) is %q, not a URL", v.Scenario, v.seq(auths[0].at), id)
	}
	for _, r := range v.Records {
		if ev := r.Event; r.Is(record.EvCIMD) && ev.ClientID == id && ev.CIMD != record.CIMDFetched && ev.CIMD != record.CIMDNotFetched {
			return violated("%s: the client's metadata document at %s did not do: %s", v.Scenario, id, r.Body)
		}
	}
	return passed("%s: the client used a Client ID Metadata Document URL as its client_id, %s", v.Scenario, id)
}

func judgeRefresh(v *View) Finding {
	expired := -1
	for i, r := range v.Records {
		if r.Is(record.EvChallenge) && r.Event.Status == 401 && r.Event.Error == "invalid_token" && r.Event.Expired {
			expired = i
			break
		}
	}
	if expired < 0 {
		if v.issued() < 0 {
			return untestable("%s: the client was issued no token", v.Scenario)
		}
		return untestable("%s: the client never called a tool with its token, so the probe never answered it as expired", v.Scenario)
	}
	for _, o := range v.oauthReqs() {
		if o.at < expired {
			continue
		}
		switch {
		case o.method == "POST" && strings.HasSuffix(o.path, "/token") && o.form.Get("grant_type") == "refresh_token":
			if c, ok := v.Records[o.at].Cred(record.InForm, "refresh_token"); !ok || c.Kind != record.SecretRefreshToken {
				return violated("%s: the refresh_token grant (record %d) carries no refresh token the authorization server issued", v.Scenario, v.seq(o.at))
			}
			return passed("%s: answered 401 for its expired token, the client used the refresh_token grant (record %d)", v.Scenario, v.seq(o.at))
		case o.method == "GET" && strings.HasSuffix(o.path, "/authorize"):
			return violated("%s: answered 401 for its expired token while holding a refresh token, the client authorized anew (record %d) instead of refreshing", v.Scenario, v.seq(o.at))
		}
	}
	return violated("%s: answered 401 for its expired token (record %d), the client never refreshed it", v.Scenario, v.seq(expired))
}

// registeredMethod is the token endpoint authentication method the client registered: the
// registration response's, or the pre-registered client's.
func (v *View) registeredMethod() string {
	if v.plan().Registration == probe.RegPre {
		return v.plan().AuthMethods[0]
	}
	for i, r := range v.Records {
		if r.Dir != record.Send || r.Channel != probe.ChanOAuth || r.Status != 201 || i == 0 {
			continue
		}
		prev := v.Records[i-1]
		if prev.Dir == record.Recv && strings.HasSuffix(prev.Path, "/register") {
			var reg struct {
				Method string `json:"token_endpoint_auth_method"`
			}
			if json.Unmarshal([]byte(r.Body), &reg) == nil {
				return reg.Method
			}
		}
	}
	return ""
}

func judgeTokenAuthMethod(v *View) Finding {
	toks := v.tokenReqs()
	if len(toks) == 0 {
		if v.challenged() < 0 && !v.discovered() {
			return v.notChallenged()
		}
		return untestable("%s: the client made no token request", v.Scenario)
	}
	// The client credentials scenarios give the client its credentials for the
	// client_credentials grant (the contract; the OAuth Client Credentials extension): an
	// authorization code flow with them is not that method, whatever it authenticates by.
	if v.plan().ClientCredentials {
		for _, t := range toks {
			if g := t.form.Get("grant_type"); g != "client_credentials" {
				return violated("%s: given client credentials, the client's token request (record %d) uses grant_type %q, not client_credentials", v.Scenario, v.seq(t.at), g)
			}
		}
	}
	want := v.registeredMethod()
	if want == "" {
		return untestable("%s: the client registered no token endpoint authentication method", v.Scenario)
	}
	for _, t := range toks {
		r := v.Records[t.at]
		authz, _ := r.HasHeader("Authorization")
		var used []string
		if strings.HasPrefix(authz, "Basic ") {
			used = append(used, "client_secret_basic")
		}
		if t.form.Get("client_secret") != "" {
			used = append(used, "client_secret_post")
		}
		if t.form.Get("client_assertion") != "" || t.form.Get("client_assertion_type") != "" {
			used = append(used, "private_key_jwt")
		}
		got := "none"
		if len(used) > 0 {
			got = strings.Join(used, " and ")
		}
		if got != want {
			return violated("%s: registered for %s, the client authenticated its %s token request (record %d) by %s", v.Scenario, want, t.form.Get("grant_type"), r.Seq, got)
		}
		if got == "private_key_jwt" {
			if ok, note := v.assertionVerdict(t.at); !ok {
				return violated("%s: the client_assertion of its %s token request (record %d) did not verify: %s", v.Scenario, t.form.Get("grant_type"), r.Seq, note)
			}
		}
	}
	return passed("%s: all %d token requests authenticate by the registered %s", v.Scenario, len(toks), want)
}

// codeResponses are the probe's notes of authorization responses that carried a code.
func (v *View) codeResponses() []int {
	var out []int
	for i, r := range v.Records {
		if r.Is(record.EvCodeIssued) {
			out = append(out, i)
		}
	}
	return out
}

func judgeISS(v *View) Finding {
	auths := v.authorizeReqs()
	if len(auths) == 0 {
		return v.noAuthorization()
	}
	codes := v.codeResponses()
	if len(codes) == 0 {
		return untestable("%s: the authorization server answered the client's authorization request without a code", v.Scenario)
	}
	p := v.plan()
	redeemed := -1
	for _, t := range v.tokenReqs() {
		if t.form.Get("grant_type") == "authorization_code" && t.at > codes[0] {
			redeemed = t.at
			break
		}
	}
	advertised := map[bool]string{true: "advertises", false: "does not advertise"}[p.ISS]
	var what string
	switch p.ISSSent {
	case probe.ISSRight:
		if redeemed < 0 {
			return violated("%s: the authorization response's iss is the issuer of the metadata the client read, yet the client never redeemed the code", v.Scenario)
		}
		return passed("%s: the authorization response's iss is the issuer, and the client redeemed the code (record %d)", v.Scenario, v.seq(redeemed))
	case probe.ISSWrong:
		what = "an iss naming another authorization server (" + probe.WrongIssuer + ")"
	case probe.ISSNormalized:
		what = "an iss equal to the issuer only once normalized (a trailing slash added)"
	default:
		what = "no iss"
	}
	if redeemed >= 0 {
		return violated("%s: the authorization server %s authorization_response_iss_parameter_supported and its authorization response carried %s, yet the client redeemed the code (record %d)", v.Scenario, advertised, what, v.seq(redeemed))
	}
	return passed("%s: the authorization server %s authorization_response_iss_parameter_supported, its authorization response carried %s, and the client did not redeem the code", v.Scenario, advertised, what)
}

// registeredRedirects are the redirect URIs the client registered: its dynamic registration
// request's, or those of the Client ID Metadata Document the probe fetched; nil when it
// registered none the probe saw (pre-registered, or a document off loopback).
func (v *View) registeredRedirects() ([]string, string) {
	for _, o := range v.oauthReqs() {
		if o.method == "POST" && strings.HasSuffix(o.path, "/register") {
			var reg struct {
				RedirectURIs []string `json:"redirect_uris"`
			}
			_ = json.Unmarshal([]byte(v.Records[o.at].Body), &reg)
			return reg.RedirectURIs, "its registration request (record " + fmt.Sprint(v.seq(o.at)) + ")"
		}
	}
	for _, r := range v.Records {
		if ev := r.Event; r.Is(record.EvCIMD) && (ev.CIMD == record.CIMDFetched || ev.CIMD == record.CIMDMismatch) {
			return ev.RedirectURIs, "its Client ID Metadata Document"
		}
	}
	return nil, ""
}

// localhostOrHTTPS reports whether a redirect URI is a localhost URL or an https one.
func localhostOrHTTPS(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return u.Scheme == "https" || (u.Scheme == "http" && (h == "localhost" || h == "127.0.0.1" || h == "::1"))
}

func judgeRedirectURI(v *View) Finding {
	auths := v.authorizeReqs()
	if len(auths) == 0 {
		return v.noAuthorization()
	}
	registered, where := v.registeredRedirects()
	if v.Revision < harness.Rev20250618 {
		where = "" // 2025-03-26 asks a localhost or https URL, not yet a registered one
	}
	for _, a := range auths {
		ru := a.query.Get("redirect_uri")
		switch {
		case ru == "":
			return violated("%s: the authorization request (record %d) names no redirect_uri", v.Scenario, v.seq(a.at))
		case !localhostOrHTTPS(ru):
			return violated("%s: the authorization request (record %d) names redirect_uri %q, neither a localhost nor an https URL", v.Scenario, v.seq(a.at), ru)
		case where != "" && !slices.Contains(registered, ru):
			return violated("%s: the authorization request (record %d) names redirect_uri %q, which is not among those of %s: %v", v.Scenario, v.seq(a.at), ru, where, registered)
		}
	}
	if where == "" {
		return passed("%s: every authorization request names a localhost or https redirect_uri (registration not judged: pre-registered, unseen, or 2025-03-26)", v.Scenario)
	}
	return passed("%s: every authorization request names a localhost or https redirect_uri registered in %s", v.Scenario, where)
}

// registration is the client's dynamic registration request, -1 if none.
func (v *View) registration() (int, map[string]json.RawMessage) {
	for _, o := range v.oauthReqs() {
		if o.method == "POST" && strings.HasSuffix(o.path, "/register") {
			var body map[string]json.RawMessage
			_ = json.Unmarshal([]byte(v.Records[o.at].Body), &body)
			return o.at, body
		}
	}
	return -1, nil
}

// offlineAsked says whether the client asked for offline_access, for the messages.
func (v *View) offlineAsked() string {
	for _, a := range v.authorizeReqs() {
		if slices.Contains(scopeSet(a.query.Get("scope")), probe.ScopeOffline) {
			return " (it asked for offline_access too)"
		}
	}
	return ""
}

func judgeRefreshGrantType(v *View) Finding {
	var grants []string
	var where string
	if at, body := v.registration(); at >= 0 {
		where = fmt.Sprintf("its registration request (record %d)", v.seq(at))
		if raw, ok := body["grant_types"]; ok {
			_ = json.Unmarshal(raw, &grants)
		} else {
			grants = []string{"authorization_code"} // RFC 7591 § 2's default
			where += ", which names none (RFC 7591's default: authorization_code)"
		}
	} else {
		for _, r := range v.Records {
			if r.Is(record.EvCIMDGrants) {
				where = "its Client ID Metadata Document"
				grants = r.Event.GrantTypes
				if len(grants) == 0 {
					grants = []string{"authorization_code"}
					where += ", which names none (the default: authorization_code)"
				}
			}
		}
	}
	if where == "" {
		if v.challenged() < 0 {
			return v.notChallenged()
		}
		return untestable("%s: the client registered neither dynamically nor by a Client ID Metadata Document the probe could fetch, so its grant_types are unseen", v.Scenario)
	}
	if !slices.Contains(grants, "refresh_token") {
		return violated("%s: the grant_types of %s are %v, without refresh_token%s", v.Scenario, where, grants, v.offlineAsked())
	}
	return passed("%s: the grant_types of %s are %v%s", v.Scenario, where, grants, v.offlineAsked())
}

func judgeApplicationType(v *View) Finding {
	at, body := v.registration()
	if at < 0 {
		if v.challenged() < 0 {
			return v.notChallenged()
		}
		return na("%s: the client did not register dynamically", v.Scenario)
	}
	var appType string
	if raw, ok := body["application_type"]; !ok || json.Unmarshal(raw, &appType) != nil || appType == "" {
		return violated("%s: the registration request (record %d) carries no application_type", v.Scenario, v.seq(at))
	}
	return passed("%s: the registration request (record %d) carries application_type %q", v.Scenario, v.seq(at), appType)
}

// assertionVerdict is what the probe made of the client_assertion of the token request at
// index at: whether it verified, and the probe's words on it.
func (v *View) assertionVerdict(at int) (bool, string) {
	for _, r := range v.Records[at+1:] {
		if r.Is(record.EvAssertion) {
			return r.Event.Verified, r.Body
		}
	}
	return false, "the probe recorded no verdict on it"
}

// migrated is the index of the probe's note that the protected resource metadata names the
// second authorization server from now on, -1 if the scenario never got there.
func (v *View) migrated() int {
	for i, r := range v.Records {
		if r.Is(record.EvMigrated) {
			return i
		}
	}
	return -1
}

// notMigrated is the finding of a run in which the authorization server never changed.
func (v *View) notMigrated() Finding {
	if v.issued() < 0 {
		if len(v.authorizeReqs()) == 0 {
			return v.noAuthorization()
		}
		return untestable("%s: the client was issued no token", v.Scenario)
	}
	return untestable("%s: the client never called a tool with its token, so the authorization server never changed", v.Scenario)
}

func judgeASBinding(v *View) Finding {
	m := v.migrated()
	if m < 0 {
		return v.notMigrated()
	}
	for _, r := range v.Records[m:] {
		if ev := r.Event; r.Is(record.EvCrossAS) {
			return violated("%s: after the protected resource metadata came to name another authorization server, the client presented the old one's credentials to it: %s presented at %s, registered at %s (record %d)", v.Scenario, ev.ClientID, ev.Issuer, ev.RegisteredAt, r.Seq)
		}
	}
	registered := false
	for _, o := range v.oauthReqs() {
		if o.at < m || !strings.HasPrefix(o.path, probe.MigratedIssuerPath+"/") {
			continue
		}
		switch {
		case o.method == "POST" && o.path == probe.MigratedIssuerPath+"/register":
			registered = true
		case o.method == "GET" && o.path == probe.MigratedIssuerPath+"/authorize":
			id := o.query.Get("client_id")
			if !registered && !strings.HasPrefix(id, "http") {
				return violated("%s: the client sent the new authorization server an authorization request (record %d) with client_id %q without registering with it", v.Scenario, v.seq(o.at), id)
			}
			return passed("%s: the client registered with the new authorization server and authorized there as client %q (record %d)", v.Scenario, id, v.seq(o.at))
		}
	}
	return untestable("%s: the client never sent the new authorization server an authorization request", v.Scenario)
}

// tokenIssuers maps the label of each access token the probe issued to its issuer.
func (v *View) tokenIssuers() map[string]string {
	out := map[string]string{}
	for _, r := range v.Records {
		if r.Is(record.EvTokenIssued) {
			out[r.Event.Token] = r.Event.Issuer
		}
	}
	return out
}

func judgeTokenIssuer(v *View) Finding {
	m := v.migrated()
	if m < 0 {
		return v.notMigrated()
	}
	newIssuer := v.Records[m].Event.Issuer
	// The client learns of the move when it reads the protected resource metadata again.
	learnt := -1
	for _, o := range v.prmReqs() {
		if o.at > m {
			learnt = o.at
			break
		}
	}
	if learnt < 0 {
		return untestable("%s: refused its token, the client never read the protected resource metadata again, so it never learnt that the server's authorization server changed", v.Scenario)
	}
	issuers := v.tokenIssuers()
	n := 0
	for _, r := range v.Records[learnt:] {
		if r.Dir != record.Recv || r.Channel == probe.ChanOAuth {
			continue
		}
		a, _ := r.HasHeader("Authorization")
		if strings.TrimSpace(strings.TrimPrefix(a, "Bearer ")) == "" {
			continue
		}
		c, _ := r.Cred(record.InHeader, "Authorization")
		if iss := issuers[c.Label]; c.Label == "" || iss != newIssuer {
			from := "an authorization server's it was never issued by"
			if iss != "" {
				from = iss + "'s"
			}
			return violated("%s: after the protected resource metadata named %s (read again at record %d), the client sent the server %s token (record %d)", v.Scenario, newIssuer, v.seq(learnt), from, r.Seq)
		}
		n++
	}
	if n == 0 {
		return untestable("%s: the client sent the server no token after it learnt the authorization server changed", v.Scenario)
	}
	return passed("%s: after the protected resource metadata named %s, the client's %d requests carry only its tokens", v.Scenario, newIssuer, n)
}

func judgeMetadataIssuer(v *View) Finding {
	if v.challenged() < 0 {
		return v.notChallenged()
	}
	p := v.plan()
	meta := v.wellKnown(p.ASMetaPath)
	if len(meta) == 0 {
		return untestable("%s: the client never fetched the authorization server metadata (%s)", v.Scenario, p.ASMetaPath)
	}
	for _, o := range v.oauthReqs() {
		if o.at > meta[0].at && ((o.method == "GET" && strings.HasSuffix(o.path, "/authorize")) || (o.method == "POST" && (strings.HasSuffix(o.path, "/token") || strings.HasSuffix(o.path, "/register")))) {
			return violated("%s: the metadata at %s names issuer %s, not the one the URL was built from, yet the client went on to %s %s (record %d)", v.Scenario, p.ASMetaPath, p.MetadataIssuer, o.method, o.path, v.seq(o.at))
		}
	}
	return passed("%s: the metadata names issuer %s, not the one the URL was built from, and the client did not use it", v.Scenario, p.MetadataIssuer)
}

// The checks of the DPoP extension (io.modelcontextprotocol/auth/dpop), in area auth: their
// judges and helpers are in dpop.go.
func init() {
	Register(
		Check{ID: "AUTH-CLIENT-DPOP-TOKEN-PROOF", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "where the authorization server advertises DPoP, each token request carries one DPoP proof: typ dpop+jwt, an advertised algorithm, a public jwk that verifies its signature, a jti, htm POST, htu the token endpoint without query, an iat within 5 minutes",
			Side:    Client{Scenario: probe.AuthDPoP, Also: dpopScenarios, Judge: dpopGate(judgeDPoPTokenProof)}},
		Check{ID: "AUTH-CLIENT-DPOP-RESOURCE-PROOF", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "each request that presents a DPoP-bound token carries one DPoP proof signed by the key the token is bound to, with htm the request's method, htu the MCP endpoint, ath the token's hash and a fresh iat",
			Side:    Client{Scenario: probe.AuthDPoP, Also: dpopScenarios, Judge: dpopGate(judgeDPoPResourceProof)}},
		Check{ID: "AUTH-CLIENT-DPOP-SCHEME", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "a DPoP-bound token (token_type DPoP) is sent in Authorization with the DPoP scheme, never Bearer",
			Side:    Client{Scenario: probe.AuthDPoP, Also: dpopScenarios, Judge: dpopGate(judgeDPoPScheme)}},
		Check{ID: "AUTH-CLIENT-DPOP-JTI", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "every DPoP proof the client sends has a jti of its own: no proof is sent twice",
			Side:    Client{Scenario: probe.AuthDPoP, Also: dpopScenarios, Judge: dpopGate(judgeDPoPJTI)}},
		Check{ID: "AUTH-CLIENT-DPOP-NONCE", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "a nonce a server supplied (use_dpop_nonce with DPoP-Nonce: the token endpoint's 400, the MCP server's 401) is in the nonce claim of every later proof the client sends that server",
			LevelReason: "RFC 9449 § 8.2 (and § 9 for resource servers): the client MUST use the nonce supplied for the next request and all later ones. " +
				"The retry itself is a \"typically\" of § 8, not a MUST: a client that never sends the server another proof is untestable, not failed.",
			Side: Client{Scenario: probe.AuthDPoPNonce, Judge: dpopGate(judgeDPoPNonce)}},
	)
}
