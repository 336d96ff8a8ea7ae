package conform

import (
	"context"
	"slices"
	"sync"
)

// turns bound how many checks run at once (the scheduler's workers, the pools of checks that
// wait). A slot given back goes first to a check taking back the slot it gave up while it
// waited for another's work (its turn was not over), then to the next check of a stdio
// session's queue, then to the others in their order of arrival. By arrival alone, a stdio
// check of the waits pool that gave its slot back queued behind every start planned after it,
// and a stdio session's next check behind every check of its own planned at the start, most of
// them waiting for a server to start (issue 28).
type turns struct {
	mu      sync.Mutex
	free    int
	waiting [3][]chan struct{} // by kind: retake, queued, arrival
}

// The kinds of taker, in the order a slot given back is handed on.
const (
	retake  = iota // a check taking back the slot it gave up while it waited
	queued         // the next check of a stdio session's queue (schedule.go)
	arrival        // any other: served in the order they came
)

func newTurns(n int) *turns { return &turns{free: n} }

// take waits for a slot for a taker of kind until ctx ends or done is closed (nil: never), and
// reports whether it got one.
func (s *turns) take(ctx context.Context, done <-chan struct{}, kind int) bool {
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	s.waiting[kind] = append(s.waiting[kind], ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
	case <-done:
	}
	s.mu.Lock()
	if i := slices.Index(s.waiting[kind], ch); i >= 0 {
		s.waiting[kind] = slices.Delete(s.waiting[kind], i, i+1)
		s.mu.Unlock()
		return false
	}
	s.mu.Unlock()
	s.give() // handed over as the wait ended: passed on
	return false
}

// give gives a slot back: to the waiter whose turn it is, or to the free ones.
func (s *turns) give() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for kind := range s.waiting {
		if len(s.waiting[kind]) > 0 {
			ch := s.waiting[kind][0]
			s.waiting[kind] = s.waiting[kind][1:]
			close(ch)
			return
		}
	}
	s.free++
}

// freeNow is how many slots are free (for tests).
func (s *turns) freeNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.free
}
