package probe

import (
	"strings"
	"testing"
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
