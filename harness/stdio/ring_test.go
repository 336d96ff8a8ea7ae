package stdio

import (
	"strings"
	"sync"
	"testing"
)

func TestRingKeepsTheTail(t *testing.T) {
	r := newRing(8)
	for _, s := range []string{"abc", "defg", "hijkl"} {
		if n, err := r.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := r.String(); got != "efghijkl" {
		t.Errorf("after small writes: %q, want %q", got, "efghijkl")
	}
	r.Write([]byte("0123456789ABCDEF"))
	if got := r.String(); got != "89ABCDEF" {
		t.Errorf("after a write larger than the ring: %q, want %q", got, "89ABCDEF")
	}
	if r.total != 3+4+5+16 {
		t.Errorf("total = %d, want every byte counted", r.total)
	}
}

func TestRingConcurrentWrites(t *testing.T) {
	r := newRing(64)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				r.Write([]byte("0123456789"))
				_ = r.String()
			}
		}()
	}
	wg.Wait()
	if got := r.String(); len(got) != 64 || !strings.HasSuffix(got, "0123456789") {
		t.Errorf("ring after concurrent writes = %q", got)
	}
}
