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

// unservedRun is a run against a server that serves one revision (2026-07-28) of the three tested,
// over stdio: a few failures and passes there, and many na checks at the two revisions it refuses,
// worded as suites/conform words them. Two checks ran on connections of their own at a refused
// revision and were judged there.
func unservedRun() *Run {
	run := &Run{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "mcpspec", Version: "0.1.0"},
		Target:        Target{Description: "stdio: ./small-server", Transports: []string{"stdio"}},
		Revisions:     []string{"2025-06-18", "2025-11-25", "2026-07-28"},
	}
	add := func(id, area string, status Status, version, msg string) {
		r := sampleResult(id, status, version, "stdio")
		r.Area, r.Message = area, msg
		run.Results = append(run.Results, r)
	}
	// Spec order: alphabetical by ID, as a naive report would list them.
	for i := range 40 {
		id := fmt.Sprintf("AAA-%02d", i)
		for _, v := range []string{"2025-06-18", "2025-11-25"} {
			answer := fmt.Sprintf(`initialize was answered without a result: {"jsonrpc":"2.0","id":"mcpspec:session:%d","error":{"code":-32601,"message":"Method not found"}}`, 1000+i)
			add(id, "aaa", NA, v, "the server does not serve revision "+v+": "+answer)
		}
		add(id, "aaa", Pass, "2026-07-28", "ok")
	}
	add("CAP-NONE", "caps", NA, "2026-07-28", "the server declares no prompts capability")
	add("ZZ-FAIL", "zz", Fail, "2026-07-28", "the id came back as a string")
	add("ZZ-OWN-CONN", "zz", Fail, "2025-06-18", "a check on its own connection failed at a refused revision")
	add("ZZ-WARN", "zz", Warn, "2026-07-28", "the message is two paragraphs")
	add("ZZ-SLOW", "zz", Untestable, "2026-07-28", "no slow tool")
	add("YY-ERROR", "yy", Error, "2026-07-28", "connection reset")
	add("YY-STALE", "yy", Stale, "2026-07-28", staleMessage)
	run.Results[len(run.Results)-1].BaselineReason = "old bug"
	return run
}
