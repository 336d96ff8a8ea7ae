package conform

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestTurns: a slot given back goes to a check taking its own back first, whenever it came,
// then to a stdio session queue's next check, then to the others in their order of arrival; a
// wait that ends takes nothing.
func TestTurns(t *testing.T) {
	s := newTurns(1)
	s.take(context.Background(), nil, arrival)
	got := make(chan string, 6)
	// Waiters in this order of arrival, each in before the next comes.
	for i, w := range []struct {
		name string
		kind int
	}{{"a1", arrival}, {"a2", arrival}, {"q1", queued}, {"a3", arrival}, {"r1", retake}, {"a4", arrival}} {
		go func() {
			s.take(context.Background(), nil, w.kind)
			got <- w.name
		}()
		awaitWaiters(t, s, i+1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s.take(ctx, nil, arrival) {
		t.Fatal("a take whose wait had ended got a slot")
	}
	var order []string
	for range 6 {
		s.give()
		select {
		case name := <-got:
			order = append(order, name)
		case <-time.After(waitBound):
			t.Fatalf("no waiter got the slot given back (so far %v)", order)
		}
	}
	if want := []string{"r1", "q1", "a1", "a2", "a3", "a4"}; !slices.Equal(order, want) {
		t.Errorf("slots handed on in the order %v, want %v", order, want)
	}
	s.give()
	if n := s.freeNow(); n != 1 {
		t.Errorf("%d free after every waiter was served and the last slot given back, want 1", n)
	}
}

// awaitWaiters waits until n takers wait on s, bounded by waitBound.
func awaitWaiters(t *testing.T, s *turns, n int) {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		s.mu.Lock()
		have := len(s.waiting[retake]) + len(s.waiting[queued]) + len(s.waiting[arrival])
		s.mu.Unlock()
		if have == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d takers waiting after %s, want %d", have, waitBound, n)
		}
		time.Sleep(time.Millisecond)
	}
}
