package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// runArgs is the inverse of parseRun: the `mcpspec run` arguments that parse into cfg again
// (run_args_test.go makes the round trip). What is at its default is left out, and a bundled
// target (cfg.bundled) is named by no flag. `mcpspec matrix` runs each server target as a
// `mcpspec run` process of its own (Ginkgo runs one suite per process, and a target's crash
// must not touch the others) with these arguments.
func runArgs(cfg *serverRun) []string {
	var args []string
	add := func(flag, v string) {
		if v != "" {
			args = append(args, "--"+flag, v)
		}
	}
	on := func(flag string, set bool) {
		if set {
			args = append(args, "--"+flag)
		}
	}
	p := &cfg.plan
	add("out", cfg.out)
	add("name", p.Name)
	if !cfg.bundled {
		httpCmd := ""
		for _, t := range p.Targets {
			switch t.Transport {
			case wire.Stdio:
				add("stdio", joinCommand(t.Command.Argv))
			case wire.HTTP:
				add("url", t.URL)
			case wire.SSE:
				add("sse", t.URL)
			}
			if t.Transport != wire.Stdio && len(t.Command.Argv) > 0 {
				httpCmd = joinCommand(t.Command.Argv)
			}
		}
		add("http-cmd", httpCmd)
	}
	on("jsonrpc", cfg.jsonrpc)
	on("authserver", p.AuthServer)
	add("cwd", cfg.cwd)
	for _, kv := range cfg.env {
		add("env", kv)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.header)) {
		for _, v := range cfg.header[name] {
			add("header", name+": "+v)
		}
	}
	if !cfg.jsonrpc && len(p.Revisions) > 0 && !slices.Equal(p.Revisions, harness.Revisions) {
		add("versions", strings.Join(p.Revisions, ","))
	}
	add("focus", p.Focus)
	add("label-filter", cfg.labels)

	addInt := func(flag string, v, def int) {
		if v != 0 && v != def {
			add(flag, fmt.Sprint(v))
		}
	}
	addInt("sessions", p.Sessions, defaultSessions)
	addInt("parallel", p.Parallel, defaultParallel)
	addInt("slow-parallel", p.SlowParallel, conform.DefaultWaiting)
	d := harness.DefaultTimeouts()
	for _, t := range []struct {
		flag   string
		v, def fmt.Stringer
	}{{"timeout-startup", p.Timeouts.Startup, d.Startup}, {"timeout-request", p.Timeouts.Request, d.Request},
		{"timeout-quiet", p.Timeouts.Quiet, d.Quiet}, {"timeout-shutdown", p.Timeouts.Shutdown, d.Shutdown}} {
		if s := t.v.String(); s != "0s" && s != t.def.String() {
			add(t.flag, s)
		}
	}

	o := &p.Options
	tool := func(flag, name string, toolArgs []byte) {
		add(flag, name)
		if len(toolArgs) > 0 && string(toolArgs) != "{}" {
			add(flag+"-args", string(toolArgs))
		}
	}
	tool("slow-tool", o.SlowTool, o.SlowToolArgs)
	tool("list-changed-tool", o.ListTool, o.ListToolArgs)
	tool("input-tool", o.InputTool, o.InputToolArgs)
	tool("log-tool", o.LogTool, o.LogToolArgs)
	add("auth-token-narrow", o.AuthTokenNarrow)
	add("auth-token-foreign", o.AuthTokenForeign)
	add("auth-token-expired", o.AuthTokenExpired)

	add("baseline", cfg.baseline)
	add("write-baseline", cfg.writeBase)
	add("transcript", cfg.transcriptDir)
	on("strict", cfg.strict)
	on("no-color", !cfg.color)
	args = append(args, fmt.Sprintf("--github=%t", cfg.github))
	if cfg.verbose {
		args = append(args, "-v")
	}
	return args
}

// joinCommand quotes argv as one command line that splitCommand splits back into argv: a word
// of plain characters as it is, any other in single quotes (each quote in it closes them,
// escaped, and opens them again).
func joinCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			words[i] = a
			continue
		}
		words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}
