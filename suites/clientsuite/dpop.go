package clientsuite

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// Helpers and judges of the DPoP checks (registered in authorization.go, the page of area auth).
// The DPoP extension (io.modelcontextprotocol/auth/dpop, SEP-1932: RFC 9449 as it is), judged
// on the auth/dpop and auth/dpop-nonce scenarios. The probe's authorization server advertises
// ES256 in dpop_signing_alg_values_supported and binds the token of a request with a proof to
// the proof's key; in auth/dpop-nonce it and the MCP server each require a nonce of their own.
// Proofs are recorded as sent (they hold no secret); a token stays a label, and the request's
// credential (record.Credential) carries the ath a proof sent with it must hold.

var dpopScenarios = []string{probe.AuthDPoPNonce}

// dpopGate makes a check na for a client that sent no DPoP proof at all: the extension is
// optional, and a client that does not use it breaks none of its rules (it gets a Bearer token
// and uses it as such, which the core checks judge).
func dpopGate(judge func(*View) Finding) func(*View) Finding {
	return func(v *View) Finding {
		for _, u := range v.dpopUses() {
			if u.has {
				return judge(v)
			}
		}
		if len(v.tokenReqs()) == 0 {
			return v.noAuthorization()
		}
		return na("%s: the client sent no DPoP proof: it does not use the DPoP extension", v.Scenario)
	}
}

// dpopUse is a request of the client's that went to the token endpoint or the MCP endpoint in
// a DPoP scenario, with what its DPoP header held.
type dpopUse struct {
	at       int // index in View.Records
	token    bool
	method   string
	target   string            // the URL the request went to, without query
	auth     string            // its Authorization header ("" none)
	cred     record.Credential // the token that header presents (its label and ath)
	header   string            // its DPoP header(s), as recorded
	has      bool              // it had a DPoP header
	proof    probe.DPoPProof
	parseErr error
}

func (u dpopUse) jti() (string, bool) {
	if u.parseErr != nil || u.proof.Claims.JTI == nil {
		return "", false
	}
	return *u.proof.Claims.JTI, true
}

func (u dpopUse) nonce() string {
	if u.parseErr != nil || u.proof.Claims.Nonce == nil {
		return ""
	}
	return *u.proof.Claims.Nonce
}

// dpopUses lists the client's token requests and requests to the MCP endpoint, in order.
func (v *View) dpopUses() []dpopUse {
	var out []dpopUse
	for i, r := range v.Records {
		if r.Dir != record.Recv {
			continue
		}
		tok := r.Channel == probe.ChanOAuth && r.Method == "POST" && strings.HasSuffix(r.Path, "/token")
		if !tok && (r.Channel == probe.ChanOAuth || r.Path != probe.Path) {
			continue
		}
		host, _ := r.HasHeader("Host")
		u := dpopUse{at: i, token: tok, method: r.Method, target: "http://" + host + r.Path}
		u.auth, _ = r.HasHeader("Authorization")
		u.cred, _ = r.Cred(record.InHeader, "Authorization")
		u.header, u.has = r.HasHeader("DPoP")
		if u.has {
			u.proof, u.parseErr = probe.ParseDPoPProof(u.header)
		}
		out = append(out, u)
	}
	return out
}

// received is the probe's clock when the proof of use came (its record.EvDPoPProof), ok false
// if none was noted.
func (v *View) received(u dpopUse) (time.Time, bool) {
	jti, ok := u.jti()
	if !ok {
		return time.Time{}, false
	}
	for _, r := range v.Records[u.at+1:] {
		if r.Is(record.EvDPoPProof) && r.Event.JTI == jti {
			return time.Unix(r.Event.At, 0), true
		}
	}
	return time.Time{}, false
}

// proofFault is what is wrong with the proof of use as RFC 9449 § 4.3 checks it, htm and htu
// against the request, "" nothing. It returns the key's thumbprint too.
func (v *View) proofFault(u dpopUse) (string, string) {
	switch {
	case !u.has:
		return "", "carries no DPoP header"
	case strings.Contains(u.header, ","):
		return "", "carries more than one DPoP header"
	case u.parseErr != nil:
		return "", "has a DPoP header that is no JWT: " + u.parseErr.Error()
	}
	jkt, err := u.proof.Verify()
	if err != nil {
		return "", "has a DPoP proof whose " + err.Error()
	}
	c := u.proof.Claims
	if c.HTM != u.method {
		return jkt, fmt.Sprintf("has a DPoP proof with htm %q, not its method %s", c.HTM, u.method)
	}
	if !probe.HTUMatches(c.HTU, u.target) {
		return jkt, fmt.Sprintf("has a DPoP proof with htu %q, not %s (without query or fragment)", c.HTU, u.target)
	}
	if at, ok := v.received(u); ok {
		iat := time.Unix(int64(*c.IAT), 0)
		if d := iat.Sub(at); d > probe.DPoPIatWindow || d < -probe.DPoPIatWindow {
			return jkt, fmt.Sprintf("has a DPoP proof whose iat is %s from the probe's clock when it came (more than %s)", d.Round(time.Second), probe.DPoPIatWindow)
		}
	}
	return jkt, ""
}

// dpopBound maps each DPoP-bound token's label to the thumbprint of the key it is bound to.
func (v *View) dpopBound() map[string]string {
	out := map[string]string{}
	for _, r := range v.Records {
		if r.Is(record.EvDPoPBound) {
			out[r.Event.Token] = r.Event.JKT
		}
	}
	return out
}

// scheme is the scheme of an Authorization header.
func scheme(auth string) string {
	s, _, _ := strings.Cut(strings.TrimSpace(auth), " ")
	return s
}

// boundUses are the requests to the MCP endpoint that present a DPoP-bound token, and the
// finding of a run with none.
func (v *View) boundUses() ([]dpopUse, map[string]string, *Finding) {
	bound := v.dpopBound()
	if len(bound) == 0 {
		f := untestable("%s: the authorization server issued the client no DPoP-bound token", v.Scenario)
		if len(v.tokenReqs()) == 0 {
			f = v.noAuthorization()
		}
		return nil, nil, &f
	}
	var out []dpopUse
	for _, u := range v.dpopUses() {
		if !u.token && bound[u.cred.Label] != "" {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		f := untestable("%s: the client never presented its DPoP-bound token to the MCP server", v.Scenario)
		return nil, nil, &f
	}
	return out, bound, nil
}

func judgeDPoPTokenProof(v *View) Finding {
	var toks []dpopUse
	for _, u := range v.dpopUses() {
		if u.token {
			toks = append(toks, u)
		}
	}
	if len(toks) == 0 {
		if len(v.authorizeReqs()) == 0 {
			return v.noAuthorization()
		}
		return untestable("%s: the client made no token request", v.Scenario)
	}
	for _, u := range toks {
		if _, why := v.proofFault(u); why != "" {
			return violated("%s: the token request (record %d) %s; the authorization server advertises dpop_signing_alg_values_supported [%s]", v.Scenario, v.seq(u.at), why, probe.DPoPAlg)
		}
	}
	return passed("%s: %s, each with a well-formed DPoP proof for the token endpoint (%s)", v.Scenario, plural(len(toks), "token request"), v.span(toks))
}

func judgeDPoPResourceProof(v *View) Finding {
	uses, bound, f := v.boundUses()
	if f != nil {
		return *f
	}
	for _, u := range uses {
		label := u.cred.Label
		jkt, why := v.proofFault(u)
		switch {
		case why != "":
			return violated("%s: the %s to the MCP server (record %d) presents a DPoP-bound token and %s", v.Scenario, u.method, v.seq(u.at), why)
		case jkt != bound[label]:
			return violated("%s: the proof of the %s to the MCP server (record %d) is signed by a key (thumbprint %s) other than the one the token is bound to (%s)", v.Scenario, u.method, v.seq(u.at), jkt, bound[label])
		case u.proof.Claims.ATH == nil:
			return violated("%s: the proof of the %s to the MCP server (record %d) has no ath, the hash of the access token it goes with", v.Scenario, u.method, v.seq(u.at))
		case *u.proof.Claims.ATH != u.cred.ATH:
			return violated("%s: the proof of the %s to the MCP server (record %d) has ath %q, not the hash of the token presented (%s)", v.Scenario, u.method, v.seq(u.at), *u.proof.Claims.ATH, u.cred.ATH)
		}
	}
	return passed("%s: %s presenting the DPoP-bound token, each with a proof of its key with htm, htu and ath right (%s)", v.Scenario, plural(len(uses), "request"), v.span(uses))
}

func judgeDPoPScheme(v *View) Finding {
	uses, _, f := v.boundUses()
	if f != nil {
		return *f
	}
	for _, u := range uses {
		if scheme := scheme(u.auth); !strings.EqualFold(scheme, "DPoP") {
			return violated("%s: the %s to the MCP server (record %d) presents the DPoP-bound token with the %s scheme, not DPoP", v.Scenario, u.method, v.seq(u.at), scheme)
		}
	}
	return passed("%s: %s presenting the DPoP-bound token, each with the DPoP scheme (%s)", v.Scenario, plural(len(uses), "request"), v.span(uses))
}

func judgeDPoPJTI(v *View) Finding {
	first := map[string]int{}
	n := 0
	for _, u := range v.dpopUses() {
		jti, ok := u.jti()
		if !ok {
			continue
		}
		n++
		if at, dup := first[jti]; dup {
			return violated("%s: the proof of record %d has the jti %q of the proof of record %d: a proof sent again", v.Scenario, v.seq(u.at), jti, v.seq(at))
		}
		first[jti] = u.at
	}
	if n == 0 {
		if len(v.tokenReqs()) == 0 {
			return v.noAuthorization()
		}
		return untestable("%s: the client sent no DPoP proof with a jti", v.Scenario)
	}
	return passed("%s: %s, each with a jti of its own", v.Scenario, plural(n, "DPoP proof"))
}

// nonceDemand is a server's refusal of a proof for want of its nonce.
type nonceDemand struct {
	at          int  // index in View.Records of the probe's note
	token       bool // the token endpoint's (else the MCP server's)
	nonce, kind string
}

func judgeDPoPNonce(v *View) Finding {
	var demands []nonceDemand
	for i, r := range v.Records {
		if !r.Is(record.EvDPoPNonce) {
			continue
		}
		switch r.Event.Server {
		case record.DPoPAuthorizationServer:
			demands = append(demands, nonceDemand{i, true, r.Event.Nonce, "token endpoint"})
		case record.DPoPResourceServer:
			demands = append(demands, nonceDemand{i, false, r.Event.Nonce, "MCP server"})
		}
	}
	if len(demands) == 0 {
		if v.Scenario == probe.AuthDPoP {
			return na("%s: no server asked for a nonce", v.Scenario)
		}
		if len(v.tokenReqs()) == 0 {
			return v.noAuthorization()
		}
		return untestable("%s: no server asked the client for a nonce: none took a proof of the client's far enough (a proof refused for another reason, or none sent)", v.Scenario)
	}
	uses := v.dpopUses()
	judged := 0
	for k, d := range demands {
		later := 0
		for _, u := range uses {
			if u.at < d.at || u.token != d.token || !u.has {
				continue
			}
			// A later demand of the same server supersedes this one.
			if laterDemand(demands[k+1:], d.token) <= u.at {
				break
			}
			later++
			if got := u.nonce(); got != d.nonce {
				return violated("%s: the %s asked for the nonce %q (record %d); the client's next proof to it (record %d) has nonce %q", v.Scenario, d.kind, d.nonce, v.seq(d.at), v.seq(u.at), got)
			}
		}
		if later == 0 {
			return untestable("%s: the %s asked for a nonce (record %d) and the client sent it no proof after: whether it would use it is not seen", v.Scenario, d.kind, v.seq(d.at))
		}
		judged += later
	}
	return passed("%s: after %s the client's later proofs to that server carry the nonce (%s)", v.Scenario, plural(len(demands), "nonce demand"), plural(judged, "proof"))
}

// laterDemand is the index of the first of ds made by the same server (the token endpoint or
// not), or the largest int.
func laterDemand(ds []nonceDemand, token bool) int {
	for _, d := range ds {
		if d.token == token {
			return d.at
		}
	}
	return int(^uint(0) >> 1)
}

// plural is n and noun, "s" added unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// span cites the records of uses: one, or the first and the last.
func (v *View) span(uses []dpopUse) string {
	first, last := v.seq(uses[0].at), v.seq(uses[len(uses)-1].at)
	if first == last {
		return fmt.Sprintf("record %d", first)
	}
	return fmt.Sprintf("record %d to record %d", first, last)
}
