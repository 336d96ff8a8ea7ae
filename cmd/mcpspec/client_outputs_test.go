package main

// The output options of `run` work for `client` too: --github, --transcript, -v, --label-filter
// and the progress line on a terminal.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
)

func TestClientOutputs(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out, trDir := t.TempDir(), t.TempDir()
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	r := runBinaryEnv(t, clientRunTimeout, []string{"GITHUB_STEP_SUMMARY=" + summary}, d.mcpspec, "client",
		"--cmd", d.mcpspec+" reference-client --fault PING-RESPOND", "--scenario", "tools_call", "--out", out,
		"--label-filter", "PING-RESPOND && !version:2025-03-26", "--github", "--transcript", trDir, "-v",
		"--timeout-request", "500ms", "--timeout-idle", "5s")
	if r.code != reports.ExitFailures {
		t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	run := assertReports(t, out)
	var got []string
	for _, res := range run.Results {
		got = append(got, res.ID+" "+res.Version+" "+string(res.Status))
	}
	if want := "PING-RESPOND 2025-06-18 fail, PING-RESPOND 2025-11-25 fail"; strings.Join(got, ", ") != want {
		t.Errorf("--label-filter selected %q, want %s", got, want)
	}
	// -v: each verdict as it is judged; --github: an annotation each, the job summary.
	for _, want := range []string{"fail       PING-RESPOND (2025-06-18, http): ", "::error title=PING-RESPOND::PING-RESPOND [MUST] 2025-11-25 http (fail)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	job, err := os.ReadFile(summary)
	md, _ := os.ReadFile(filepath.Join(out, reports.SummaryFile))
	if err != nil || len(md) == 0 || string(job) != "\n"+string(md) {
		t.Errorf("the job summary is not summary.md (%v):\n%s", err, job)
	}
	// --transcript: every launch's recording, one JSON object a line.
	f, err := os.Open(filepath.Join(trDir, transcript.ArchiveFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sessions := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct{ Transport, Session, Dir, Body string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		if line.Transport != "http" || line.Dir == "" {
			t.Errorf("transcript line %q", sc.Text())
		}
		sessions[line.Session] = true
	}
	if !sessions["tools_call@2025-06-18"] || !sessions["tools_call@2025-11-25"] || len(sessions) != 2 {
		t.Errorf("transcript sessions %v, want the two launches", sessions)
	}
	assertNoLeftovers(t, d)
}

func TestClientProgressLineOnATerminal(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	master, slave := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), clientRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.mcpspec, "client", "--cmd", d.mcpspec+" reference-client", "--scenario", "initialize",
		"--out", t.TempDir(), "--no-color")
	cmd.Stdout = slave
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "TERM=xterm")
	read := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(master)
		read <- b
	}()
	err := cmd.Run()
	slave.Close()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("client: %v\nstderr:\n%s", err, stderr.String())
	}
	screen := strings.ReplaceAll(string(<-read), "\r\n", "\n")
	last := regexp.MustCompile("\r\x1b\\[Kmcpspec: (\\d+)/(\\d+) checks, ([^\r\n]*?) so far").FindAllStringSubmatch(screen, -1)
	if len(last) == 0 {
		t.Fatalf("no progress line on the terminal:\n%q", screen)
	}
	final := last[len(last)-1]
	if final[1] != final[2] || final[1] == "0" || final[3] != "no failure" {
		t.Errorf("the last progress line says %q, want every check done, no failure", final[0])
	}
	if i, j := strings.LastIndex(screen, final[0]), strings.Index(screen, "\r\x1b[Kmcpspec: PASS"); j < i {
		t.Errorf("the progress line is not erased before the summary:\n%q", screen)
	}
	assertNoLeftovers(t, d)
}
