package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// runnerCommands returns the lines of console text the GitHub Actions runner would take for a
// workflow command: "::" after leading whitespace (v2), or "##[" anywhere in the line (v1).
func runnerCommands(console string) []string {
	var cmds []string
	for _, line := range strings.Split(console, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.Contains(line, "##[") {
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// ownAnnotation is the shape of mcpspec's own annotations.
var ownAnnotation = regexp.MustCompile(`^::(error|warning) title=[^:]*::`)

func TestFenceNeutralisesWorkflowCommands(t *testing.T) {
	hostile := []string{
		"::stop-commands::pwned\n",
		"  \t::error title=X::forged\n",
		"text ##[error]forged\n",
		"###[warning]three hashes\n",
		"::",
		"warning::split across writes\n",
		"#", "#", "[error]split hashes\n",
		"a line: with :: inside is fine\n",
		"\r::set-output name=x::after CR\n",
	}
	for _, bytewise := range []bool{false, true} {
		var buf bytes.Buffer
		f := newFence(&buf)
		for _, h := range hostile {
			if bytewise {
				for i := range len(h) {
					f.Write([]byte{h[i]})
				}
			} else {
				f.Write([]byte(h))
			}
		}
		trusted(f).Write([]byte("::error title=OWN::mcpspec's own\n"))
		f.Write([]byte("ends with ##"))
		if err := f.Flush(); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		cmds := runnerCommands(out)
		if len(cmds) != 1 || !ownAnnotation.MatchString(cmds[0]) {
			t.Errorf("bytewise=%v: the runner would read %q as commands; want only mcpspec's own annotation\n%s", bytewise, cmds, out)
		}
		for _, keep := range []string{`\::stop-commands::pwned`, `#\u0023[error]forged`, "a line: with :: inside is fine", "ends with ##"} {
			if !strings.Contains(out, keep) {
				t.Errorf("bytewise=%v: %q missing from\n%s", bytewise, keep, out)
			}
		}
	}
}

// JSON mcpspec prints (diff --json, list --json) stays valid through the fence and decodes to
// the same text.
func TestFenceKeepsJSONValid(t *testing.T) {
	const msg = "##[error]forged ###[x] ::y"
	b, err := json.Marshal(map[string]string{"message": msg})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	f := newFence(&buf)
	f.Write(b)
	f.Flush()
	var got map[string]string
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || got["message"] != msg {
		t.Errorf("fenced JSON %s decodes to %q (%v), want %q", buf.String(), got["message"], err, msg)
	}
	if len(runnerCommands(buf.String())) != 0 {
		t.Errorf("fenced JSON still holds a command: %s", buf.String())
	}
}
