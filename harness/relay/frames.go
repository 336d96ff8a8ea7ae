package relay

import (
	"bytes"

	"github.com/mcpspec/mcpspec/harness/recording"
)

// frames cuts a byte stream into newline-delimited frames for the recording, whatever the
// bytes are (a partial line, invalid JSON, a line of gigabytes): it keeps at most
// recording.MaxBody bytes of the frame under way, so memory stays bounded however long a line.
type frames struct {
	emit  func(body []byte, truncated bool)
	cur   []byte
	over  bool // the current frame went past MaxBody
	any   bool // the current frame has at least one byte
	limit int
}

func newFrames(emit func(body []byte, truncated bool)) *frames {
	return &frames{emit: emit, limit: recording.MaxBody}
}

// write takes the next chunk of the stream.
func (f *frames) write(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		f.keep(part)
		if i < 0 {
			return
		}
		f.flush()
		b = b[i+1:]
	}
}

func (f *frames) keep(part []byte) {
	if len(part) == 0 {
		return
	}
	f.any = true
	if room := f.limit - len(f.cur); room < len(part) {
		part, f.over = part[:max(room, 0)], true
	}
	f.cur = append(f.cur, part...)
}

// flush ends the current frame (at a newline, or at the end of the stream for a last line
// without one). An empty line is a frame too: it crossed the wire.
func (f *frames) flush() {
	f.emit(f.cur, f.over)
	f.cur, f.over, f.any = f.cur[:0], false, false
	// A frame near MaxBody must not pin its buffer for the rest of the session.
	if cap(f.cur) > 64<<10 {
		f.cur = nil
	}
}

// end records a last frame that had no newline.
func (f *frames) end() {
	if f.any {
		f.flush()
	}
}
