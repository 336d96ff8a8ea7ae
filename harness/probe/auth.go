package probe

import (
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
)

// Client authorization scenarios (issue 18). Each is served over Streamable HTTP only, with the
// probe authorization server (authserver.go) on the probe's own loopback origin: the probe MCP
// server answers 401 with a Bearer challenge until a token the authorization server issued for
// its canonical URI arrives. The names are the official conformance suite's where the
// behaviour matches one, mcpspec's own in the same style otherwise.
const (
	AuthMetadataDefault     = "auth/metadata-default"
	AuthMetadataVar1        = "auth/metadata-var1"
	AuthMetadataVar2        = "auth/metadata-var2"
	AuthMetadataVar3        = "auth/metadata-var3"
	AuthBackcompat0326      = "auth/2025-03-26-oauth-metadata-backcompat"
	AuthEndpointFallback    = "auth/2025-03-26-oauth-endpoint-fallback"
	AuthScopeFromChallenge  = "auth/scope-from-www-authenticate"
	AuthScopeFromSupported  = "auth/scope-from-scopes-supported"
	AuthScopeOmitted        = "auth/scope-omitted-when-undefined"
	AuthScopeStepUp         = "auth/scope-step-up"
	AuthScopeRetryLimit     = "auth/scope-retry-limit"
	AuthStateMismatch       = "auth/state-mismatch"
	AuthPKCENotAdvertised   = "auth/pkce-not-advertised"
	AuthResourceMismatch    = "auth/resource-mismatch"
	AuthPreRegistration     = "auth/pre-registration"
	AuthBasicCIMD           = "auth/basic-cimd"
	AuthTokenRefresh        = "auth/token-refresh"
	AuthTokenEndpointBasic  = "auth/token-endpoint-auth-basic"
	AuthTokenEndpointPost   = "auth/token-endpoint-auth-post"
	AuthTokenEndpointNone   = "auth/token-endpoint-auth-none"
	AuthClientCredentialsBa = "auth/client-credentials-basic"
	// The client authenticates by private_key_jwt with the key the context gives it.
	AuthClientCredentialsJWT = "auth/client-credentials-jwt"
	// RFC 9207 (2026-07-28): the authorization response's iss.
	AuthISSSupported   = "auth/iss-supported"
	AuthISSWrongIssuer = "auth/iss-wrong-issuer"
	AuthISSMissing     = "auth/iss-supported-missing"
	AuthISSUnexpected  = "auth/iss-unexpected"
	AuthISSNormalized  = "auth/iss-normalized"
	// 2026-07-28 § Refresh Tokens: the AS lists offline_access in its scopes_supported.
	AuthOfflineAccessScope = "auth/offline-access-scope"
	// 2026-07-28 § Authorization Server Binding: the PRM comes to name another AS.
	AuthASMigration = "auth/authorization-server-migration"
	// 2026-07-28 § Authorization Server Metadata Discovery: the metadata names another issuer.
	AuthMetadataIssuerMismatch = "auth/metadata-issuer-mismatch"
)

// MigratedIssuerPath is the issuer path of AuthASMigration's second authorization server.
const MigratedIssuerPath = "/as2"

// ScopeOffline is the OpenID scope that asks for a refresh token.
const ScopeOffline = "offline_access"

// Scopes the probe's scenarios deal in.
const (
	ScopeBasic = "mcp:basic" // what the challenge or scopes_supported names
	ScopeWrite = "mcp:write" // what a tools/call needs in the step-up scenarios
	ScopeExtra = "mcp:extra" // in scopes_supported only: a client taking the challenge's scope leaves it out
)

// The challenged scope set of the step-up scenarios once a tools/call needs more.
var StepUpScope = ScopeBasic + " " + ScopeWrite

// Registration paths of a client.
const (
	RegDynamic = "dynamic"  // RFC 7591: the AS advertises registration_endpoint
	RegPre     = "pre"      // the context carries client_id and client_secret
	RegCIMD    = "cimd"     // a URL client_id (Client ID Metadata Document)
	RegFixed   = "fallback" // 2025-03-26 endpoint fallback: /register at the origin, no metadata
)

// PreRegisteredClientID is the client_id the context of a pre-registration scenario carries.
const PreRegisteredClientID = "mcpspec-preregistered-client"

// RetryLimit is the most authorization requests a client may make in AuthScopeRetryLimit
// (the official suite's bound: three).
const RetryLimit = 3

// AuthPlan is what the probe advertises and refuses in one authorization scenario.
type AuthPlan struct {
	Name      string
	Revisions []string
	// PRMPath is where the protected resource metadata is served ("" none: 2025-03-26).
	PRMPath string
	// PRMInChallenge: the 401's WWW-Authenticate names PRMPath in resource_metadata.
	PRMInChallenge bool
	// PRMResource overrides the resource the metadata names (AuthResourceMismatch).
	PRMResource string
	// IssuerPath is the authorization server issuer's path ("" for the origin itself).
	IssuerPath string
	// ASMetaPath is the one well-known path serving the authorization server metadata ("":
	// none, the 2025-03-26 endpoint fallback).
	ASMetaPath string
	OpenID     bool // the metadata is OpenID Provider metadata
	// ChallengeScope is the scope the first 401 names ("" none).
	ChallengeScope string
	// ScopesSupported is the PRM's scopes_supported (nil: absent).
	ScopesSupported []string
	// ASScopesSupported is the authorization server metadata's scopes_supported (nil: absent).
	ASScopesSupported []string
	// DCRToo: the AS offers dynamic registration besides Client ID Metadata Documents.
	DCRToo bool
	// Migrate: at the first tools/call the protected resource metadata comes to name a second
	// authorization server (issuer MigratedIssuerPath), which alone issues tokens for the
	// server from then on; the call is answered 401 invalid_token.
	Migrate bool
	// MetadataIssuer overrides the issuer the authorization server metadata names ("" its own).
	MetadataIssuer string
	// NoPKCE: the AS metadata lacks code_challenge_methods_supported.
	NoPKCE bool
	// Registration is how the client is meant to register.
	Registration string
	// AuthMethods is token_endpoint_auth_methods_supported.
	AuthMethods []string
	// TamperState: the authorization response carries a state other than the one sent.
	TamperState bool
	// StepUp: a tools/call needs ScopeWrite too (403 insufficient_scope until it has it);
	// Always: every tools/call is refused so, whatever the token (AuthScopeRetryLimit).
	StepUp, StepUpAlways bool
	// ExpireFirst: the first access token is answered 401 invalid_token at the first
	// tools/call, as expired; the client holds a refresh token.
	ExpireFirst bool
	// ISS: the AS advertises authorization_response_iss_parameter_supported; ISSSent is the
	// iss its authorization response carries (ISSRight, ISSWrong or "" none).
	ISS     bool
	ISSSent string
	// ClientCredentials: the client uses the client_credentials grant (the context has a
	// client_id and client_secret), no user agent.
	ClientCredentials bool
	// Lax are the reference authorization server's faults (mcpspec reference-authserver
	// --fault): each drops one rule the AS checks judge. No scenario sets them.
	Lax ASLax
	// DPoP: the authorization server binds tokens to DPoP proofs and the MCP endpoint takes
	// them under the DPoP scheme (authdpop.go); DPoPNonce: both require a nonce of their own.
	DPoP, DPoPNonce bool
	// JWTAccessTokens: access tokens are ES256 JWTs whose aud is the resource they were issued
	// for, so a tester can see the audience (the reference authorization server's tokens).
	JWTAccessTokens bool
}

// ASLax is what a faulty authorization server lets through; the zero value lets nothing through.
type ASLax struct {
	RelativeEndpoints bool // the metadata's endpoints are paths, not absolute URLs
	PKCEMissing       bool // a token request without code_verifier is served
	PKCEPlain         bool // a code_verifier equal to the S256 challenge itself is taken
	PKCEWrong         bool // a code_verifier that does not match the challenge is taken
	CodeReusable      bool // an authorization code is redeemed any number of times
	CodeAnyClient     bool // a code is redeemed by another client than the one it was issued to
	CodeAnyRedirect   bool // a code is redeemed with another redirect_uri than its authorization request's
	AudienceIgnored   bool // a JWT access token's aud is the issuer, whatever resource was asked for
}

// The revisions a scenario is served at: 2026-07-28 keeps 2025-11-25's authorization (split
// into subpages) and the probe serves it on its stateless mode, each request gated alone.
var (
	revsPRM  = []string{harness.Rev20250618, harness.Rev20251125, harness.Rev20260728}
	revs1125 = []string{harness.Rev20251125, harness.Rev20260728}
	revs0326 = []string{harness.Rev20250326}
	revs0728 = []string{harness.Rev20260728}
)

// What the authorization response's iss is (AuthPlan.ISSSent).
const (
	ISSRight = "issuer" // the issuer of the metadata
	ISSWrong = "wrong"  // an issuer of another authorization server
	// ISSNormalized: the issuer with a trailing slash, which only a normalizing comparison
	// takes for it.
	ISSNormalized = "normalized"
)

// WrongIssuer is the iss of the scenarios whose authorization response names another
// authorization server than the one whose metadata the client read.
const WrongIssuer = "https://attacker.example/"

const (
	prmPathBased = "/.well-known/oauth-protected-resource/mcp"
	prmRoot      = "/.well-known/oauth-protected-resource"
	asOAuth      = "/.well-known/oauth-authorization-server"
	asOpenID     = "/.well-known/openid-configuration"
)

func basePlan(name string, revs []string) AuthPlan {
	return AuthPlan{Name: name, Revisions: revs, PRMPath: prmPathBased, PRMInChallenge: true, ASMetaPath: asOAuth,
		Registration: RegDynamic, AuthMethods: []string{"client_secret_basic", "client_secret_post", "none"}}
}

// authPlans are the authorization scenarios, in the order a run serves them.
var authPlans = func() []AuthPlan {
	p := func(name string, revs []string, f func(*AuthPlan)) AuthPlan {
		a := basePlan(name, revs)
		if f != nil {
			f(&a)
		}
		return a
	}
	return []AuthPlan{
		p(AuthMetadataDefault, revsPRM, nil),
		p(AuthMetadataVar1, revs1125, func(a *AuthPlan) { a.PRMInChallenge = false; a.ASMetaPath = asOpenID; a.OpenID = true }),
		p(AuthMetadataVar2, revs1125, func(a *AuthPlan) {
			a.PRMInChallenge, a.PRMPath, a.IssuerPath, a.ASMetaPath = false, prmRoot, "/tenant1", asOAuth+"/tenant1"
		}),
		p(AuthMetadataVar3, revs1125, func(a *AuthPlan) {
			a.PRMPath, a.IssuerPath, a.ASMetaPath, a.OpenID = "/custom/metadata/location.json", "/tenant1", "/tenant1"+asOpenID, true
		}),
		p(AuthBackcompat0326, revs0326, func(a *AuthPlan) { a.PRMPath, a.PRMInChallenge = "", false }),
		p(AuthEndpointFallback, revs0326, func(a *AuthPlan) {
			a.PRMPath, a.PRMInChallenge, a.ASMetaPath, a.Registration = "", false, "", RegFixed
		}),
		p(AuthScopeFromChallenge, revs1125, func(a *AuthPlan) {
			a.ChallengeScope, a.ScopesSupported = ScopeBasic, []string{ScopeBasic, ScopeExtra}
		}),
		p(AuthScopeFromSupported, revs1125, func(a *AuthPlan) { a.ScopesSupported = []string{ScopeBasic, ScopeExtra} }),
		p(AuthScopeOmitted, revs1125, nil),
		p(AuthScopeStepUp, revs1125, func(a *AuthPlan) { a.ChallengeScope, a.StepUp = ScopeBasic, true }),
		p(AuthScopeRetryLimit, revs1125, func(a *AuthPlan) { a.ChallengeScope, a.StepUp, a.StepUpAlways = ScopeBasic, true, true }),
		p(AuthStateMismatch, revsPRM, func(a *AuthPlan) { a.TamperState = true }),
		p(AuthPKCENotAdvertised, revs1125, func(a *AuthPlan) { a.NoPKCE = true }),
		p(AuthResourceMismatch, revsPRM, func(a *AuthPlan) { a.PRMResource = "https://mcp.example.com/other" }),
		p(AuthPreRegistration, revs1125, func(a *AuthPlan) { a.Registration, a.AuthMethods = RegPre, []string{"client_secret_basic"} }),
		p(AuthBasicCIMD, revs1125, func(a *AuthPlan) { a.Registration = RegCIMD }),
		p(AuthTokenRefresh, revsPRM, func(a *AuthPlan) { a.ExpireFirst = true }),
		p(AuthTokenEndpointBasic, revsPRM, func(a *AuthPlan) { a.AuthMethods = []string{"client_secret_basic"} }),
		p(AuthTokenEndpointPost, revsPRM, func(a *AuthPlan) { a.AuthMethods = []string{"client_secret_post"} }),
		p(AuthTokenEndpointNone, revsPRM, func(a *AuthPlan) { a.AuthMethods = []string{"none"} }),
		p(AuthClientCredentialsBa, revsPRM, func(a *AuthPlan) {
			a.Registration, a.ClientCredentials, a.AuthMethods = RegPre, true, []string{"client_secret_basic"}
		}),
		p(AuthClientCredentialsJWT, revsPRM, func(a *AuthPlan) {
			a.Registration, a.ClientCredentials, a.AuthMethods = RegPre, true, []string{"private_key_jwt"}
		}),
		p(AuthISSSupported, revs0728, func(a *AuthPlan) { a.ISS, a.ISSSent = true, ISSRight }),
		p(AuthISSWrongIssuer, revs0728, func(a *AuthPlan) { a.ISS, a.ISSSent = true, ISSWrong }),
		p(AuthISSMissing, revs0728, func(a *AuthPlan) { a.ISS = true }),
		p(AuthISSUnexpected, revs0728, func(a *AuthPlan) { a.ISSSent = ISSWrong }),
		p(AuthISSNormalized, revs0728, func(a *AuthPlan) { a.ISS, a.ISSSent = true, ISSNormalized }),
		p(AuthMetadataIssuerMismatch, revs0728, func(a *AuthPlan) { a.MetadataIssuer = WrongIssuer }),
		p(AuthASMigration, revsPRM, func(a *AuthPlan) { a.Migrate = true }),
		// Public clients (token endpoint authentication none), as the official suite's DPoP
		// authorization server has them: DPoP is what binds their tokens.
		p(AuthDPoP, revsPRM, func(a *AuthPlan) { a.DPoP, a.AuthMethods = true, []string{"none"} }),
		p(AuthDPoPNonce, revsPRM, func(a *AuthPlan) { a.DPoP, a.DPoPNonce, a.AuthMethods = true, true, []string{"none"} }),
		p(AuthOfflineAccessScope, revs0728, func(a *AuthPlan) {
			a.Registration, a.DCRToo = RegCIMD, true
			a.ScopesSupported, a.ASScopesSupported = []string{ScopeBasic}, []string{ScopeBasic, ScopeOffline}
		}),
	}
}()

// AuthScenarios lists the authorization scenarios' names, in order.
func AuthScenarios() []string {
	var out []string
	for _, a := range authPlans {
		out = append(out, a.Name)
	}
	return out
}

// IsAuth reports whether a scenario is an authorization scenario.
func IsAuth(scenario string) bool { return strings.HasPrefix(scenario, "auth/") }

// PlanFor returns the plan of an authorization scenario.
func PlanFor(scenario string) (AuthPlan, bool) {
	for _, a := range authPlans {
		if a.Name == scenario {
			return a, true
		}
	}
	return AuthPlan{}, false
}

// ServesAt reports whether the scenario is served at revision.
func (a AuthPlan) ServesAt(revision string) bool { return slices.Contains(a.Revisions, revision) }

// PRMURL is the protected resource metadata's URL on origin ("" none).
func (a AuthPlan) PRMURL(origin string) string {
	if a.PRMPath == "" {
		return ""
	}
	return origin + a.PRMPath
}

// Issuer is the authorization server's issuer identifier on origin.
func (a AuthPlan) Issuer(origin string) string { return origin + a.IssuerPath }

// ASDiscoveryOrder is the order in which a client of the revision tries the well-known
// authorization server metadata URIs for the plan's issuer (paths on the origin).
func (a AuthPlan) ASDiscoveryOrder(revision string) []string {
	if revision == harness.Rev20250326 {
		return []string{asOAuth} // at the MCP server's origin, its path discarded
	}
	if a.IssuerPath == "" {
		if revision < harness.Rev20251125 {
			return []string{asOAuth} // RFC 8414 alone
		}
		return []string{asOAuth, asOpenID}
	}
	if revision < harness.Rev20251125 {
		return []string{asOAuth + a.IssuerPath}
	}
	return []string{asOAuth + a.IssuerPath, asOpenID + a.IssuerPath, a.IssuerPath + asOpenID}
}

// PRMDiscoveryOrder is the order of the well-known protected resource metadata URIs a client
// of 2025-11-25 tries when the challenge names none: path-based first, then the root.
func PRMDiscoveryOrder() []string { return []string{prmPathBased, prmRoot} }

// metadataResource is the resource the protected resource metadata names. At the root
// well-known URI (auth/metadata-var2) that is the origin: RFC 9728 § 3.3 wants the resource
// identifier the well-known suffix was inserted into, and the root URI is built from the bare
// origin (the official suite's metadata-var2 names the origin too). A client that checks § 3.3
// strictly (the Go SDK) would rightly discard a root document naming …/mcp.
func (p AuthPlan) metadataResource(canonical string) string {
	switch {
	case p.PRMResource != "":
		return p.PRMResource
	case p.PRMPath == prmRoot:
		return strings.TrimSuffix(canonical, Path)
	}
	return canonical
}

// rootResource reports whether resource is the origin the root metadata names (with or without
// the trailing slash a URL parser adds): a token bound to it is for this server too, since the
// server's own metadata gives that identifier, while the checks still want clients to ask for
// the canonical URI where they judge resource.
func (p AuthPlan) rootResource(resource, canonical string) bool {
	if p.PRMPath != prmRoot || p.PRMResource != "" {
		return false
	}
	origin := strings.TrimSuffix(canonical, Path)
	return resource == origin || resource == origin+"/"
}
