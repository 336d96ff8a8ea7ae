package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func statelessRequest(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	b, _ := json.Marshal(id)
	return `{"jsonrpc":"2.0","id":` + string(b) + `,"method":"` + method + `","params":{` + params + statelessMeta + `}}`
}

// The canary of json-schema-ref-no-deref is the $ref of lookup_user's schema, on a loopback
// listener of its own: a request to it is recorded on ChanCanary, and Close stops it.
func TestRefNoDerefCanary(t *testing.T) {
	rec := NewRecorder(nil)
	h, err := StartHTTP(Script{Scenario: ScenarioRefNoDeref, Revision: "2026-07-28", AnswerWait: waitBound}, rec)
	if err != nil {
		t.Fatal(err)
	}
	a := send(t, "POST", h.URL(), statelessRequest(1, "tools/list", ""), nil)
	var res struct {
		Result struct {
			Tools []struct {
				Name        string `json:"name"`
				InputSchema struct {
					Properties map[string]struct {
						Ref string `json:"$ref"`
					} `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(a.body), &res); err != nil || len(res.Result.Tools) != 1 || res.Result.Tools[0].Name != ToolLookupUser {
		t.Fatalf("tools/list: %v %s", err, a.body)
	}
	ref := res.Result.Tools[0].InputSchema.Properties["profile"].Ref
	if !strings.HasPrefix(ref, "http://127.0.0.1:") || !strings.HasSuffix(ref, CanaryPath) {
		t.Fatalf("the profile $ref is %q, want the loopback canary", ref)
	}
	if got := send(t, "GET", ref, "", nil); got.status != 200 {
		t.Fatalf("canary: HTTP %d", got.status)
	}
	h.Close()
	seen := 0
	for _, r := range rec.Records() {
		if r.Channel == ChanCanary && r.Path == CanaryPath && r.Method == "GET" {
			seen++
		}
	}
	if seen != 1 {
		t.Errorf("%d canary records, want 1", seen)
	}
	if err := fetch(ref); err == nil {
		t.Errorf("the canary still answers after Close")
	}
}

// Over stdio the canary is served too, for as long as the probe serves.
func TestRefNoDerefCanaryStdio(t *testing.T) {
	in, out := strings.NewReader(statelessRequest(1, "tools/list", "")+"\n"), &bytes.Buffer{}
	rec := NewRecorder(nil)
	if err := ServeStdio(context.Background(), Script{Scenario: ScenarioRefNoDeref, Revision: "2026-07-28", AnswerWait: waitBound}, in, out, rec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), CanaryPath) || !strings.Contains(out.String(), "http://127.0.0.1:") {
		t.Errorf("tools/list over stdio names no loopback canary: %s", out.String())
	}
}

// Each verification scenario serves pdf-processing's SKILL.md so that exactly the comparison it
// is named for fails, and probe-guide so that every comparison holds.
func TestSkillVerifyEntries(t *testing.T) {
	for _, sc := range []string{ScenarioSkillVerifyDigest, ScenarioSkillVerifySize, ScenarioSkillVerifyFrontmatter} {
		files := skillVerifyFiles(sc)
		for _, e := range skillVerifyEntries(sc) {
			uri := e["uri"].(string)
			for _, r := range e["resources"].([]any) {
				f := r.(map[string]any)
				text := files[f["uri"].(string)]
				digestOK, sizeOK := f["digest"] == skillDigest(text), f["size"] == len(text)
				fm := e["frontmatter"].(map[string]any)
				fmOK := !strings.HasSuffix(f["uri"].(string), "SKILL.md") || strings.Contains(text, "description: "+fm["description"].(string)+"\n")
				wantBroken := map[string]string{ScenarioSkillVerifyDigest: "digest", ScenarioSkillVerifySize: "size", ScenarioSkillVerifyFrontmatter: "frontmatter"}[sc]
				broken := map[string]bool{"digest": !digestOK, "size": !sizeOK, "frontmatter": !fmOK}
				tampered := f["uri"] == SkillTamperedURI
				for k, b := range broken {
					if b != (tampered && k == wantBroken) {
						t.Errorf("%s: %s of %s (entry %s): broken %v", sc, k, f["uri"], uri, b)
					}
				}
			}
		}
	}
}

// fetch GETs a URL, bounded.
func fetch(url string) error {
	resp, err := (&http.Client{Timeout: waitBound}).Get(url)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
