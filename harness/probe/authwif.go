package probe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// The authorization extensions whose token comes from the JWT bearer grant (RFC 7523 § 2.1),
// served as the official suite serves them:
//
//   - auth/wif-jwt-bearer, Workload Identity Federation (SEP-1933, io.modelcontextprotocol/auth/wif):
//     the context hands the client a workload JWT (valid_jwt, and as the suite does a
//     wrong_audience_jwt and an expired_jwt) which it presents to the token endpoint as the
//     assertion, without client authentication or registration.
//   - auth/enterprise-managed-authorization, and its former name
//     auth/cross-app-access-complete-flow (SEP-990,
//     io.modelcontextprotocol/enterprise-managed-authorization): the context hands the client an
//     ID token of an enterprise IdP (served on the probe's origin under IdPPath); the client
//     exchanges it there (RFC 8693) for an ID-JAG and presents that to the authorization
//     server's token endpoint, authenticated as the pre-registered client.
//
// The probe mints the keys and JWTs per run (all secrets), verifies what it is sent and notes
// what it found; it judges nothing.

// Scenario names (the official suite's).
const (
	AuthWIFJWTBearer      = "auth/wif-jwt-bearer"
	AuthEnterpriseManaged = "auth/enterprise-managed-authorization"
	AuthCrossAppAccess    = "auth/cross-app-access-complete-flow"
)

// The grant and token type URIs of RFC 7523, RFC 8693 and the ID-JAG draft.
const (
	JWTBearerGrant     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	TokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	TokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	TokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	// IDJAGTyp is the typ header an ID-JAG carries.
	IDJAGTyp = "oauth-id-jag+jwt"
)

// IdPPath is where the enterprise IdP of the enterprise scenarios is served (its issuer is the
// probe's origin with this path; its token endpoint IdPPath+"/token").
const IdPPath = "/idp"

// The client identifiers of the context.
const (
	WIFClientID = "mcpspec-wif-workload"
	IdPClientID = "mcpspec-idp-client"
)

// Which JWT a request carried (Event.JWT), besides the name of the context field that gave it
// (CtxValidJWT, …, CtxIDToken).
const (
	JWTIssuedIDJAG = "issued-id-jag" // the ID-JAG the IdP issued
	JWTForeign     = "foreign"       // a JWT the probe never issued
)

// Why the authorization server did not take a jwt-bearer token request (Event.Refusal).
const (
	JWTBearerUnauthenticated = "unauthenticated" // the client's authentication failed
	JWTBearerNotServed       = "not-served"      // another grant_type
	JWTBearerRejected        = "rejected"        // the assertion was refused
)

// The context fields naming the JWTs the WIF scenario hands the client (the official suite's).
const (
	CtxValidJWT         = "valid_jwt"
	CtxWrongAudienceJWT = "wrong_audience_jwt"
	CtxExpiredJWT       = "expired_jwt"
	CtxIDToken          = "idp_id_token"
)

// wifPlans are the JWT bearer scenarios. No registration endpoint: the workload registers
// nowhere, the enterprise client is pre-registered (as the extension's § 6.1 assumes).
func wifPlans() []AuthPlan {
	wif := basePlan(AuthWIFJWTBearer, revsPRM)
	wif.Registration, wif.AuthMethods = RegPre, []string{"none"}
	ema := basePlan(AuthEnterpriseManaged, revsPRM)
	ema.Registration, ema.AuthMethods = RegPre, []string{"client_secret_basic"}
	xaa := ema
	xaa.Name = AuthCrossAppAccess
	return []AuthPlan{wif, ema, xaa}
}

func init() { authPlans = append(authPlans, wifPlans()...) }

// IsJWTBearer reports whether scenario is one of the JWT bearer grant scenarios.
func IsJWTBearer(scenario string) bool { return IsWIF(scenario) || IsEnterprise(scenario) }

// IsWIF reports whether scenario is the workload identity scenario.
func IsWIF(scenario string) bool { return scenario == AuthWIFJWTBearer }

// IsEnterprise reports whether scenario is an enterprise-managed authorization scenario.
func IsEnterprise(scenario string) bool {
	return scenario == AuthEnterpriseManaged || scenario == AuthCrossAppAccess
}

// jwtBearer is the JWT bearer side of one scenario run: the signing key of the workload
// issuer or the IdP, the JWTs handed out, and the ID-JAGs the IdP issued.
type jwtBearer struct {
	a       *authServer
	key     *ecdsa.PrivateKey
	once    sync.Once
	ctxJWTs map[string]string // context field → JWT
	mu      sync.Mutex
	jags    map[string]jagClaims // ID-JAG → its claims
}

type jagClaims struct{ aud, resource, clientID string }

// newJWTBearer returns the JWT bearer side of a scenario, nil for any other.
func newJWTBearer(a *authServer) *jwtBearer {
	if !IsJWTBearer(a.plan.Name) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err) // the system's random source failed
	}
	return &jwtBearer{a: a, key: key, jags: map[string]jagClaims{}}
}

// mint signs the context's JWTs, once, when the origin is known.
func (j *jwtBearer) mint() {
	j.once.Do(func() {
		a, now := j.a, time.Now()
		claims := func(iss, sub string, aud any, exp time.Time) map[string]any {
			return map[string]any{"iss": iss, "sub": sub, "aud": aud, "iat": now.Unix(), "exp": exp.Unix(), "jti": randHex(12)}
		}
		j.ctxJWTs = map[string]string{}
		if IsWIF(a.plan.Name) {
			// The workload platform's issuer: a name, never fetched (the probe's AS trusts its key).
			iss, issuer := a.origin+"/workload-issuer", a.plan.Issuer(a.origin)
			j.ctxJWTs[CtxValidJWT] = j.sign("JWT", claims(iss, WIFClientID, issuer, now.Add(10*time.Minute)))
			j.ctxJWTs[CtxWrongAudienceJWT] = j.sign("JWT", claims(iss, WIFClientID, a.origin+"/another-authorization-server", now.Add(10*time.Minute)))
			old := claims(iss, WIFClientID, issuer, now.Add(-10*time.Minute))
			old["iat"] = now.Add(-15 * time.Minute).Unix()
			j.ctxJWTs[CtxExpiredJWT] = j.sign("JWT", old)
		} else {
			idToken := claims(a.origin+IdPPath, "mcpspec-user", IdPClientID, now.Add(time.Hour))
			idToken["email"] = "user@mcpspec.invalid"
			j.ctxJWTs[CtxIDToken] = j.sign("JWT", idToken)
		}
		for _, field := range []string{CtxValidJWT, CtxWrongAudienceJWT, CtxExpiredJWT, CtxIDToken} {
			if s, ok := j.ctxJWTs[field]; ok {
				a.secret(s, field)
			}
		}
	})
}

// sign is an ES256 JWS of claims with the given typ.
func (j *jwtBearer) sign(typ string, claims map[string]any) string {
	h, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": typ})
	c, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, j.key, sum[:])
	if err != nil {
		panic(err) // the system's random source failed
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// verify checks that jwt is an ES256 JWS of the key and returns its header's typ and claims.
func (j *jwtBearer) verify(jwt string) (string, map[string]any, error) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "", nil, errors.New("not a JWT (three dot-separated parts)")
	}
	var header struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
	}
	var claims map[string]any
	if err := decodeSegment(parts[0], &header); err != nil {
		return "", nil, fmt.Errorf("header: %w", err)
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return "", nil, fmt.Errorf("claims: %w", err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if header.Alg != "ES256" || err != nil || len(sig) != 64 {
		return "", nil, errors.New("not an ES256 signature")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(&j.key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", nil, errors.New("the signature does not verify with the issuer's key")
	}
	return header.Typ, claims, nil
}

// contextFields are the context's fields, under the official suite's names.
func (j *jwtBearer) contextFields() map[string]any {
	j.mint()
	a := j.a
	if IsWIF(a.plan.Name) {
		return map[string]any{"client_id": WIFClientID, CtxValidJWT: j.ctxJWTs[CtxValidJWT],
			CtxWrongAudienceJWT: j.ctxJWTs[CtxWrongAudienceJWT], CtxExpiredJWT: j.ctxJWTs[CtxExpiredJWT]}
	}
	return map[string]any{"client_id": a.pre.id, "client_secret": a.pre.secret, "idp_client_id": IdPClientID,
		CtxIDToken: j.ctxJWTs[CtxIDToken], "idp_issuer": a.origin + IdPPath, "idp_token_endpoint": a.origin + IdPPath + "/token"}
}

// which names a JWT the probe knows: a context field, an ID-JAG it issued, or none.
// kind is which JWT jwt is, as data (Event.JWT): a context field's name, JWTIssuedIDJAG,
// JWTForeign, or "" for none.
func (j *jwtBearer) kind(jwt string) string {
	if jwt == "" {
		return ""
	}
	for field, s := range j.ctxJWTs {
		if s == jwt {
			return field
		}
	}
	j.mu.Lock()
	_, jag := j.jags[jwt]
	j.mu.Unlock()
	if jag {
		return JWTIssuedIDJAG
	}
	return JWTForeign
}

func (j *jwtBearer) which(jwt string) string {
	if jwt == "" {
		return "none"
	}
	for field, s := range j.ctxJWTs {
		if s == jwt {
			return "the context's " + field
		}
	}
	j.mu.Lock()
	_, jag := j.jags[jwt]
	j.mu.Unlock()
	if jag {
		return "the ID-JAG the IdP issued"
	}
	return "a JWT the probe never issued"
}

// serves reports whether path is the IdP's.
func (j *jwtBearer) serves(path string) bool {
	return IsEnterprise(j.a.plan.Name) && strings.HasPrefix(path, IdPPath+"/")
}

// serveIdP answers the IdP's OpenID configuration and its token endpoint (token exchange).
func (j *jwtBearer) serveIdP(w http.ResponseWriter, r *http.Request, form url.Values) {
	a, iss := j.a, j.a.origin+IdPPath
	switch {
	case r.Method == http.MethodGet && r.URL.Path == IdPPath+asOpenID:
		a.replyJSON(w, http.StatusOK, map[string]any{"issuer": iss, "token_endpoint": iss + "/token",
			"grant_types_supported": []string{TokenExchangeGrant}})
	case r.Method == http.MethodPost && r.URL.Path == IdPPath+"/token":
		j.exchange(w, form)
	default:
		a.reply(w, http.StatusNotFound, nil, nil)
	}
}

// exchange is the IdP's token exchange (RFC 8693 § 2, as the extension's § 4 profiles it): the
// ID token it issued for an ID-JAG whose aud and resource are those asked for. It refuses a
// request that lacks a parameter the profile requires, as the official suite's IdP does.
func (j *jwtBearer) exchange(w http.ResponseWriter, form url.Values) {
	j.mint()
	a := j.a
	refuse := func(code, why string) {
		a.note(record.Event{Kind: record.EvTokenExchange}, "auth: token exchange: refused: %s", why)
		a.oauthError(w, http.StatusBadRequest, code, why)
	}
	a.note(record.Event{Kind: record.EvExchangeSubject, JWT: j.kind(form.Get("subject_token"))}, "auth: token exchange subject_token: %s", j.which(form.Get("subject_token")))
	var missing []string
	for _, p := range []string{"subject_token", "subject_token_type", "requested_token_type", "audience", "resource"} {
		if form.Get(p) == "" {
			missing = append(missing, p)
		}
	}
	switch {
	case form.Get("grant_type") != TokenExchangeGrant:
		refuse("unsupported_grant_type", fmt.Sprintf("grant_type %q, not %s", form.Get("grant_type"), TokenExchangeGrant))
		return
	case len(missing) > 0:
		refuse("invalid_request", "missing "+strings.Join(missing, ", "))
		return
	case form.Get("subject_token") != j.ctxJWTs[CtxIDToken]:
		refuse("invalid_grant", "subject_token is "+j.which(form.Get("subject_token"))+", not the context's "+CtxIDToken)
		return
	case form.Get("subject_token_type") != TokenTypeIDToken:
		refuse("invalid_request", fmt.Sprintf("subject_token_type %q, not %s", form.Get("subject_token_type"), TokenTypeIDToken))
		return
	case form.Get("requested_token_type") != TokenTypeIDJAG:
		refuse("invalid_request", fmt.Sprintf("requested_token_type %q, not %s", form.Get("requested_token_type"), TokenTypeIDJAG))
		return
	}
	now := time.Now()
	c := jagClaims{aud: form.Get("audience"), resource: form.Get("resource"), clientID: a.pre.id}
	claims := map[string]any{"iss": a.origin + IdPPath, "sub": "mcpspec-user", "aud": c.aud, "resource": c.resource,
		"client_id": c.clientID, "jti": randHex(12), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	if s := form.Get("scope"); s != "" {
		claims["scope"] = s
	}
	jag := j.sign(IDJAGTyp, claims)
	label := a.secret(jag, "id_jag")
	j.mu.Lock()
	j.jags[jag] = c
	j.mu.Unlock()
	a.note(record.Event{Kind: record.EvTokenExchange, Verified: true}, "auth: token exchange: issued %s (aud %q, resource %q) for the context's %s", label, c.aud, c.resource, CtxIDToken)
	a.replyJSON(w, http.StatusOK, map[string]any{"issued_token_type": TokenTypeIDJAG, "access_token": jag,
		"token_type": "N_A", "expires_in": 300})
}

// token serves the authorization server's token endpoint in a JWT bearer scenario: the
// jwt-bearer grant alone, whose assertion is the workload JWT (WIF) or an ID-JAG of the IdP
// presented by the client it was issued to (enterprise).
func (j *jwtBearer) token(w http.ResponseWriter, r *http.Request, form url.Values, canonical, ip string) {
	j.mint()
	a := j.a
	var jwt string // which JWT the assertion is, once read
	refuse := func(status int, code, format string, args ...any) {
		why := fmt.Sprintf(format, args...)
		refusal := JWTBearerRejected
		switch code {
		case "invalid_client":
			refusal = JWTBearerUnauthenticated
		case "unsupported_grant_type":
			refusal = JWTBearerNotServed
		}
		a.note(record.Event{Kind: record.EvJWTBearer, Refusal: refusal, JWT: jwt}, "auth: jwt-bearer %s", why)
		a.oauthError(w, status, code, why)
	}
	c := &client{id: form.Get("client_id"), issuer: ip}
	if IsEnterprise(a.plan.Name) {
		var why string
		if c, why = a.authenticate(r, form, ip); c == nil {
			refuse(http.StatusUnauthorized, "invalid_client", "not served: client authentication failed: %s", why)
			return
		}
	}
	if g := form.Get("grant_type"); g != JWTBearerGrant {
		refuse(http.StatusBadRequest, "unsupported_grant_type", "not served: grant_type %q, not %s", g, JWTBearerGrant)
		return
	}
	assertion := form.Get("assertion")
	if assertion == "" {
		refuse(http.StatusBadRequest, "invalid_request", "rejected: no assertion parameter")
		return
	}
	what, jwt := j.which(assertion), j.kind(assertion)
	typ, claims, err := j.verify(assertion)
	if err != nil {
		refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s: %v", what, err)
		return
	}
	issuer := a.plan.Issuer(a.origin)
	auds := audiences(claims["aud"])
	exp, _ := claims["exp"].(float64)
	var resource string
	if IsWIF(a.plan.Name) {
		// RFC 7523 § 3: the issuer or the token endpoint identifies the authorization server.
		if !slices.Contains(auds, issuer) && !slices.Contains(auds, issuer+"/") && !slices.Contains(auds, issuer+"/token") {
			refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s: aud %v names neither the issuer %s nor its token endpoint", what, auds, issuer)
			return
		}
		if c.id == "" {
			c.id, _ = claims["sub"].(string) // the workload has no client_id: its subject stands for it
		}
		resource = form.Get("resource")
	} else {
		j.mu.Lock()
		jag, ok := j.jags[assertion]
		j.mu.Unlock()
		switch {
		case typ != IDJAGTyp:
			refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s: typ %q, not %s", what, typ, IDJAGTyp)
			return
		case !ok:
			refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s, not an ID-JAG the IdP issued", what)
			return
		case jag.aud != issuer && jag.aud != issuer+"/":
			// The extension's § 5.1: the aud MUST be the authorization server's issuer.
			refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s: aud %q is not the issuer %s", what, jag.aud, issuer)
			return
		case jag.clientID != c.id:
			refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s: its client_id %q is not the authenticated client %q", what, jag.clientID, c.id)
			return
		}
		resource = jag.resource
	}
	switch {
	case exp == 0:
		refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s: no exp", what)
		return
	case time.Unix(int64(exp), 0).Add(assertionSkew).Before(time.Now()):
		refuse(http.StatusBadRequest, "invalid_grant", "rejected: %s: expired", what)
		return
	}
	a.note(record.Event{Kind: record.EvJWTBearer, Verified: true, JWT: jwt}, "auth: jwt-bearer verified: %s: signed by its issuer's key, aud %v, not expired", what, auds)
	a.issue(w, JWTBearerGrant, c, resource, form.Get("scope"), canonical, ip, "", false) // no DPoP in these scenarios
}

// audiences reads a JWT's aud, a string or an array of them.
func audiences(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
