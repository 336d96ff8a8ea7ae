package probe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// testProof signs an ES256 DPoP proof with key, its header and claims changed by edit.
func testProof(t *testing.T, key *ecdsa.PrivateKey, claims map[string]any, edit func(h map[string]any)) string {
	t.Helper()
	raw, err := key.PublicKey.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	b := raw.Bytes()
	h := map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": map[string]string{"kty": "EC", "crv": "P-256",
		"x": base64.RawURLEncoding.EncodeToString(b[1:33]), "y": base64.RawURLEncoding.EncodeToString(b[33:])}}
	if edit != nil {
		edit(h)
	}
	hj, _ := json.Marshal(h)
	cj, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(hj) + "." + base64.RawURLEncoding.EncodeToString(cj)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestDPoPProofVerify: a well-formed proof verifies and yields its key's RFC 7638 thumbprint
// (the same for every proof of the key); each defect alone is named.
func TestDPoPProofVerify(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	claims := map[string]any{"jti": "j1", "htm": "POST", "htu": "http://127.0.0.1:1/token", "iat": 1}
	good := testProof(t, key, claims, nil)
	p, err := ParseDPoPProof(good)
	if err != nil {
		t.Fatal(err)
	}
	jkt, err := p.Verify()
	if err != nil || len(jkt) != 43 {
		t.Fatalf("a good proof: thumbprint %q, %v", jkt, err)
	}
	p2, _ := ParseDPoPProof(testProof(t, key, map[string]any{"jti": "j2", "iat": 2}, nil))
	if jkt2, _ := p2.Verify(); jkt2 != jkt {
		t.Errorf("two proofs of one key: thumbprints %s and %s", jkt, jkt2)
	}
	otherJWK := func(h map[string]any) {
		raw, _ := other.PublicKey.ECDH()
		b := raw.Bytes()
		h["jwk"] = map[string]string{"kty": "EC", "crv": "P-256", "x": base64.RawURLEncoding.EncodeToString(b[1:33]), "y": base64.RawURLEncoding.EncodeToString(b[33:])}
	}
	for name, tc := range map[string]struct {
		proof, want string
	}{
		"typ":         {testProof(t, key, claims, func(h map[string]any) { h["typ"] = "JWT" }), `typ "JWT"`},
		"alg":         {testProof(t, key, claims, func(h map[string]any) { h["alg"] = "none" }), `alg "none"`},
		"private jwk": {testProof(t, key, claims, func(h map[string]any) { h["jwk"].(map[string]string)["d"] = "x" }), "private key"},
		"no jwk":      {testProof(t, key, claims, func(h map[string]any) { delete(h, "jwk") }), "no jwk"},
		"other key":   {testProof(t, key, claims, otherJWK), "does not verify"},
		"no jti":      {testProof(t, key, map[string]any{"htm": "POST", "iat": 1}, nil), "no jti"},
		"no iat":      {testProof(t, key, map[string]any{"jti": "j", "htm": "POST"}, nil), "no iat"},
	} {
		p, err := ParseDPoPProof(tc.proof)
		if err == nil {
			_, err = p.Verify()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
	if _, err := ParseDPoPProof("a.b"); err == nil {
		t.Error("two segments parsed as a JWT")
	}
}

func TestHTUMatches(t *testing.T) {
	for _, tc := range []struct {
		htu  string
		want bool
	}{
		{"http://127.0.0.1:9/mcp", true},
		{"HTTP://127.0.0.1:9/mcp/", true},
		{"http://127.0.0.1:9/mcp?x=1", false},
		{"http://127.0.0.1:9/mcp#f", false},
		{"http://127.0.0.1:9/token", false},
		{"http://127.0.0.1:8/mcp", false},
	} {
		if got := HTUMatches(tc.htu, "http://127.0.0.1:9/mcp"); got != tc.want {
			t.Errorf("HTUMatches(%q) = %v, want %v", tc.htu, got, tc.want)
		}
	}
	// RFC 9449 § 4.1's example: the ath of the token "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU".
	if got := ATH("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"); got != "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo" {
		t.Errorf("ATH = %s", got)
	}
}

// TestDPoPAuthorizationServer: the token endpoint takes a good proof once (its jti is spent),
// refuses one for another URL, and in auth/dpop-nonce asks for its nonce (400 use_dpop_nonce
// with DPoP-Nonce) before taking it; the MCP endpoint asks for its own (401).
func TestDPoPAuthorizationServer(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const origin = "http://127.0.0.1:1"
	tokenReq := func(a *authServer, proof string) (*httptest.ResponseRecorder, string, bool) {
		r := httptest.NewRequest(http.MethodPost, origin+"/token", nil)
		r.Header.Set("DPoP", proof)
		w := httptest.NewRecorder()
		jkt, ok := a.dpopTokenRequest(w, r, "")
		return w, jkt, ok
	}
	claims := func(jti, htu, nonce string) map[string]any {
		c := map[string]any{"jti": jti, "htm": "POST", "htu": htu, "iat": time.Now().Unix()}
		if nonce != "" {
			c["nonce"] = nonce
		}
		return c
	}
	plan, _ := PlanFor(AuthDPoP)
	a := newAuthServer(plan, NewRecorder(nil))
	a.origin = origin
	if m := a.metadata(""); fmt.Sprint(m["dpop_signing_alg_values_supported"]) != "[ES256]" {
		t.Errorf("metadata: dpop_signing_alg_values_supported %v", m["dpop_signing_alg_values_supported"])
	}
	good := testProof(t, key, claims("a", origin+"/token", ""), nil)
	if _, jkt, ok := tokenReq(a, good); !ok || jkt == "" {
		t.Fatalf("a good proof refused")
	}
	for name, proof := range map[string]string{"replayed": good, "other htu": testProof(t, key, claims("b", origin+"/mcp", ""), nil)} {
		if w, _, ok := tokenReq(a, proof); ok || w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "invalid_dpop_proof") {
			t.Errorf("%s: taken %v, HTTP %d %s", name, ok, w.Code, w.Body)
		}
	}

	plan, _ = PlanFor(AuthDPoPNonce)
	a = newAuthServer(plan, NewRecorder(nil))
	a.origin = origin
	w, _, ok := tokenReq(a, testProof(t, key, claims("c", origin+"/token", ""), nil))
	nonce := w.Header().Get("DPoP-Nonce")
	if ok || w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "use_dpop_nonce") || nonce == "" {
		t.Fatalf("no nonce: taken %v, HTTP %d %s, DPoP-Nonce %q", ok, w.Code, w.Body, nonce)
	}
	if _, _, ok := tokenReq(a, testProof(t, key, claims("d", origin+"/token", nonce), nil)); !ok {
		t.Error("the proof with the nonce refused")
	}
	r := httptest.NewRequest(http.MethodPost, origin+"/mcp", nil)
	r.Header.Set("DPoP", testProof(t, key, claims("e", origin+"/mcp", nonce), nil)) // the AS's nonce, not the server's
	challenge := func(status int, errCode string, p ...string) *record.Event {
		return &record.Event{Kind: record.EvChallenge, Status: status, Error: errCode, Challenge: a.dpopChallenge(p)}
	}
	ch := a.dpopResource(r, challenge)
	if ch == nil || ch.Status != http.StatusUnauthorized || !strings.HasPrefix(ch.Challenge, "DPoP ") || a.dpopNonceHeader(ch) == "" || a.dpopNonceHeader(ch) == nonce {
		t.Fatalf("the MCP endpoint: %+v (the AS's nonce %q)", ch, nonce)
	}
	r.Header.Set("DPoP", testProof(t, key, claims("f", origin+"/mcp", a.dpopNonceHeader(ch)), nil))
	if ch := a.dpopResource(r, challenge); ch != nil {
		t.Errorf("the MCP endpoint refused its own nonce: %+v", ch)
	}
}
