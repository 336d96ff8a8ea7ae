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
