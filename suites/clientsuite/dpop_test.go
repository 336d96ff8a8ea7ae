package clientsuite

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

const dpopHost = "127.0.0.1:9"

// dpopProof signs an ES256 proof with key of the given claims.
func dpopProof(t *testing.T, key *ecdsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	raw, _ := key.PublicKey.ECDH()
	b := raw.Bytes()
	h, _ := json.Marshal(map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": map[string]string{"kty": "EC", "crv": "P-256",
		"x": base64.RawURLEncoding.EncodeToString(b[1:33]), "y": base64.RawURLEncoding.EncodeToString(b[33:])}})
	c, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
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

// dpopRun builds a DPoP scenario's recording: a token request with a proof of key, the token
// bound to key, then a POST to the MCP endpoint with the proof resource gives (nil: a good
// one), and the records after gives.
func dpopRun(t *testing.T, key *ecdsa.PrivateKey, resource func(claims map[string]any), after ...record.Record) []record.Record {
	t.Helper()
	now := time.Now().Unix()
	label := "<redacted:access_token-1;ath=" + probe.ATH("tok") + ">"
	tokProof := dpopProof(t, key, map[string]any{"jti": "t1", "htm": "POST", "htu": "http://" + dpopHost + "/token", "iat": now})
	p, _ := probe.ParseDPoPProof(tokProof)
	jkt, err := p.Verify()
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{"jti": "r1", "htm": "POST", "htu": "http://" + dpopHost + "/mcp", "iat": now, "ath": probe.ATH("tok")}
	if resource != nil {
		resource(claims)
	}
	recs := []record.Record{
		{Dir: record.Recv, Channel: probe.ChanOAuth, Method: "POST", Path: "/token", Header: map[string]string{"Host": dpopHost, "Dpop": tokProof, "Content-Type": "application/x-www-form-urlencoded"}, Body: "grant_type=authorization_code"},
		{Dir: record.Note, Event: &record.Event{Kind: record.EvDPoPProof, JTI: "t1", At: now}},
		{Dir: record.Note, Event: &record.Event{Kind: record.EvDPoPBound, Token: label, JKT: jkt}},
		{Dir: record.Recv, Channel: record.ChanPOST, Method: "POST", Path: "/mcp", Header: map[string]string{"Host": dpopHost, "Authorization": "DPoP " + label, "Dpop": dpopProof(t, key, claims)},
			Creds: []record.Credential{{In: record.InHeader, Name: "Authorization", Kind: record.SecretAccessToken, Label: label, ATH: probe.ATH("tok")}},
			Body:  `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{Dir: record.Note, Event: &record.Event{Kind: record.EvDPoPProof, JTI: fmt.Sprint(claims["jti"]), At: now}},
	}
	recs = append(recs, after...)
	for i := range recs {
		recs[i].Seq = i + 1
	}
	return recs
}

func TestDPoPResourceProof(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	judge := func(recs []record.Record) Finding {
		return judgeDPoPResourceProof(NewView(probe.AuthDPoP, "2025-11-25", "http", "2025-11-25", recs, nil))
	}
	if f := judge(dpopRun(t, key, nil)); f.Outcome != Pass {
		t.Fatalf("a good run: %v %s", f.Outcome, f.Message)
	}
	for name, tc := range map[string]struct {
		edit func(map[string]any)
		want string
	}{
		"no ath":     {func(c map[string]any) { delete(c, "ath") }, "no ath"},
		"wrong ath":  {func(c map[string]any) { c["ath"] = probe.ATH("other") }, "not the hash"},
		"htu query":  {func(c map[string]any) { c["htu"] = "http://" + dpopHost + "/mcp?x=1" }, "htu"},
		"htm":        {func(c map[string]any) { c["htm"] = "GET" }, "htm"},
		"stale iat":  {func(c map[string]any) { c["iat"] = time.Now().Add(-time.Hour).Unix() }, "iat"},
		"no jti":     {func(c map[string]any) { delete(c, "jti") }, "no jti"},
		"wrong type": {func(c map[string]any) { c["iat"] = "now" }, "no JWT"},
	} {
		if f := judge(dpopRun(t, key, tc.edit)); f.Outcome != Violation || !strings.Contains(f.Message, tc.want) {
			t.Errorf("%s: %v %s, want a violation saying %q", name, f.Outcome, f.Message, tc.want)
		}
	}
	// A proof of another key than the token's.
	recs := dpopRun(t, key, nil)
	var claims map[string]any
	p, _ := probe.ParseDPoPProof(recs[3].Header["Dpop"])
	b, _ := json.Marshal(p.Claims)
	_ = json.Unmarshal(b, &claims)
	recs[3].Header["Dpop"] = dpopProof(t, other, claims)
	if f := judge(recs); f.Outcome != Violation || !strings.Contains(f.Message, "other than the one the token is bound to") {
		t.Errorf("another key: %v %s", f.Outcome, f.Message)
	}
}

// TestDPoPResourceNonce: the MCP server's nonce demand (RFC 9449 § 9), which the reference
// client's fault never reaches (its token request is refused first).
func TestDPoPResourceNonce(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	demand := record.Record{Dir: record.Note, Event: &record.Event{Kind: record.EvDPoPNonce, Server: record.DPoPResourceServer, Nonce: "rs-1"}}
	retry := func(nonce string) record.Record {
		c := map[string]any{"jti": "r2-" + nonce, "htm": "POST", "htu": "http://" + dpopHost + "/mcp", "iat": time.Now().Unix(), "ath": probe.ATH("tok")}
		if nonce != "" {
			c["nonce"] = nonce
		}
		return record.Record{Dir: record.Recv, Channel: record.ChanPOST, Method: "POST", Path: "/mcp", Header: map[string]string{"Host": dpopHost, "Authorization": "DPoP x", "Dpop": dpopProof(t, key, c)}}
	}
	judge := func(recs []record.Record) Finding {
		return judgeDPoPNonce(NewView(probe.AuthDPoPNonce, "2025-11-25", "http", "2025-11-25", recs, nil))
	}
	for name, tc := range map[string]struct {
		after []record.Record
		want  Outcome
	}{
		"used":          {[]record.Record{demand, retry("rs-1")}, Pass},
		"ignored":       {[]record.Record{demand, retry("")}, Violation},
		"later wrong":   {[]record.Record{demand, retry("rs-1"), retry("rs-0")}, Violation},
		"not retried":   {[]record.Record{demand}, Untestable},
		"superseded":    {[]record.Record{demand, retry("rs-1"), {Dir: record.Note, Event: &record.Event{Kind: record.EvDPoPNonce, Server: record.DPoPResourceServer, Nonce: "rs-2"}}, retry("rs-2")}, Pass},
		"none demanded": {nil, Untestable},
	} {
		if f := judge(dpopRun(t, key, nil, tc.after...)); f.Outcome != tc.want {
			t.Errorf("%s: %v %s, want %v", name, f.Outcome, f.Message, tc.want)
		}
	}
	if f := judgeDPoPNonce(NewView(probe.AuthDPoP, "2025-11-25", "http", "2025-11-25", dpopRun(t, key, nil), nil)); f.Outcome != NotApplicable {
		t.Errorf("auth/dpop, no demand: %v %s, want na", f.Outcome, f.Message)
	}
}

// TestDPoPTokenProofAndGate: a token request proof for another URL fails; a client that sent
// no proof at all does not use the extension (na), one that sent some is judged on all.
func TestDPoPTokenProofAndGate(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	check, _ := Lookup("AUTH-CLIENT-DPOP-TOKEN-PROOF")
	view := func(recs []record.Record) *View {
		return NewView(probe.AuthDPoP, "2025-11-25", "http", "2025-11-25", recs, nil)
	}
	if f := check.Side.Judge(view(dpopRun(t, key, nil))); f.Outcome != Pass {
		t.Errorf("a good run: %v %s", f.Outcome, f.Message)
	}
	recs := dpopRun(t, key, nil)
	recs[0].Header["Dpop"] = dpopProof(t, key, map[string]any{"jti": "t9", "htm": "POST", "htu": "http://" + dpopHost + "/mcp", "iat": time.Now().Unix()})
	if f := check.Side.Judge(view(recs)); f.Outcome != Violation || !strings.Contains(f.Message, "htu") {
		t.Errorf("htu of the MCP endpoint: %v %s", f.Outcome, f.Message)
	}
	delete(recs[0].Header, "Dpop")
	if f := check.Side.Judge(view(recs)); f.Outcome != Violation || !strings.Contains(f.Message, "no DPoP header") {
		t.Errorf("no proof at the token endpoint, some at the MCP server: %v %s", f.Outcome, f.Message)
	}
	delete(recs[3].Header, "Dpop")
	if f := check.Side.Judge(view(recs)); f.Outcome != NotApplicable {
		t.Errorf("no proof anywhere: %v %s, want na", f.Outcome, f.Message)
	}
}
