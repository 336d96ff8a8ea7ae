package sse

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// readAll drains a Reader, returning the events and the error that ended it (nil for io.EOF).
func readAll(r *Reader) ([]Event, error) {
	var events []Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

// withoutRaw drops Raw so table cases can state only the parsed fields.
func withoutRaw(events []Event) []Event {
	if len(events) == 0 {
		return nil
	}
	out := make([]Event, len(events))
	for i, ev := range events {
		ev.Raw = nil
		out[i] = ev
	}
	return out
}

func TestReaderRules(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []Event
	}{
		{"empty stream", "", nil},
		{"single data event", "data: hello\n\n", []Event{{Data: "hello", DataLines: 1}}},
		{"no space after colon", "data:hello\n\n", []Event{{Data: "hello", DataLines: 1}}},
		{"only one leading space stripped", "data:  two\n\n", []Event{{Data: " two", DataLines: 1}}},
		{"colon in value kept", "data: a:b: c\n\n", []Event{{Data: "a:b: c", DataLines: 1}}},
		{"multi-line data joined with LF", "data: one\ndata: two\ndata:\n\n",
			[]Event{{Data: "one\ntwo\n", DataLines: 3}}},
		{"empty data field counts", "data:\n\n", []Event{{Data: "", DataLines: 1}}},
		{"field without colon has empty value", "data\ndata\n\n", []Event{{Data: "\n", DataLines: 2}}},
		{"CRLF line ends", "event: message\r\ndata: x\r\n\r\n",
			[]Event{{Type: "message", Data: "x", DataLines: 1}}},
		{"lone CR line ends", "data: a\rdata: b\r\r", []Event{{Data: "a\nb", DataLines: 2}}},
		{"mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", []Event{{Data: "a\nb\nc", DataLines: 3}}},
		{"CR then LF twice is two blank lines", "data: a\r\n\r\n\r\ndata: b\n\n",
			[]Event{{Data: "a", DataLines: 1}, {Data: "b", DataLines: 1}}},
		{"leading BOM stripped", "\uFEFFdata: x\n\n", []Event{{Data: "x", DataLines: 1}}},
		{"only first BOM stripped", "\uFEFF\uFEFFdata: x\n\n", []Event{{}}},
		{"BOM later is data", "data: a\n\n\uFEFFdata: b\n\n", []Event{{Data: "a", DataLines: 1}, {}}},
		{"comment carried to next event", ": keep-alive\n\n:ping\ndata: x\n\n",
			[]Event{{Data: "x", DataLines: 1, Comments: []string{" keep-alive", "ping"}}}},
		{"comment-only stream yields nothing", ": a\n\n: b\n\n", nil},
		{"event type last wins", "event: a\nevent: b\ndata: x\n\n", []Event{{Type: "b", Data: "x", DataLines: 1}}},
		{"event type not carried over", "event: a\ndata: 1\n\ndata: 2\n\n",
			[]Event{{Type: "a", Data: "1", DataLines: 1}, {Data: "2", DataLines: 1}}},
		{"id field", "id: 42\ndata: x\n\n", []Event{{ID: "42", HasID: true, Data: "x", DataLines: 1}}},
		{"empty id field", "id\ndata: x\n\n", []Event{{ID: "", HasID: true, Data: "x", DataLines: 1}}},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n", []Event{{Data: "x", DataLines: 1}}},
		{"id not carried to next event", "id: 1\ndata: a\n\ndata: b\n\n",
			[]Event{{ID: "1", HasID: true, Data: "a", DataLines: 1}, {Data: "b", DataLines: 1}}},
		{"priming event reported", "id: stream-1-0\ndata:\n\n",
			[]Event{{ID: "stream-1-0", HasID: true, DataLines: 1}}},
		{"id-only block reported", "id: 7\n\n", []Event{{ID: "7", HasID: true}}},
		{"retry digits", "retry: 1500\n\n", []Event{{Retry: 1500 * time.Millisecond, HasRetry: true}}},
		{"retry zero", "retry:0\n\n", []Event{{Retry: 0, HasRetry: true}}},
		{"retry not digits ignored", "retry: 1.5\n\nretry: -1\n\nretry: 1e3\n\nretry\n\n", []Event{{}, {}, {}, {}}},
		{"retry with extra space ignored", "retry:  100\n\n", []Event{{}}},
		{"retry overflow ignored", "retry: 99999999999999999999999\n\n", []Event{{}}},
		{"retry last valid wins", "retry: 10\nretry: x\n\n", []Event{{Retry: 10 * time.Millisecond, HasRetry: true}}},
		{"unknown field reported but ignored", "foo: bar\n\n", []Event{{}}},
		{"field names are case-sensitive", "Data: x\n\n", []Event{{}}},
		{"space before colon makes another field", "data : x\n\n", []Event{{}}},
		{"unterminated trailing event discarded", "data: a\n\ndata: b\n", []Event{{Data: "a", DataLines: 1}}},
		{"trailing event without final blank line discarded", "data: a\n\ndata: b", []Event{{Data: "a", DataLines: 1}}},
		{"blank lines between events", "\n\n\ndata: a\n\n\n\ndata: b\n\n",
			[]Event{{Data: "a", DataLines: 1}, {Data: "b", DataLines: 1}}},
		{"invalid UTF-8 kept as sent", "data: \xff\xfe\n\n", []Event{{Data: "\xff\xfe", DataLines: 1}}},
		{"JSON-RPC response", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
			[]Event{{Type: "message", Data: `{"jsonrpc":"2.0","id":1,"result":{}}`, DataLines: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, split := range []struct {
				name string
				wrap func(io.Reader) io.Reader
			}{
				{"whole", func(r io.Reader) io.Reader { return r }},
				{"one byte reads", iotest.OneByteReader},
				{"half reads", iotest.HalfReader},
			} {
				got, err := readAll(NewReader(split.wrap(strings.NewReader(tc.input))))
				if err != nil {
					t.Fatalf("%s: unexpected error: %v", split.name, err)
				}
				if !reflect.DeepEqual(withoutRaw(got), tc.want) {
					t.Errorf("%s:\n got %#v\nwant %#v", split.name, withoutRaw(got), tc.want)
				}
			}
		})
	}
}

func TestReaderRawCoversConsumedBytes(t *testing.T) {
	input := "\uFEFF: hi\r\n\r\nid: 1\r\ndata: a\r\n\r\nretry: 5\n\ndata: tail"
	r := NewReader(strings.NewReader(input))
	events, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	wantRaw := []string{"\uFEFF: hi\r\n\r\nid: 1\r\ndata: a\r\n\r\n", "retry: 5\n\n"}
	if len(events) != len(wantRaw) {
		t.Fatalf("got %d events, want %d", len(events), len(wantRaw))
	}
	for i, want := range wantRaw {
		if string(events[i].Raw) != want {
			t.Errorf("event %d raw = %q, want %q", i, events[i].Raw, want)
		}
	}
	if got := string(r.Discarded()); got != "data: tail" {
		t.Errorf("Discarded() = %q, want %q", got, "data: tail")
	}
}

func TestReaderCRLFSplitAcrossReads(t *testing.T) {
	// The CR ends one read and the LF starts the next: that is one line end, not two, so the
	// first blank line dispatches "a" and nothing else happens in between.
	src := io.MultiReader(strings.NewReader("data: a\r"), strings.NewReader("\ndata: b\r"),
		strings.NewReader("\n\r"), strings.NewReader("\n"))
	events, err := readAll(NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Data: "a\nb", DataLines: 2}}
	if !reflect.DeepEqual(withoutRaw(events), want) {
		t.Fatalf("got %#v, want %#v", withoutRaw(events), want)
	}
}

func TestReaderLateLFOpensNextRaw(t *testing.T) {
	// The dispatching CR arrives without its LF: the event must not wait for it.
	src := io.MultiReader(strings.NewReader("data: a\r\n\r"), strings.NewReader("\ndata: b\r\n\r\n"))
	r := NewReader(src)
	events, err := readAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || string(events[0].Raw) != "data: a\r\n\r" || string(events[1].Raw) != "\ndata: b\r\n\r\n" {
		t.Fatalf("unexpected raw split: %#v", events)
	}
}

func TestReaderLastEventID(t *testing.T) {
	r := NewReader(strings.NewReader("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 9\ndata: d\n"))
	var seen []string
	for {
		if _, err := r.Next(); err != nil {
			break
		}
		seen = append(seen, r.LastEventID())
	}
	// The ID survives an event without id, is reset by an empty id, and the unfinished
	// last block never updates it.
	want := []string{"1", "1", ""}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("last event IDs = %q, want %q", seen, want)
	}
	if r.LastEventID() != "" {
		t.Fatalf("unfinished block changed the last event ID to %q", r.LastEventID())
	}
}

func TestReaderSizeBound(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{"one long line", "data: " + strings.Repeat("x", 100) + "\n\n"},
		{"many data lines", strings.Repeat("data: xxxxxxxx\n", 20) + "\n"},
		{"comments that never dispatch", strings.Repeat(": keep-alive\n\n", 20)},
		{"no line end at all", strings.Repeat("y", 1000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(iotest.HalfReader(strings.NewReader(tc.input)), WithMaxEventSize(64))
			_, err := readAll(r)
			if !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("got error %v, want ErrEventTooLarge", err)
			}
			if _, again := r.Next(); again == nil || again.Error() != err.Error() {
				t.Fatalf("error is not sticky: %v then %v", err, again)
			}
		})
	}

	// An event of exactly the maximum size is fine.
	exact := "data: " + strings.Repeat("x", 56) + "\n\n"
	events, err := readAll(NewReader(strings.NewReader(exact), WithMaxEventSize(len(exact))))
	if err != nil || len(events) != 1 || len(events[0].Raw) != len(exact) {
		t.Fatalf("exact-size event: %d events, err %v", len(events), err)
	}
}

func TestReaderDefaultMaxSize(t *testing.T) {
	big := "data: " + strings.Repeat("x", DefaultMaxEventSize) + "\n\n"
	if _, err := readAll(NewReader(strings.NewReader(big))); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("got %v, want ErrEventTooLarge", err)
	}
	if _, err := readAll(NewReader(strings.NewReader(big), WithMaxEventSize(0))); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("WithMaxEventSize(0) should keep the default, got %v", err)
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	src := io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom))
	events, err := readAll(NewReader(src))
	if len(events) != 1 || !errors.Is(err, boom) {
		t.Fatalf("got %d events and %v, want 1 event and the read error", len(events), err)
	}
}

// emptyReader always returns (0, nil), which io.Reader discourages but does not forbid.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	if _, err := NewReader(emptyReader{}).Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("got %v, want io.ErrNoProgress", err)
	}
}

func TestReaderEventsDoNotAlias(t *testing.T) {
	r := NewReader(iotest.OneByteReader(bytes.NewReader([]byte("data: a\n\ndata: b\n\n"))))
	first, _ := r.Next()
	second, _ := r.Next()
	if string(first.Raw) != "data: a\n\n" || string(second.Raw) != "data: b\n\n" {
		t.Fatalf("raw bytes overwritten: %q, %q", first.Raw, second.Raw)
	}
}
