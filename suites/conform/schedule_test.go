package conform

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// TestWaitingChecksRunBesideWorkers: shared checks that Wait run in a pool of their own, each
// on a session of its own over HTTP, up to SetWaiting at once however few workers there are.
func TestWaitingChecksRunBesideWorkers(t *testing.T) {
	ids := []string{"PING-RESPOND", "JRPC-ID-ECHO", "JRPC-ERROR-MESSAGE", "JRPC-VERSION"}
	for _, bound := range []int{len(ids), 2} {
		t.Run(fmt.Sprintf("bound %d", bound), func(t *testing.T) {
			r := newRunner(newServer(t), []string{served}, nil, nil)
			defer r.Close()
			var mu sync.Mutex
			cond := sync.NewCond(&mu)
			var now, most int
			sessions := map[*harness.Session]bool{}
			// Each check waits until bound checks are under way together (or waitBound ends).
			wait := func(c *T) Finding {
				ctx, cancel := context.WithTimeout(c.Ctx, waitBound)
				defer cancel()
				stop := context.AfterFunc(ctx, func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
				defer stop()
				mu.Lock()
				defer mu.Unlock()
				sessions[c.S] = true
				now++
				most = max(most, now)
				cond.Broadcast()
				for most < bound && ctx.Err() == nil {
					cond.Wait()
				}
				now--
				if most < bound {
					return Violated("only %d waiting checks ran at once, want %d", most, bound)
				}
				return Passed("")
			}
			var specs []Spec
			for _, id := range ids {
				c := newCheck(id, "MUST", wait)
				c.Side.Waits = true
				specs = append(specs, Spec{c, served, wire.HTTP})
			}
			r.SetWaiting(bound)
			r.StartShared(specs, 1, 1)
			expectPasses(t, r, specs)
			if most != bound {
				t.Errorf("%d waiting checks ran at once, want %d (the bound)", most, bound)
			}
			if len(sessions) != len(ids) {
				t.Errorf("%d waiting checks used %d sessions, want one each", len(ids), len(sessions))
			}
		})
	}
}

// TestObservedWaitingChecksStartFirst: over HTTP an Observed check that Waits is started before
// the other waiting checks, whatever their order: its observation is the run's longest chain.
func TestObservedWaitingChecksStartFirst(t *testing.T) {
	r := newRunner(newServer(t), []string{served}, nil, nil)
	defer r.Close()
	var mu sync.Mutex
	var order []string
	record := func(c *T) Finding {
		mu.Lock()
		order = append(order, c.Check.ID)
		mu.Unlock()
		return Passed("")
	}
	var specs []Spec
	for _, id := range []string{"PING-RESPOND", "JRPC-ID-ECHO", "JRPC-VERSION"} {
		c := newCheck(id, "MUST", record)
		c.Side.Waits = true
		specs = append(specs, Spec{c, served, wire.HTTP})
	}
	observed := newCheck("JRPC-ERROR-MESSAGE", "MUST", record)
	observed.Side.Waits, observed.Side.Connection = true, Observed
	specs = append(specs, Spec{observed, served, wire.HTTP})
	r.SetWaiting(1) // one at a time: the order they start in is the order they run in
	r.StartShared(specs, 1, 1)
	expectPasses(t, r, specs)
	if len(order) == 0 || order[0] != observed.ID {
		t.Errorf("the waiting checks ran in the order %v, want %s first", order, observed.ID)
	}
}
