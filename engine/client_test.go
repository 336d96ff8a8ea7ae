package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/reports"
)

// TestEvidenceKeepsCitedRecord: past the evidence bound, the record a verdict cites stays.
func TestEvidenceKeepsCitedRecord(t *testing.T) {
	out := launchOutcome{started: time.Now()}
	for i := 1; i <= 1000; i++ {
		out.records = append(out.records, probe.Record{Seq: i, AtMs: int64(i), Dir: probe.Recv, Channel: probe.ChanPOST, Body: fmt.Sprintf(`{"n":%d}`, i)})
	}
	ex := evidence(out, "the client did wrong (record 500) and worse (record 700)")
	if len(ex) > transcript.MaxEvidence+5 {
		t.Errorf("%d exchanges, want the bound (%d) and a few notes", len(ex), transcript.MaxEvidence)
	}
	for _, want := range []int{1, 500, 700, 1000} {
		if !slices.ContainsFunc(ex, func(e reports.Exchange) bool { return e.Seq == want && e.Direction == probe.Recv }) {
			t.Errorf("record %d is not in the evidence", want)
		}
	}
	if e := ex[slices.IndexFunc(ex, func(e reports.Exchange) bool { return e.Seq == 500 })]; e.AtMs != 500 {
		t.Errorf("record 500 at %d ms, want 500", e.AtMs)
	}
}

func TestInterruptionFirstReasonStands(t *testing.T) {
	i := NewInterruption()
	if i.Reason() != "" {
		t.Fatal("interrupted before Interrupt")
	}
	i.Interrupt("SIGTERM")
	i.Interrupt("SIGINT")
	select {
	case <-i.Done():
	default:
		t.Fatal("Done is not closed")
	}
	if i.Reason() != "SIGTERM" {
		t.Errorf("reason %q, want the first, SIGTERM", i.Reason())
	}
}

// A client's stderr is quoted by the line that says why it failed, however long its tail.
func TestStderrHintQuotesTheReason(t *testing.T) {
	stderr := "Error: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules\n" + strings.Repeat("    at frame (file.js:1:1)\n", 40)
	hint := stderrHint(stderr)
	if !strings.HasPrefix(hint, "; its stderr says: Error: set MCPSPEC_SDK_NODE_MODULES to the SDK's node_modules; its stderr ends: …") {
		t.Errorf("hint %q", hint)
	}
}
