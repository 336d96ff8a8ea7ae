package transcript

import (
	"fmt"
	"slices"

	"github.com/mcpspec/mcpspec/harness/record"
)

// The bounds of evidence, one rule for the results of server and client checks alike.
const (
	// MaxEntries bounds the entries a transcript (or a probe recording) keeps.
	MaxEntries = 20000
	// MaxBodyBytes bounds one entry's body.
	MaxBodyBytes = 64 << 10
	// MaxEvidence bounds the entries one result keeps as evidence.
	MaxEvidence = 200
	// maxMiddleNotes bounds the harness's notes Evidence keeps from the part it leaves out.
	maxMiddleNotes = 20
)

// ClipBody cuts a body to MaxBodyBytes, saying how much was left out.
func ClipBody(b string) string {
	if len(b) <= MaxBodyBytes {
		return b
	}
	return fmt.Sprintf("%s… [%d more bytes]", b[:MaxBodyBytes], len(b)-MaxBodyBytes)
}

// Evidence bounds one result's evidence: beyond MaxEvidence entries it keeps the first and
// last halves, and between them those whose sequence number keep selects (the records a
// verdict cites; keep may be nil) and the harness's own notes (what it dropped, waited for, …:
// the first maxMiddleNotes of them), with a note in place of each run of entries left out.
// Every body is clipped by ClipBody.
func Evidence(entries []record.Record, keep func(seq int) bool) []record.Record {
	if len(entries) <= MaxEvidence {
		return clipped(entries)
	}
	head, tailStart := MaxEvidence/2, len(entries)-MaxEvidence/2
	out := slices.Clone(entries[:head])
	var first record.Record // the first entry of the run being left out
	left := 0
	flush := func() {
		if left > 0 {
			out = append(out, record.Record{Seq: first.Seq, At: first.At, Dir: record.Note, Channel: "harness",
				Body: fmt.Sprintf("%d exchanges left out here (evidence limit %d; --transcript DIR keeps them all)", left, MaxEvidence)})
			left = 0
		}
	}
	notes := 0
	for _, e := range entries[head:tailStart] {
		note := e.Dir == record.Note && notes < maxMiddleNotes
		if note {
			notes++
		}
		if note || keep != nil && keep(e.Seq) {
			flush()
			out = append(out, e)
			continue
		}
		if left == 0 {
			first = e
		}
		left++
	}
	flush()
	return clipped(append(out, entries[tailStart:]...))
}

// clipped clips every body, copying entries only when one needs it.
func clipped(entries []record.Record) []record.Record {
	for i, e := range entries {
		if len(e.Body) > MaxBodyBytes {
			out := slices.Clone(entries)
			for j := i; j < len(out); j++ {
				out[j].Body = ClipBody(out[j].Body)
			}
			return out
		}
	}
	return entries
}
