package main

// Every flag of every command, given a bad value, is refused with exit 2 and a one-line reason
// before anything starts: above all, a target flag whose variable was unset never falls back to
// the bundled reference server and its green run.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const emptyMsg = "is empty: give it a value or leave it out"

func TestCLIEveryFlagRefusesBadValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "matrix.yaml")
	if err := os.WriteFile(config, []byte("targets:\n  - name: a\n    stdio: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results.json")
	if err := os.WriteFile(results, []byte(`{"schemaVersion":1,"results":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Report directories for matrix --merge: none, an empty one, a broken, an unnamed, a misnamed
	// and a named results.json.
	mergeDir := func(name, results string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if results != "" {
			if err := os.WriteFile(filepath.Join(p, "results.json"), []byte(results), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	noResults := mergeDir("no-results", "")
	broken := mergeDir("broken", `{"schemaVersion":1,"results":[`)
	oldSchema := mergeDir("old-schema", `{"schemaVersion":0,"results":[]}`)
	unnamed := mergeDir("unnamed", `{"schemaVersion":1,"results":[]}`)
	misnamed := mergeDir("misnamed", `{"schemaVersion":1,"target":{"name":"../x"},"results":[]}`)
	named := mergeDir("named", `{"schemaVersion":1,"target":{"name":"a"},"results":[]}`)
	type tc struct {
		args []string
		want string
	}
	run := func(want string, args ...string) tc { return tc{append([]string{"run"}, args...), want} }
	cases := []tc{
		// The targets: empty, blank, twice, malformed, in combinations that cannot work.
		run("--stdio "+emptyMsg, "--stdio", ""),
		run("--stdio "+emptyMsg, "--stdio", " \t"),
		run(`--stdio given 2 times ("a", "b")`, "--stdio", "a", "--stdio", "b"),
		run(`--stdio "'a": `, "--stdio", "'a"),
		run("--url "+emptyMsg, "--url", ""),
		run("--url "+emptyMsg, "--url", "  "),
		run("--url given 2 times", "--url", "http://127.0.0.1:1/mcp", "--url", "http://127.0.0.1:2/mcp"),
		run(`--url "ftp://127.0.0.1/mcp": want an http:// or https:// URL`, "--url", "ftp://127.0.0.1/mcp"),
		run(`--url "http://": want an http:// or https:// URL with a host`, "--url", "http://"),
		run("--sse "+emptyMsg, "--sse", ""),
		run("--sse given 2 times", "--sse", "http://127.0.0.1:1/sse", "--sse", "http://127.0.0.1:1/sse"),
		run(`--sse "127.0.0.1:1/sse": want an http:// or https:// URL`, "--sse", "127.0.0.1:1/sse"),
		run("--http-cmd "+emptyMsg, "--http-cmd", "", "--url", "http://127.0.0.1:1/mcp"),
		run("--http-cmd needs --url or --sse", "--http-cmd", "server"),
		run("--http-cmd goes with one of --url and --sse", "--http-cmd", "server", "--url", "http://127.0.0.1:1/mcp", "--sse", "http://127.0.0.1:1/sse"),
		run("--http-cmd given 2 times", "--http-cmd", "a", "--http-cmd", "b", "--url", "http://127.0.0.1:1/mcp"),
		// How targets are launched and reached.
		run("--cwd "+emptyMsg, "--cwd", ""),
		run(`--cwd "/no/such/dir" is not a directory`, "--cwd", "/no/such/dir", "--stdio", "x"),
		run(`--env "": want K=V`, "--env", ""),
		run(`--env "=v": want K=V`, "--env", "=v"),
		run(`--env " =v": want K=V`, "--env", " =v"),
		run(`--env "NOVALUE": want K=V`, "--env", "NOVALUE"),
		run(`--header "": want "Name: value"`, "--header", ""),
		run(`--header ": v": want "Name: value"`, "--header", ": v"),
		run(`--header "Bad Name: v": want "Name: value"`, "--header", "Bad Name: v"),
		// What runs.
		run("--versions "+emptyMsg, "--versions", ""),
		run(`--versions: unknown revision ""`, "--versions", "2025-06-18,"),
		run(`--versions: unknown revision "2025-13-01"`, "--versions", "2025-13-01"),
		run(`--versions: unknown revision "latest"`, "--versions", "latest"),
		run("--focus "+emptyMsg, "--focus", ""),
		run("--focus: error parsing regexp", "--focus", "("),
		run("--label-filter "+emptyMsg, "--label-filter", ""),
		run("--label-filter:", "--label-filter", "(("),
		run("--sessions must be at least 1, got 0", "--sessions", "0"),
		run("--sessions must be at least 1, got -1", "--sessions", "-1"),
		run(`invalid value "many" for flag -sessions`, "--sessions", "many"),
		run("--parallel must be at least 1, got 0", "--parallel", "0"),
		run(`invalid value "1.5" for flag -parallel`, "--parallel", "1.5"),
		run("--slow-parallel must be at least 1, got 0", "--slow-parallel", "0"),
		run(`invalid value "x" for flag -slow-parallel`, "--slow-parallel", "x"),
		run(`invalid boolean value "maybe" for -strict`, "--strict=maybe"),
		run(`invalid boolean value "2" for -v`, "-v=2"),
		run(`invalid boolean value "x" for -no-color`, "--no-color=x"),
		// Reports and baselines.
		run("--out "+emptyMsg, "--out", ""),
		run("--baseline "+emptyMsg, "--baseline", ""),
		run("--baseline: read baseline", "--baseline", filepath.Join(dir, "no-such.yaml")),
		run("--write-baseline "+emptyMsg, "--write-baseline", ""),
		// The tools the checks call, and the auth tokens.
		run("--slow-tool "+emptyMsg, "--slow-tool", ""),
		run("--slow-tool-args "+emptyMsg, "--slow-tool-args", ""),
		run("--slow-tool-args must be a JSON object", "--slow-tool-args", "[1]"),
		run("--slow-tool-args must be a JSON object", "--slow-tool-args", "{"),
		run("--list-changed-tool "+emptyMsg, "--list-changed-tool", ""),
		run("--list-changed-tool-args must be a JSON object", "--list-changed-tool-args", "1"),
		run("--input-tool "+emptyMsg, "--input-tool", ""),
		run("--input-tool-args must be a JSON object", "--input-tool-args", "[1]"),
		run("--log-tool "+emptyMsg, "--log-tool", ""),
		run("--log-tool-args must be a JSON object", "--log-tool-args", "null"),
		run("--auth-token-narrow "+emptyMsg, "--auth-token-narrow", ""),
		run("--auth-token-foreign "+emptyMsg, "--auth-token-foreign", ""),
		run("--auth-token-expired "+emptyMsg, "--auth-token-expired", ""),
		// Bounds.
		run(`invalid value "soon" for flag -timeout-startup`, "--timeout-startup", "soon"),
		run("timeout startup must be positive", "--timeout-startup", "0s"),
		run("timeout request must be positive", "--timeout-request", "-1s"),
		run(`invalid value "5" for flag -timeout-quiet`, "--timeout-quiet", "5"),
		run("timeout shutdown must be positive", "--timeout-shutdown", "0"),
		run("--name "+emptyMsg, "--name", ""),
		run(`--name "bad name": use letters, digits`, "--name", "bad name"),
		run(`--name "../x": use letters, digits`, "--name", "../x"),
		run("--name given 2 times", "--name", "a", "--name", "b"),
		// Neither a flag nor an argument run takes.
		run("flag provided but not defined: -nope", "--nope"),
		run(`unexpected argument "server.py"`, "--stdio", "python", "server.py"),

		{[]string{"matrix"}, "matrix: usage: mcpspec matrix --config FILE"},
		{[]string{"matrix", "--config", ""}, "matrix: --config " + emptyMsg},
		{[]string{"matrix", "--config", filepath.Join(dir, "none.yaml")}, "no such file"},
		{[]string{"matrix", "--config", config, "--out", ""}, "matrix: --out " + emptyMsg},
		{[]string{"matrix", "--config", config, "--parallel", "0"}, "--parallel must be at least 1, got 0"},
		{[]string{"matrix", "--config", config, "--parallel", "-2"}, "--parallel must be at least 1, got -2"},
		{[]string{"matrix", "--config", config, "--parallel", "two"}, `invalid value "two" for flag -parallel`},
		{[]string{"matrix", "--config", config, "--targets", ""}, "matrix: --targets " + emptyMsg},
		{[]string{"matrix", "--config", config, "--targets", "b"}, `--targets: no target "b"`},
		{[]string{"matrix", "--config", config, "--nope"}, "flag provided but not defined: -nope"},
		{[]string{"matrix", "--config", config, "extra"}, "matrix: usage:"},
		{[]string{"matrix", "--merge"}, "matrix: --merge needs the report directories"},
		{[]string{"matrix", "--merge", "--config", config, named}, "--merge runs nothing: it takes no --config"},
		{[]string{"matrix", "--merge", "--isolation", named}, "it takes no --config, --parallel, --targets or --isolation"},
		{[]string{"matrix", "--merge", "--out", "", named}, "matrix: --out " + emptyMsg},
		{[]string{"matrix", "--merge", filepath.Join(dir, "none")}, "none: not a directory"},
		{[]string{"matrix", "--merge", results}, "results.json: not a directory"},
		{[]string{"matrix", "--merge", noResults}, "no-results: no results.json"},
		{[]string{"matrix", "--merge", named, broken}, "broken/results.json: not valid JSON"},
		{[]string{"matrix", "--merge", oldSchema}, "schemaVersion 0 is not supported"},
		{[]string{"matrix", "--merge", unnamed}, "names no target: run it with --name NAME, or give NAME="},
		{[]string{"matrix", "--merge", misnamed}, `target name "../x": use letters`},
		{[]string{"matrix", "--merge", named, "a=" + unnamed}, `two directories name the target "a"`},
		{[]string{"matrix", "--merge", "--out", named, "x=" + named}, "it overlaps"},
		{[]string{"matrix", "--merge", "--out", filepath.Join(named, "sub"), "named=" + dir}, "it overlaps"},

		{[]string{"diff"}, "want two results.json paths"},
		{[]string{"diff", results}, "want two results.json paths, OLD and NEW, got 1"},
		{[]string{"diff", results, results, results}, "got 3"},
		{[]string{"diff", "", results}, "diff: old:"},
		{[]string{"diff", results, filepath.Join(dir, "none.json")}, "diff: new:"},
		{[]string{"diff", "--json=maybe", results, results}, `invalid boolean value "maybe" for -json`},
		{[]string{"diff", "--nope", results, results}, "flag provided but not defined: -nope"},

		{[]string{"list", "--json=maybe"}, `invalid boolean value "maybe" for -json`},
		{[]string{"list", "--implemented=2"}, `invalid boolean value "2" for -implemented`},
		{[]string{"list", "--nope"}, "list: flag provided but not defined: -nope"},
		{[]string{"list", "extra"}, `list: unexpected argument "extra"`},

		{[]string{"reference", "--http", ""}, "reference: --http " + emptyMsg},
		{[]string{"reference", "--http", "127.0.0.1"}, `listen address "127.0.0.1": want HOST:PORT`},
		{[]string{"reference", "--sse", ""}, "reference: --sse " + emptyMsg},
		{[]string{"reference", "--sse", "nohost"}, `listen address "nohost": want HOST:PORT`},
		{[]string{"reference", "--http", "127.0.0.1:1", "--sse", "127.0.0.1:2"}, "--http and --sse are the same flag"},
		{[]string{"reference", "--http-responses", ""}, "reference: --http-responses " + emptyMsg},
		{[]string{"reference", "--http-responses", "xml"}, `unknown HTTP response mode "xml"`},
		{[]string{"reference", "--era", ""}, "reference: --era " + emptyMsg},
		{[]string{"reference", "--era", "bronze"}, `unknown era "bronze"`},
		{[]string{"reference", "--auth-token", ""}, "reference: --auth-token " + emptyMsg},
		{[]string{"reference", "--auth-token", "T1"}, "--auth-token needs --http or --sse"},
		{[]string{"reference", "--auth-token-narrow", ""}, "reference: --auth-token-narrow " + emptyMsg},
		{[]string{"reference", "--auth-token-foreign", ""}, "reference: --auth-token-foreign " + emptyMsg},
		{[]string{"reference", "--auth-token-expired", ""}, "reference: --auth-token-expired " + emptyMsg},
		{[]string{"reference", "--auth-issuer", ""}, "reference: --auth-issuer " + emptyMsg},
		{[]string{"reference", "--fault", ""}, `invalid value "" for flag -fault: empty`},
		{[]string{"reference", "--fault", "NO-SUCH-FAULT"}, "unknown fault ID(s) NO-SUCH-FAULT"},
		{[]string{"reference", "--without", " , "}, `invalid value " , " for flag -without: empty`},
		{[]string{"reference", "--without", "tools"}, `capability "tools" cannot be left out`},
		{[]string{"reference", "--sse-poll=often"}, `invalid boolean value "often" for -sse-poll`},
		{[]string{"reference", "--nope"}, "reference: flag provided but not defined: -nope"},
		{[]string{"reference", "extra"}, `reference: unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			args := c.args
			if args[0] == "run" && !strings.Contains(strings.Join(args, " "), "--out") {
				// Should a case wrongly start a run, its reports land in the test's directory.
				args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
			}
			assertUsageError(t, runBinary(t, usageRunTimeout, bins.mcpspec, args...), c.want)
		})
	}
}

// Settings that could only fail at the end of a whole run, or be blamed on the target, are
// refused before anything runs.
func TestCLIRefusesLateFailingSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	matrix := func(name, target string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte("targets:\n  - name: a\n"+target), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--header", "X-A: b\r\nX-Injected: c", "--url", "http://127.0.0.1:1/mcp"}, "holds a line break or NUL"},
		{[]string{"run", "--header", "X-A: b\nc", "--url", "http://127.0.0.1:1/mcp"}, "holds a line break or NUL"},
		{[]string{"run", "--write-baseline", dir, "--stdio", "x"}, "is a directory: give a file path"},
		{[]string{"client", "--cmd", "x", "--write-baseline", dir}, "is a directory: give a file path"},
		{[]string{"matrix", "--config", matrix("out", "    stdio: x\n    args: [--out, elsewhere]\n")}, `args: "--out": the matrix sets --out itself`},
		{[]string{"matrix", "--config", matrix("outeq", "    stdio: x\n    args: [--out=elsewhere]\n")}, `the matrix sets --out itself`},
		{[]string{"matrix", "--config", matrix("clientout", "    client: x\n    args: [-out, elsewhere]\n")}, `the matrix sets --out itself`},
		{[]string{"matrix", "--config", matrix("port", "    url: http://127.0.0.1:{port}/mcp\n    httpCmd: server --port 3000\n")}, "url or sse holds {port} but httpCmd does not"},
		{[]string{"reference", "--http", "0.0.0.0:1"}, `listen address "0.0.0.0:1" is not loopback: add --allow-remote`},
		{[]string{"reference", "--sse", "[::]:1"}, "is not loopback"},
		{[]string{"jsonrpc-server", "--http", "0.0.0.0:1"}, "is not loopback"},
		{[]string{"jsonrpc-server", "--http", "nohost"}, "want HOST:PORT"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			args := c.args
			if args[0] == "run" || args[0] == "client" || args[0] == "matrix" {
				args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
			}
			assertUsageError(t, runBinary(t, usageRunTimeout, bins.mcpspec, args...), c.want)
		})
	}
}
