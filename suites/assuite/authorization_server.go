package assuite

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Checks of the authorization server the MCP authorization page binds through the RFCs it
// cites: its metadata (RFC 8414, OpenID Connect Discovery from 2025-11-25), PKCE (OAuth 2.1,
// RFC 7636), authorization codes (OAuth 2.1 § 4.1), resource indicators (RFC 8707),
// registration (RFC 7591, Client ID Metadata Documents) and the authorization response's iss
// (RFC 9207). The flow checks register a public client, make an authorization request and read
// the code from the redirect, so they need an authorization endpoint that redirects without a
// person; where one asks for a login they are untestable, never failed.

// before1125 words a requirement SHOULD at the revisions before 2025-11-25.
var before1125 = map[string]string{harness.Rev20250326: "SHOULD", harness.Rev20250618: "SHOULD"}

func init() {
	Register(
		Check{ID: "AS-METADATA", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary:     "the authorization server metadata is served at a well-known URI of the issuer (RFC 8414; from 2025-11-25 OpenID Connect Discovery too)",
			LevelReason: "2025-03-26 asks servers to implement RFC 8414 metadata (SHOULD) and gives default endpoints without it; from 2025-06-18 authorization servers must provide it.",
			Side:        AuthServer{Levels: map[string]string{harness.Rev20250326: "SHOULD"}, Run: checkMetadata}},
		Check{ID: "AS-METADATA-ISSUER", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "the metadata's issuer is identical to the issuer it was fetched for (RFC 8414 § 3.3)",
			Side:    AuthServer{Run: checkMetadataIssuer}},
		Check{ID: "AS-METADATA-ENDPOINTS", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary:     "the metadata names an authorization_endpoint and token_endpoint (and any registration_endpoint) as absolute HTTPS URLs (http on loopback), and response_types_supported with code",
			LevelReason: "RFC 8414 § 2 requires the fields; the MCP text serves every authorization server endpoint over HTTPS, so http is accepted only on a loopback host.",
			Side:        AuthServer{Run: checkMetadataEndpoints}},
		Check{ID: "AS-PKCE-S256", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary:     "the metadata's code_challenge_methods_supported lists S256",
			LevelReason: "From 2025-11-25 a client must refuse an authorization server whose metadata lacks code_challenge_methods_supported, so its absence fails; before, RFC 8414 makes the field optional and OAuth 2.1 asks S256 of servers, so its absence warns.",
			Side:        AuthServer{Levels: before1125, Run: checkPKCES256}},
		Check{ID: "AS-PKCE-MISSING", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "a token request without code_verifier, for a code asked with an S256 code_challenge, is refused",
			Side:    AuthServer{Run: checkPKCEMissing}},
		Check{ID: "AS-PKCE-PLAIN", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "a token request whose code_verifier is the S256 code_challenge itself (a downgrade to plain) is refused",
			Side:    AuthServer{Run: checkPKCEPlain}},
		Check{ID: "AS-PKCE-WRONG", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "a token request with a well-formed code_verifier that does not match the S256 code_challenge is refused",
			Side:    AuthServer{Run: checkPKCEWrong}},
		Check{ID: "AS-CODE-SINGLE-USE", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "an authorization code redeemed once is refused the second time",
			Side:    AuthServer{Run: checkCodeSingleUse}},
		Check{ID: "AS-CODE-CLIENT", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "an authorization code is refused to another client than the one it was issued to",
			Side:    AuthServer{Run: checkCodeClient}},
		Check{ID: "AS-CODE-REDIRECT", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "an authorization code is refused with another redirect_uri than its authorization request's, even one the client registered",
			Side:    AuthServer{Run: checkCodeRedirect}},
		Check{ID: "AS-RESOURCE-AUDIENCE", Level: "SHOULD", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary:     "an access token asked for a resource (RFC 8707) is for it: a JWT access token's aud names the resource",
			LevelReason: "RFC 8707 § 2 asks the authorization server to audience-restrict tokens (SHOULD) and leaves it free to accept or refuse an unknown resource; only a JWT access token shows its audience, so an opaque one is untestable.",
			Side:        AuthServer{Run: checkResourceAudience}},
		Check{ID: "AS-DCR", Level: "SHOULD", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary:     "dynamic client registration (RFC 7591) is offered and registers a public client with loopback redirect URIs",
			LevelReason: "2025-03-26 and 2025-06-18 ask for dynamic registration (SHOULD); from 2025-11-25 it is a MAY beside Client ID Metadata Documents, so it is not judged there.",
			Side:        AuthServer{Run: checkDCR}},
		Check{ID: "AS-CIMD", Level: "SHOULD", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "the metadata advertises Client ID Metadata Documents (client_id_metadata_document_supported: true)",
			Side:    AuthServer{Run: checkCIMD}},
		Check{ID: "AS-ISS", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "an authorization server advertising authorization_response_iss_parameter_supported sends iss, its issuer, in the authorization response (RFC 9207)",
			Side:    AuthServer{Run: checkISS}},
	)
}

func checkMetadata(t *T) Finding {
	m, at, tried := t.metadata()
	if m != nil {
		return passed("the metadata is served at %s", at)
	}
	var seen []string
	for _, f := range tried {
		switch {
		case f.err != nil:
			seen = append(seen, fmt.Sprintf("%s: %v", f.url, f.err))
		case f.status == 200:
			seen = append(seen, f.url+": HTTP 200, not a JSON object")
		default:
			seen = append(seen, fmt.Sprintf("%s: HTTP %d", f.url, f.status))
		}
	}
	return violated("no authorization server metadata at the well-known URIs of %s for %s: %s", t.tg.plan.Issuer, t.Revision, strings.Join(seen, "; "))
}

func checkMetadataIssuer(t *T) Finding {
	m, at, _ := t.metadata()
	if m == nil {
		return untestable("no metadata to read (AS-METADATA)")
	}
	iss, ok := m["issuer"].(string)
	switch {
	case !ok:
		return violated("the metadata at %s has no issuer string", at)
	case iss != t.tg.plan.Issuer:
		return violated("the metadata at %s names issuer %q, not %q, the issuer it was fetched for", at, iss, t.tg.plan.Issuer)
	}
	return passed("the metadata at %s names issuer %s", at, iss)
}

func checkMetadataEndpoints(t *T) Finding {
	m, at, _ := t.metadata()
	if m == nil {
		return untestable("no metadata to read (AS-METADATA)")
	}
	var bad []string
	for _, k := range []string{"authorization_endpoint", "token_endpoint", "registration_endpoint"} {
		v, present := m[k]
		s, _ := v.(string)
		if !present {
			if k != "registration_endpoint" {
				bad = append(bad, k+" is absent")
			}
			continue
		}
		u, err := url.Parse(s)
		switch {
		case err != nil || !u.IsAbs() || u.Host == "":
			bad = append(bad, fmt.Sprintf("%s %q is not an absolute URL", k, s))
		case u.Scheme != "https" && !(u.Scheme == "http" && IsLoopbackURL(s)):
			bad = append(bad, fmt.Sprintf("%s %q is not HTTPS (http only on loopback)", k, s))
		}
	}
	if !slices.Contains(strs(m, "response_types_supported"), "code") {
		bad = append(bad, fmt.Sprintf("response_types_supported %v does not list code", m["response_types_supported"]))
	}
	if len(bad) > 0 {
		return violated("the metadata at %s: %s", at, strings.Join(bad, "; "))
	}
	return passed("the metadata at %s names absolute endpoints and response type code", at)
}

func checkPKCES256(t *T) Finding {
	m, at, _ := t.metadata()
	if m == nil {
		return untestable("no metadata to read (AS-METADATA)")
	}
	v, ok := m["code_challenge_methods_supported"]
	switch {
	case !ok:
		return violated("the metadata at %s has no code_challenge_methods_supported: a client of %s cannot tell that PKCE is supported", at, t.Revision)
	case !slices.Contains(strs(m, "code_challenge_methods_supported"), "S256"):
		return violated("the metadata at %s lists code_challenge_methods_supported %v, without S256", at, v)
	}
	return passed("code_challenge_methods_supported lists S256")
}

// refusedRedemption judges a token request that must be refused: the flow is driven with
// verifierOf's verifier.
func refusedRedemption(t *T, what string, verifierOf func(g *grant) string) Finding {
	if f := t.served(); f != nil {
		return *f
	}
	e, c, g, f := t.flow()
	if f != nil {
		return *f
	}
	a, f := t.redeem(e, c, g, t.redirectA(), verifierOf(g))
	if f != nil {
		return *f
	}
	if a.issued() {
		return violated("a token request with %s was served: %s", what, a)
	}
	return passed("a token request with %s was refused: %s", what, a)
}

func checkPKCEMissing(t *T) Finding {
	return refusedRedemption(t, "no code_verifier", func(*grant) string { return "-" })
}

func checkPKCEPlain(t *T) Finding {
	return refusedRedemption(t, "the code_challenge itself as code_verifier", func(g *grant) string { return g.challenge })
}

func checkPKCEWrong(t *T) Finding {
	return refusedRedemption(t, "a code_verifier that does not match the challenge", func(*grant) string { return randomVerifier() })
}

func checkCodeSingleUse(t *T) Finding {
	e, c, g, f := t.flow()
	if f != nil {
		return *f
	}
	first, f := t.redeem(e, c, g, t.redirectA(), g.verifier)
	if f != nil {
		return *f
	}
	if !first.issued() {
		return untestable("the first, correct redemption of the code was refused: %s", first)
	}
	second, f := t.redeem(e, c, g, t.redirectA(), g.verifier)
	if f != nil {
		return *f
	}
	if second.issued() {
		return violated("the code was redeemed a second time: %s", second)
	}
	return passed("the second redemption of the code was refused: %s", second)
}

func checkCodeClient(t *T) Finding {
	if f := t.served(); f != nil {
		return *f
	}
	e, _, g, f := t.flow()
	if f != nil {
		return *f
	}
	other, f := t.newClient(e)
	if f != nil {
		return *f
	}
	a, f := t.redeem(e, other, g, t.redirectA(), g.verifier)
	if f != nil {
		return *f
	}
	if a.issued() {
		return violated("client %s redeemed a code issued to another client: %s", other.id, a)
	}
	return passed("another client's redemption of the code was refused: %s", a)
}

func checkCodeRedirect(t *T) Finding {
	if f := t.served(); f != nil {
		return *f
	}
	e, c, g, f := t.flow()
	if f != nil {
		return *f
	}
	a, f := t.redeem(e, c, g, t.redirectB(), g.verifier)
	if f != nil {
		return *f
	}
	if a.issued() {
		return violated("the code asked with redirect_uri %s was redeemed with %s: %s", t.redirectA(), t.redirectB(), a)
	}
	return passed("the code was refused with another registered redirect_uri: %s", a)
}

func checkResourceAudience(t *T) Finding {
	resource := t.tg.plan.Resource
	if resource == "" {
		return untestable("no resource to ask a token for: give --resource (mcpspec run --authserver uses the MCP server's)")
	}
	e, c, g, f := t.flow()
	if f != nil {
		return *f
	}
	a, f := t.redeem(e, c, g, t.redirectA(), g.verifier)
	if f != nil {
		return *f
	}
	if !a.issued() {
		return untestable("no token was issued for resource %s: %s", resource, a)
	}
	aud, ok := jwtAudience(str(a.doc, "access_token"))
	switch {
	case !ok:
		return untestable("the access token is opaque: its audience cannot be seen")
	case !slices.Contains(aud, resource):
		return violated("the access token asked for resource %s has aud %v", resource, aud)
	}
	return passed("the JWT access token's aud names %s", resource)
}

// jwtAudience reads the aud claim of a JWT, unverified: only what it claims matters here.
func jwtAudience(tok string) ([]string, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, false
	}
	var claims map[string]json.RawMessage
	if json.Unmarshal(raw, &claims) != nil {
		return nil, false
	}
	var many []string
	if json.Unmarshal(claims["aud"], &many) == nil {
		return many, true
	}
	var one string
	if json.Unmarshal(claims["aud"], &one) == nil {
		return []string{one}, true
	}
	return nil, true
}

func checkDCR(t *T) Finding {
	e, f := t.endpoints()
	if f != nil {
		return *f
	}
	if e.register == "" {
		return violated("the metadata names no registration_endpoint")
	}
	c, f := t.registerDCR(e)
	if f != nil {
		if f.Outcome == finding.Untestable {
			return violated("%s", f.Message)
		}
		return *f
	}
	return passed("registered client %s at %s", c.id, e.register)
}

func checkCIMD(t *T) Finding {
	m, at, _ := t.metadata()
	if m == nil {
		return untestable("no metadata to read (AS-METADATA)")
	}
	if v, _ := m["client_id_metadata_document_supported"].(bool); !v {
		return violated("the metadata at %s does not advertise client_id_metadata_document_supported: true (it has %v)", at, m["client_id_metadata_document_supported"])
	}
	return passed("the metadata advertises Client ID Metadata Documents")
}

func checkISS(t *T) Finding {
	m, at, _ := t.metadata()
	if m == nil {
		return untestable("no metadata to read (AS-METADATA)")
	}
	if v, _ := m["authorization_response_iss_parameter_supported"].(bool); !v {
		return na("the metadata at %s does not advertise authorization_response_iss_parameter_supported", at)
	}
	_, _, g, f := t.flow()
	if f != nil {
		return *f
	}
	want := t.tg.plan.Issuer
	switch {
	case !g.hasISS:
		return violated("the authorization response carries no iss, though the metadata advertises it")
	case g.iss != want:
		return violated("the authorization response's iss is %q, not the issuer %q", g.iss, want)
	}
	return passed("the authorization response carries iss %s", g.iss)
}
