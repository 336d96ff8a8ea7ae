package conform

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/mcpspec/mcpspec/harness/wire"
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
// running its share of the checks one after another; over stdio the Exclusive checks of a revision
// take turns on a session of their own (serial.go). A shared check that Waits gets a shared
// session of its own over a transport where a session starts no server (ownSession): queued
// behind other checks, its wait would end the run (issue 28).
func (r *Runner) StartShared(specs []Spec, workers, slots int) {
	if slots < 1 {
		slots = 1
	}
	if workers < 1 {
		workers = 1
	}
	sem := newTurns(workers)
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
	own := map[string]int{}                 // per revision and transport: shared sessions of their own so far
	planned := map[string]map[string]bool{} // per revision and transport: the planned checks' IDs
	var waiting, others []slotted
	for i, s := range specs {
		r.futures[s.key()] = &future{done: make(chan struct{})}
		r.order[s.key()] = i
		rk := s.Transport + "/" + s.Revision
		if planned[rk] == nil {
			planned[rk] = map[string]bool{}
		}
		planned[rk][s.Check.ID] = true
		switch {
		case ownSession(s):
			// Numbered after the round-robin slots, so that no other check shares it.
			waiting = append(waiting, slotted{s, slots + own[rk]})
			own[rk]++
		case connectionOver(s.Check, s.Revision, s.Transport) == Exclusive:
			// One after another on the revision's serial session, whether or not they wait.
			g := sharedKey(s.Transport, s.Revision, serialSlot)
			if _, seen := groups[g]; !seen {
				groupOrder = append(groupOrder, g)
			}
			groups[g] = append(groups[g], slotted{s, serialSlot})
		case connectionOver(s.Check, s.Revision, s.Transport) == Shared:
			slot := perRevision[rk] % slotsOver(s.Transport, slots)
			perRevision[rk]++
			g := sharedKey(s.Transport, s.Revision, slot)
			if _, seen := groups[g]; !seen {
				groupOrder = append(groupOrder, g)
			}
			groups[g] = append(groups[g], slotted{s, slot})
		case s.Check.Side.Waits:
			waiting = append(waiting, slotted{s, 0})
		default:
			others = append(others, slotted{s, 0})
		}
	}
	r.mu.Unlock()
	// A serial lane first makes the observations that want an untouched server (ObserveFirst),
	// claimed now so that no check starts a server of its own for one meanwhile.
	firsts := map[string][]firstObservation{}
	for _, g := range groupOrder {
		if s := groups[g][0]; s.slot == serialSlot {
			firsts[g] = r.claimFirst(s.spec.Transport, s.spec.Revision, planned[s.spec.Transport+"/"+s.spec.Revision])
		}
	}

	// held runs a spec whose slot in pool is already taken, and frees the slot.
	held := func(s Spec, slot int, pool *turns) {
		res := r.execute(s.Check, s.Revision, s.Transport, slot, pool)
		pool.give()
		f := r.futureOf(s)
		f.res = res
		close(f.done)
	}
	run := func(s Spec, slot int, kind int) {
		sem.take(context.Background(), nil, kind)
		held(s, slot, sem)
	}
	// Checks that mostly wait (Waits, with a session of their own) have a pool of their own,
	// taken in spec order from the start: their waits overlap each other and the rest of the
	// run, which they would otherwise hold up by keeping its workers idle. The pool bounds
	// how many of them (and so how many slow calls) the server gets at once.
	// Over stdio each of them is a server process of its own: fewer at once (a Node server
	// costs tens of MB).
	waitPool := newTurns(r.waitingBound())
	stdioPool := newTurns(min(r.waitingBound(), MaxStdioWaiting))
	go func() {
		if gate != nil {
			<-gate
		}
		feed := func(specs []slotted, pool *turns) {
			for _, s := range specs {
				pool.take(context.Background(), nil, arrival)
				go held(s.spec, s.slot, pool)
			}
		}
		var overStdio, overHTTP []slotted
		for _, s := range waiting {
			if s.spec.Transport == wire.Stdio {
				overStdio = append(overStdio, s)
			} else {
				overHTTP = append(overHTTP, s)
			}
		}
		// Over HTTP the Observed ones first: their observation (the state session's cancelled
		// calls above all) is the longest chain of waits in a run, and their Ready gates queue
		// on one session per revision with every other waiting check's; started behind those,
		// it ended a run against a server that ignores cancellations (issue 28). (Over stdio
		// each is a server process to start, which the waits pool already bounds.)
		slices.SortStableFunc(overHTTP, func(a, b slotted) int {
			return cmp.Compare(observedLast(a.spec), observedLast(b.spec))
		})
		go feed(overStdio, stdioPool)
		go feed(overHTTP, waitPool)
		for _, g := range groupOrder {
			go func(specs []slotted, firsts []firstObservation) {
				// Over stdio a queue's next check comes before the checks of their own, most of
				// which wait for a server's start: after each of its checks a queue went
				// behind all of them, and its session stood idle 0.3-0.5 s a check (5 s of
				// each first session's run against server-everything).
				kind := arrival
				if specs[0].spec.Transport == wire.Stdio {
					kind = queued
				}
				if len(firsts) > 0 {
					sem.take(context.Background(), nil, kind)
					r.runFirst(firsts, specs[0].spec.Transport, specs[0].spec.Revision, sem)
					sem.give()
				}
				for _, s := range specs {
					run(s.spec, s.slot, kind)
				}
			}(groups[g], firsts[g])
		}
		for _, s := range others {
			go run(s.spec, s.slot, arrival)
		}
	}()
}

// observedLast orders the waiting checks: 0 for one Observed over its transport, 1 for any other.
func observedLast(s Spec) int {
	if connectionOver(s.Check, s.Revision, s.Transport) == Observed {
		return 0
	}
	return 1
}

// ownSession says whether a spec gets a shared session of its own: a shared check that Waits,
// over a transport on which another session is only another connection to the same server
// (over stdio it would be another server process, dearer than the wait it saves).
func ownSession(s Spec) bool {
	return connectionOver(s.Check, s.Revision, s.Transport) == Shared && s.Check.Side.Waits && s.Transport != wire.Stdio
}

// MaxStdioSessions bounds the shared sessions per revision over stdio, whatever --sessions says:
// each is a server process, whose start costs a Node server ~0.5 s of CPU, and the run against
// such a server is bound by CPU on a small machine; two sessions keep a revision's shared checks
// (slow-tool calls among them) shorter than the rest of the run.
const MaxStdioSessions = 2

// slotsOver is how many shared sessions per revision a transport gets when slots are asked for.
func slotsOver(transport string, slots int) int {
	if transport == wire.Stdio {
		return min(slots, MaxStdioSessions)
	}
	return slots
}

// DefaultWaiting is how many checks that mostly wait may run at once unless SetWaiting says
// otherwise (mcpspec run --slow-parallel). A default run over Streamable HTTP has about 90 such
// checks, most of them a slow call or two: all at once they end in about the time of the
// longest (the state session's, ~1.6 × the tool's), where 32 at once took three rounds of the
// tool (a 3 s tool made the run 10 s). Each is a session, not a process, over HTTP.
const DefaultWaiting = 96

// MaxStdioWaiting bounds the checks that mostly wait over stdio, under way at once whatever
// --slow-parallel says: each launches a server process of its own.
const MaxStdioWaiting = 8

// SetWaiting bounds how many checks that mostly wait (Check.Waits) run at once, beside the
// workers StartShared is given: n < 1 means DefaultWaiting. Call it before StartShared.
func (r *Runner) SetWaiting(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiting = n
}

func (r *Runner) waitingBound() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting < 1 {
		return DefaultWaiting
	}
	return r.waiting
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
