// Package probe is mcpspec's server side for testing clients: a small MCP server scripted per
// scenario, over Streamable HTTP (in process) or stdio (a child process the client launches),
// that answers at the revision a scenario needs and records every byte the client sends and
// every byte it answers. It judges nothing: the client checks read its records.
package probe

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
)

// Recorder keeps the records of one scenario run, in order, and signals each new one.
type Recorder struct {
	mu       sync.Mutex
	start    time.Time
	recs     []record.Record
	dropped  int // records beyond transcript.MaxEntries, counted but not kept
	activity chan struct{}
	waiting  chan struct{}       // closed at the first record of a wait on the client's own timer
	waited   bool                // waiting is closed
	sink     func(record.Record) // also gets every record (the stdio probe streams them to its parent)
}

// NewRecorder starts an empty recording; sink, when not nil, also gets every record.
func NewRecorder(sink func(record.Record)) *Recorder {
	return &Recorder{start: time.Now(), activity: make(chan struct{}, 1), waiting: make(chan struct{}), sink: sink}
}

// Next is the Seq the next record will have.
func (r *Recorder) Next() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.recs) + 1
}

// Add numbers and timestamps rec, keeps it, and passes it on.
func (r *Recorder) Add(rec record.Record) {
	r.mu.Lock()
	rec.Seq = len(r.recs) + r.dropped + 1
	rec.At = time.Now()
	if len(r.recs) < transcript.MaxEntries {
		r.recs = append(r.recs, rec)
	} else {
		r.dropped++ // a flooding client must not exhaust memory; the sink still gets it
	}
	if !r.waited && rec.Event != nil && clientWaits[rec.Event.Kind] {
		r.waited = true
		close(r.waiting)
	}
	sink := r.sink
	r.mu.Unlock()
	if sink != nil {
		sink(rec)
	}
	select {
	case r.activity <- struct{}{}:
	default:
	}
}

// Started is when the recording began: evidence counts each record's time from it.
func (r *Recorder) Started() time.Time { return r.start }

// Records returns a copy of everything recorded so far.
func (r *Recorder) Records() []record.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]record.Record(nil), r.recs...)
	if r.dropped > 0 {
		out = append(out, record.Record{Seq: len(r.recs) + r.dropped + 1, At: time.Now(), Dir: record.Note, Channel: "probe",
			Event: &record.Event{Kind: record.EvDropped, Count: r.dropped},
			Body:  fmt.Sprintf("%d records not kept (recording limit %d)", r.dropped, transcript.MaxEntries)})
	}
	return out
}

// Activity receives a value after records were added (one value for any number of them).
func (r *Recorder) Activity() <-chan struct{} { return r.activity }

// clientWaits are the events after which the client waits on a timer of its own, idle, however
// fast it is: a request held past its timeout, a task that does not finish by itself, a stream
// cut before its response (the client reconnects after the retry delay).
var clientWaits = map[record.EventKind]bool{record.EvHeld: true, record.EvTaskCreated: true, record.EvStreamCut: true}

// Waiting is closed once the probe has made the client wait on a timer of its own (clientWaits),
// whether the probe runs in process or reports from a child (stdio): the engine lets another
// launch start meanwhile.
func (r *Recorder) Waiting() <-chan struct{} { return r.waiting }

// secretHeaders are never recorded with their value.
var secretHeaders = map[string]bool{"Authorization": true, "Cookie": true, "Proxy-Authorization": true}

func headerMap(h http.Header) map[string]string {
	m := make(map[string]string, len(h))
	for k, vs := range h {
		if secretHeaders[k] {
			m[k] = "(redacted)"
			continue
		}
		m[k] = strings.Join(vs, ", ")
	}
	return m
}

// note records an event with its words.
func (rec *Recorder) note(ev record.Event, body string) {
	rec.Add(record.Record{Dir: record.Note, Event: &ev, Body: body})
}
