package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// fence is the console of a run: everything mcpspec prints passes through it, and it
// neutralises what a CI runner would take for a command. The GitHub Actions runner reads every
// line a step prints: "::cmd::" after leading whitespace and "##[cmd]" anywhere are workflow
// commands, and a target's "::stop-commands::x" would silence mcpspec's own annotations, while
// "##[error]" in a message would forge one. The fence writes "\::" for a "::" that begins a
// line and "#\u0023[" for "##[" anywhere (a JSON escape of "#": JSON that mcpspec prints, such as
// `diff --json`, stays valid and means the same); mcpspec's own annotations are written through
// trusted, which bypasses it.
//
// The fence holds back at most the two bytes that may begin a command ("::" or "##") until
// the next byte decides; Flush writes them.
type fence struct {
	mu      sync.Mutex
	w       io.Writer
	lineBeg bool // only blanks since the start of the line
	held    []byte
}

func newFence(w io.Writer) *fence { return &fence{w: w, lineBeg: true} }

// Write neutralises p and writes it; it reports len(p) written when the writes succeed.
func (f *fence) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]byte, 0, len(p)+8)
	for _, c := range p {
		out = f.step(out, c)
	}
	if _, err := f.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// step appends what byte c (after any held bytes) becomes to out.
func (f *fence) step(out []byte, c byte) []byte {
	switch {
	case len(f.held) == 1 && f.held[0] == ':' && f.lineBeg:
		f.held = f.held[:0]
		f.lineBeg = false
		if c == ':' {
			return append(out, '\\', ':', ':')
		}
		out = append(out, ':')
	case len(f.held) == 1 && f.held[0] == '#':
		if c == '#' {
			f.held = append(f.held, c)
			return out
		}
		f.held = f.held[:0]
		out = append(out, '#')
	case len(f.held) == 2: // "##"
		f.held = f.held[:0]
		if c == '[' {
			return append(out, `#\u0023[`...)
		}
		if c == '#' { // "###": the last two may still begin "##["
			f.held = append(f.held, '#', '#')
			return append(out, '#')
		}
		out = append(out, '#', '#')
	}
	switch {
	case c == ':' && f.lineBeg:
		f.held = append(f.held, c)
		return out
	case c == '#':
		f.held = append(f.held, c)
		f.lineBeg = false
		return out
	case c == '\n' || c == '\r':
		f.lineBeg = true
	case c != ' ' && c != '\t':
		f.lineBeg = false
	}
	return append(out, c)
}

// Flush writes the bytes held back.
func (f *fence) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushLocked()
}

func (f *fence) flushLocked() error {
	if len(f.held) == 0 {
		return nil
	}
	held := bytes.Clone(f.held)
	f.held = f.held[:0]
	f.lineBeg = false
	_, err := f.w.Write(held)
	return err
}

// trustedWriter writes mcpspec's own workflow commands past the fence, each at the start of a
// line.
type trustedWriter struct{ f *fence }

func (t trustedWriter) Write(p []byte) (int, error) {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	if err := t.f.flushLocked(); err != nil {
		return 0, err
	}
	n, err := t.f.w.Write(p)
	if n > 0 {
		t.f.lineBeg = p[n-1] == '\n'
	}
	return n, err
}

// trusted is where mcpspec's own annotations go: w itself, or past w's fence when it has one.
func trusted(w io.Writer) io.Writer {
	if f, ok := w.(*fence); ok {
		return trustedWriter{f}
	}
	return w
}

// escapeControlBytes shows the control bytes of target text (ESC, BEL, CR, …; not tab) as \xNN,
// so that a target cannot recolour, ring or overwrite mcpspec's console lines.
func escapeControlBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t') || c == 0x7f {
			fmt.Fprintf(&b, "\\x%02x", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
