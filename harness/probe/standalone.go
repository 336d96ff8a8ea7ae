package probe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"
)

// The probe's authorization server on its own, with no MCP endpoint beside it: the reference
// authorization server (`mcpspec reference-authserver`) that the authorization-server checks
// are proven on. Its issuer is its origin; it serves RFC 8414 metadata, dynamic registration,
// Client ID Metadata Documents, an authorization endpoint that redirects at once, RFC 9207
// iss, and ES256 JWT access tokens whose aud is the resource asked for.

// ReferenceASPlan is the reference authorization server, correct in every rule the checks
// judge; lax switches faults on.
func ReferenceASPlan(lax ASLax) AuthPlan {
	return AuthPlan{Name: "reference-authserver", ASMetaPath: asOAuth, Registration: RegCIMD, DCRToo: true,
		AuthMethods: []string{"none", "client_secret_basic", "client_secret_post"},
		ISS:         true, ISSSent: ISSRight, JWTAccessTokens: true, Lax: lax}
}

// AuthorizationServer serves an AuthPlan's authorization server alone.
type AuthorizationServer struct{ a *authServer }

// NewAuthorizationServer serves plan at origin (http://HOST:PORT, the issuer). Its
// exchanges are kept by a Recorder of its own, bounded like every recording.
func NewAuthorizationServer(origin string, plan AuthPlan) (*AuthorizationServer, error) {
	a := newAuthServer(plan, NewRecorder(nil))
	a.origin = origin
	if plan.JWTAccessTokens {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("authorization server: token signing key: %w", err)
		}
		a.tokenKey = key
	}
	return &AuthorizationServer{a: a}, nil
}

// ServeHTTP answers every path as the authorization server.
func (s *AuthorizationServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.a.serve(w, r, "")
}

// accessJWT mints an ES256 JWT access token (RFC 9068's shape) for aud.
func (a *authServer) accessJWT(aud, clientID, scope string) (string, error) {
	if a.tokenKey == nil {
		return "", fmt.Errorf("no token signing key")
	}
	now := time.Now().Unix()
	claims := map[string]any{"iss": a.plan.Issuer(a.origin), "sub": clientID, "client_id": clientID,
		"iat": now, "exp": now + 3600, "jti": randHex(12)}
	if aud != "" {
		claims["aud"] = aud
	}
	if scope != "" {
		claims["scope"] = scope
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(mustJSON(map[string]string{"alg": "ES256", "typ": "at+jwt"})) + "." + enc.EncodeToString(mustJSON(claims))
	sum := sha256.Sum256([]byte(signing))
	r, sv, err := ecdsa.Sign(rand.Reader, a.tokenKey, sum[:])
	if err != nil {
		return "", fmt.Errorf("sign the access token: %w", err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	sv.FillBytes(sig[32:])
	return signing + "." + enc.EncodeToString(sig), nil
}
