package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/record"
)

func TestEvidenceBound(t *testing.T) {
	short := []record.Record{{Seq: 1, Body: "a"}, {Seq: 2, Body: strings.Repeat("b", MaxBodyBytes+3)}}
	got := Evidence(short, nil)
	if len(got) != 2 || got[1].Body != strings.Repeat("b", MaxBodyBytes)+"… [3 more bytes]" {
		t.Errorf("a short evidence is kept whole, its bodies clipped: got %d entries, body of %d bytes", len(got), len(got[1].Body))
	}
	if len(short[1].Body) != MaxBodyBytes+3 {
		t.Error("Evidence changed its argument")
	}

	var long []record.Record
	for i := 1; i <= 1000; i++ {
		long = append(long, record.Record{Seq: i, Dir: record.Recv})
	}
	got = Evidence(long, func(seq int) bool { return seq == 400 })
	var seqs []int
	notes := 0
	for _, e := range got {
		if e.Dir == record.Note {
			notes++
			continue
		}
		seqs = append(seqs, e.Seq)
	}
	if len(seqs) != MaxEvidence+1 || notes != 2 {
		t.Fatalf("%d entries and %d notes, want %d (the bound and the one kept) and 2", len(seqs), notes, MaxEvidence+1)
	}
	if seqs[0] != 1 || seqs[MaxEvidence/2] != 400 || seqs[len(seqs)-1] != 1000 {
		t.Errorf("kept %v…, want the first half, record 400, the last half", seqs[:3])
	}
	if n := Evidence(long, nil); len(n) != MaxEvidence+1 || n[MaxEvidence/2].Dir != record.Note || n[MaxEvidence/2].Seq != MaxEvidence/2+1 {
		t.Errorf("without keep: %d entries, want the halves around one note naming the first left out", len(n))
	}
}

// The harness's notes in the part left out stay (a flood's "messages are dropped" is the
// evidence a verdict rests on), up to maxMiddleNotes of them.
func TestEvidenceKeepsHarnessNotes(t *testing.T) {
	var long []record.Record
	for i := 1; i <= 1000; i++ {
		e := record.Record{Seq: i, Dir: record.Recv}
		if i == 500 || i > 600 && i <= 600+2*maxMiddleNotes {
			e = record.Record{Seq: i, Dir: record.Note, Channel: "harness", Body: fmt.Sprint("note ", i)}
		}
		long = append(long, e)
	}
	kept := map[int]bool{}
	for _, e := range Evidence(long, nil) {
		if strings.HasPrefix(e.Body, "note ") {
			kept[e.Seq] = true
		}
	}
	if !kept[500] {
		t.Error("the harness's note in the middle was left out")
	}
	if len(kept) != maxMiddleNotes {
		t.Errorf("%d of the middle's notes kept, want the first %d", len(kept), maxMiddleNotes)
	}
}
