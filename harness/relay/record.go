// Package relay passes the traffic between a real MCP host and a real server through unchanged
// and records every frame of it (harness/recording): the stdio relay launches the server and
// copies the host's pipes to it byte for byte, the HTTP relay is a reverse proxy for Streamable
// HTTP and the legacy HTTP+SSE transport. `mcpspec proxy` is its command line.
package relay

import (
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
)

// flushPause is how long traffic must pause before the recording's buffer is written out, and
// flushEvery the longest a record waits in it however busy the relay: a recording cut short by
// a kill loses at most that much, and a busy relay does not write to disk per frame.
const (
	flushPause = 20 * time.Millisecond
	flushEvery = time.Second
)

// Recorder adds records to a recording.Writer for a relay: it flushes when traffic pauses,
// keeps credentials out of the file, and refuses records once closed (a direction still
// draining after the session ended must not write past the end).
type Recorder struct {
	w      *recording.Writer
	mu     sync.Mutex
	closed bool
	dirty  chan struct{}
	done   chan struct{}
	ended  chan struct{}
}

// NewRecorder records through w, which it owns from now on (Close closes it).
func NewRecorder(w *recording.Writer) *Recorder {
	r := &Recorder{w: w, dirty: make(chan struct{}, 1), done: make(chan struct{}), ended: make(chan struct{})}
	go r.flusher()
	return r
}

// Add writes rec (numbered and stamped by the writer) unless the recorder is closed.
func (r *Recorder) Add(rec recording.Record) {
	rec.Header = redactHeader(rec.Header)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.w.Add(rec)
	select {
	case r.dirty <- struct{}{}:
	default:
	}
}

// Close stops recording and writes the file out.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	close(r.done)
	<-r.ended
	return r.w.Close()
}

// flusher writes the buffer out once traffic has paused for flushPause, or flushEvery after
// the first record it holds.
func (r *Recorder) flusher() {
	defer close(r.ended)
	for {
		select {
		case <-r.done:
			return
		case <-r.dirty:
		}
		oldest := time.NewTimer(flushEvery)
		pause := time.NewTimer(flushPause)
	wait:
		for {
			select {
			case <-r.done:
				oldest.Stop()
				pause.Stop()
				return
			case <-r.dirty:
				pause.Reset(flushPause)
			case <-pause.C:
				break wait
			case <-oldest.C:
				break wait
			}
		}
		oldest.Stop()
		pause.Stop()
		_ = r.w.Flush() // a write error is kept by the writer and reported by Close
	}
}

// Note records what the relay itself did or saw (the session's end, a refused upstream): a
// record from the proxy, which binds neither side.
func (r *Recorder) Note(transport, channel, note string) {
	r.Add(recording.Record{From: recording.FromProxy, Transport: transport, Channel: channel, Note: note})
}

// redacted replaces a credential in a recorded header: the recording shows that one was sent,
// and with which scheme, never its value.
const redacted = "[REDACTED]"

// redactHeader keeps the scheme of Authorization and drops the value of every header that
// carries a credential.
func redactHeader(h map[string]string) map[string]string {
	var out map[string]string
	for k, v := range h {
		var nv string
		switch strings.ToLower(k) {
		case "authorization", "proxy-authorization":
			nv = redacted
			if scheme, _, ok := strings.Cut(v, " "); ok {
				nv = scheme + " " + redacted
			}
		case "cookie", "set-cookie", "x-api-key", "api-key":
			nv = redacted
		default:
			continue
		}
		if out == nil {
			out = make(map[string]string, len(h))
			for k2, v2 := range h {
				out[k2] = v2
			}
		}
		out[k] = nv
	}
	if out == nil {
		return h
	}
	return out
}
