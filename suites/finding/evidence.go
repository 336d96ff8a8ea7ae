package finding

import (
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
)

// Evidence turns the records behind a verdict into its result's evidence, bounded as every
// result's is (transcript.Evidence keeps those keep selects: the records a message cites), each
// timed from started: one rule for server and client checks.
func Evidence(recs []record.Record, started time.Time, keep func(seq int) bool) []reports.Exchange {
	recs = transcript.Evidence(recs, keep)
	out := make([]reports.Exchange, 0, len(recs))
	for _, r := range recs {
		out = append(out, reports.Exchange{Seq: r.Seq, AtMs: r.At.Sub(started).Milliseconds(), Direction: r.Dir, Channel: r.Channel, Meta: r.Summary(), Body: r.Body})
	}
	return out
}
