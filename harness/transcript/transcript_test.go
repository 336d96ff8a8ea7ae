package transcript

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpspec/mcpspec/harness/record"
)

func TestAddAndSince(t *testing.T) {
	tr := New()
	if tr.Mark() != 0 || len(tr.Since(0)) != 0 {
		t.Fatal("a new transcript is not empty")
	}
	s1 := tr.Add(record.Send, "stdin", "", []byte(`{"a":1}`))
	mark := tr.Mark()
	s2 := tr.Add(record.Recv, "stdout", "", []byte(`{"b":2}`))
	tr.Notef("waited %d ms", 5)
	if s1 != 1 || s2 != 2 || mark != 1 {
		t.Errorf("sequence numbers %d, %d and mark %d, want 1, 2 and 1", s1, s2, mark)
	}

	all := tr.Since(0)
	if len(all) != 3 {
		t.Fatalf("Since(0) = %d entries, want 3", len(all))
	}
	after := tr.Since(mark)
	if len(after) != 2 || after[0].Seq != 2 || after[0].Body != `{"b":2}` || after[0].Dir != record.Recv || after[0].Channel != "stdout" {
		t.Errorf("Since(mark) = %+v", after)
	}
	if n := after[1]; n.Dir != record.Note || n.Channel != "harness" || n.Body != "waited 5 ms" {
		t.Errorf("note = %+v", n)
	}
	if got := tr.Since(tr.Mark()); len(got) != 0 {
		t.Errorf("Since(Mark()) = %+v, want nothing", got)
	}
	for i := 1; i < len(all); i++ {
		if all[i].At.Before(all[i-1].At) {
			t.Errorf("entry %d is older than entry %d", i, i-1)
		}
	}
}

func TestBodyIsCut(t *testing.T) {
	tr := New()
	body := strings.Repeat("a", maxBodyBytes) + strings.Repeat("b", 10)
	tr.Add(record.Recv, "stdout", "", []byte(body))
	tr.Add(record.Recv, "stdout", "", []byte(strings.Repeat("c", maxBodyBytes)))
	got := tr.Since(0)
	want := strings.Repeat("a", maxBodyBytes) + "… [10 more bytes]"
	if got[0].Body != want {
		t.Errorf("a body over the limit is kept as %d bytes ending %q", len(got[0].Body), got[0].Body[len(got[0].Body)-20:])
	}
	if len(got[1].Body) != maxBodyBytes {
		t.Errorf("a body at the limit was cut to %d bytes", len(got[1].Body))
	}
}

func TestEntryCap(t *testing.T) {
	tr := New()
	const extra = 5
	total := headEntries + tailEntries + extra
	for i := 0; i < total; i++ {
		tr.Add(record.Recv, "stdout", "", []byte("x"))
	}
	if got := tr.Mark(); got != total {
		t.Errorf("Mark = %d, want every entry counted (%d)", got, total)
	}
	all := tr.Since(0)
	if len(all) != headEntries+tailEntries+1 {
		t.Fatalf("Since(0) = %d entries, want the head (%d), a note and the tail (%d)", len(all), headEntries, tailEntries)
	}
	if all[headEntries-1].Seq != headEntries {
		t.Errorf("last head entry has seq %d, want %d: the beginning is kept", all[headEntries-1].Seq, headEntries)
	}
	note := all[headEntries]
	if note.Dir != record.Note || !strings.Contains(note.Body, fmt.Sprintf("%d entries not kept", extra)) {
		t.Errorf("entry after the head = %+v, want a note about %d dropped entries", note, extra)
	}
	if last := all[len(all)-1]; last.Seq != total {
		t.Errorf("last entry has seq %d, want the latest (%d)", last.Seq, total)
	}
	// A mark after the dropped entries sees only what came later, with no note.
	if got := tr.Since(total - 2); len(got) != 2 || got[0].Dir == record.Note {
		t.Errorf("Since(latest-2) = %+v, want the two latest entries", got)
	}
}

func TestByteCap(t *testing.T) {
	tr := New()
	big := []byte(strings.Repeat("b", maxBodyBytes))
	for range 1000 {
		tr.Add(record.Recv, "stdout", "", big)
	}
	size := 0
	for _, e := range tr.Since(0) {
		size += len(e.Body)
	}
	if size > headBytes+tailBytes+maxBodyBytes {
		t.Errorf("%d bytes kept, want at most %d", size, headBytes+tailBytes)
	}
}

func TestConcurrentAdds(t *testing.T) {
	tr := New()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				tr.Add(record.Send, "POST", "", []byte("x"))
				_ = tr.Since(tr.Mark())
			}
		}()
	}
	wg.Wait()
	all := tr.Since(0)
	if len(all) != 800 {
		t.Fatalf("%d entries, want 800", len(all))
	}
	for i, e := range all {
		if e.Seq != i+1 {
			t.Fatalf("entry %d has seq %d", i, e.Seq)
		}
	}
}

// The harness's notes survive the flood around them: the first keptNotes of those that fall
// between head and tail stay, in order.
func TestNotesOutliveTheTailLimit(t *testing.T) {
	tr := New()
	for range headEntries {
		tr.Add(record.Recv, "stdout", "", []byte("x"))
	}
	var want []int
	for i := range keptNotes + 5 {
		want = append(want, tr.Add(record.Note, "harness", "", []byte(fmt.Sprint("note ", i))))
		for range tailEntries {
			tr.Add(record.Recv, "stdout", "", []byte("x"))
		}
	}
	var got []int
	for _, e := range tr.Since(0) {
		if strings.HasPrefix(e.Body, "note ") {
			got = append(got, e.Seq)
		}
	}
	if !slices.Equal(got, want[:keptNotes]) {
		t.Errorf("notes kept at %v, want the first %d at %v", got, keptNotes, want[:keptNotes])
	}
	if got := tr.Since(want[keptNotes-1]); len(got) > 0 && strings.HasPrefix(got[0].Body, "note ") {
		t.Error("Since(mark) returns a note from before the mark")
	}
}
