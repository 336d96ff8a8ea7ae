//go:build unix

package reports

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	// chromiumPath is where Debian's chromium package puts its launcher.
	chromiumPath = "/usr/bin/chromium"
	// chromiumTimeout bounds one headless Chromium run, start to exit. A cold start in a small
	// container takes a few seconds; a render that needs more is stuck.
	chromiumTimeout = 60 * time.Second
	// chromiumPipeGrace bounds how long Chromium's helper processes may keep its output pipes open
	// once the browser process has exited or been killed.
	chromiumPipeGrace = 5 * time.Second
	// chromiumMissing tells how to get the browser this test needs.
	chromiumMissing = chromiumPath + " is absent: install Debian's Chromium with " +
		"`apt-get update && apt-get install -y chromium` (the Makefile does this in CI) " +
		"to run the headless-browser test of report.html"
)

// pageElements is every element report.html is made of. Anything else in the rendered DOM was
// injected by server text that escaped escaping.
var pageElements = []string{
	"html", "head", "meta", "title", "style", "body", "header", "footer", "h1", "h2", "p", "dl", "dt",
	"dd", "ul", "li", "span", "strong", "details", "summary", "pre", "div", "a", "form", "fieldset", "label",
	"input", "select", "option", "button", "output", "table", "thead", "tbody", "tr", "th", "td", "script",
}

// TestHTMLInChromium renders a run with every status and hostile server text, loads report.html
// in headless Chromium, and checks the DOM after the page's script ran.
func TestHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(chromiumMissing)
		}
		t.Skip(chromiumMissing)
	}

	run := sampleRun()
	// More of some statuses, so that each count differs from its neighbours.
	run.Results = append(run.Results,
		sampleResult("PASS-TWO", Pass, "2025-06-18", "http"),
		sampleResult("PASS-THREE", Pass, "2025-11-25", "stdio"),
		sampleResult("FAIL-TWO", Fail, "2025-06-18", "http"),
		sampleResult("FAIL-THREE", Fail, "2025-11-25", "http"),
		sampleResult("NA-TWO", NA, "2025-11-25", "sse"))
	const marker = `<i id="injected">x</i>`
	run.Target.ServerInfo["name"] = run.Target.ServerInfo["name"].(string) + marker
	run.Results[1].Message += "</dd></dl>" + marker + `<svg onload="document.title='pwned'">`
	run.Results[1].Evidence[1].Body += "</pre>" + marker + "<script>document.title='pwned'</script>"
	run.Errors = []string{"harness: " + marker}

	dir := t.TempDir()
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	dom := chromiumDOM(t, filepath.Join(dir, HTMLFile))

	t.Run("counts", func(t *testing.T) {
		for _, s := range AllStatuses() {
			if got, want := renderedCount(t, dom, "count-"+string(s)), run.Summary[s]; got != want {
				t.Errorf("the %s count shows %d, want %d", s, got, want)
			}
		}
		if got := renderedCount(t, dom, "count-total"); got != len(run.Results) {
			t.Errorf("the total shows %d, want %d", got, len(run.Results))
		}
		if got := strings.Count(dom, `<div class="result" id=`); got != len(run.Results) {
			t.Errorf("%d results, want %d", got, len(run.Results))
		}
	})

	t.Run("script ran", func(t *testing.T) {
		// The form is hidden in the markup and shown by the script, which only runs if the page's
		// Content-Security-Policy admits it: both together prove the filters work.
		if !strings.Contains(dom, `<form id="filters">`) {
			t.Errorf("the filter form is still hidden: the script did not run\n%s", excerpt(dom, `<form id="filters"`))
		}
		// The page opens on the problems: 6 requirements with a fail, error, stale entry or
		// warning, of the 13.
		want := `<output id="shown">6 of 13 requirements shown</output>`
		if !strings.Contains(dom, want) {
			t.Errorf("the filters did not count the rows: want %s\n%s", want, excerpt(dom, `<output id="shown"`))
		}
		for _, id := range []string{"PASS-ONE", "NA-ONE", "EXPECTED-ONE", "UNTESTABLE-ONE"} {
			if !regexp.MustCompile(`<tr id="req-` + id + `" [^>]*hidden=""`).MatchString(dom) {
				t.Errorf("%s is shown, though the page opens on the problems", id)
			}
		}
		if regexp.MustCompile(`<tr id="req-FAIL-ONE" [^>]*hidden=""`).MatchString(dom) {
			t.Error("a failure is hidden")
		}
	})

	t.Run("nothing injected", func(t *testing.T) {
		for _, tag := range regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)`).FindAllStringSubmatch(dom, -1) {
			if name := strings.ToLower(tag[1]); !slices.Contains(pageElements, name) {
				t.Errorf("an element the page does not have was created: <%s>", name)
			}
		}
		if n := strings.Count(dom, "<script"); n != 1 {
			t.Errorf("%d script elements, want only the filter script", n)
		}
		if title := regexp.MustCompile(`<title>(.*?)</title>`).FindStringSubmatch(dom); title == nil ||
			!strings.HasPrefix(title[1], "mcpspec: ERROR — evil ") {
			t.Errorf("the title is not the page's own (did injected script change it?): %q", title)
		}
		// The hostile text is there, shown as text.
		for _, text := range []string{
			`evil &lt;script&gt;alert(1)&lt;/script&gt;"&gt;&lt;img src=x onerror=alert(1)&gt;&lt;i id="injected"&gt;x&lt;/i&gt;`,
			`&lt;/pre&gt;&lt;i id="injected"&gt;x&lt;/i&gt;&lt;script&gt;`,
			`harness: &lt;i id="injected"&gt;x&lt;/i&gt;`,
		} {
			if !strings.Contains(dom, text) {
				t.Errorf("the DOM lacks the server's text %q shown as text", text)
			}
		}
	})
}

// TestHTMLOrderAndGridInChromium renders the report of a server that serves one revision of three
// and fails a few checks, and checks in Chromium's DOM that the page leads with one line per
// revision not served and the findings in order, and that the grid has a cell per verdict, each
// opening the evidence of its check.
func TestHTMLOrderAndGridInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(chromiumMissing)
		}
		t.Skip(chromiumMissing)
	}
	run := unservedRun()
	for i := range run.Results {
		if run.Results[i].Status == Pass {
			run.Results[i].Evidence = []Exchange{{Seq: 1, Direction: "recv", Channel: "stdout", Body: "packed-exchange-of-a-pass <b>" + run.Results[i].ID}}
		}
	}
	dir := t.TempDir()
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	file := filepath.Join(dir, HTMLFile)
	dom := chromiumDOM(t, file)

	t.Run("not served, one line each", func(t *testing.T) {
		lines := regexp.MustCompile(`<li id="ns\d+"><details>\s*<summary>(.*?)</summary>`).FindAllStringSubmatch(dom, -1)
		if len(lines) != 2 {
			t.Fatalf("%d not-served lines, want 2\n%s", len(lines), excerpt(dom, `<ul class="not-served">`))
		}
		for i, v := range []string{"2025-06-18", "2025-11-25"} {
			if want := "<strong>" + v + "</strong> over <strong>stdio</strong>: 40 checks na; it answered initialize without a result"; !strings.HasPrefix(lines[i][1], want) {
				t.Errorf("not-served line %d = %q, want it to begin %q", i, lines[i][1], want)
			}
		}
		if n := strings.Count(dom, "does not serve revision"); n != 2 {
			t.Errorf("the not-served sentence appears %d times, want once per line (in its details)", n)
		}
	})

	t.Run("findings first, in order", func(t *testing.T) {
		rows := regexp.MustCompile(`<tr id="req-([^"]+)" class="req" data-status="(\w+)"`).FindAllStringSubmatch(dom, -1)
		var order []string
		for _, r := range rows {
			order = append(order, r[2]+" "+r[1])
		}
		want := []string{"fail ZZ-FAIL", "fail ZZ-OWN-CONN", "error YY-ERROR", "stale YY-STALE", "warn ZZ-WARN", "untestable ZZ-SLOW", "na CAP-NONE", "pass AAA-00"}
		if len(order) != len(want)+39 || !slices.Equal(order[:len(want)], want) {
			t.Errorf("rows in the DOM: %q…, want %q… then 39 more passes", order[:min(len(order), len(want))], want)
		}
		if n, f := strings.Index(dom, `<ul class="not-served">`), strings.Index(dom, `<table id="req-table">`); n < 0 || f < n {
			t.Error("the not-served lines must come before the requirements")
		}
	})

	t.Run("grid", func(t *testing.T) {
		head := regexp.MustCompile(`(?s)<table id="req-table">\s*<thead>(.*?)</thead>`).FindStringSubmatch(dom)
		if head == nil {
			t.Fatalf("no grid\n%s", excerpt(dom, `<h2 id="requirements">`))
		}
		// 2025-06-18 stdio stays (a check ran there on its own connection); 2025-11-25 has nothing else.
		for _, want := range []string{`<th colspan="1">2025-06-18</th><th colspan="1">2026-07-28</th>`, `<th>stdio</th><th>stdio</th>`} {
			if !strings.Contains(head[1], want) {
				t.Errorf("grid header lacks %s:\n%s", want, head[1])
			}
		}
		if !strings.Contains(dom, "Not served, so left out: 2025-11-25 stdio.") {
			t.Error("the grid does not say which column it left out")
		}
		cells := regexp.MustCompile(`<a class="g g-(\w+)" href="#((?:r|ns)\d+)" title="(\w+)">`).FindAllStringSubmatch(dom, -1)
		if want := 40 + 40 + 7; len(cells) != want { // 2026-07-28 of every requirement, 2025-06-18 of AAA-*, and the others
			t.Fatalf("%d grid cells, want %d", len(cells), want)
		}
		statusOf := map[string]string{}
		for _, r := range regexp.MustCompile(`<div class="result" id="(r\d+)" data-status="(\w+)"`).FindAllStringSubmatch(dom, -1) {
			statusOf[r[1]] = r[2]
		}
		counts := map[string]int{}
		for _, c := range cells {
			counts[c[1]]++
			if c[1] != c[3] {
				t.Errorf("a %s cell is titled %s", c[1], c[3])
			}
			switch {
			case strings.HasPrefix(c[2], "ns"):
				if c[1] != "na" {
					t.Errorf("a %s cell links to a not-served line", c[1])
				}
			case statusOf[c[2]] != c[1]:
				t.Errorf("a %s cell links to #%s, a %s row", c[1], c[2], statusOf[c[2]])
			}
		}
		if counts["fail"] != 2 || counts["pass"] != 40 || counts["na"] != 41 || counts["warn"] != 1 {
			t.Errorf("cells per status %v, want 2 fail, 40 pass, 41 na, 1 warn", counts)
		}
	})

	t.Run("a cell opens its evidence", func(t *testing.T) {
		cell := regexp.MustCompile(`<a class="g g-fail" href="#(r\d+)"`).FindStringSubmatch(dom)
		if cell == nil {
			t.Fatal("no fail cell")
		}
		opened := chromiumDOMAt(t, file, cell[1])
		// The row holding the result: from the last requirement row before it to the result.
		at := strings.Index(opened, `<div class="result" id="`+cell[1]+`"`)
		if at < 0 {
			t.Fatalf("no result #%s", cell[1])
		}
		row := opened[strings.LastIndex(opened[:at], `<tr id="req-`):at]
		if !strings.Contains(row, "<details open=\"\">") {
			t.Errorf("following the cell's link did not open its row's evidence:\n%s", row)
		}
		if strings.Count(opened, "<details open") != 1 {
			t.Error("following a link should open exactly its row")
		}
	})

	t.Run("a pass opens its packed evidence", func(t *testing.T) {
		// A pass is hidden at first (the page opens on the problems); its cell's link shows its
		// row and the script unpacks its evidence.
		cell := regexp.MustCompile(`<a class="g g-pass" href="#(r\d+)"`).FindStringSubmatch(dom)
		if cell == nil {
			t.Fatal("no pass cell")
		}
		opened := chromiumDOMAt(t, file, cell[1])
		result := regexp.MustCompile(`(?s)<div class="result" id="` + cell[1] + `".*?</div>\s*</div>\s*</div>`).FindString(opened)
		if !strings.Contains(result, "packed-exchange-of-a-pass") || strings.Contains(result, `class="packed"`) {
			t.Errorf("the pass's packed evidence was not unpacked:\n%s", excerpt(opened, `id="`+cell[1]+`"`))
		}
	})
}

// chromiumDOM loads the file in headless Chromium and returns the DOM as serialized once the page
// has loaded and its script has run.
func chromiumDOM(t *testing.T, file string) string {
	t.Helper()
	return chromiumDOMAt(t, file, "")
}

// chromiumDOMAt is chromiumDOM with the page opened at #fragment, as a link to it would open it.
func chromiumDOMAt(t *testing.T, file, fragment string) string {
	t.Helper()
	home := t.TempDir() // profile, caches and crash dumps stay in the test's own directory
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	page := url.URL{Scheme: "file", Path: file, Fragment: fragment}
	cmd := exec.CommandContext(ctx, chromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		// The virtual time budget lets the page's promises (unpacking evidence) settle before the dump.
		"--disable-dev-shm-usage", "--virtual-time-budget=5000", "--user-data-dir="+filepath.Join(home, "profile"),
		"--dump-dom", page.String())
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home)
	// Chromium starts helper processes; its own process group lets the test end them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = chromiumPipeGrace
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		// Helpers that outlived the browser would hold the temp dirs; ESRCH means none did.
		if kerr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
			t.Logf("kill Chromium's process group: %v", kerr)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("Chromium did not finish within %s; killed\nstderr:\n%s", chromiumTimeout, stderr.String())
	}
	if err != nil {
		t.Fatalf("Chromium: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "</html>") {
		t.Fatalf("Chromium printed no DOM\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	return stdout.String()
}

// renderedCount reads the number in the count element with the given id.
func renderedCount(t *testing.T, dom, id string) int {
	t.Helper()
	re := regexp.MustCompile(`<li id="` + regexp.QuoteMeta(id) + `">.*?<span class="count">(\d+)</span></li>`)
	m := re.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no count element #%s in the DOM\n%s", id, excerpt(dom, `<ul class="counts">`))
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatalf("count #%s: %v", id, err)
	}
	return n
}

// excerpt returns some of the DOM from where marker occurs, for failure messages.
func excerpt(dom, marker string) string {
	i := strings.Index(dom, marker)
	if i < 0 {
		return "(" + marker + " not found)"
	}
	return dom[i:min(len(dom), i+600)]
}
