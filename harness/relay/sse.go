package relay

import (
	"bytes"
	"io"
	"net/url"
	"strings"

	"github.com/mcpspec/mcpspec/harness/recording"
)

// holdLine bounds the bytes of one SSE line the relay holds until its end: a line is passed on
// whole (a client acts on an event only at the blank line after it, so holding a line delays
// nothing it sees), which lets the relay give a legacy endpoint URL the proxy's origin. A
// longer line is passed on as it comes.
const holdLine = 64 << 10

// sseEvent is the event being parsed, for the recording.
type sseEvent struct {
	data       []byte
	dataCut    bool
	id, typ    string
	seen       bool   // a data, id or event field arrived since the last dispatch
	note       string // what the relay changed in this event
	line       []byte // the current line, when it spans several reads
	lineCut    bool
	emitRecord func(rec recording.Record)
}

// feed takes part of a line; eol says the line ends here.
func (e *sseEvent) feed(part []byte, eol bool) {
	if room := recording.MaxBody + 64 - len(e.line); room < len(part) {
		part, e.lineCut = part[:max(room, 0)], true
	}
	e.line = append(e.line, part...)
	if !eol {
		return
	}
	line := bytes.TrimSuffix(e.line, []byte("\r"))
	e.field(line)
	e.line, e.lineCut = e.line[:0], false
	if cap(e.line) > holdLine {
		e.line = nil
	}
}

// field applies one complete line, as the SSE parsing rules do.
func (e *sseEvent) field(line []byte) {
	if len(line) == 0 {
		e.dispatch()
		return
	}
	if line[0] == ':' {
		return // a comment
	}
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		// Lines join with "\n": "data:" then "data: x" is "\nx", so a first empty data line
		// (nil data) is told from none by the empty, non-nil slice it leaves.
		// The event's data is kept up to MaxBody however many lines it has: an upstream that
		// never ends an event cannot grow the relay.
		if len(e.data) >= recording.MaxBody {
			e.dataCut = true
			return
		}
		if e.data != nil {
			e.data = append(e.data, '\n')
		}
		if room := recording.MaxBody - len(e.data); len(value) > room {
			value, e.dataCut = value[:max(room, 0)], true
		}
		e.seen, e.data = true, append(e.data, value...)
		if e.data == nil {
			e.data = []byte{}
		}
		e.dataCut = e.dataCut || e.lineCut
	case "id":
		e.seen, e.id = true, string(value)
	case "event":
		e.seen, e.typ = true, string(value)
	}
}

func (e *sseEvent) dispatch() {
	if !e.seen {
		return
	}
	body, cut := e.data, e.dataCut
	if len(body) > recording.MaxBody {
		body, cut = body[:recording.MaxBody], true
	}
	typ := e.typ
	if typ == "message" {
		typ = ""
	}
	e.emitRecord(recording.Record{Channel: recording.ChanEvent, EventID: e.id, Event: typ, Body: string(body), Truncated: cut, Note: e.note})
	e.data, e.dataCut, e.id, e.typ, e.seen, e.note = nil, false, "", "", false, ""
}

// sseRelay passes an event stream through unchanged, line by line, recording every event; in
// a legacy stream it gives an absolute endpoint URL on the upstream's origin the proxy's.
type sseRelay struct {
	src      io.ReadCloser
	buf      []byte // read from src, not yet passed on
	out      []byte // ready to be passed on
	long     bool   // passing on a line longer than holdLine
	ev       sseEvent
	from, to string // origins: the upstream's, and the proxy's as the host named it ("" for none)
	err      error
	onCut    func(error) // the upstream's stream broke
	onClose  func()
}

func (s *sseRelay) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.fill()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// fill reads once from the upstream and moves every complete line (or a long line's bytes so
// far) to out.
func (s *sseRelay) fill() {
	var tmp [chunk]byte
	n, err := s.src.Read(tmp[:])
	s.buf = append(s.buf, tmp[:n]...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		line := s.buf[:i+1]
		if !s.long {
			line = s.rewrite(line)
		}
		s.out = append(s.out, line...)
		s.ev.feed(s.buf[:i], true)
		s.buf = s.buf[i+1:]
		s.long = false
	}
	if len(s.buf) > holdLine || (err != nil && len(s.buf) > 0) {
		s.long = true
		s.out = append(s.out, s.buf...)
		s.ev.feed(s.buf, false)
		s.buf = s.buf[:0]
	}
	if len(s.buf) == 0 {
		s.buf = nil // the buffer of a long line is not kept
	}
	if err != nil {
		if err != io.EOF && s.onCut != nil {
			s.onCut(err)
		}
		s.err = err
	}
}

// rewrite gives a data line holding an absolute URL on the upstream's origin the proxy's
// origin (legacy SSE's endpoint event), noting the change on the event; any other line is
// returned as it is.
func (s *sseRelay) rewrite(line []byte) []byte {
	if s.to == "" || !bytes.HasPrefix(line, []byte("data:")) {
		return line
	}
	body := bytes.TrimRight(line, "\r\n")
	eol := line[len(body):]
	value := strings.TrimPrefix(string(body[len("data:"):]), " ")
	u, err := url.Parse(value)
	if err != nil || !u.IsAbs() || u.Scheme+"://"+u.Host != s.from {
		return line
	}
	rest := strings.TrimPrefix(value, s.from)
	s.ev.note = "endpoint URL given the proxy's origin for the host: " + s.to + rest + " (the body is what the server sent)"
	return append([]byte("data: "+s.to+rest), eol...)
}

func (s *sseRelay) Close() error {
	if s.onClose != nil {
		s.onClose()
	}
	return s.src.Close()
}
