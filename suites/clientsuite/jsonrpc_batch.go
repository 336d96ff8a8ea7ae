package clientsuite

import (
	"bytes"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// The client check of JSON-RPC 2.0 § 6 (batches, as MCP 2025-03-26 allows them).

func init() {
	Register(
		Check{ID: "BATCH-INIT-NOT-IN-BATCH", Revisions: catalog.AllCatalogued, Level: "MUST",
			Transports: []string{wire.Stdio, wire.HTTP},
			Summary:    "the initialize request is never part of a JSON-RPC batch",
			Side:       Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgeInitNotInBatch}},
	)
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
