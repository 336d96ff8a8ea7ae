package stdio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// msg is how a test names an expected message frame among violation kinds.
func msg(s string) string { return "msg:" + s }

// readFrames reads every frame until io.EOF, failing on any other error or on a frame that
// breaks the Frame contract.
func readFrames(t *testing.T, r io.Reader, maxLine int) []Frame {
	t.Helper()
	fr := NewFramer(r, maxLine)
	var frames []Frame
	for {
		f, err := fr.Next()
		if errors.Is(err, io.EOF) {
			return frames
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if (f.Violation == "") == (f.Message == nil) {
			t.Fatalf("frame %+v must be either a message or a violation", f)
		}
		frames = append(frames, f)
	}
}

// describe turns frames into the strings the tables use: a violation kind, or msg:<bytes>.
func describe(frames []Frame) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		if f.Violation != "" {
			out[i] = f.Violation
		} else {
			out[i] = msg(string(f.Message))
		}
	}
	return out
}

func TestFramer(t *testing.T) {
	longValue := strings.Repeat("x", 40)
	tests := []struct {
		name    string
		in      string
		maxLine int
		want    []string
	}{
		{name: "clean lines", in: "{\"a\":1}\n{\"b\":2}\n", want: []string{msg(`{"a":1}`), msg(`{"b":2}`)}},
		{name: "batch line", in: "[{\"a\":1},{\"b\":2}]\n", want: []string{msg(`[{"a":1},{"b":2}]`)}},
		{name: "empty input", in: "", want: nil},
		{name: "final line without newline", in: "{\"a\":1}\n{\"b\":2}", want: []string{msg(`{"a":1}`), msg(`{"b":2}`)}},
		{name: "crlf", in: "{\"a\":1}\r\n{\"b\":2}\n", want: []string{CarriageReturn, msg(`{"a":1}`), msg(`{"b":2}`)}},
		{name: "bom on first line", in: "\xef\xbb\xbf{\"a\":1}\n{\"b\":2}\n", want: []string{ByteOrderMark, msg(`{"a":1}`), msg(`{"b":2}`)}},
		{name: "bom and crlf", in: "\xef\xbb\xbf{\"a\":1}\r\n", want: []string{ByteOrderMark, CarriageReturn, msg(`{"a":1}`)}},
		{name: "bom on a later line is garbage", in: "{\"a\":1}\n\xef\xbb\xbf{\"b\":2}\n", want: []string{msg(`{"a":1}`), NonJSONLine}},
		{name: "invalid utf-8 inside a string", in: "{\"a\":\"\xff\"}\n{\"b\":2}\n", want: []string{InvalidUTF8, msg("{\"a\":\"\xff\"}"), msg(`{"b":2}`)}},
		{name: "invalid utf-8 garbage", in: "\xff\xfe\n{\"a\":1}\n", want: []string{InvalidUTF8, NonJSONLine, msg(`{"a":1}`)}},
		{name: "blank lines", in: "\n  \n{\"a\":1}\n\t\n", want: []string{BlankLine, BlankLine, msg(`{"a":1}`), BlankLine}},
		{name: "form feed line is garbage, not blank", in: "\f\n{\"a\":1}\n", want: []string{NonJSONLine, msg(`{"a":1}`)}},
		{name: "banner line", in: "Server running on stdio\n{\"a\":1}\n", want: []string{NonJSONLine, msg(`{"a":1}`)}},
		{name: "log line after a message", in: "{\"a\":1}\n[info] ready\n{\"b\":2}\n", want: []string{msg(`{"a":1}`), NonJSONLine, msg(`{"b":2}`)}},
		{name: "scalar line is a message for the parser to judge", in: "42\n", want: []string{msg(`42`)}},
		{
			name: "pretty-printed object",
			in:   "{\n  \"a\": 1\n}\n{\"b\":2}\n",
			want: []string{EmbeddedNewline, msg("{\n  \"a\": 1\n}"), msg(`{"b":2}`)},
		},
		{name: "pretty-printed array", in: "[\n1,\n2\n]\n", want: []string{EmbeddedNewline, msg("[\n1,\n2\n]")}},
		{
			name: "pretty-printed with crlf",
			in:   "{\r\n\"a\": 1\r\n}\r\n",
			want: []string{CarriageReturn, EmbeddedNewline, msg("{\n\"a\": 1\r\n}\r")},
		},
		{
			name: "invalid utf-8 on a continuation line",
			in:   "{\n\"a\": \"\xff\"\n}\n",
			want: []string{EmbeddedNewline, InvalidUTF8, msg("{\n\"a\": \"\xff\"\n}")},
		},
		{name: "two values on one line", in: "{} {}\n{\"a\":1}\n{\"b\":2}\n", want: []string{NonJSONLine, msg(`{"a":1}`), msg(`{"b":2}`)}},
		{name: "value then garbage on one line", in: "{\"a\":1} trailing\n{\"b\":2}\n", want: []string{NonJSONLine, msg(`{"b":2}`)}},
		{
			name: "unfinished pretty-printed message at EOF",
			in:   "{\n\"a\": 1\n",
			want: []string{NonJSONLine, NonJSONLine},
		},
		{
			name: "split message broken by garbage does not swallow later lines",
			in:   "{\n\"a\": 1\nhello\n{\"b\":2}\n",
			want: []string{NonJSONLine, NonJSONLine, NonJSONLine, msg(`{"b":2}`)},
		},
		{
			name: "split message abandoned on a complete line keeps that line",
			in:   "[\n{\"a\":1}\n}\n{\"b\":2}\n",
			want: []string{NonJSONLine, msg(`{"a":1}`), NonJSONLine, msg(`{"b":2}`)},
		},
		{name: "oversized line", in: "{\"a\":\"" + longValue + "\"}\n{\"b\":2}\n", maxLine: 16, want: []string{OversizedLine, msg(`{"b":2}`)}},
		{name: "oversized final line without newline", in: "{\"b\":2}\n{\"a\":\"" + longValue + "\"}", maxLine: 16, want: []string{msg(`{"b":2}`), OversizedLine}},
		{name: "line of exactly the limit", in: "{\"a\":1}\n{\"b\":22}\n", maxLine: 7, want: []string{msg(`{"a":1}`), OversizedLine}},
		{
			name:    "oversized line inside a split message",
			in:      "{\n\"a\":\"" + longValue + "\"\n}\n{\"b\":2}\n",
			maxLine: 32,
			want:    []string{NonJSONLine, OversizedLine, NonJSONLine, msg(`{"b":2}`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reader := range []struct {
				name string
				wrap func(io.Reader) io.Reader
			}{
				{"whole", func(r io.Reader) io.Reader { return r }},
				{"one byte at a time", iotest.OneByteReader},
			} {
				got := describe(readFrames(t, reader.wrap(strings.NewReader(tt.in)), tt.maxLine))
				if !equalStrings(got, tt.want) {
					t.Errorf("%s: frames\n got  %q\n want %q", reader.name, got, tt.want)
				}
			}
		})
	}
}

func TestFramerLineCounts(t *testing.T) {
	frames := readFrames(t, strings.NewReader("{\"a\":1}\n{\n\"b\": 2,\n\"c\": 3\n}\n"), 0)
	var lines []int
	for _, f := range frames {
		if f.Violation == "" {
			lines = append(lines, f.Lines)
		}
	}
	if len(lines) != 2 || lines[0] != 1 || lines[1] != 4 {
		t.Errorf("message line counts = %v, want [1 4]", lines)
	}
	if frames[1].Violation != EmbeddedNewline || !strings.Contains(frames[1].Detail, "4 lines") {
		t.Errorf("split frame = %+v, want an embedded-newline violation naming 4 lines", frames[1])
	}
}

func TestFramerOversizedBeyondReadBuffer(t *testing.T) {
	// Longer than the reader's 64 KiB buffer, so the line is skipped in several reads.
	huge := "{\"a\":\"" + strings.Repeat("y", 200<<10) + "\"}"
	in := huge + "\n{\"b\":2}\n" + huge
	frames := readFrames(t, strings.NewReader(in), 100<<10)
	got := describe(frames)
	want := []string{OversizedLine, msg(`{"b":2}`), OversizedLine}
	if !equalStrings(got, want) {
		t.Fatalf("frames %q, want %q", got, want)
	}
	if n := len(frames[0].Raw); n > 600 {
		t.Errorf("oversized evidence is %d bytes, want it cut", n)
	}
	if !bytes.HasPrefix(frames[0].Raw, []byte(`{"a":"yyy`)) {
		t.Errorf("oversized evidence %q does not start with the line", frames[0].Raw[:20])
	}
}

func TestFramerDefaultLimitAcceptsLargeLines(t *testing.T) {
	big := "{\"a\":\"" + strings.Repeat("z", 1<<20) + "\"}"
	frames := readFrames(t, strings.NewReader(big+"\n"), 0)
	if len(frames) != 1 || string(frames[0].Message) != big {
		t.Fatalf("a 1 MiB line gave %d frames, want it as one message", len(frames))
	}
}

func TestFramerReadError(t *testing.T) {
	boom := errors.New("boom")
	fr := NewFramer(io.MultiReader(strings.NewReader("{\"a\":1}\n"), iotest.ErrReader(boom)), 0)
	if f, err := fr.Next(); err != nil || string(f.Message) != `{"a":1}` {
		t.Fatalf("first frame = %+v, %v", f, err)
	}
	if _, err := fr.Next(); !errors.Is(err, boom) {
		t.Fatalf("Next after a read error = %v, want %v", err, boom)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFramerKeepsLineOrderAfterNotes(t *testing.T) {
	// The BOM note on the first line must come before that line's frame and the lines a failed
	// join read after it.
	frames := readFrames(t, strings.NewReader("\xef\xbb\xbf{\n\"a\": 1\nhello\n{\"b\":2}\n"), 0)
	var got []string
	for _, f := range frames {
		if f.Violation == "" {
			got = append(got, msg(string(f.Message)))
		} else {
			got = append(got, f.Violation+":"+string(f.Raw))
		}
	}
	want := []string{ByteOrderMark + ":\xef\xbb\xbf{", NonJSONLine + ":{", NonJSONLine + `:"a": 1`, NonJSONLine + ":hello", msg(`{"b":2}`)}
	if !equalStrings(got, want) {
		t.Errorf("frames\n got  %q\n want %q", got, want)
	}
}
