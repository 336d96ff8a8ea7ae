package probe

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/record"
)

// The JWT bearer scenarios' authorization server and IdP, request by request: what each
// answers, and that it notes what it found without a secret in any record.

func startJWTBearer(t *testing.T, scenario string) (*HTTPServer, *Recorder, map[string]any) {
	t.Helper()
	rec := NewRecorder(nil)
	h, err := StartHTTP(Script{Scenario: scenario, Revision: "2025-11-25", AnswerWait: waitBound}, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, rec, h.AuthContext()
}

// postForm posts form to u, with Basic credentials when user is not empty.
func postForm(t *testing.T, u string, form url.Values, user, pass string) (int, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	return resp.StatusCode, body
}

// lastNote is the words of the last event of kind k, "" if none.
func lastNote(rec *Recorder, k record.EventKind) string {
	out := ""
	for _, r := range rec.Records() {
		if r.Is(k) {
			out = r.Body
		}
	}
	return out
}

func assertNoSecret(t *testing.T, rec *Recorder, secrets ...string) {
	t.Helper()
	for _, r := range rec.Records() {
		for _, s := range secrets {
			if s != "" && (strings.Contains(r.Body, s) || strings.Contains(r.Query, s) || strings.Contains(r.Body, url.QueryEscape(s))) {
				t.Errorf("record %d holds a secret: %.80s", r.Seq, r.Body)
			}
		}
	}
}

func TestWIFTokenEndpoint(t *testing.T) {
	h, rec, c := startJWTBearer(t, AuthWIFJWTBearer)
	origin := strings.TrimSuffix(h.URL(), Path)
	tokenURL := origin + "/token"
	meta := send(t, http.MethodGet, origin+asOAuth, "", nil)
	if !strings.Contains(meta.body, `"grant_types_supported":["`+JWTBearerGrant+`"]`) || strings.Contains(meta.body, "registration_endpoint") {
		t.Errorf("metadata %s: want the jwt-bearer grant alone and no registration", meta.body)
	}
	grant := func(assertion string) url.Values {
		return url.Values{"grant_type": {JWTBearerGrant}, "assertion": {assertion}, "resource": {h.URL()}}
	}
	cases := []struct {
		name   string
		form   url.Values
		status int
		code   string
		note   string
	}{
		{"no assertion", url.Values{"grant_type": {JWTBearerGrant}}, 400, "invalid_request", "rejected: no assertion"},
		{"another grant", url.Values{"grant_type": {"authorization_code"}, "code": {"x"}}, 400, "unsupported_grant_type", "not served: grant_type"},
		{"not a JWT", grant("garbage"), 400, "invalid_grant", "not a JWT"},
		{"wrong audience", grant(c[CtxWrongAudienceJWT].(string)), 400, "invalid_grant", "the context's wrong_audience_jwt: aud"},
		{"expired", grant(c[CtxExpiredJWT].(string)), 400, "invalid_grant", "the context's expired_jwt: expired"},
		{"valid", grant(c[CtxValidJWT].(string)), 200, "", "verified: the context's valid_jwt"},
	}
	for _, tc := range cases {
		status, body := postForm(t, tokenURL, tc.form, "", "")
		if status != tc.status || (tc.code != "" && body["error"] != tc.code) || (tc.code == "" && body["access_token"] == nil) {
			t.Errorf("%s: HTTP %d %v, want %d %q", tc.name, status, body, tc.status, tc.code)
		}
		if n := lastNote(rec, record.EvJWTBearer); !strings.Contains(n, tc.note) {
			t.Errorf("%s: note %q, want it to say %q", tc.name, n, tc.note)
		}
	}
	assertNoSecret(t, rec, c[CtxValidJWT].(string), c[CtxWrongAudienceJWT].(string), c[CtxExpiredJWT].(string))
}

func TestEnterpriseExchangeAndGrant(t *testing.T) {
	h, rec, c := startJWTBearer(t, AuthEnterpriseManaged)
	origin := strings.TrimSuffix(h.URL(), Path)
	idToken, user, pass := c[CtxIDToken].(string), c["client_id"].(string), c["client_secret"].(string)
	if c["idp_token_endpoint"] != origin+IdPPath+"/token" || c["idp_client_id"] != IdPClientID {
		t.Fatalf("context %v", c)
	}
	exchange := func(audience string) url.Values {
		return url.Values{"grant_type": {TokenExchangeGrant}, "requested_token_type": {TokenTypeIDJAG}, "audience": {audience},
			"resource": {h.URL()}, "subject_token": {idToken}, "subject_token_type": {TokenTypeIDToken}}
	}
	missing := exchange(origin)
	missing.Del("resource")
	if status, body := postForm(t, origin+IdPPath+"/token", missing, "", ""); status != 400 || !strings.Contains(lastNote(rec, record.EvTokenExchange), "refused: missing resource") {
		t.Errorf("an exchange without resource: HTTP %d %v, note %q", status, body, lastNote(rec, record.EvTokenExchange))
	}
	jagFor := func(audience string) string {
		status, body := postForm(t, origin+IdPPath+"/token", exchange(audience), "", "")
		jag, _ := body["access_token"].(string)
		if status != 200 || body["issued_token_type"] != TokenTypeIDJAG || jag == "" {
			t.Fatalf("exchange: HTTP %d %v", status, body)
		}
		return jag
	}
	jag := jagFor(origin)
	var header map[string]string
	raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(jag, ".")[0])
	if json.Unmarshal(raw, &header) != nil || header["typ"] != IDJAGTyp {
		t.Errorf("ID-JAG header %s, want typ %s", raw, IDJAGTyp)
	}
	grant := func(assertion string) url.Values {
		return url.Values{"grant_type": {JWTBearerGrant}, "assertion": {assertion}}
	}
	cases := []struct {
		name             string
		form             url.Values
		user, pass, code string
		note             string
	}{
		{"no client authentication", grant(jag), "", "", "invalid_client", "client authentication failed"},
		{"the ID token itself", grant(idToken), user, pass, "invalid_grant", "the context's idp_id_token: typ"},
		{"aud the token endpoint", grant(jagFor(origin + "/token")), user, pass, "invalid_grant", "is not the issuer"},
		{"the ID-JAG", grant(jag), user, pass, "", "verified: the ID-JAG the IdP issued"},
	}
	for _, tc := range cases {
		status, body := postForm(t, origin+"/token", tc.form, tc.user, tc.pass)
		if (tc.code != "" && body["error"] != tc.code) || (tc.code == "" && (status != 200 || body["access_token"] == nil)) {
			t.Errorf("%s: HTTP %d %v, want %q", tc.name, status, body, tc.code)
		}
		if n := lastNote(rec, record.EvJWTBearer); !strings.Contains(n, tc.note) {
			t.Errorf("%s: note %q, want it to say %q", tc.name, n, tc.note)
		}
	}
	assertNoSecret(t, rec, idToken, jag, pass)
}
