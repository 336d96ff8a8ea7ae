package main

// --transcript and the evidence of passes: every verdict can be checked by a person, secrets
// redacted.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

func TestTranscriptKeepsEverySessionWithoutSecrets(t *testing.T) {
	t.Parallel()
	const headerSecret, envSecret = "hdr-s3cr3t-value", "env-s3cr3t-value"
	d := newRunDir(t)
	out, dir := t.TempDir(), filepath.Join(t.TempDir(), "wire")
	addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	// The stdio server writes the environment secret to stdout before it starts serving, so the
	// secret is on the wire the transcript keeps.
	stdioServer := fmt.Sprintf(`sh -c 'echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"$MCPSPEC_T_TOKEN\"}}"; exec "$0" reference' %s`, d.mcpspec)
	r := runBinary(t, referenceRunTimeout, d.mcpspec, "run", "--stdio", stdioServer,
		"--http-cmd", d.mcpspec+" reference --http "+addr, "--url", "http://"+addr+"/mcp",
		"--env", "MCPSPEC_T_TOKEN="+envSecret, "--header", "X-Api-Key: "+headerSecret,
		"--focus", "PING-RESPOND", "--transcript", dir, "--out", out)
	if r.code != reports.ExitOK {
		t.Fatalf("exit code %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sessions := map[string]map[string]bool{} // transport → session names
	redacted, lines := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines++
		var l struct{ At, Transport, Session, Dir, Channel, Meta, Body string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d is not a JSON object: %v: %s", lines, err, sc.Text())
		}
		if l.At == "" || l.Transport == "" || l.Session == "" || l.Dir == "" {
			t.Errorf("line %d lacks time, transport, session or direction: %s", lines, sc.Text())
		}
		if sessions[l.Transport] == nil {
			sessions[l.Transport] = map[string]bool{}
		}
		sessions[l.Transport][l.Session] = true
		if strings.Contains(sc.Text(), headerSecret) || strings.Contains(sc.Text(), envSecret) {
			t.Errorf("line %d holds a secret: %s", lines, sc.Text())
		}
		redacted += strings.Count(sc.Text(), reports.Redacted)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(sessions["stdio"]) == 0 || len(sessions["http"]) == 0 {
		t.Errorf("sessions by transport: %v, want stdio and http ones", sessions)
	}
	if redacted < 2 {
		t.Errorf("%d redactions: the secrets never reached the wire, so the test proves nothing", redacted)
	}
	// A pass keeps the exchange that decided it.
	run := assertReports(t, out)
	for _, res := range run.Results {
		if res.Status == reports.Pass && !strings.Contains(evidenceBodies(res), `"ping"`) {
			t.Errorf("%s %s %s passed without the ping in its evidence: %v", res.ID, res.Version, res.Transport, res.Evidence)
		}
	}
}

func evidenceBodies(res reports.Result) string {
	var b strings.Builder
	for _, e := range res.Evidence {
		b.WriteString(e.Body)
	}
	return b.String()
}
