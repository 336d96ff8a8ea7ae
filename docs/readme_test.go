// Package docs holds mcpspec's documentation; its test runs the README's commands as a newcomer
// would paste them, so that the first screen stays true.
package docs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const (
	// commandTimeout bounds one README command: a build of mcpspec and a run of the reference
	// server take seconds; a loaded CI machine gets ample room.
	commandTimeout = 5 * time.Minute
	// everythingTimeout bounds the run against server-everything (17 s on a quiet machine).
	everythingTimeout = 10 * time.Minute
)

// block is one fenced code block of a Markdown file.
type block struct {
	lang, text string
	line       int
}

func fencedBlocks(t *testing.T, file string) []block {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &block{lang: strings.TrimPrefix(line, "```"), line: i + 1}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return out
}

// repoRoot is the repository's root, the directory above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// buildMcpspec builds mcpspec into dir/bin/mcpspec, where the README's commands look for it.
func buildMcpspec(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "bin", "mcpspec"), "./cmd/mcpspec")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

type shellRun struct {
	code           int
	stdout, stderr string
}

// sh runs a README command with bash in dir, as pasted into a terminal.
func sh(t *testing.T, limit time.Duration, dir, script string, env ...string) shellRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	// Output goes to a pipe, as in CI: no colour whatever the caller's terminal.
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%q did not finish within %s\nstderr:\n%s", script, limit, stderr.String())
	}
	r := shellRun{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%q: %v", script, err)
	}
	return r
}

// digits masks what differs between two runs of the same command: request ids and counts.
var digits = regexp.MustCompile(`[0-9]+`)

// TestREADMECommands runs every command of the README that can run here, and says for each other
// one why not. A command added to the README must be added here too, or the test fails.
func TestREADMECommands(t *testing.T) {
	root := repoRoot(t)
	blocks := fencedBlocks(t, filepath.Join(root, "README.md"))
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(goMod)
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if goVersion == nil || !strings.Contains(string(readme), "Go "+string(goVersion[1])+" or later") {
		t.Errorf("the README must name the Go version of go.mod (%s)", goVersion)
	}

	work := t.TempDir()
	built := false
	for i, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		script := strings.TrimSpace(b.text)
		t.Logf("README.md:%d: %s", b.line, strings.SplitN(script, "\n", 2)[0])
		switch {
		case strings.HasPrefix(script, "go install "):
			// The module proxy is the network; check that the path is this module's command.
			want := "go install " + string(module[1]) + "/cmd/mcpspec@latest"
			if script != want {
				t.Errorf("README.md:%d: %q, want %q (go.mod's module)", b.line, script, want)
			}
			t.Logf("  not run: it needs the network (the Go module proxy)")

		case strings.HasPrefix(script, "make run"):
			if _, err := exec.LookPath("make"); err != nil {
				t.Logf("  not run: no make here")
				continue
			}
			// make run writes only bin/ and mcpspec-report/, both ignored by git.
			r := sh(t, commandTimeout, root, "make run")
			if r.code != 0 || !strings.Contains(r.stdout, "mcpspec: PASS") || !strings.Contains(r.stdout, "reports: mcpspec-report/report.html") {
				t.Errorf("make run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(script, "make test") {
				t.Errorf("README.md:%d: make run and make test belong together", b.line)
			}
			t.Logf("  make test: not run here, this test is part of it")

		case strings.HasPrefix(script, "npm install "):
			t.Logf("  npm install: not run, it needs the network")
			cache := os.Getenv("MCPSPEC_INTEROP_CACHE")
			if cache == "" {
				home, _ := os.UserHomeDir()
				cache = filepath.Join(home, ".cache", "mcpspec-interop")
			}
			index := filepath.Join(cache, "npm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
			if _, err := os.Stat(index); err != nil {
				t.Logf("  the run against server-everything: skipped, no %s (`make interop` or fixtures/targets/install-everything.sh installs it)", index)
				continue
			}
			if _, err := exec.LookPath("node"); err != nil {
				t.Logf("  the run against server-everything: skipped, no node here")
				continue
			}
			if !built {
				buildMcpspec(t, work)
				built = true
			}
			lines := strings.Split(script, "\n")[1:]
			lines[0] = "E=" + index // the README's path, in this machine's interop cache
			r := sh(t, everythingTimeout, work, strings.Join(lines, "\n"), "PATH="+filepath.Join(work, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
			if r.code != 0 && r.code != 1 || !strings.HasPrefix(r.stdout, "mcpspec: ") {
				t.Errorf("the run against server-everything: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}

		case strings.HasPrefix(script, "bin/mcpspec run --stdio \"bin/mcpspec reference --fault"):
			// The worked example: its output must be the README's, up to ids and counts.
			if i+1 >= len(blocks) || blocks[i+1].lang != "text" {
				t.Fatalf("README.md:%d: the worked example needs its output in a text block after it", b.line)
			}
			if !built {
				buildMcpspec(t, work)
				built = true
			}
			r := sh(t, commandTimeout, work, script)
			if r.code != 1 {
				t.Errorf("the worked example exits %d, want 1 (FAIL)\nstderr:\n%s", r.code, r.stderr)
			}
			got := strings.Split(strings.TrimSpace(r.stdout), "\n")
			want := strings.Split(strings.TrimSpace(blocks[i+1].text), "\n")
			if len(got) != len(want) {
				t.Fatalf("the worked example prints %d lines, the README shows %d:\n%s", len(got), len(want), r.stdout)
			}
			for j := range want {
				if digits.ReplaceAllString(got[j], "N") != digits.ReplaceAllString(want[j], "N") {
					t.Errorf("line %d of the worked example:\n got: %s\nwant: %s", j+1, got[j], want[j])
				}
			}

		default:
			t.Errorf("README.md:%d: a command this test neither runs nor explains; add it here:\n%s", b.line, script)
		}
	}
}

// TestUsageShellArraysSplitAlike runs the slow-tool line of docs/usage.md in bash and, when
// present, zsh: a string variable would be one word in zsh, so the docs use an array.
func TestUsageShellArraysSplitAlike(t *testing.T) {
	var line string
	for _, b := range fencedBlocks(t, filepath.Join(repoRoot(t), "docs", "usage.md")) {
		for _, l := range strings.Split(b.text, "\n") {
			if strings.HasPrefix(l, "SLOW=") {
				line = l
			}
		}
	}
	if line == "" {
		t.Fatal("docs/usage.md has no SLOW= line")
	}
	for _, shell := range []string{"bash", "zsh"} {
		if _, err := exec.LookPath(shell); err != nil {
			t.Logf("%s: not here", shell)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		out, err := exec.CommandContext(ctx, shell, "-c", line+`; printf '[%s]\n' "${SLOW[@]}"`).Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", shell, err)
		}
		want := "[--slow-tool]\n[trigger-long-running-operation]\n[--slow-tool-args]\n[{\"duration\":1,\"steps\":5}]\n"
		if string(out) != want {
			t.Errorf("%s splits %q into\n%s\nwant\n%s", shell, line, out, want)
		}
	}
}

// TestDocsPinRefsThatExist: mcpspec has no release tags, so an example pinned to a version
// (mcpspec/mcpspec/cmd/action@v0.1.0) would not resolve.
func TestDocsPinRefsThatExist(t *testing.T) {
	root := repoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "cmd", "action", "action.yml"))
	ref := regexp.MustCompile(`mcpspec/mcpspec(?:/cmd/mcpspec|/cmd/action)?@([A-Za-z0-9.<>_ -]+)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(data), -1) {
			r := strings.TrimSpace(m[1])
			if r != "main" && r != "latest" && r != "REF" && !strings.HasPrefix(r, "<") && !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(r) {
				t.Errorf("%s: %s pins %q, which does not exist (use main, latest or a commit)", filepath.Base(f), m[0], r)
			}
		}
	}
}
