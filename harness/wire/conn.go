package wire

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/transcript"
)

// Transport names, as they appear in reports.
const (
	Stdio = "stdio"
	HTTP  = "http"
	SSE   = "sse"
)

// Conn is one connection to a target: a launched stdio process, or a client of an HTTP endpoint.
// Everything the target sends lands in the Inbox; everything exchanged lands in the Transcript.
type Conn interface {
	Transport() string
	// Send writes one frame (any bytes: a message, a batch, broken JSON). Over HTTP it starts a
	// POST and returns at once; the Delivery tells its status when it is known.
	Send(ctx context.Context, frame []byte) (*Delivery, error)
	Inbox() *Inbox
	Transcript() *transcript.Transcript
	// Violations lists what the transport saw that breaks framing rules (non-JSON stdout lines,
	// embedded newlines, invalid UTF-8, …).
	Violations() []Violation
	// Done is closed once the connection can no longer carry messages (the process exited, the
	// client was closed); Err then says why.
	Done() <-chan struct{}
	Err() error
	// Diagnostics is the tail of what the target wrote to stderr (stdio targets, launched HTTP
	// servers), for error messages.
	Diagnostics() string
	Close() error
}

// Drainer is a Conn whose every incoming message comes on a stream the harness opened (each
// Streamable HTTP POST or GET): once none is open, nothing more can arrive until the harness
// sends again, so silence needs no further waiting.
type Drainer interface {
	// Drained is closed once no stream of the connection is open (at once, if none is now).
	Drained() <-chan struct{}
}

// Violation is something a transport observed that breaks a framing rule.
type Violation struct {
	At     time.Time
	Kind   string // e.g. "non-json-line", "embedded-newline", "invalid-utf8", "blank-line", "bom", "oversized-line"
	Detail string
	Sample string // the offending bytes, cut to a readable length
}

// Delivery is the fate of one Send. For stdio it is complete as soon as the bytes are written.
// For HTTP it carries the status, headers and body of the POST's response.
type Delivery struct {
	ready    chan struct{} // closed when the status line and headers (or an error) are known
	finished chan struct{} // closed when the response body or stream has ended
	once     sync.Once
	fonce    sync.Once
	readyErr error // Err as it was when ready closed: Err itself may still change until finished

	// CarriesReplies is true when the replies to what was sent come in this delivery's body
	// (HTTP): once it has finished, a reply that has not arrived will not come.
	CarriesReplies bool

	// Set before ready is closed.
	Status      int
	Header      http.Header
	ContentType string
	// Err is set before ready when the request failed, or later, before finished, when the body
	// or stream broke off: read it only after Finished (Ready returns its value at ready time).
	Err error
	// Set before finished is closed.
	Body   []byte // the body of a non-SSE response, as received
	Events int    // the number of SSE events received on the response stream

	evMu    sync.Mutex
	events  []Event
	resumes []Resume
}

// Resume is one GET with Last-Event-ID by which the harness continued a POST's SSE stream whose
// connection the server closed before the stream carried its responses (Streamable HTTP,
// 2025-11-25 and later handshake revisions). The resumed stream's events join the delivery's.
type Resume struct {
	AfterEvents int    // how many events the delivery had when the stream was resumed
	LastEventID string // the Last-Event-ID sent
	Status      int    // the GET's HTTP status, 0 when it got none
	ContentType string
	Err         error // why the GET could not continue the stream, nil when it did
}

// AddResume records a resumption of the delivery's stream.
func (d *Delivery) AddResume(r Resume) {
	d.evMu.Lock()
	d.resumes = append(d.resumes, r)
	d.evMu.Unlock()
}

// Resumes returns the resumptions of the delivery's stream so far, oldest first.
func (d *Delivery) Resumes() []Resume {
	d.evMu.Lock()
	defer d.evMu.Unlock()
	return append([]Resume(nil), d.resumes...)
}

// Event describes one SSE event of a response stream, for the transport checks.
type Event struct {
	ID       string
	HasID    bool
	Type     string
	Data     string
	HasRetry bool
	At       time.Time
}

// AddEvent records an SSE event as it arrives.
func (d *Delivery) AddEvent(e Event) {
	d.evMu.Lock()
	d.events = append(d.events, e)
	d.evMu.Unlock()
}

// EventsSoFar returns the SSE events received so far on this delivery's stream.
func (d *Delivery) EventsSoFar() []Event {
	d.evMu.Lock()
	defer d.evMu.Unlock()
	return append([]Event(nil), d.events...)
}

// NewDelivery returns a delivery that is neither ready nor finished.
func NewDelivery() *Delivery {
	return &Delivery{ready: make(chan struct{}), finished: make(chan struct{})}
}

// Completed returns a delivery that is already ready and finished (stdio writes).
func Completed() *Delivery {
	d := NewDelivery()
	d.MarkReady()
	d.MarkFinished()
	return d
}

// MarkReady publishes the status and headers.
func (d *Delivery) MarkReady() {
	d.once.Do(func() {
		d.readyErr = d.Err
		close(d.ready)
	})
}

// MarkFinished publishes the end of the body; it implies ready.
func (d *Delivery) MarkFinished() {
	d.MarkReady()
	d.fonce.Do(func() { close(d.finished) })
}

// Ready waits until the status and headers are known.
func (d *Delivery) Ready(ctx context.Context) error {
	select {
	case <-d.ready:
		return d.readyErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Finished waits until the response body or stream has ended.
func (d *Delivery) Finished(ctx context.Context) error {
	select {
	case <-d.finished:
		return d.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// FinishedChan is closed when the body or stream has ended.
func (d *Delivery) FinishedChan() <-chan struct{} { return d.finished }

// IsFinished reports, without waiting, whether the body or stream has ended.
func (d *Delivery) IsFinished() bool {
	select {
	case <-d.finished:
		return true
	default:
		return false
	}
}
