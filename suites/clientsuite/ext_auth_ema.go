package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// Enterprise-managed authorization (io.modelcontextprotocol/enterprise-managed-authorization,
// SEP-990; "cross-app access" before), judged on the official suite's
// auth/enterprise-managed-authorization and its former name auth/cross-app-access-complete-flow:
// the context hands the client an enterprise IdP's ID token and token endpoint (served by the
// probe), and the client's credentials at the MCP server's authorization server, which offers
// the jwt-bearer grant alone.

func init() {
	Register(
		Check{ID: "EMA-CLIENT-TOKEN-EXCHANGE", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "the client exchanges the IdP's ID token at the IdP's token endpoint (RFC 8693): grant_type token-exchange, requested_token_type id-jag, " +
				"the ID token as subject_token with subject_token_type id_token",
			LevelReason: "The extension's § 4: to request the grant the client MUST make a token exchange request to the IdP's token endpoint with those parameters, each REQUIRED.",
			Side:        Client{Scenario: probe.AuthEnterpriseManaged, Also: []string{probe.AuthCrossAppAccess}, Judge: judgeEMATokenExchange}},
		Check{ID: "EMA-CLIENT-EXCHANGE-TARGET", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "the token exchange names the MCP server's authorization server's issuer as audience and the server's resource identifier as resource",
			LevelReason: "The extension's § 4 makes audience (the issuer URL of the MCP server's authorization server) and resource (its RFC 9728 resource identifier) " +
				"REQUIRED parameters of the request the client MUST make; the ID-JAG's aud and resource come from them.",
			Side: Client{Scenario: probe.AuthEnterpriseManaged, Also: []string{probe.AuthCrossAppAccess}, Judge: judgeEMAExchangeTarget}},
		Check{ID: "EMA-CLIENT-JWT-BEARER", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "the client presents the ID-JAG the IdP issued to the authorization server by the jwt-bearer grant, authenticated as the client it registered, " +
				"with no authorization request before its exchange",
			LevelReason: "The extension's § 5: grant_type MUST be jwt-bearer and the assertion is the ID-JAG of the token exchange; the client authenticates as registered, " +
				"and the grant's client_id MUST be that client (§ 5.1). Its flow needs no user at the authorization server. The extension is optional: a client " +
				"that neither exchanges nor presents an assertion does not use it, and gets na from the three checks.",
			Side: Client{Scenario: probe.AuthEnterpriseManaged, Also: []string{probe.AuthCrossAppAccess}, Judge: judgeEMAJWTBearer}},
	)
}

// exchangeReqs are the client's requests to the IdP's token endpoint.
func (v *View) exchangeReqs() []oauthReq {
	var out []oauthReq
	for _, o := range v.oauthReqs() {
		if o.method == "POST" && o.path == probe.IdPPath+"/token" {
			out = append(out, o)
		}
	}
	return out
}

// asTokenReqs are the client's requests to the authorization server's token endpoint.
func (v *View) asTokenReqs() []oauthReq {
	var out []oauthReq
	for _, t := range v.tokenReqs() {
		if !strings.HasPrefix(t.path, probe.IdPPath+"/") {
			out = append(out, t)
		}
	}
	return out
}

// emaUnused is the finding of a run in which the client did not use the extension: neither a
// token exchange at the IdP nor a jwt-bearer request at the authorization server. The extension
// is optional: a client that authorizes otherwise is not judged by it.
func (v *View) emaUnused() (Finding, bool) {
	if len(v.exchangeReqs()) > 0 || len(v.jwtBearerReqs()) > 0 {
		return Finding{}, false
	}
	if v.challenged() < 0 && !v.discovered() {
		return v.notChallenged(), true
	}
	return na("%s: the client does not use the extension: it sent neither a token exchange to the IdP nor a jwt-bearer token request%s", v.Scenario, v.otherFlow()), true
}

// eventAfter is the first probe event of kind k after index at, nil if none.
func (v *View) eventAfter(at int, k record.EventKind) *record.Record {
	for i := at + 1; i < len(v.Records); i++ {
		if v.Records[i].Is(k) {
			return &v.Records[i]
		}
	}
	return nil
}

func judgeEMATokenExchange(v *View) Finding {
	if f, unused := v.emaUnused(); unused {
		return f
	}
	ex := v.exchangeReqs()
	if len(ex) == 0 {
		return violated("%s: the client presented an assertion (record %d) without a token exchange at the IdP's token endpoint (%s/token)", v.Scenario, v.seq(v.jwtBearerReqs()[0].at), probe.IdPPath)
	}
	for _, e := range ex {
		f := e.form
		for _, p := range [][2]string{{"grant_type", probe.TokenExchangeGrant}, {"requested_token_type", probe.TokenTypeIDJAG}, {"subject_token_type", probe.TokenTypeIDToken}} {
			if got := f.Get(p[0]); got != p[1] {
				return violated("%s: the token exchange request (record %d) has %s %q, want %s", v.Scenario, v.seq(e.at), p[0], got, p[1])
			}
		}
		if r := v.eventAfter(e.at, record.EvExchangeSubject); r == nil || r.Event.JWT != probe.CtxIDToken {
			what := "unseen"
			if r != nil {
				what = r.Body
			}
			return violated("%s: the subject_token of the token exchange request (record %d) is not the context's %s (%s)", v.Scenario, v.seq(e.at), probe.CtxIDToken, what)
		}
	}
	return passed("%s: %d token exchange requests for an ID-JAG, the context's ID token as subject_token", v.Scenario, len(ex))
}

func judgeEMAExchangeTarget(v *View) Finding {
	if f, unused := v.emaUnused(); unused {
		return f
	}
	ex := v.exchangeReqs()
	if len(ex) == 0 {
		return untestable("%s: the client made no token exchange (EMA-CLIENT-TOKEN-EXCHANGE's finding)", v.Scenario)
	}
	resource := v.canonical()
	issuer := strings.TrimSuffix(resource, probe.Path) + v.plan().IssuerPath
	for _, e := range ex {
		if aud := e.form.Get("audience"); aud != issuer && aud != issuer+"/" {
			return violated("%s: the token exchange request (record %d) has audience %q, want the authorization server's issuer %q", v.Scenario, v.seq(e.at), aud, issuer)
		}
		if got := e.form.Get("resource"); got != resource {
			return violated("%s: the token exchange request (record %d) has resource %q, want the MCP server's resource identifier %q", v.Scenario, v.seq(e.at), got, resource)
		}
	}
	return passed("%s: %d token exchange requests name audience %s and resource %s", v.Scenario, len(ex), issuer, resource)
}

func judgeEMAJWTBearer(v *View) Finding {
	if f, unused := v.emaUnused(); unused {
		return f
	}
	// Where the client's flow began: its token exchange, else its first jwt-bearer request.
	begun := v.jwtBearerReqs()
	if ex := v.exchangeReqs(); len(ex) > 0 {
		begun = ex
	}
	for _, a := range v.authorizeReqs() {
		if a.at < begun[0].at {
			return violated("%s: the client sent an authorization request (record %d) before its token exchange: the authorization code flow, where the ID-JAG is the way to a token", v.Scenario, v.seq(a.at))
		}
	}
	toks := v.asTokenReqs()
	if len(toks) == 0 {
		if r := v.eventAfter(begun[0].at, record.EvTokenExchange); r != nil && !r.Event.Verified {
			return untestable("%s: the IdP refused the client's token exchange, so it had no ID-JAG to present", v.Scenario)
		}
		return violated("%s: the client obtained an ID-JAG and never presented it to the authorization server's token endpoint", v.Scenario)
	}
	if g := toks[0].form.Get("grant_type"); g != probe.JWTBearerGrant {
		return violated("%s: the client's first token request to the authorization server (record %d) has grant_type %q, not %s", v.Scenario, v.seq(toks[0].at), g, probe.JWTBearerGrant)
	}
	n := 0
	for _, t := range v.jwtBearerReqs() {
		n++
		ev, verdict := v.jwtBearerVerdict(t.at)
		switch {
		case ev != nil && ev.Refusal == probe.JWTBearerUnauthenticated:
			return violated("%s: the token request (record %d) does not authenticate the client as registered: %s", v.Scenario, v.seq(t.at), verdict)
		case t.form.Get("assertion") == "":
			return violated("%s: the jwt-bearer token request (record %d) carries no assertion", v.Scenario, v.seq(t.at))
		case ev == nil || ev.JWT != probe.JWTIssuedIDJAG:
			return violated("%s: the assertion of the token request (record %d) is not the ID-JAG the IdP issued: %s", v.Scenario, v.seq(t.at), verdict)
		}
	}
	return passed("%s: %d jwt-bearer token requests present the ID-JAG, authenticated as the registered client, and no authorization request before the exchange", v.Scenario, n)
}
