// Package stdio launches a server as a child process and speaks newline-delimited JSON-RPC to it,
// recording every framing rule the server breaks instead of hiding it.
package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Framing limits: one line may be large (a big tools/list), but not unbounded.
const (
	DefaultMaxLine = 16 << 20
	// maxJoinedLines bounds how many lines are joined when a message is split over several lines
	// (pretty-printed JSON), so garbage cannot make the reader buffer forever.
	maxJoinedLines = 4096
)

// Frame is what the framer found on stdout: a message (possibly joined from several lines) or a
// violation, never both.
type Frame struct {
	Message   []byte // one complete JSON value, when the frame is a message
	Lines     int    // how many stdout lines it took; more than 1 breaks the newline rule
	Violation string // kind of violation, when the frame is not a clean message
	Detail    string
	Raw       []byte // the offending bytes, for evidence
}

// Violation kinds, named after what a person would call them.
const (
	NonJSONLine     = "non-json-line"
	EmbeddedNewline = "embedded-newline"
	InvalidUTF8     = "invalid-utf8"
	BlankLine       = "blank-line"
	CarriageReturn  = "carriage-return"
	ByteOrderMark   = "bom"
	OversizedLine   = "oversized-line"
)

// Framer splits a server's stdout into frames.
type Framer struct {
	r       *bufio.Reader
	maxLine int
	first   bool
	pending []Frame
}

// NewFramer reads from r; maxLine <= 0 means DefaultMaxLine.
func NewFramer(r io.Reader, maxLine int) *Framer {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Framer{r: bufio.NewReaderSize(r, 64<<10), maxLine: maxLine, first: true}
}

// Next returns the next frame. A message split over several lines is returned once, joined, with
// an EmbeddedNewline violation frame before it; it ends with io.EOF.
func (f *Framer) Next() (Frame, error) {
	if len(f.pending) > 0 {
		fr := f.pending[0]
		f.pending = f.pending[1:]
		return fr, nil
	}
	line, err := f.readLine()
	if err != nil {
		return Frame{}, err
	}
	if line.Violation != "" {
		return line, nil
	}
	return f.classify(line.Raw)
}

// readLine returns one line without its terminator, or an OversizedLine violation.
func (f *Framer) readLine() (Frame, error) {
	var buf []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		n := len(buf) + len(chunk)
		if err == nil {
			n-- // the terminating newline is not part of the line
		}
		if n > f.maxLine {
			// Skip the rest of this line and report it.
			sample := append(buf, chunk...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = f.r.ReadSlice('\n')
			}
			return Frame{Violation: OversizedLine, Detail: fmt.Sprintf("a stdout line over the %s framing limit", sizeName(f.maxLine)), Raw: cut(sample)}, nil
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(buf) > 0 && errors.Is(err, io.EOF) {
				// A last line without a newline is still looked at.
				return Frame{Raw: buf}, nil
			}
			return Frame{}, err
		}
		return Frame{Raw: bytes.TrimSuffix(buf, []byte("\n"))}, nil
	}
}

func (f *Framer) classify(line []byte) (Frame, error) {
	var notes []Frame
	if f.first {
		f.first = false
		if bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
			notes = append(notes, Frame{Violation: ByteOrderMark, Detail: "stdout starts with a UTF-8 byte order mark", Raw: cut(line)})
			line = line[3:]
		}
	}
	if bytes.HasSuffix(line, []byte("\r")) {
		notes = append(notes, Frame{Violation: CarriageReturn, Detail: "line ends with \\r\\n instead of \\n", Raw: cut(line)})
		line = line[:len(line)-1]
	}
	if !utf8.Valid(line) {
		notes = append(notes, Frame{Violation: InvalidUTF8, Detail: "line is not valid UTF-8", Raw: cut(line)})
	}
	var result Frame
	switch {
	case len(bytes.Trim(line, " \t\r\n")) == 0: // JSON whitespace only; a form feed is garbage
		result = Frame{Violation: BlankLine, Detail: "blank line on stdout", Raw: line}
	case json.Valid(line):
		result = Frame{Message: line, Lines: 1}
	default:
		var err error
		result, err = f.join(line)
		if err != nil && len(notes) == 0 {
			return result, err
		}
	}
	if len(notes) == 0 {
		return result, nil
	}
	// The notes on the line come first, then its frame, then whatever join queued after it.
	queued := f.pending
	f.pending = append(append(append([]Frame(nil), notes[1:]...), result), queued...)
	return notes[0], nil
}

// join handles a line that is not JSON by itself: if it is the start of a JSON value spread over
// several lines, the lines are joined and reported as one message plus an EmbeddedNewline
// violation; otherwise the line is garbage.
func (f *Framer) join(first []byte) (Frame, error) {
	if !incomplete(first) {
		return Frame{Violation: NonJSONLine, Detail: "stdout line is not JSON", Raw: cut(first)}, nil
	}
	joined := append([]byte(nil), first...)
	var consumed [][]byte
	var stop *Frame // a violation that ended the joining (an oversized line), reported in its turn
	for n := 1; n < maxJoinedLines && len(joined) <= f.maxLine; n++ {
		next, err := f.readLine()
		if err != nil {
			break
		}
		if next.Violation != "" {
			stop = &next
			break
		}
		consumed = append(consumed, next.Raw)
		joined = append(append(joined, '\n'), next.Raw...)
		if json.Valid(joined) {
			// The first line was checked by classify; the lines joined to it were not.
			if !utf8.Valid(joined[len(first):]) {
				f.pending = append(f.pending, Frame{Violation: InvalidUTF8, Detail: "a continuation line is not valid UTF-8", Raw: cut(joined)})
			}
			f.pending = append(f.pending, Frame{Message: joined, Lines: n + 1})
			return Frame{Violation: EmbeddedNewline, Detail: fmt.Sprintf("one JSON message spread over %d lines", n+1), Raw: cut(joined)}, nil
		}
		if !incomplete(joined) {
			break
		}
	}
	// Not a split message after all: every line read is garbage, reported one by one so none is lost.
	for _, c := range consumed {
		f.pending = append(f.pending, lineFrame(c))
	}
	if stop != nil {
		f.pending = append(f.pending, *stop)
	}
	return Frame{Violation: NonJSONLine, Detail: "stdout line is not JSON", Raw: cut(first)}, nil
}

func lineFrame(line []byte) Frame {
	if json.Valid(line) {
		return Frame{Message: line, Lines: 1}
	}
	return Frame{Violation: NonJSONLine, Detail: "stdout line is not JSON", Raw: cut(line)}
}

// incomplete reports whether b is the unfinished start of exactly one JSON object or array:
// decoding runs out of input while still inside it, with no syntax error on the way.
func incomplete(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return depth > 0 && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF))
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
			if depth == 0 {
				return false // a whole value ended: whatever follows makes the line garbage
			}
		}
	}
}

func cut(b []byte) []byte {
	const max = 512
	if len(b) <= max {
		return append([]byte(nil), b...)
	}
	return append(append([]byte(nil), b[:max]...), []byte("…")...)
}

// sizeName writes a byte count as people read it: "16 MiB" for a whole number of MiB.
func sizeName(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
