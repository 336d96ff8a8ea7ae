package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/wire"
)

// TestRunArgsRoundTrip: a plan said back as flags (runArgs) parses into the same plan, so
// that the matrix's runs do what their plans say.
func TestRunArgsRoundTrip(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	t.Setenv("CLICOLOR_FORCE", "")
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.yaml")
	if err := os.WriteFile(base, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"bundled reference": nil,
		"stdio with everything": {"--stdio", `node "my server.js" --greeting 'it''s' a\ b $HOME ''`, "--cwd", dir,
			"--env", "TOKEN=abcdefghijklmnop", "--env", "PORT=8", "--versions", "2025-11-25,2025-06-18",
			"--focus", "^(PING|TOOLS)-", "--label-filter", "area:tools && !MUST", "--sessions", "2", "--parallel", "5",
			"--slow-parallel", "7", "--timeout-startup", "45s", "--timeout-request", "1m30s", "--timeout-quiet", "250ms",
			"--timeout-shutdown", "3s", "--slow-tool", "wait", "--slow-tool-args", `{"ms": 500}`, "--list-changed-tool", "flip",
			"--input-tool", "ask", "--input-tool-args", `{"q":"why"}`, "--log-tool", "log", "--log-tool-args", `{"n":2}`,
			"--name", "srv-1", "--out", filepath.Join(dir, "out"), "--baseline", base, "--write-baseline", filepath.Join(dir, "new.yaml"),
			"--strict", "--github", "-v", "--transcript", filepath.Join(dir, "wire")},
		"http launched, with headers and tokens": {"--url", "http://127.0.0.1:9/mcp", "--http-cmd", "srv --port 9",
			"--header", "x-b: two words", "--header", "Authorization: Bearer abcdefghijklmnop", "--header", "X-B: again",
			"--authserver", "--auth-token-narrow", "narrow-token-123", "--auth-token-foreign", "foreign-token-123",
			"--auth-token-expired", "expired-token-123", "--env", "K=V"},
		"stdio and sse launched": {"--stdio", "srv", "--sse", "http://127.0.0.1:9/sse", "--http-cmd", "srv --sse 127.0.0.1:9"},
		"json-rpc bundled":       {"--jsonrpc"},
		"json-rpc over stdio":    {"--jsonrpc", "--stdio", "rpc-server --plain"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			first, err := parseRun(args, io.Discard)
			if err != nil {
				t.Fatalf("parse %q: %v", args, err)
			}
			again := runArgs(first)
			second, err := parseRun(again, io.Discard)
			if err != nil {
				t.Fatalf("parse runArgs' %q: %v", again, err)
			}
			if a, b := comparable(t, first), comparable(t, second); !reflect.DeepEqual(a, b) {
				t.Errorf("the plan changed on the round trip through %q:\nbefore %+v\nafter  %+v", again, a, b)
			}
		})
	}
}

// comparable is a parsed run with what legitimately differs between two parses set aside: the
// bundled server's free ports (its transports are kept), the order secrets were found in, the
// loaded baseline (its path is kept).
func comparable(t *testing.T, cfg *serverRun) serverRun {
	c := *cfg
	if c.bundled {
		var transports []string
		for _, tg := range c.plan.Targets {
			transports = append(transports, tg.Transport)
		}
		c.plan.Targets = nil
		c.plan.Name += " over " + strings.Join(transports, ",")
	}
	c.secrets = slices.Sorted(slices.Values(c.secrets))
	c.plan.Secrets = c.secrets
	if (c.base == nil) != (c.baseline == "") {
		t.Errorf("baseline %q loaded: %v", c.baseline, c.base != nil)
	}
	c.base = nil
	return c
}

// TestJoinCommandSplitsBack: a launched command's words survive being said as one line.
func TestJoinCommandSplitsBack(t *testing.T) {
	for _, argv := range [][]string{{"srv"}, {"a b", "", `it's`, `"q"`, `back\slash`, "$HOME", "*", "tab\there", "ünï"}} {
		got, err := splitCommand(joinCommand(argv))
		if err != nil || !slices.Equal(got, argv) {
			t.Errorf("splitCommand(joinCommand(%q)) = %q, %v", argv, got, err)
		}
	}
}

// TestMatrixTargetRunArgs: a matrix target's run is its plan said back as flags, its own args
// after them; a setting the run would refuse is refused before any process starts.
func TestMatrixTargetRunArgs(t *testing.T) {
	t.Setenv("MATRIX_TOKEN", "abcdefghijklmnop")
	t.Setenv("MATRIX_EMPTY", "")
	dir := t.TempDir()
	cfg := &matrixConfig{Revisions: []string{"2025-06-18"}}
	tg := matrixTarget{Name: "srv", Stdio: "node '{dir}/my server.js' --port {port}", Env: map[string]string{"TOKEN": "${MATRIX_TOKEN}"},
		SlowTool: "wait", SlowToolArgs: map[string]any{"ms": 5}, Args: []string{"--focus", "^PING"}}
	args, err := tg.runArgs(cfg, dir, filepath.Join(dir, "out"), 4242)
	if err != nil {
		t.Fatal(err)
	}
	if args[0] != "run" || !slices.Equal(args[len(args)-2:], []string{"--focus", "^PING"}) {
		t.Fatalf("args %q: want run, the plan's flags, then the target's args", args)
	}
	run, err := parseRun(args[1:], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p := run.plan
	want := []string{"node", dir + "/my server.js", "--port", "4242"}
	if len(p.Targets) != 1 || p.Targets[0].Transport != wire.Stdio || !slices.Equal(p.Targets[0].Command.Argv, want) {
		t.Errorf("targets %+v, want one over stdio running %q", p.Targets, want)
	}
	if !slices.Equal(p.Targets[0].Command.Env, []string{"TOKEN=abcdefghijklmnop"}) || !slices.Contains(run.secrets, "abcdefghijklmnop") {
		t.Errorf("env %q, secrets %q", p.Targets[0].Command.Env, run.secrets)
	}
	if p.Name != "srv" || run.out != filepath.Join(dir, "out") || run.github || run.color || p.Focus != "^PING" ||
		!slices.Equal(p.Revisions, cfg.Revisions) || p.Options.SlowTool != "wait" || string(p.Options.SlowToolArgs) != `{"ms":5}` {
		t.Errorf("run %+v", run)
	}

	tg = matrixTarget{Name: "srv", Stdio: "${MATRIX_EMPTY}"}
	if _, err := tg.runArgs(cfg, dir, dir, 1); err == nil || !strings.Contains(err.Error(), "--stdio is empty") {
		t.Errorf("a target whose command expands to nothing: %v, want it refused", err)
	}
}
