// Package recording is the one format in which mcpspec keeps real traffic between a client and a
// server: what `mcpspec proxy` relays and what `mcpspec judge` reads. Every frame that crossed
// the wire is one Record, one JSON object a line, in the order the relay saw them.
package recording

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Sides: who sent a frame.
const (
	FromClient = "client"
	FromServer = "server"
	// FromProxy marks what the relay itself did, binding neither side: a 502 it answered for an
	// upstream it could not reach, the end of the session and why (ChanNote).
	FromProxy = "proxy"
)

// Transports a recording can hold.
const (
	Stdio     = "stdio"
	HTTP      = "http"       // Streamable HTTP
	LegacySSE = "legacy-sse" // the HTTP+SSE transport of 2024-11-05
)

// Channels: where on the transport the frame travelled.
const (
	ChanStdin    = "stdin"    // a line the client wrote to the server
	ChanStdout   = "stdout"   // a line the server wrote to the client
	ChanStderr   = "stderr"   // a line of the server's log (never MCP traffic)
	ChanRequest  = "request"  // an HTTP request (Method, Path, Header, Body)
	ChanResponse = "response" // an HTTP response's head and, unless it is a stream, its body (Status, Header, Body)
	ChanEvent    = "event"    // one SSE event of a response stream (Body is its data, EventID its id)
	ChanNote     = "note"     // the relay's own word (From is FromProxy): Note says what happened
)

// Record is one frame as it crossed the wire. Body is the frame's bytes as text (a stdio line
// without its newline, an HTTP body, an SSE event's data).
type Record struct {
	Seq       int       `json:"seq"`
	At        time.Time `json:"at"`
	From      string    `json:"from"`
	Transport string    `json:"transport"`
	// Exchange ties the frames of one HTTP request together: the request, its response and the
	// events of its stream share it. Zero on stdio.
	Exchange int               `json:"exchange,omitempty"`
	Channel  string            `json:"channel"`
	Method   string            `json:"method,omitempty"` // HTTP method of a request
	Path     string            `json:"path,omitempty"`   // request path with its query
	Status   int               `json:"status,omitempty"` // HTTP status of a response
	Header   map[string]string `json:"header,omitempty"` // several values joined by ", "
	EventID  string            `json:"eventId,omitempty"`
	Event    string            `json:"event,omitempty"` // SSE event type when not "message"
	Body     string            `json:"body,omitempty"`
	// Truncated is set when Body was cut at MaxBody: the frame was longer.
	Truncated bool `json:"truncated,omitempty"`
	// Note is what the relay says about the frame: on a ChanNote record the event itself (the
	// session ended, and why), on a frame what it changed in passing it on (a legacy SSE
	// endpoint URL given the proxy's origin; Body keeps what the server sent).
	Note string `json:"note,omitempty"`
}

// MaxBody bounds the bytes of one record's body a recording keeps; a longer frame is cut and
// marked Truncated so that no single message can make a recording (or a judge) unbounded.
const MaxBody = 1 << 20

// MaxLine bounds one line a Reader accepts: a body at MaxBody with every byte escaped, and room
// for the head.
const MaxLine = 6*MaxBody + 64<<10

// Writer appends records to a file, numbering and timestamping them as they come. It is safe for
// concurrent use: a relay's two directions write through one Writer.
type Writer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	c      io.Closer
	enc    *json.Encoder
	seq    int
	err    error
	now    func() time.Time
	redact func(string) string
}

// Create opens path for a new recording; redact, when not nil, is applied to every body and
// header value before it is written.
func Create(path string, redact func(string) string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("recording file: %w", err)
	}
	return NewWriter(f, redact), nil
}

// NewWriter writes records to w (closed by Close when it is an io.Closer).
func NewWriter(w io.Writer, redact func(string) string) *Writer {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	c, _ := w.(io.Closer)
	return &Writer{w: bw, c: c, enc: enc, now: time.Now, redact: redact}
}

// Add numbers rec, stamps it when At is zero, cuts its body at MaxBody, and writes it. It returns
// the record as written (so a caller can keep it); the first write error is kept for Close.
func (w *Writer) Add(rec Record) Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	rec.Seq = w.seq
	if rec.At.IsZero() {
		rec.At = w.now()
	}
	if len(rec.Body) > MaxBody {
		rec.Body, rec.Truncated = rec.Body[:MaxBody], true
	}
	out := rec
	if w.redact != nil {
		out.Body = w.redact(out.Body)
		if len(out.Header) > 0 {
			h := make(map[string]string, len(out.Header))
			for k, v := range out.Header {
				h[k] = w.redact(v)
			}
			out.Header = h
		}
	}
	if w.err == nil {
		w.err = w.enc.Encode(out)
	}
	return rec
}

// Flush writes out what is buffered (a relay flushes when traffic pauses so that a recording
// cut short by a kill loses little).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.w.Flush(); w.err == nil && err != nil {
		w.err = err
	}
	return w.err
}

// Close flushes and closes the file, reporting the first error met while writing.
func (w *Writer) Close() error {
	err := w.Flush()
	if w.c != nil {
		if cerr := w.c.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("writing the recording: %w", err)
	}
	return nil
}

// ErrTooLong is returned by Read for a line over MaxLine.
var ErrTooLong = errors.New("recording line longer than the limit")

// Read parses a whole recording, keeping at most max records (0: no bound); it returns how many
// more it skipped so that a judge can say its view was cut.
func Read(r io.Reader, max int) (recs []Record, skipped int, err error) {
	return readRecords(r, max, 0)
}

// readRecords is Read with room made for capHint records at once: a judge of a long recording
// keeps up to max of them, and growing the slice by doubling would hold two arrays at once.
func readRecords(r io.Reader, max, capHint int) (recs []Record, skipped int, err error) {
	recs = make([]Record, 0, capHint)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		if max > 0 && len(recs) >= max {
			skipped++
			continue
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return recs, skipped, fmt.Errorf("recording line %d: %w", line, err)
		}
		// The decoder gives every record its own copy of these few words; one copy each is
		// enough for a recording of millions.
		rec.From = intern(rec.From, FromClient, FromServer, FromProxy)
		rec.Transport = intern(rec.Transport, Stdio, HTTP, LegacySSE)
		rec.Channel = intern(rec.Channel, ChanStdin, ChanStdout, ChanStderr, ChanRequest, ChanResponse, ChanEvent, ChanNote)
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return recs, skipped, fmt.Errorf("recording line %d: %w (%d bytes)", line+1, ErrTooLong, MaxLine)
		}
		return recs, skipped, fmt.Errorf("reading the recording: %w", err)
	}
	return recs, skipped, nil
}

// intern returns the constant among known that equals s, else s.
func intern(s string, known ...string) string {
	for _, k := range known {
		if s == k {
			return k
		}
	}
	return s
}
