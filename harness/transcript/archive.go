package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// Archive writes the whole transcript of every connection of a run to one file, one JSON object
// a line, as each connection ends (so the lines of one session stay together). Secrets pass
// through redact before anything is written.
type Archive struct {
	mu     sync.Mutex
	f      *os.File
	enc    *json.Encoder
	redact func(string) string
	err    error // the first write error, reported by Close
}

// ArchiveFile is the file an Archive writes in its directory.
const ArchiveFile = "transcript.jsonl"

// Line is one line of the archive: one exchanged frame or note of one session, as
// docs/results-format.md describes it; `mcpspec judge` reads it back (harness/recording).
type Line struct {
	At        string `json:"at"` // RFC 3339, nanoseconds
	Transport string `json:"transport"`
	Session   string `json:"session"`
	Seq       int    `json:"seq"`
	Dir       string `json:"dir"`
	Channel   string `json:"channel"`
	Meta      string `json:"meta,omitempty"`
	Body      string `json:"body"`
}

// NewArchive creates dir if needed and opens its transcript file; redact may be nil.
func NewArchive(dir string, redact func(string) string) (*Archive, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("transcript directory: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, ArchiveFile))
	if err != nil {
		return nil, fmt.Errorf("transcript file: %w", err)
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	return &Archive{f: f, enc: enc, redact: redact}, nil
}

// Write appends every record of one session's transcript: Meta says in one line what the
// record holds besides its body (its HTTP detail, the harness's word on it).
func (a *Archive) Write(transport, session string, entries []record.Record) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range entries {
		if a.err != nil {
			return
		}
		a.err = a.enc.Encode(Line{At: e.At.UTC().Format(time.RFC3339Nano), Transport: transport, Session: session,
			Seq: e.Seq, Dir: e.Dir, Channel: e.Channel, Meta: a.redact(e.Summary()), Body: a.redact(e.Body)})
	}
}

// Close flushes the file and reports the first error met while writing it.
func (a *Archive) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.f.Close(); a.err == nil && err != nil {
		a.err = err
	}
	if a.err != nil {
		return fmt.Errorf("writing %s: %w", a.f.Name(), a.err)
	}
	return nil
}
