package reports

import (
	"fmt"
	"time"
)

// Hostile server text, used wherever a server could put its own words.
const (
	xssScript = `<script>alert(1)</script>`
	xssImg    = `"><img src=x onerror=alert(1)>`
)

// sampleResult builds a result for one requirement at one revision/transport.
func sampleResult(id string, status Status, version, transport string) Result {
	return Result{
		ID:         id,
		Title:      fmt.Sprintf("%s [MUST] the %s check", id, id),
		Area:       "batch",
		Level:      "MUST",
		Version:    version,
		Transport:  transport,
		Status:     status,
		SpecURL:    "https://modelcontextprotocol.io/specification/" + version + "/basic",
		Message:    string(status) + " message for " + id,
		DurationMs: 12,
	}
}

// sampleRun holds one result of every status; the failing ones carry
// evidence full of text a hostile server could send.
func sampleRun() *Run {
	evidence := []Exchange{
		{Seq: 1, AtMs: 3, Direction: "send", Channel: "stdin", Body: `[]`},
		{Seq: 2, AtMs: 9, Direction: "recv", Channel: "stdout", Meta: "line 1",
			Body: `{"jsonrpc":"2.0","id":null,"result":"` + xssScript + `|pipe` + "`tick`" + `"}`},
		{Seq: 3, AtMs: 10, Direction: "note", Channel: "stderr", Body: "control \x00\x1b[31m bytes " + xssImg},
	}
	results := []Result{
		sampleResult("PASS-ONE", Pass, "2025-03-26", "stdio"),
		sampleResult("FAIL-ONE", Fail, "2025-03-26", "stdio"),
		sampleResult("WARN-ONE", Warn, "2025-06-18", "http"),
		sampleResult("NA-ONE", NA, "2024-11-05", "http"),
		sampleResult("UNTESTABLE-ONE", Untestable, "2025-06-18", "stdio"),
		sampleResult("ERROR-ONE", Error, "2025-11-25", "http"),
		sampleResult("EXPECTED-ONE", Expected, "2025-03-26", "http"),
		sampleResult("STALE-ONE", Stale, "2025-03-26", "sse"),
	}
	results[1].Message = "server said " + xssScript + "\nsecond line | with pipe"
	results[1].Evidence = evidence
	results[2].Evidence = evidence[:2]
	results[5].Message = "connection reset " + xssImg
	results[5].Evidence = evidence[2:]
	results[6].BaselineReason = "known bug #12"
	results[7].BaselineReason = "old bug"
	results[7].Message = staleMessage
	results[3].Area = "lifecycle"

	return &Run{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "mcpspec", Version: "0.1.0"},
		Target: Target{
			Description: "stdio: ./server --flag",
			Transports:  []string{"stdio", "http", "sse"},
			ServerInfo:  map[string]any{"name": "evil " + xssScript + xssImg, "version": "1.2.3"},
		},
		StartedAt:  time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC),
		DurationMs: 1500,
		Revisions:  []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"},
		Results:    results,
	}
}
