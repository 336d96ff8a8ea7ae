package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	const token = "s3cr3t-t0ken"
	const quoted = `pa"ss\word`
	run := sampleRun()
	run.Target.Description = "http: http://127.0.0.1:3001/mcp with Authorization: Bearer " + token
	run.Target.ServerInfo["echo"] = map[string]any{"list": []any{"x " + token}}
	run.Errors = []string{"401 for " + token}
	run.Results[1].Message = "server echoed " + token
	// A pass's evidence is packed (compressed) into report.html, where a plain search cannot see it.
	run.Results[0].Evidence = []Exchange{{Seq: 1, Direction: "recv", Channel: "stdout", Body: "pass saw " + token}}
	run.Results[1].Evidence = append(run.Results[1].Evidence,
		Exchange{Seq: 9, Direction: "send", Channel: "POST", Meta: "Authorization: Bearer " + token, Body: `{}`},
		Exchange{Seq: 10, Direction: "recv", Channel: "POST", Body: `{"echo":"` + strings.ReplaceAll(strings.ReplaceAll(quoted, `\`, `\\`), `"`, `\"`) + `"}`},
		Exchange{Seq: 11, Direction: "recv", Channel: "stderr", Body: `{"ab":true,"n":123456}`},
		Exchange{Seq: 12, Direction: "recv", Channel: "POST", Body: `{"python":"s3cr3t\u002dt0ken"}`},
	)

	// Values too short or too common to be secrets ("ab", DEBUG=true, a port) are left alone:
	// redacting them would garble the evidence and hide nothing.
	Redact(run, []string{"", token, quoted, "ab", "true", "123456"})

	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, leaked := range []string{token, "pa\\\"ss", `s3cr3t\\u002d`} {
		if strings.Contains(text, leaked) {
			t.Errorf("%q survived redaction", leaked)
		}
	}
	if !strings.Contains(run.Target.Description, "Bearer [REDACTED]") ||
		run.Results[1].Message != "server echoed [REDACTED]" ||
		run.Errors[0] != "401 for [REDACTED]" ||
		run.Results[1].Evidence[4].Body != `{"echo":"[REDACTED]"}` ||
		run.Results[1].Evidence[5].Body != `{"ab":true,"n":123456}` ||
		run.Results[1].Evidence[6].Body != `{"python":"[REDACTED]"}` {
		t.Errorf("redaction did not replace in place:\n%s", text)
	}

	// And nothing leaks into any of the files.
	dir := t.TempDir()
	if err := WriteAll(dir, run); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{JUnitFile, ResultsFile, SummaryFile, HTMLFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == HTMLFile {
			data = append(data, unpackedEvidence(t, string(data))...)
			if !strings.Contains(string(data), "pass saw [REDACTED]") {
				t.Errorf("report.html lacks the pass's evidence, redacted")
			}
		}
		if strings.Contains(string(data), token) {
			t.Errorf("%s contains the secret", name)
		}
	}
}

func TestRedactWithoutSecretsChangesNothing(t *testing.T) {
	run := sampleRun()
	before, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	Redact(run, nil)
	Redact(run, []string{""})
	after, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("redacting nothing changed the run")
	}
}
