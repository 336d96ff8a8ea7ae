package probe

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/record"
)

// A PKCE verifier may hold "~", which JavaScript's URLSearchParams (the TypeScript SDK's token
// request) sends as %7E: the recording must not keep it in that form either.
func TestRedactFormEncodedVerifier(t *testing.T) {
	a := newAuthServer(AuthPlan{}, NewRecorder(nil))
	verifier := "2TbIRUoW2Aqj1z~GzWUDiXZ5oI4TN65FpJC55NZDkv2"
	label := a.secret(verifier, "code_verifier")
	for _, body := range []string{
		"code_verifier=2TbIRUoW2Aqj1z~GzWUDiXZ5oI4TN65FpJC55NZDkv2",
		"code_verifier=2TbIRUoW2Aqj1z%7EGzWUDiXZ5oI4TN65FpJC55NZDkv2",
		"code_verifier=2TbIRUoW2Aqj1z%7eGzWUDiXZ5oI4TN65FpJC55NZDkv2",
	} {
		got := a.redact(body)
		if got != "code_verifier="+label {
			t.Errorf("redact(%q) = %q, want the label %q", body, got, label)
		}
	}
	for _, s := range a.Secrets() {
		if strings.Contains(s, "%7E") {
			return
		}
	}
	t.Errorf("Secrets() lacks the %%7E form of the verifier: %q", a.Secrets())
}

// A secret too short to be told from text is labelled where it is a whole value, and nowhere
// else: the recording the checks judge keeps its other text as sent.
func TestRedactShortSecretOnlyAsAWholeValue(t *testing.T) {
	a := newAuthServer(AuthPlan{}, NewRecorder(nil))
	label := a.secret("x", "client_secret")
	body := `grant_type=authorization_code&client_secret=x&redirect_uri=http%3A%2F%2Flocalhost%2Fcallback&extra=xx`
	want := `grant_type=authorization_code&client_secret=` + label + `&redirect_uri=http%3A%2F%2Flocalhost%2Fcallback&extra=xx`
	if got := a.redact(body); got != want {
		t.Errorf("redact(%q)\n = %q\nwant %q", body, got, want)
	}
	if got := a.redact("Basic x"); got != "Basic "+label {
		t.Errorf("redact(Basic x) = %q", got)
	}
}

// A request's credentials are on its record as data: the kind and label of the bearer token,
// and a verifier's syntax and S256 challenge, so that no check parses a label.
func TestRecordedCredentials(t *testing.T) {
	rec := NewRecorder(nil)
	a := newAuthServer(AuthPlan{}, rec)
	token := a.secret("mcpspec-at-0123456789abcdef0123", record.SecretAccessToken)
	verifier := "2TbIRUoW2Aqj1z~GzWUDiXZ5oI4TN65FpJC55NZDkv2"
	body := "grant_type=authorization_code&code_verifier=" + url.QueryEscape(verifier) + "&refresh_token=short"
	r := httptest.NewRequest(http.MethodPost, "/token?access_token=mcpspec-at-0123456789abcdef0123", strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer mcpspec-at-0123456789abcdef0123")
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	form, _ := url.ParseQuery(body)
	a.learnSecrets(r, form)
	a.recordRequest(r, ChanOAuth, []byte(body), form)
	got := rec.Records()[0]
	if c, ok := got.Cred(record.InHeader, "Authorization"); !ok || c.Kind != record.SecretAccessToken || c.Label != token {
		t.Errorf("Authorization credential = %+v, %v; want the access token %s", c, ok, token)
	}
	if c, ok := got.Cred(record.InQuery, "access_token"); !ok || c.Kind != record.SecretAccessToken {
		t.Errorf("query credential = %+v, %v; want the access token", c, ok)
	}
	if c, ok := got.Cred(record.InForm, "code_verifier"); !ok || !c.VerifierOK || c.S256 != s256(verifier) {
		t.Errorf("verifier credential = %+v, %v; want a valid verifier with S256 %s", c, ok, s256(verifier))
	}
	if c, ok := got.Cred(record.InForm, "refresh_token"); !ok || c.Kind != record.SecretRefreshToken {
		t.Errorf("refresh_token credential = %+v, %v", c, ok)
	}
	if _, ok := got.Cred(record.InForm, "grant_type"); ok {
		t.Error("grant_type is no credential")
	}
	if strings.Contains(got.Body, verifier) || strings.Contains(got.Header["Authorization"], "mcpspec-at-") {
		t.Errorf("a secret reached the record: %+v", got)
	}
}
