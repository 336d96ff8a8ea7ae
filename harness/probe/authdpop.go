package probe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// DPoP (RFC 9449; the MCP extension io.modelcontextprotocol/auth/dpop, SEP-1932) for the
// auth/dpop and auth/dpop-nonce scenarios. The authorization server advertises
// dpop_signing_alg_values_supported, verifies the DPoP proof of a token request (RFC 9449
// § 4.3) and binds the token it issues to the proof's key (token_type DPoP; the binding, the
// key's RFC 7638 thumbprint, kept with the token as cnf.jkt would be); a token request without
// a proof gets a Bearer token, as the official suite's does. The MCP endpoint challenges with
// the DPoP scheme and takes the token under either scheme: the probe is lenient, the client
// checks judge the proofs it recorded. In auth/dpop-nonce both servers require a nonce of their
// own (§ 8: 400 use_dpop_nonce; § 9: 401 use_dpop_nonce), each with a DPoP-Nonce header.
//
// Proofs are not secrets: a proof names a public key and, with ath, a hash of the token; the
// token itself stays a label, one that carries its ath (the base64url SHA-256 the proof must
// hold), so that the checks can match the two without the token.

// The DPoP scenarios' names, as the official suite's.
const (
	AuthDPoP      = "auth/dpop"
	AuthDPoPNonce = "auth/dpop-nonce"
)

// DPoPAlg is the one proof algorithm the probe's authorization server advertises and verifies.
const DPoPAlg = "ES256"

// DPoPIatWindow is how far from the probe's clock a proof's iat may be (the official suite's
// and SEP-1932's five minutes).
const DPoPIatWindow = 5 * time.Minute

// dpopState is the DPoP side of one scenario run's authorization server.
type dpopState struct {
	asNonce, rsNonce string          // the nonces each server requires (auth/dpop-nonce)
	jtis             map[string]bool // the jtis the token endpoint has taken
}

func newDPoPState(plan AuthPlan) *dpopState {
	if !plan.DPoP {
		return nil
	}
	d := &dpopState{jtis: map[string]bool{}}
	if plan.DPoPNonce {
		// RFC 9449 § 8: nonces MUST be unpredictable.
		d.asNonce, d.rsNonce = "as-"+randHex(12), "rs-"+randHex(12)
	}
	return d
}

// DPoPProof is a DPoP proof JWT as the client sent it, decoded but not judged.
type DPoPProof struct {
	Header struct {
		Typ string          `json:"typ"`
		Alg string          `json:"alg"`
		JWK json.RawMessage `json:"jwk"`
	}
	Claims struct {
		JTI   *string  `json:"jti"`
		HTM   string   `json:"htm"`
		HTU   string   `json:"htu"`
		IAT   *float64 `json:"iat"`
		ATH   *string  `json:"ath"`
		Nonce *string  `json:"nonce"`
	}
	signed, sig string
}

// ParseDPoPProof decodes a proof's header and claims; it fails only on what is not a JWT.
func ParseDPoPProof(s string) (DPoPProof, error) {
	var p DPoPProof
	parts := strings.Split(strings.TrimSpace(s), ".")
	if len(parts) != 3 {
		return p, errors.New("not a JWS in compact form (three dot-separated parts)")
	}
	if err := decodeSegment(parts[0], &p.Header); err != nil {
		return p, fmt.Errorf("header: %w", err)
	}
	if err := decodeSegment(parts[1], &p.Claims); err != nil {
		return p, fmt.Errorf("claims: %w", err)
	}
	p.signed, p.sig = parts[0]+"."+parts[1], parts[2]
	return p, nil
}

// ecJWK is an EC public key as a JWK.
type ecJWK struct {
	Kty string  `json:"kty"`
	Crv string  `json:"crv"`
	X   string  `json:"x"`
	Y   string  `json:"y"`
	D   *string `json:"d"`
}

// Verify checks what RFC 9449 § 4.3 asks of any proof but its htm, htu, ath and nonce: typ
// dpop+jwt, ES256 (the algorithm advertised), a public P-256 jwk that verifies the signature,
// a jti and an iat. It returns the jwk's RFC 7638 thumbprint.
func (p DPoPProof) Verify() (string, error) {
	switch {
	case p.Header.Typ != "dpop+jwt":
		return "", fmt.Errorf("typ %q, not dpop+jwt", p.Header.Typ)
	case p.Header.Alg != DPoPAlg:
		return "", fmt.Errorf("alg %q, not %s (the one advertised)", p.Header.Alg, DPoPAlg)
	case len(p.Header.JWK) == 0:
		return "", errors.New("no jwk in the header")
	}
	var k ecJWK
	if err := json.Unmarshal(p.Header.JWK, &k); err != nil {
		return "", fmt.Errorf("jwk: %w", err)
	}
	if k.D != nil {
		return "", errors.New("the jwk holds a private key (d)")
	}
	if k.Kty != "EC" || k.Crv != "P-256" {
		return "", fmt.Errorf("jwk kty %q crv %q: not an ES256 (EC P-256) key", k.Kty, k.Crv)
	}
	x, errX := base64.RawURLEncoding.DecodeString(k.X)
	y, errY := base64.RawURLEncoding.DecodeString(k.Y)
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return "", errors.New("jwk x and y are not 32 bytes of base64url each")
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	sig, err := base64.RawURLEncoding.DecodeString(p.sig)
	if err != nil || len(sig) != 64 {
		return "", errors.New("the signature is not 64 bytes of base64url (ES256's r and s)")
	}
	sum := sha256.Sum256([]byte(p.signed))
	if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", errors.New("the signature does not verify with the jwk the proof carries")
	}
	if p.Claims.JTI == nil || *p.Claims.JTI == "" {
		return "", errors.New("no jti")
	}
	if p.Claims.IAT == nil {
		return "", errors.New("no iat")
	}
	// RFC 7638: the required members in lexicographic order, no whitespace.
	canon := fmt.Sprintf(`{"crv":%q,"kty":%q,"x":%q,"y":%q}`, k.Crv, k.Kty, k.X, k.Y)
	th := sha256.Sum256([]byte(canon))
	return base64.RawURLEncoding.EncodeToString(th[:]), nil
}

// HTUMatches reports whether a proof's htu names target (scheme, host and path; RFC 9449
// § 4.3 compares them after syntax-based normalization) and carries no query or fragment.
func HTUMatches(htu, target string) bool {
	if strings.ContainsAny(htu, "?#") {
		return false
	}
	a, errA := url.Parse(htu)
	b, errB := url.Parse(target)
	if errA != nil || errB != nil {
		return false
	}
	norm := func(u *url.URL) string {
		return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/")
	}
	return norm(a) == norm(b)
}

// ATH is the ath claim a proof sent with token must carry: base64url(SHA-256(token)).
func ATH(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// dpopMetadata adds the DPoP member of the authorization server metadata (RFC 9449 § 5.1).
func (a *authServer) dpopMetadata(m map[string]any) {
	if a.plan.DPoP {
		m["dpop_signing_alg_values_supported"] = []string{DPoPAlg}
	}
}

// seenProof notes a proof's jti and the probe's clock when it came.
func (a *authServer) seenProof(p DPoPProof) {
	jti, ev := "(none)", record.Event{Kind: record.EvDPoPProof, At: time.Now().Unix()}
	if p.Claims.JTI != nil {
		jti, ev.JTI = strconv.Quote(*p.Claims.JTI), *p.Claims.JTI
	}
	a.note(ev, "auth: dpop proof jti %s at unix %d", jti, ev.At)
}

// dpopTokenRequest verifies the DPoP proof of a token request (RFC 9449 § 4.3) and returns the
// thumbprint of its key, "" for a request without one (a Bearer token follows). It answers the
// request itself, and returns false, when it refuses the proof or asks for its nonce.
func (a *authServer) dpopTokenRequest(w http.ResponseWriter, r *http.Request, ip string) (string, bool) {
	if a.dpop == nil {
		return "", true
	}
	vals := r.Header.Values("DPoP")
	if len(vals) == 0 {
		return "", true
	}
	refuse := func(why string) (string, bool) {
		a.note(record.Event{Kind: record.EvDPoPRefused}, "auth: dpop proof refused: %s", why)
		a.oauthError(w, http.StatusBadRequest, "invalid_dpop_proof", why)
		return "", false
	}
	if len(vals) > 1 {
		return refuse("more than one DPoP header")
	}
	p, err := ParseDPoPProof(vals[0])
	if err != nil {
		return refuse(err.Error())
	}
	a.seenProof(p)
	jkt, err := p.Verify()
	if err != nil {
		return refuse(err.Error())
	}
	endpoint := a.origin + ip + "/token"
	switch {
	case p.Claims.HTM != http.MethodPost:
		return refuse(fmt.Sprintf("htm %q, not POST", p.Claims.HTM))
	case !HTUMatches(p.Claims.HTU, endpoint):
		return refuse(fmt.Sprintf("htu %q is not the token endpoint %s", p.Claims.HTU, endpoint))
	case time.Since(time.Unix(int64(*p.Claims.IAT), 0)).Abs() > DPoPIatWindow:
		return refuse(fmt.Sprintf("iat %d is more than %s from the server's clock", int64(*p.Claims.IAT), DPoPIatWindow))
	}
	a.mu.Lock()
	replay := a.dpop.jtis[*p.Claims.JTI]
	a.dpop.jtis[*p.Claims.JTI] = true
	a.mu.Unlock()
	if replay {
		return refuse("jti " + strconv.Quote(*p.Claims.JTI) + " was used before")
	}
	if n := a.dpop.asNonce; n != "" && (p.Claims.Nonce == nil || *p.Claims.Nonce != n) {
		a.note(record.Event{Kind: record.EvDPoPNonce, Server: record.DPoPAuthorizationServer, Nonce: n}, "auth: dpop nonce required by token endpoint %s", n)
		a.reply(w, http.StatusBadRequest, map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store", "Dpop-Nonce": n},
			mustJSON(map[string]string{"error": "use_dpop_nonce", "error_description": "the authorization server requires a nonce in the DPoP proof"}))
		return "", false
	}
	return jkt, true
}

// dpopChallenge is the MCP endpoint's challenge in a DPoP scenario (RFC 9449 § 7.1), its
// parameters those of the Bearer one.
func (a *authServer) dpopChallenge(parts []string) string {
	return "DPoP " + strings.Join(append([]string{fmt.Sprintf("algs=%q", DPoPAlg)}, parts...), ", ")
}

// dpopScheme reports whether the scheme is the token's in this scenario: DPoP besides Bearer.
func (a *authServer) dpopScheme(scheme string) bool {
	return a.dpop != nil && strings.EqualFold(scheme, "DPoP")
}

// dpopResource notes the proof of a request to the MCP endpoint that carries a token and, in
// auth/dpop-nonce, refuses one without the resource server's nonce (RFC 9449 § 9). It judges
// nothing else: the checks do, from the recording.
func (a *authServer) dpopResource(r *http.Request, challenge func(status int, errCode string, parts ...string) *record.Event) *record.Event {
	if a.dpop == nil {
		return nil
	}
	vals := r.Header.Values("DPoP")
	if len(vals) == 0 {
		return nil
	}
	p, err := ParseDPoPProof(vals[0])
	if err != nil {
		return nil
	}
	a.seenProof(p)
	if n := a.dpop.rsNonce; n != "" && (p.Claims.Nonce == nil || *p.Claims.Nonce != n) {
		a.note(record.Event{Kind: record.EvDPoPNonce, Server: record.DPoPResourceServer, Nonce: n}, "auth: dpop nonce required by resource %s", n)
		return challenge(http.StatusUnauthorized, "use_dpop_nonce", `error="use_dpop_nonce"`, `error_description="the resource server requires a nonce in the DPoP proof"`)
	}
	return nil
}

// dpopNonceHeader is the DPoP-Nonce header a refusal of the MCP endpoint carries ("" none).
func (a *authServer) dpopNonceHeader(ch *record.Event) string {
	if a.dpop == nil || ch.Error != "use_dpop_nonce" {
		return ""
	}
	return a.dpop.rsNonce
}

// dpopLabel is the label of an access token of a DPoP scenario: it shows the token's ath (which
// Credential.ATH carries for the checks).
func dpopLabel(n int, token string) string {
	return fmt.Sprintf("<redacted:access_token-%d;ath=%s>", n, ATH(token))
}
