// Package transcript records every frame exchanged with a target, in order, so that a failing
// check can show the exact bytes behind its verdict.
package transcript

import (
	"fmt"
	"sync"
	"time"
)

// Direction of an entry.
const (
	Send = "send"
	Recv = "recv"
	Note = "note"
)

// Entry is one frame or note.
type Entry struct {
	Seq     int
	At      time.Time
	Dir     string // Send, Recv or Note
	Channel string // "stdin", "stdout", "stderr", "POST", "POST-JSON", "POST-SSE", "GET-SSE", "HTTP", …
	Meta    string // e.g. "HTTP 202", an SSE event id
	Body    string
}

// Limits bound what a transcript keeps, so a flooding target cannot exhaust memory: the same
// for the server side's transcripts and the client side's probe recordings.
const (
	maxEntries   = MaxEntries
	maxBodyBytes = MaxBodyBytes
)

// Transcript is safe for concurrent use. The zero value is not usable; use New.
type Transcript struct {
	mu      sync.Mutex
	entries []Entry
	dropped int
	seq     int
}

// New returns an empty transcript.
func New() *Transcript { return &Transcript{} }

// Add records an entry and returns its sequence number. Bodies beyond the limit are cut, and
// entries beyond the limit are counted but not kept.
func (t *Transcript) Add(dir, channel, meta string, body []byte) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	if len(t.entries) >= maxEntries {
		t.dropped++
		return t.seq
	}
	t.entries = append(t.entries, Entry{Seq: t.seq, At: time.Now(), Dir: dir, Channel: channel, Meta: meta, Body: ClipBody(string(body))})
	return t.seq
}

// Notef records a note.
func (t *Transcript) Notef(format string, args ...any) {
	t.Add(Note, "harness", "", []byte(fmt.Sprintf(format, args...)))
}

// Mark returns the sequence number of the last entry; Since(mark) returns what came after it.
func (t *Transcript) Mark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// Since returns the entries recorded after mark.
func (t *Transcript) Since(mark int) []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Entry
	for _, e := range t.entries {
		if e.Seq > mark {
			out = append(out, e)
		}
	}
	if t.dropped > 0 {
		out = append(out, Entry{At: time.Now(), Dir: Note, Channel: "harness", Body: fmt.Sprintf("%d entries not kept (transcript limit)", t.dropped)})
	}
	return out
}
