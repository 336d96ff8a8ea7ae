package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Formats a judge reads: this package's own recording, mcpspec's transcript (run --transcript,
// harness/transcript), a HAR 1.2 file, and the stdio line format (docs/judge.md).
const (
	FormatRecording  = "recording"
	FormatTranscript = "transcript"
	FormatHAR        = "har"
	FormatStdio      = "stdio"
)

// Formats lists the formats Load reads, for usage messages.
var Formats = []string{FormatRecording, FormatTranscript, FormatHAR, FormatStdio}

// MaxHARBytes bounds a HAR file, which is one JSON document read whole.
const MaxHARBytes = 256 << 20

// Loaded is what Load read: the conversations of one file (a transcript holds one per
// session), and how many frames past the bound it skipped.
type Loaded struct {
	Format        string
	Conversations [][]Record
	Skipped       int
}

// Load reads path in format (or, when format is "", the one its first line shows), keeping at
// most max frames (0: no bound).
func Load(path, format string, max int) (*Loaded, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if format == "" {
		if format, err = Detect(br); err != nil {
			return nil, err
		}
	}
	out := &Loaded{Format: format}
	switch format {
	case FormatRecording:
		recs, skipped, err := readRecords(br, max, capHint(f, max, minRecordLine))
		if err != nil {
			return nil, err
		}
		if err := checkRecords(recs); err != nil {
			return nil, err
		}
		out.Conversations, out.Skipped = [][]Record{recs}, skipped
	case FormatTranscript:
		out.Conversations, out.Skipped, err = ReadTranscript(br, max)
	case FormatHAR:
		var recs []Record
		recs, out.Skipped, err = ReadHAR(io.LimitReader(br, MaxHARBytes+1), max)
		out.Conversations = [][]Record{recs}
	case FormatStdio:
		var recs []Record
		recs, out.Skipped, err = readStdioLines(br, max, capHint(f, max, minStdioLine))
		out.Conversations = [][]Record{recs}
	default:
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// The shortest lines a file of a format holds in practice, for capHint: a record's head alone
// ({"seq":1,"at":…,"from":"client","transport":"stdio","channel":"stdin"}), a stdio capture's
// shortest JSON-RPC message with its prefix. A file of shorter lines only grows the slice.
const (
	minRecordLine = 64
	minStdioLine  = 32
)

// capHint is how many records to make room for when reading f with a bound of max: as many as
// the file can hold at minLine bytes a line, never more than the bound. Unbounded reads grow
// as they go: a guess from the size of a huge file could be far too large.
func capHint(f *os.File, max, minLine int) int {
	st, err := f.Stat()
	if max <= 0 || err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return int(min(int64(max), st.Size()/int64(minLine)))
}

// checkRecords refuses a recording whose records say nothing of who sent them: a JSON lines
// file of another kind.
func checkRecords(recs []Record) error {
	for _, r := range recs {
		if (r.From != FromClient && r.From != FromServer && r.From != FromProxy) || r.Channel == "" {
			return fmt.Errorf("recording record %d: from %q, channel %q: not a record of harness/recording", r.Seq, r.From, r.Channel)
		}
	}
	return nil
}

// Detect names the format of what br holds from its first line, without consuming it.
func Detect(br *bufio.Reader) (string, error) {
	head, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return "", errors.New("the file is empty")
	}
	first := firstLine(head)
	switch {
	case first[0] == '{' && json.Valid(first):
		var probe map[string]json.RawMessage
		_ = json.Unmarshal(first, &probe)
		switch {
		case probe["log"] != nil:
			return FormatHAR, nil
		case probe["from"] != nil && probe["channel"] != nil:
			return FormatRecording, nil
		case probe["session"] != nil && probe["dir"] != nil:
			return FormatTranscript, nil
		}
		return "", errors.New("a JSON line that is neither a recording record nor a transcript line")
	case first[0] == '{':
		return FormatHAR, nil // a JSON document over several lines
	case bytes.HasPrefix(first, []byte(stdioClient)) || bytes.HasPrefix(first, []byte(stdioServer)) || bytes.HasPrefix(first, []byte(stdioLog)):
		return FormatStdio, nil
	}
	return "", fmt.Errorf("unrecognised content (first line %q): not a recording, transcript, HAR or stdio capture", clipText(string(first), 60))
}

// firstLine is the first line of head that is neither blank nor a stdio-capture comment.
func firstLine(head []byte) []byte {
	for _, l := range bytes.Split(head, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' {
			return l
		}
	}
	return []byte{'#'}
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// cutBody cuts a body at MaxBody as the Writer does.
func cutBody(r *Record) {
	if len(r.Body) > MaxBody {
		r.Body, r.Truncated = r.Body[:MaxBody], true
	}
}
