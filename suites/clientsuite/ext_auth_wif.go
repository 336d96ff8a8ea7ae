package clientsuite

import (
	"fmt"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// Workload Identity Federation (io.modelcontextprotocol/auth/wif, SEP-1933), judged on the
// official suite's auth/wif-jwt-bearer: the context hands the client a workload JWT
// (valid_jwt, beside a wrong_audience_jwt and an expired_jwt as the suite does), and the
// authorization server offers the jwt-bearer grant alone, no registration. The extension is
// optional: a client that never sends the grant is na here. The official suite's
// wif-no-retry and wif-grant-fallback warnings judge what a client does once refused; the
// extension's text says nothing of that, and the probe refuses no good request, so no check
// judges it (docs/official-parity.md).

func init() {
	Register(
		Check{ID: "WIF-CLIENT-GRANT", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "a workload using the extension obtains its token by the jwt-bearer grant (RFC 7523 § 2.1) with its JWT as the assertion: its first token request, with no authorization request before",
			LevelReason: "RFC 7523 § 2.1: grant_type MUST be urn:ietf:params:oauth:grant-type:jwt-bearer and assertion MUST hold the JWT; the extension's flow has no other step to " +
				"a token, and the authorization server lists that grant alone (the official suite fails a first token request of another grant, or without the assertion). " +
				"The extension is optional: a client that never sends the grant does not use it, and gets na.",
			Side: Client{Scenario: probe.AuthWIFJWTBearer, Judge: judgeWIFGrant}},
		Check{ID: "WIF-CLIENT-ASSERTION", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "the assertion is a workload JWT the authorization server can take: its aud names the server (issuer or token endpoint) and it has not expired",
			LevelReason: "The extension's JWT Format: the JWT the client presents MUST name the authorization server in aud and carry an exp after which it MUST NOT be accepted " +
				"(RFC 7523 § 3); the context's wrong_audience_jwt and expired_jwt are such JWTs, which the official suite fails.",
			Side: Client{Scenario: probe.AuthWIFJWTBearer, Judge: judgeWIFAssertion}},
		Check{ID: "WIF-CLIENT-RESOURCE", Level: "MUST", Transports: httpOnly, Revisions: catalog.AllCatalogued,
			Summary: "the jwt-bearer token request carries resource, the MCP server's canonical URI",
			LevelReason: "The extension's token request includes resource, the canonical URI of the MCP server, as the baseline authorization (RFC 8707) requires of every " +
				"token request from 2025-06-18 on.",
			Side: Client{Scenario: probe.AuthWIFJWTBearer, Judge: judgeWIFResource}},
	)
}

// jwtBearerReqs are the client's token requests of the jwt-bearer grant.
func (v *View) jwtBearerReqs() []oauthReq {
	var out []oauthReq
	for _, t := range v.asTokenReqs() {
		if t.form.Get("grant_type") == probe.JWTBearerGrant {
			out = append(out, t)
		}
	}
	return out
}

// jwtBearerVerdict is what the authorization server made of the jwt-bearer token request at
// index at (its record.EvJWTBearer, nil if none), and the probe's words on it.
func (v *View) jwtBearerVerdict(at int) (*record.Event, string) {
	for _, r := range v.Records[at+1:] {
		if r.Is(record.EvJWTBearer) {
			return r.Event, r.Body
		}
	}
	return nil, "the probe recorded no verdict on it"
}

// wifUnused is the finding of a run in which the client did not use the extension: it made no
// jwt-bearer token request. The extension is optional: a client that authorizes otherwise (or
// not at all) is not judged by it, as a server that does not declare an extension is not.
func (v *View) wifUnused() (Finding, bool) {
	if len(v.jwtBearerReqs()) > 0 {
		return Finding{}, false
	}
	if v.challenged() < 0 && !v.discovered() {
		return v.notChallenged(), true
	}
	return na("%s: the client does not use the extension: it made no jwt-bearer token request%s", v.Scenario, v.otherFlow()), true
}

// otherFlow says what a client that made no jwt-bearer request did instead, for the messages.
func (v *View) otherFlow() string {
	if a := v.authorizeReqs(); len(a) > 0 {
		return fmt.Sprintf(" (it sent an authorization request, record %d)", v.seq(a[0].at))
	}
	if t := v.asTokenReqs(); len(t) > 0 {
		return fmt.Sprintf(" (its token request, record %d, has grant_type %q)", v.seq(t[0].at), t[0].form.Get("grant_type"))
	}
	return ""
}

// judgeGrantFirst judges a client that used the jwt-bearer grant: its first token request is
// that grant, no authorization request came before it, and each carries an assertion. What it
// does once refused is not judged (no text speaks of it).
func judgeGrantFirst(v *View, before int) Finding {
	toks := v.asTokenReqs()
	if g := toks[0].form.Get("grant_type"); g != probe.JWTBearerGrant {
		return violated("%s: the client's first token request (record %d) has grant_type %q, not %s", v.Scenario, v.seq(toks[0].at), g, probe.JWTBearerGrant)
	}
	for _, a := range v.authorizeReqs() {
		if a.at < before {
			return violated("%s: the client sent an authorization request (record %d) before its jwt-bearer grant: the authorization code flow, which the extension's flow has no place for", v.Scenario, v.seq(a.at))
		}
	}
	n := 0
	for _, t := range toks {
		if t.form.Get("grant_type") != probe.JWTBearerGrant {
			continue
		}
		n++
		if t.form.Get("assertion") == "" {
			return violated("%s: the client's jwt-bearer token request (record %d) carries no assertion", v.Scenario, v.seq(t.at))
		}
	}
	return passed("%s: the client's %d jwt-bearer token requests carry an assertion, the first of its token requests, with no authorization request before", v.Scenario, n)
}

func judgeWIFGrant(v *View) Finding {
	if f, unused := v.wifUnused(); unused {
		return f
	}
	return judgeGrantFirst(v, v.jwtBearerReqs()[0].at)
}

func judgeWIFAssertion(v *View) Finding {
	if f, unused := v.wifUnused(); unused {
		return f
	}
	n := 0
	for _, t := range v.jwtBearerReqs() {
		if t.form.Get("assertion") == "" {
			continue // WIF-CLIENT-GRANT's finding
		}
		n++
		if ev, verdict := v.jwtBearerVerdict(t.at); ev == nil || !ev.Verified {
			return violated("%s: the assertion of the token request (record %d) was refused: %s", v.Scenario, v.seq(t.at), verdict)
		}
	}
	if n == 0 {
		return untestable("%s: the client presented no assertion", v.Scenario)
	}
	return passed("%s: the %d assertions presented name the authorization server and have not expired", v.Scenario, n)
}

func judgeWIFResource(v *View) Finding {
	if f, unused := v.wifUnused(); unused {
		return f
	}
	toks := v.jwtBearerReqs()
	want := v.canonical()
	for _, t := range toks {
		if got := t.form.Get("resource"); got != want {
			return violated("%s: the jwt-bearer token request (record %d) has resource %q, want the MCP server's canonical URI %q", v.Scenario, v.seq(t.at), got, want)
		}
	}
	return passed("%s: %d jwt-bearer token requests name resource %s", v.Scenario, len(toks), want)
}
