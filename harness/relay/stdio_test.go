package relay

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/harness/stdio"
)

// relayTimeout bounds every session of these tests; each ends as soon as it is over.
const relayTimeout = 60 * time.Second

// grace is the stopping ladder's step in these tests: generous, and only used up by a server
// that ignores EOF.
const grace = 10 * time.Second

// session is one stdio relay run by a test, with the host's ends of the pipes.
type session struct {
	hostIn  *io.PipeWriter // the host writes here
	hostOut *bytes.Buffer  // what the host received
	log     *syncBuffer    // the proxy's stderr
	rec     *Recorder
	recBuf  *bytes.Buffer
	done    chan struct{}
	end     Ending
	err     error
	outDone chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startSession(t *testing.T, argv []string, opts StdioOptions) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &session{hostIn: inW, hostOut: &bytes.Buffer{}, log: &syncBuffer{}, recBuf: &bytes.Buffer{}, done: make(chan struct{}), outDone: make(chan struct{})}
	s.rec = NewRecorder(recording.NewWriter(s.recBuf, nil))
	go func() {
		defer close(s.outDone)
		_, _ = io.Copy(s.hostOut, outR)
		outR.Close()
	}()
	opts.Command, opts.HostIn, opts.HostOut, opts.Log, opts.Rec = stdio.Command{Argv: argv}, inR, outW, s.log, s.rec
	if opts.Grace == 0 {
		opts.Grace = grace
	}
	go func() {
		defer close(s.done)
		s.end, s.err = Stdio(opts)
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

// wait awaits the session's end and returns its recording.
func (s *session) wait(t *testing.T) []recording.Record {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(relayTimeout):
		t.Fatalf("the relay did not end within %s", relayTimeout)
	}
	select {
	case <-s.outDone:
	case <-time.After(relayTimeout):
		t.Fatalf("the host's stdout was not closed within %s", relayTimeout)
	}
	if err := s.rec.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _, err := recording.Read(s.recBuf, 0)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func bodies(recs []recording.Record, channel string) []string {
	var out []string
	for _, r := range recs {
		if r.Channel == channel {
			out = append(out, r.Body)
		}
	}
	return out
}

func TestStdioRelaysEveryByteUnchanged(t *testing.T) {
	s := startSession(t, []string{"cat"}, StdioOptions{})
	huge := strings.Repeat("x", recording.MaxBody+12345)
	input := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n" + "not json at all\n" + "\n" + huge + "\n" + "{\"partial\":"
	// Written in odd pieces: frames span writes, and a write holds several frames.
	for rest := input; rest != ""; {
		n := min(len(rest), 7777)
		if _, err := s.hostIn.Write([]byte(rest[:n])); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	s.hostIn.Close()
	recs := s.wait(t)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if got := s.hostOut.String(); got != input {
		t.Fatalf("the host got %d bytes, not the %d the server wrote (cat echoes them)", len(got), len(input))
	}
	if s.end.ServerExited || !strings.Contains(s.end.Why, "closed stdin") {
		t.Errorf("ending = %+v, want the host's EOF", s.end)
	}
	want := []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "not json at all", "", huge[:recording.MaxBody], `{"partial":`}
	for _, ch := range []string{recording.ChanStdin, recording.ChanStdout} {
		got := bodies(recs, ch)
		if len(got) != len(want) {
			t.Fatalf("%s: %d frames recorded, want %d", ch, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s frame %d = %.60q, want %.60q", ch, i, got[i], want[i])
			}
		}
	}
	// cat echoes each frame at once: its echo must never be recorded before the frame.
	var in, out []int
	for _, r := range recs {
		switch r.Channel {
		case recording.ChanStdin:
			in = append(in, r.Seq)
		case recording.ChanStdout:
			out = append(out, r.Seq)
		}
	}
	for i := range min(len(in), len(out)) {
		if out[i] < in[i] {
			t.Errorf("echo %d recorded (seq %d) before the frame it echoes (seq %d)", i, out[i], in[i])
		}
	}
	for _, r := range recs {
		if r.Channel == recording.ChanStdin && len(r.Body) == recording.MaxBody && !r.Truncated {
			t.Error("the huge frame is not marked truncated")
		}
	}
	if last := recs[len(recs)-1]; last.From != recording.FromProxy || last.Channel != recording.ChanNote || !strings.Contains(last.Note, "host closed stdin") {
		t.Errorf("the last record says how the session ended, got %+v", last)
	}
}

func TestStdioServerExitEndsTheSession(t *testing.T) {
	s := startSession(t, []string{"sh", "-c", "echo hello; echo log line >&2; printf 'last words' >&2; exit 3"}, StdioOptions{})
	recs := s.wait(t)
	if !s.end.ServerExited || s.end.Exit != "exit status 3" {
		t.Errorf("ending = %+v, want the server's exit 3", s.end)
	}
	if got := s.log.String(); got != "log line\nlast words" {
		t.Errorf("the proxy's stderr = %q, want the server's stderr unchanged", got)
	}
	if got := strings.Join(bodies(recs, recording.ChanStderr), "|"); got != "log line|last words" {
		t.Errorf("stderr frames = %q", got)
	}
	if got := s.hostOut.String(); got != "hello\n" {
		t.Errorf("host stdout = %q", got)
	}
}

func TestStdioEndsOnStopAndAfterFor(t *testing.T) {
	stop := make(chan string, 1)
	s := startSession(t, []string{"cat"}, StdioOptions{Stop: stop})
	stop <- "SIGTERM"
	s.wait(t)
	if s.end.Why != "the proxy got SIGTERM" || s.end.ServerExited {
		t.Errorf("ending = %+v", s.end)
	}
	s = startSession(t, []string{"cat"}, StdioOptions{For: 50 * time.Millisecond})
	s.wait(t)
	if !strings.HasPrefix(s.end.Why, "--for 50ms") {
		t.Errorf("ending = %+v", s.end)
	}
}

func TestStdioStopsAServerThatIgnoresEOFAndSIGTERM(t *testing.T) {
	s := startSession(t, []string{"sh", "-c", "trap '' TERM; exec sleep 300"}, StdioOptions{Grace: 200 * time.Millisecond})
	s.hostIn.Close()
	s.wait(t)
	if !s.end.Killed {
		t.Errorf("ending = %+v, want the server killed", s.end)
	}
}

func TestStdioCannotStart(t *testing.T) {
	s := startSession(t, []string{"/nonexistent/server"}, StdioOptions{})
	<-s.done
	if s.err == nil {
		t.Fatal("a server that cannot start is an error")
	}
}
