// Package transcript records every frame exchanged with a target, in order, so that a failing
// check can show the exact bytes behind its verdict.
package transcript

import (
	"fmt"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// Limits bound what a transcript keeps, so a flooding server cannot exhaust memory: the first
// entries (the handshake, whatever a long session began with) up to headEntries and headBytes,
// and the latest ones up to tailEntries and tailBytes. What falls between is counted and said,
// except the harness's own notes (up to keptNotes of them): what it dropped or gave up on is the
// evidence a verdict on a flood rests on.
const (
	keptNotes    = 20
	headEntries  = 1000
	headBytes    = 1 << 20
	tailEntries  = 2000
	tailBytes    = 2 << 20
	maxBodyBytes = MaxBodyBytes
)

// Transcript is safe for concurrent use. The zero value is not usable; use New.
type Transcript struct {
	mu        sync.Mutex
	head      []record.Record
	headSize  int
	headFull  bool
	tail      []record.Record // the latest entries after the head, oldest first
	tailSize  int
	dropped   int             // entries between head and tail no longer kept
	droppedTo int             // seq of the last of them
	notes     []record.Record // the harness's notes among them, kept
	seq       int
}

// New returns an empty transcript.
func New() *Transcript { return &Transcript{} }

// Add records an entry and returns its sequence number. Bodies beyond the limit are cut; once
// the head is full, the oldest entries after it are dropped to keep the tail in bounds.
func (t *Transcript) Add(dir, channel, meta string, body []byte) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	b := ClipBody(string(body))
	e := record.Record{Seq: t.seq, At: time.Now(), Dir: dir, Channel: channel, Meta: meta, Body: b}
	if !t.headFull && len(t.head) < headEntries && t.headSize+len(b) <= headBytes {
		t.head = append(t.head, e)
		t.headSize += len(b)
		return t.seq
	}
	t.headFull = true // later entries never join the head: it stays the run's beginning
	t.tail = append(t.tail, e)
	t.tailSize += len(b)
	drop := 0
	for len(t.tail)-drop > 1 && (len(t.tail)-drop > tailEntries || t.tailSize > tailBytes) {
		t.tailSize -= len(t.tail[drop].Body)
		t.droppedTo = t.tail[drop].Seq
		if t.tail[drop].Dir == record.Note && len(t.notes) < keptNotes {
			t.notes = append(t.notes, t.tail[drop])
		}
		t.tail[drop] = record.Record{}
		drop++
	}
	if drop > 0 {
		t.dropped += drop
		t.tail = t.tail[drop:]
		if cap(t.tail) > 4*tailEntries && len(t.tail) < cap(t.tail)/4 {
			t.tail = append(make([]record.Record, 0, 2*len(t.tail)), t.tail...)
		}
	}
	return t.seq
}

// Notef records a note.
func (t *Transcript) Notef(format string, args ...any) {
	t.Add(record.Note, "harness", "", []byte(fmt.Sprintf(format, args...)))
}

// Mark returns the sequence number of the last entry; Since(mark) returns what came after it.
func (t *Transcript) Mark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// Since returns the entries recorded after mark, with a note where entries after mark were
// dropped.
func (t *Transcript) Since(mark int) []record.Record {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []record.Record
	for _, e := range t.head {
		if e.Seq > mark {
			out = append(out, e)
		}
	}
	if t.dropped > 0 && t.droppedTo > mark {
		out = append(out, record.Record{At: time.Now(), Dir: record.Note, Channel: "harness",
			Body: fmt.Sprintf("%d entries not kept (transcript limit), up to #%d", t.dropped, t.droppedTo)})
	}
	for _, e := range t.notes {
		if e.Seq > mark {
			out = append(out, e)
		}
	}
	for _, e := range t.tail {
		if e.Seq > mark {
			out = append(out, e)
		}
	}
	return out
}
