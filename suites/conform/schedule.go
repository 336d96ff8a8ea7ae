package conform

import (
	"sync"

	"github.com/mcpspec/mcpspec/reports"
)

// Spec is one check at one revision over one transport: one Ginkgo spec.
type Spec struct {
	Check     *Check
	Revision  string
	Transport string
}

func (s Spec) key() string { return s.Transport + "/" + s.Revision + "/" + s.Check.ID }

// future is a result being computed in the background.
type future struct {
	done chan struct{}
	res  reports.Result
}

// Start executes the specs in the background so that independent ones overlap: the specs that
// share a session at one revision over one transport run one after another on it (their evidence
// is a slice of its transcript), while specs with connections of their own run beside them. At
// most workers executions are under way at once. Ginkgo's specs then only collect the results,
// in their own order, so reports and the console read exactly as a serial run would.
func (r *Runner) Start(specs []Spec, workers int) {
	r.StartShared(specs, workers, 1)
}

// StartShared is Start with up to slots shared sessions per revision and transport, each
// running its share of the checks one after another.
func (r *Runner) StartShared(specs []Spec, workers, slots int) {
	if slots < 1 {
		slots = 1
	}
	if workers < 1 {
		workers = 1
	}
	sem := make(chan struct{}, workers)
	r.mu.Lock()
	gate := r.startGate
	if r.futures == nil {
		r.futures = map[string]*future{}
	}
	type slotted struct {
		spec Spec
		slot int
	}
	groups := map[string][]slotted{}
	var groupOrder []string
	perRevision := map[string]int{}
	for i, s := range specs {
		r.futures[s.key()] = &future{done: make(chan struct{})}
		r.order[s.key()] = i
		if s.Check.Connection == Shared {
			rk := s.Transport + "/" + s.Revision
			slot := perRevision[rk] % slots
			perRevision[rk]++
			g := sharedKey(s.Transport, s.Revision, slot)
			if _, seen := groups[g]; !seen {
				groupOrder = append(groupOrder, g)
			}
			groups[g] = append(groups[g], slotted{s, slot})
		}
	}
	r.mu.Unlock()

	// held runs a spec whose worker slot is already taken, and frees the slot.
	held := func(s Spec, slot int) {
		res := r.execute(s.Check, s.Revision, s.Transport, slot, sem)
		<-sem
		f := r.futureOf(s)
		f.res = res
		close(f.done)
	}
	run := func(s Spec, slot int) {
		sem <- struct{}{}
		held(s, slot)
	}
	// Checks that mostly wait take their slots before anything else competes for them: the run
	// then ends when the longest work does, not a wait that began late. (Only checks with a
	// connection of their own: shared sessions keep their order.)
	var waiting, others []Spec
	for _, s := range specs {
		switch {
		case s.Check.Connection == Shared:
		case s.Check.Waits:
			waiting = append(waiting, s)
		default:
			others = append(others, s)
		}
	}
	// At most half the slots are held this way, so that the rest of the run goes on beside them.
	if n := max(1, workers/2); len(waiting) > n {
		others = append(waiting[n:], others...)
		waiting = waiting[:n]
	}
	go func() {
		if gate != nil {
			<-gate
		}
		for _, s := range waiting {
			sem <- struct{}{}
			go held(s, 0)
		}
		for _, g := range groupOrder {
			go func(specs []slotted) {
				for _, s := range specs {
					run(s.spec, s.slot)
				}
			}(groups[g])
		}
		for _, s := range others {
			go run(s, 0)
		}
	}()
}

// HoldStart makes a later StartShared plan its specs but start none of them until ReleaseStart:
// the CLI starts no server before it has taken the interrupt signals back from Ginkgo
// (cmd/mcpspec/interrupt.go), since a signal that arrives while it does so can be lost.
func (r *Runner) HoldStart() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.startGate = make(chan struct{})
}

// ReleaseStart lets the specs held by HoldStart start; calling it again does nothing.
func (r *Runner) ReleaseStart() {
	r.release.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.startGate != nil {
			close(r.startGate)
		}
	})
}

// Wait returns once every spec given to StartShared has its result: Ginkgo skips the specs
// left when it sees an interrupt itself, and the reports still need every one of them.
func (r *Runner) Wait() {
	r.mu.Lock()
	futures := make([]*future, 0, len(r.futures))
	for _, f := range r.futures {
		futures = append(futures, f)
	}
	r.mu.Unlock()
	for _, f := range futures {
		<-f.done
	}
}

// Planned is how many specs StartShared was given: the run's total, for a progress line.
func (r *Runner) Planned() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.order)
}

func (r *Runner) futureOf(s Spec) *future {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.futures[s.key()]
}

// Result returns the spec's result: the background one when Start scheduled it, otherwise it
// executes the spec now.
func (r *Runner) Result(s Spec) reports.Result {
	if f := r.futureOf(s); f != nil {
		<-f.done
		return f.res
	}
	return r.Execute(s.Check, s.Revision, s.Transport)
}

// keyLock serialises opening the shared session of one revision over one transport.
func (r *Runner) keyLock(key string) *sync.Mutex {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keyLocks == nil {
		r.keyLocks = map[string]*sync.Mutex{}
	}
	l, ok := r.keyLocks[key]
	if !ok {
		l = &sync.Mutex{}
		r.keyLocks[key] = l
	}
	return l
}
