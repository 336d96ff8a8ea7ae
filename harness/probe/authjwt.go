package probe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
)

// private_key_jwt client authentication (RFC 7523 § 2.2) for AuthClientCredentialsJWT: the
// probe mints an ES256 key pair, gives the client the private key in the scenario's context
// (as the official suite does: private_key_pem, signing_algorithm) and verifies the
// client_assertion of its token requests with the public key. The key and every assertion are
// secrets.

// AssertionType is RFC 7523's client_assertion_type.
const AssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionSkew is the clock skew allowed an assertion's exp.
const assertionSkew = 30 * time.Second

// newJWTKey mints the pre-registered client's key pair and registers its private key, in
// every form a report could hold it in, as a secret.
func (a *authServer) newJWTKey() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("probe: private_key_jwt key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("probe: private_key_jwt key: %w", err)
	}
	a.pre.key = &key.PublicKey
	a.pre.pem = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	a.secret(a.pre.pem, "private_key")
	if j, err := json.Marshal(a.pre.pem); err == nil {
		a.secret(strings.Trim(string(j), `"`), "private_key")
	}
	a.secret(base64.StdEncoding.EncodeToString(der), "private_key")
	for _, line := range strings.Split(a.pre.pem, "\n") {
		if line != "" && !strings.HasPrefix(line, "-----") {
			a.secret(line, "private_key")
		}
	}
	return nil
}

// verifyAssertion checks a client_assertion: an ES256 JWT the client's key signed, whose iss
// and sub are its client_id, whose aud names the issuer or the token endpoint, not expired.
func (a *authServer) verifyAssertion(assertion string, c *client) error {
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return errors.New("not a JWT (three dot-separated parts)")
	}
	var header struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Iss string          `json:"iss"`
		Sub string          `json:"sub"`
		Aud json.RawMessage `json:"aud"`
		Exp *float64        `json:"exp"`
	}
	if err := decodeSegment(parts[0], &header); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	var auds []string
	if json.Unmarshal(claims.Aud, &auds) != nil {
		var one string
		_ = json.Unmarshal(claims.Aud, &one)
		auds = []string{one}
	}
	issuer := a.plan.Issuer(a.origin)
	switch {
	case header.Alg != "ES256":
		return fmt.Errorf("alg %q, not ES256", header.Alg)
	case claims.Iss != c.id || claims.Sub != c.id:
		return fmt.Errorf("iss %q and sub %q, not both the client_id %q", claims.Iss, claims.Sub, c.id)
	case !slices.Contains(auds, issuer) && !slices.Contains(auds, issuer+"/token"):
		return fmt.Errorf("aud %v names neither the issuer %s nor the token endpoint", auds, issuer)
	case claims.Exp == nil:
		return errors.New("no exp")
	case time.Unix(int64(*claims.Exp), 0).Add(assertionSkew).Before(time.Now()):
		return errors.New("expired")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return errors.New("the signature is not 64 bytes of base64url (ES256's r and s)")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(c.key, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("the signature does not verify with the key given in the context")
	}
	return nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// assertionSubject is the sub of an assertion, "" if it has none to read.
func assertionSubject(assertion string) string {
	parts := strings.Split(assertion, ".")
	var claims struct {
		Sub string `json:"sub"`
	}
	if len(parts) == 3 {
		_ = decodeSegment(parts[1], &claims)
	}
	return claims.Sub
}
