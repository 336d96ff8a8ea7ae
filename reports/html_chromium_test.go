//go:build unix

package reports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"dd", "ul", "li", "span", "details", "summary", "pre", "div", "a", "form", "fieldset", "label",
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
		if got := strings.Count(dom, "<tr data-status="); got != len(run.Results) {
			t.Errorf("%d result rows, want %d", got, len(run.Results))
		}
	})

	t.Run("script ran", func(t *testing.T) {
		// The form is hidden in the markup and shown by the script, which only runs if the page's
		// Content-Security-Policy admits it: both together prove the filters work.
		if !strings.Contains(dom, `<form id="filters">`) {
			t.Errorf("the filter form is still hidden: the script did not run\n%s", excerpt(dom, `<form id="filters"`))
		}
		want := fmt.Sprintf(`<output id="shown">%d of %d shown</output>`, len(run.Results), len(run.Results))
		if !strings.Contains(dom, want) {
			t.Errorf("the filters did not count the rows: want %s\n%s", want, excerpt(dom, `<output id="shown"`))
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

// chromiumDOM loads the file in headless Chromium and returns the DOM as serialized once the page
// has loaded and its script has run.
func chromiumDOM(t *testing.T, file string) string {
	t.Helper()
	home := t.TempDir() // profile, caches and crash dumps stay in the test's own directory
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	page := url.URL{Scheme: "file", Path: file}
	cmd := exec.CommandContext(ctx, chromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir="+filepath.Join(home, "profile"),
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
