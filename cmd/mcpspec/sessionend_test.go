package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sessionEndsLogged bounds the wait for the reference's log of the sessions mcpspec ended: the
// DELETEs were answered before mcpspec exited, and each was logged before it was answered, but
// the log reaches the test through a pipe.
const sessionEndsLogged = 10 * time.Second

var (
	sessionInitialized = regexp.MustCompile(`http: session (\S+) initialized`)
	sessionDeleted     = regexp.MustCompile(`http: session (\S+) deleted`)
)

// TestRunEndsItsSessions: against a Streamable HTTP server it did not launch (--url), a run ends
// every session it opened with a DELETE once it is over, as a client that no longer needs a
// session should, and the transcript shows those DELETEs as a session of their own.
func TestRunEndsItsSessions(t *testing.T) {
	d := newRunDir(t)
	addr, logged := startLoggingReference(t, d)
	trDir := t.TempDir()
	run := isolationRun(t, d, []string{"--url", "http://" + addr + "/mcp", "--versions", "2025-06-18", "--transcript", trDir})
	if len(run.Results) == 0 {
		t.Fatal("the run has no results")
	}
	var open []string
	ctx, cancel := context.WithTimeout(context.Background(), sessionEndsLogged)
	defer cancel()
	for {
		log := logged.String()
		deleted := map[string]bool{}
		for _, m := range sessionDeleted.FindAllStringSubmatch(log, -1) {
			deleted[m[1]] = true
		}
		open = open[:0]
		initialized := sessionInitialized.FindAllStringSubmatch(log, -1)
		for _, m := range initialized {
			if !deleted[m[1]] {
				open = append(open, m[1])
			}
		}
		if len(initialized) == 0 {
			t.Fatalf("the reference logged no session:\n%s", log)
		}
		if len(open) == 0 || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond): // polled: the log has no signal of its own
		}
	}
	if len(open) > 0 {
		t.Errorf("%d sessions were never ended, among them %s", len(open), open[0])
	}
	ends := 0
	f, err := os.Open(filepath.Join(trDir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct{ Session, Dir, Channel, Meta string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("transcript line: %v", err)
		}
		if rec.Session == "session-ends" && rec.Dir == "recv" && strings.HasPrefix(rec.Meta, "HTTP 200") {
			ends++
		}
	}
	if ends == 0 {
		t.Error("the transcript shows no session ended")
	}
}
