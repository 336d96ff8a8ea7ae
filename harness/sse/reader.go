package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEventSize bounds the bytes a Reader holds for one event when no option says otherwise.
const DefaultMaxEventSize = 8 << 20

// readChunk is how much a Reader asks its source for at a time.
const readChunk = 32 << 10

// maxEmptyReads is how many (0, nil) reads in a row a Reader tolerates before giving up,
// so a broken source cannot spin it forever.
const maxEmptyReads = 100

// ErrEventTooLarge is returned (wrapped) when the bytes since the previous event, including a
// single unterminated line, exceed the maximum event size.
var ErrEventTooLarge = errors.New("sse: event exceeds the maximum size")

// Option configures a Reader.
type Option func(*Reader)

// WithMaxEventSize sets the most bytes a Reader buffers between two events (lines, comments
// and the event itself). Values below 1 keep the default.
func WithMaxEventSize(n int) Option {
	return func(r *Reader) {
		if n > 0 {
			r.maxSize = n
		}
	}
}

// Reader reads events from a text/event-stream. It is not safe for concurrent use.
type Reader struct {
	src     io.Reader
	maxSize int

	buf        []byte // read buffer; buf[start:end] is not yet consumed
	start, end int

	line      []byte // the current line, when it spans several reads
	raw       []byte // bytes consumed since the previous event
	counted   int    // raw's size as the bound counts it (see consume)
	pendingCR bool   // the last line ended with CR: a following LF belongs to it
	firstLine bool   // the next line is the stream's first (where a BOM may sit)

	block       blockState
	idBuffer    string // the rules' "last event ID buffer": updated by each accepted id field
	lastEventID string // copied from idBuffer at every blank line, as the rules say
	err         error  // sticky: once set, Next keeps returning it
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader, opts ...Option) *Reader {
	rd := &Reader{src: r, maxSize: DefaultMaxEventSize, firstLine: true}
	for _, opt := range opts {
		opt(rd)
	}
	rd.buf = make([]byte, min(readChunk, rd.maxSize+1))
	return rd
}

// Next returns the next event block that had at least one field. At the end of the stream it
// returns io.EOF; an unfinished block (no blank line after it) is discarded, as the rules say,
// and left in Discarded. A read error is returned wrapped, and the size bound returns an error
// wrapping ErrEventTooLarge. After any error, Next keeps returning the same error.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, err := r.readLine()
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if len(line) == 0 {
			r.lastEventID = r.idBuffer
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if r.block.addLine(line) {
			r.idBuffer = r.block.id
		}
	}
}

// LastEventID is the stream's last event ID as the rules define it: the most recent accepted
// `id` value as of the last blank line, kept across events (what a client would send as
// Last-Event-ID when it reconnects).
func (r *Reader) LastEventID() string { return r.lastEventID }

// Discarded returns the bytes consumed since the last dispatched event. After Next returned
// io.EOF this is the unfinished tail the rules discard, useful as evidence.
func (r *Reader) Discarded() []byte { return bytes.Clone(r.raw) }

// dispatch turns the finished block into an Event, if it had any field, and starts a new one.
// Raw and comments of a block without fields carry over to the next event.
func (r *Reader) dispatch() (Event, bool) {
	if !r.block.hasField {
		return Event{}, false
	}
	endedWithCR := r.pendingCR
	r.takeBufferedLF()
	ev := r.block.event()
	ev.Raw = r.raw
	r.raw, r.counted = nil, 0
	if endedWithCR {
		// The LF of this CRLF may not have arrived yet and would then open the next Raw:
		// reserve its byte there whether or not it comes (see consume).
		r.counted = 1
	}
	r.block = blockState{}
	return ev, true
}

// readLine returns the next line without its terminator. The slice is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		if r.start == r.end {
			if err := r.fill(); err != nil {
				return nil, err
			}
		}
		chunk := r.buf[r.start:r.end]
		if r.takeBufferedLF() {
			continue
		}
		r.pendingCR = false
		i := bytes.IndexAny(chunk, "\r\n")
		if i < 0 {
			if err := r.consume(chunk); err != nil {
				return nil, err
			}
			r.line = append(r.line, chunk...)
			continue
		}
		if err := r.consume(chunk[:i+1]); err != nil {
			return nil, err
		}
		r.line = append(r.line, chunk[:i]...)
		r.pendingCR = chunk[i] == '\r'
		if r.firstLine {
			r.firstLine = false
			r.line = bytes.TrimPrefix(r.line, []byte("\uFEFF"))
		}
		return r.line, nil
	}
}

// takeBufferedLF consumes the LF that completes a CRLF, if it has already been read. It never
// reads: the dispatching blank line's LF may still be in flight, and waiting for it could block
// an event that is complete. Such a late LF lands at the start of the next event's Raw.
func (r *Reader) takeBufferedLF() bool {
	if !r.pendingCR || r.start == r.end || r.buf[r.start] != '\n' {
		return false
	}
	r.pendingCR = false
	r.raw = append(r.raw, '\n')
	r.start++
	return true
}

// consume marks b (a prefix of the unread buffer that holds at most one line end, at its end)
// as read and records it in raw, enforcing the size bound before the bytes are kept.
//
// A CR is counted as two bytes and the LF that may follow it as none, and an event that follows
// one dispatched on a CR starts with one byte reserved. So the count never depends on which
// event a late LF lands in (see takeBufferedLF): the bound gives the same verdict however the
// stream is split into reads, and no Raw ever exceeds it.
func (r *Reader) consume(b []byte) error {
	weight := len(b)
	if b[len(b)-1] == '\r' {
		weight++
	}
	if r.counted+weight > r.maxSize {
		return fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, r.maxSize)
	}
	r.counted += weight
	r.raw = append(r.raw, b...)
	r.start += len(b)
	return nil
}

// fill reads more bytes into the empty buffer.
func (r *Reader) fill() error {
	r.start, r.end = 0, 0
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf)
		if n > 0 {
			r.end = n
			return nil
		}
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		if err != nil {
			return fmt.Errorf("sse: read: %w", err)
		}
	}
	return fmt.Errorf("sse: read: %w", io.ErrNoProgress)
}
