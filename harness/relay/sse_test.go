package relay

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mcpspec/mcpspec/harness/recording"
)

// TestSSEEventIsRecordedBeforeItsBytesPass pins the order rule a judge relies on: no event's
// end reaches the host before the event is recorded. A host acts on an event at its blank
// line (a client answers the server's request in it with a POST of its own); were the record
// added after, that POST could be recorded first, and the judge would see an answer to a
// request not yet sent. Read by read, whatever the reads' sizes, every event whose blank line
// has been passed on is already among the records.
func TestSSEEventIsRecordedBeforeItsBytesPass(t *testing.T) {
	stream := "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"ask-1\",\"method\":\"elicitation/create\"}\n\n" +
		": a comment\n\nid: 2\r\ndata: a\r\ndata: b\r\n\r\nevent: x\ndata: c\n\n"
	sources := map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(stream) },
		"byte":     func() io.Reader { return iotest.OneByteReader(strings.NewReader(stream)) },
		"halves":   func() io.Reader { return iotest.HalfReader(strings.NewReader(stream)) },
		"data-err": func() io.Reader { return iotest.DataErrReader(strings.NewReader(stream)) },
	}
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			var recorded []recording.Record
			s := &sseRelay{src: io.NopCloser(src())}
			s.ev.emitRecord = func(rec recording.Record) { recorded = append(recorded, rec) }
			var passed []byte
			p := make([]byte, 7) // the host's reads need not match the upstream's
			for {
				n, err := s.Read(p)
				passed = append(passed, p[:n]...)
				if ends := completeEvents(passed); len(recorded) < ends {
					t.Fatalf("after %q passed on, %d events had ended but %d were recorded", passed, ends, len(recorded))
				}
				if err != nil {
					break
				}
			}
			if string(passed) != stream {
				t.Errorf("passed on %q", passed)
			}
			var got []string
			for _, r := range recorded {
				got = append(got, r.EventID+"|"+r.Event+"|"+r.Body)
			}
			want := "1||{\"jsonrpc\":\"2.0\",\"id\":\"ask-1\",\"method\":\"elicitation/create\"} 2||a\nb |x|c"
			if strings.Join(got, " ") != want {
				t.Errorf("recorded %q", got)
			}
		})
	}
}

// completeEvents counts the events (blocks with a field, the comment-only one aside) whose
// blank line is in b.
func completeEvents(b []byte) int {
	n, fields := 0, false
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return n
		}
		line := bytes.TrimSuffix(b[:i], []byte("\r"))
		b = b[i+1:]
		switch {
		case len(line) == 0 && fields:
			n, fields = n+1, false
		case len(line) > 0 && line[0] != ':':
			fields = true
		}
	}
}
