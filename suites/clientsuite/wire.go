package clientsuite

import (
	"bytes"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The lifecycle's client sentences about what comes before the handshake ends, judged from the
// recordings of the scenarios that begin with one: no request but ping before the server has
// answered initialize, and (2025-03-26, the revision with batches) initialize never in a batch.

func init() {
	Register(
		Check{ID: "LIFE-PRE-INIT-REQUEST", Level: "SHOULD", Scenario: probe.ScenarioTools, Also: handshakeOnly,
			Summary: "the client sends no request but ping before the server has answered initialize",
			LevelReason: "The spec's SHOULD NOT for a request sent while initialize is unanswered. A request sent before initialize itself " +
				"breaks \"the initialization phase MUST be the first interaction\" and fails. A dual-era client's server/discover before initialize is no breach: " +
				"2026-07-28 asks a client that speaks it to try discovery first and fall back to initialize when refused.",
			Judge: judgePreInit},
		Check{ID: "BATCH-INIT-NOT-IN-BATCH", Level: "MUST", Scenario: probe.ScenarioTools, Also: handshakeOnly,
			Versions: []string{harness.Rev20250326}, Transports: []string{wire.Stdio, wire.HTTP},
			Summary: "the initialize request is never part of a JSON-RPC batch",
			Judge:   judgeInitNotInBatch},
	)
}

func judgePreInit(v *View) Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	n := 0
	initSent := false
	for _, m := range v.Msgs {
		if v.InitAnswered >= 0 && m.Rec > v.InitAnswered {
			break
		}
		if !m.IsRequest() {
			continue
		}
		n++
		switch m.Method {
		case "initialize":
			initSent = true
			continue
		case "ping", "server/discover":
			continue
		}
		if !initSent {
			f := violated("the client sent %s (record %d) before initialize: the initialization phase MUST be the first interaction", m.Method, v.Records[m.Rec].Seq)
			f.Severe = true
			return f
		}
		when := "before the probe answered its initialize"
		if v.InitAnswered < 0 {
			when = "and the probe never answered an initialize"
		}
		return violated("the client sent %s (record %d) %s", m.Method, v.Records[m.Rec].Seq, when)
	}
	if v.InitAnswered < 0 {
		return untestable("the client sent no initialize the probe could answer")
	}
	return passed("before the InitializeResult the client sent no request but initialize, ping or server/discover (%d in all)", n)
}

func judgeInitNotInBatch(v *View) Finding {
	n := 0
	for _, m := range v.Msgs {
		if m.Method != "initialize" {
			continue
		}
		n++
		// An array of one is a batch too: judged by the record's body, not by Msg.Batch.
		r := v.Records[m.Rec]
		if body := bytes.TrimSpace([]byte(r.Body)); len(body) > 0 && body[0] == '[' {
			return violated("the client sent initialize inside a JSON-RPC batch (record %d): %s", r.Seq, clip(r.Body))
		}
	}
	if n == 0 {
		return untestable("the client sent no initialize")
	}
	return passed("the client sent each of its %d initialize requests as a message of its own", n)
}
