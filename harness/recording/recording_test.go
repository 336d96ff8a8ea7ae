package recording

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteThenRead(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, func(s string) string { return strings.ReplaceAll(s, "s3cret", "[REDACTED]") })
	got := w.Add(Record{From: FromClient, Transport: Stdio, Channel: ChanStdin, Body: `{"token":"s3cret"}`})
	w.Add(Record{From: FromServer, Transport: Stdio, Channel: ChanStdout, Body: strings.Repeat("x", MaxBody+10)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got.Seq != 1 || got.At.IsZero() || !strings.Contains(got.Body, "s3cret") {
		t.Fatalf("the record handed back is the one relayed, numbered and stamped: %+v", got)
	}
	recs, skipped, err := Read(&buf, 0)
	if err != nil || skipped != 0 || len(recs) != 2 {
		t.Fatalf("read %d records, skipped %d: %v", len(recs), skipped, err)
	}
	if recs[0].Body != `{"token":"[REDACTED]"}` {
		t.Errorf("the file holds the redacted body, got %q", recs[0].Body)
	}
	if !recs[1].Truncated || len(recs[1].Body) != MaxBody || recs[1].Seq != 2 {
		t.Errorf("a long body is cut at MaxBody and marked: truncated=%v len=%d seq=%d", recs[1].Truncated, len(recs[1].Body), recs[1].Seq)
	}
}

func TestReadBoundsAndErrors(t *testing.T) {
	in := strings.Repeat(`{"seq":1,"from":"client","channel":"stdin","body":"{}"}`+"\n", 5)
	recs, skipped, err := Read(strings.NewReader(in), 3)
	if err != nil || len(recs) != 3 || skipped != 2 {
		t.Fatalf("kept %d, skipped %d: %v", len(recs), skipped, err)
	}
	if _, _, err := Read(strings.NewReader("{\"seq\":1}\nnot json\n"), 0); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a bad line is named: %v", err)
	}
}

// Load of a bounded recording makes room for no more records than the bound or the file can
// hold, and keeps the same records as an unbounded read.
func TestLoadBoundedRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recording.jsonl")
	w, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		w.Add(Record{From: FromClient, Transport: Stdio, Channel: ChanStdin, Body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{3, 1000} {
		l, err := Load(path, "", max)
		if err != nil {
			t.Fatal(err)
		}
		recs, want := l.Conversations[0], min(max, 5)
		// The room made is the bound's when the file could hold more, the file's when less.
		if len(recs) != want || l.Skipped != 5-want || cap(recs) > 3 && cap(recs) >= max {
			t.Errorf("max %d: %d records (cap %d), %d skipped", max, len(recs), cap(recs), l.Skipped)
		}
		if r := recs[len(recs)-1]; r.From != FromClient || r.Channel != ChanStdin || r.Transport != Stdio || r.Seq != want {
			t.Errorf("max %d: last record %+v", max, r)
		}
	}
}
