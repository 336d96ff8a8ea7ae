package reports

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func renderHTML(t *testing.T, run *Run) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestHTMLEscapesServerText(t *testing.T) {
	run := sampleRun()
	run.Errors = []string{"harness: " + xssScript}
	page := renderHTML(t, run)

	for _, raw := range []string{xssScript, "<img", "onerror=alert(1)>"} {
		if strings.Contains(page, raw) {
			t.Errorf("report.html contains unescaped %q", raw)
		}
	}
	for _, escaped := range []string{
		"evil &lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(1)&gt;", // serverInfo.name
		"connection reset &#34;&gt;&lt;img src=x onerror=alert(1)&gt;",                          // error message
		"&lt;script&gt;alert(1)&lt;/script&gt;|pipe`tick`",                                      // evidence body
		"harness: &lt;script&gt;alert(1)&lt;/script&gt;",                                        // harness error
	} {
		if !strings.Contains(page, escaped) {
			t.Errorf("report.html lacks the escaped text %q", escaped)
		}
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("found %d <script elements, want only the filter script", n)
	}
	if strings.ContainsRune(page, 0x1b) || strings.ContainsRune(page, 0) {
		t.Error("raw control characters reached the page")
	}
	if !strings.Contains(page, `\x1b[31m`) {
		t.Error("a control character in evidence should show as an escape")
	}
}

func TestHTMLShowsEveryResultWithItsEvidence(t *testing.T) {
	run := sampleRun()
	page := renderHTML(t, run)
	if got := strings.Count(page, `<div class="result" id=`); got != len(run.Results) {
		t.Errorf("%d results, want %d", got, len(run.Results))
	}
	// One row per requirement (each of the sample's results is another requirement).
	if got := strings.Count(page, `class="req" data-status=`); got != len(run.Results) {
		t.Errorf("%d requirement rows, want %d", got, len(run.Results))
	}
	for _, want := range []string{
		`class="verdict v3"`, "mcpspec: ERROR", `<select name="area">`, `value="fail" checked`,
		`value="stale" checked`, `value="warn" checked`, `value="pass">`, `value="untestable">`, `<form id="filters" hidden>`,
		`href="https://modelcontextprotocol.io/specification/2025-03-26/basic"`,
		"#2 &#43;9ms recv stdout [line 1]", "known bug #12",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	page := renderHTML(t, sampleRun())
	for _, external := range []string{"<link", "<script src", "@import", "url(", "<img", "<iframe"} {
		if strings.Contains(page, external) {
			t.Errorf("report.html loads something external: %q", external)
		}
	}
	// The CSP must name the exact script the page carries, or browsers block it.
	csp := regexp.MustCompile(`script-src &#39;sha256-(.+?)&#39;`).FindStringSubmatch(page)
	script := regexp.MustCompile(`(?s)<script>(.*)</script>`).FindStringSubmatch(page)
	if csp == nil || script == nil {
		t.Fatal("no CSP script hash or no script")
	}
	sum := sha256.Sum256([]byte(script[1]))
	if want := strings.ReplaceAll(base64.StdEncoding.EncodeToString(sum[:]), "+", "&#43;"); csp[1] != want {
		t.Errorf("CSP hash %s does not match the inline script (%s)", csp[1], want)
	}
}

func TestHTMLRejectsScriptURLs(t *testing.T) {
	run := sampleRun()
	run.Results[1].SpecURL = "javascript:alert(1)"
	page := renderHTML(t, run)
	if strings.Contains(page, `href="javascript`) || !strings.Contains(page, `href="#ZgotmplZ"`) {
		t.Error("a javascript: URL reached an href")
	}
}

func TestHTMLShowsAPassShortened(t *testing.T) {
	pass := sampleResult("PASS-LONG", Pass, "2025-06-18", "http")
	for i := range passExchanges + 5 {
		pass.Evidence = append(pass.Evidence, Exchange{Seq: i + 1, Direction: "recv", Channel: "POST-JSON", Body: fmt.Sprintf("exchange-%d %s", i, strings.Repeat("x", 3*passBodyBytes))})
	}
	page := unpackedEvidence(t, renderHTML(t, &Run{Results: []Result{pass}}))
	if !strings.Contains(page, "exchange-0 ") || strings.Contains(page, fmt.Sprintf("exchange-%d ", passExchanges)) {
		t.Errorf("report.html does not show exactly the first %d exchanges of a pass", passExchanges)
	}
	if !strings.Contains(page, "5 more exchanges in results.json") {
		t.Error("report.html does not say that the rest of a pass's evidence is in results.json")
	}
	if strings.Contains(page, strings.Repeat("x", passBodyBytes+1)) {
		t.Errorf("a pass's body is shown beyond %d bytes", passBodyBytes)
	}
}

func TestHTMLGridCarriesNoEvidence(t *testing.T) {
	run := unservedRun()
	for i := range run.Results {
		run.Results[i].Evidence = []Exchange{{Seq: 1, Direction: "recv", Channel: "stdout", Body: fmt.Sprintf("evidence-of-%d", i)}}
	}
	page := renderHTML(t, run)
	notServed, rows := arrange(run.Results)
	// Each result's evidence once (in the page, or packed for a pass or na), each not-served
	// line's first check's once, and nothing more.
	if got, want := strings.Count(page, "evidence-of-")+strings.Count(unpackedEvidence(t, page), "evidence-of-"), len(rows)+len(notServed); got != want {
		t.Errorf("evidence appears %d times, want %d (once per row and not-served line)", got, want)
	}
	if !strings.Contains(page, `<table id="req-table">`) {
		t.Error("no grid")
	}
}

// Identical evidence of passes is packed once, and the pack is much smaller than the text.
func TestHTMLPacksEvidence(t *testing.T) {
	run := &Run{}
	same := []Exchange{{Seq: 1, Direction: "recv", Channel: "stdout", Body: strings.Repeat(`{"jsonrpc":"2.0","id":1,"result":{}} `, 20)}}
	for i := range 200 {
		r := sampleResult(fmt.Sprintf("P-%03d", i), Pass, "2025-06-18", "stdio")
		r.Evidence = same
		if i%2 == 0 {
			r.Evidence = []Exchange{{Seq: 1, Direction: "recv", Channel: "stdout", Body: fmt.Sprintf("own-%d %s", i, same[0].Body)}}
		}
		run.Results = append(run.Results, r)
	}
	page := renderHTML(t, run)
	if n := strings.Count(unpackedEvidence(t, page), `"result\":{}`); n != 101*20 {
		t.Errorf("the pack holds %d copies of the exchange, want %d (100 own, 1 shared)", n, 101*20)
	}
	pack := regexp.MustCompile(`<pre id="evidence-pack" hidden>([^<]*)</pre>`).FindStringSubmatch(page)
	if raw := 200 * len(same[0].Body); pack == nil || len(pack[1]) > raw/20 {
		t.Errorf("the pack of %d bytes of evidence is not a twentieth of it", raw)
	}
}

// unpackedEvidence decodes the page's packed evidence (base64 of gzip of JSON) into its JSON text.
func unpackedEvidence(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`<pre id="evidence-pack" hidden>([^<]*)</pre>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	raw, err := base64.URLEncoding.DecodeString(strings.TrimSpace(m[1]))
	if err != nil {
		t.Fatalf("evidence pack: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("evidence pack: %v", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("evidence pack: %v", err)
	}
	return string(data)
}

// A result of an extension's requirement names the extension on its row and in JUnit.
func TestReportsNameTheExtension(t *testing.T) {
	run := sampleRun()
	run.Results[0].Extension = "io.modelcontextprotocol/tasks"
	run.Results[0].Status = Fail
	if page := renderHTML(t, run); !strings.Contains(page, "Extension io.modelcontextprotocol/tasks.") {
		t.Error("report.html does not name the extension")
	}
	junit, err := encodeJUnit(run)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(junit), "Extension: io.modelcontextprotocol/tasks") {
		t.Error("junit.xml does not name the extension")
	}
}

// Evidence is packed once per distinct list: packKey tells lists apart however their texts split.
func TestPackKey(t *testing.T) {
	a := []htmlExchange{{Header: "#1", Direction: "send", Body: "ab"}}
	same := []htmlExchange{{Header: "#1", Direction: "send", Body: "ab"}}
	for _, other := range [][]htmlExchange{
		{{Header: "#1", Direction: "sen", Body: "dab"}},
		{{Header: "#1", Direction: "send", Body: "a"}, {Body: "b"}},
		{{Header: "#1", Direction: "send", Body: "ab"}, {}},
		nil,
	} {
		if packKey(a) == packKey(other) {
			t.Errorf("%q and %q share a key", a, other)
		}
	}
	if packKey(a) != packKey(same) {
		t.Error("equal evidence has two keys")
	}
}
