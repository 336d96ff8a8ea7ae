package conform

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The serial session: over stdio every session is a server process, whose start is the dearest
// thing a run does against a Node or Python server, and over Streamable HTTP every session
// costs the server an initialize (issue 28). Checks that need a session no other check uses at
// the same time, and that leave it as they found it, say so with Connection: Exclusive; over
// stdio and Streamable HTTP those of one revision take turns on one session (shared session
// number serialSlot), in spec order.

// serialSlot numbers the serial session among a revision's shared sessions: apart from the
// round-robin slots (0 and up), so that no Shared check ever runs on it.
const serialSlot = -1

// connectionOver is the connection the check starts from at revision over transport: a check
// that says ObservedOverHTTP is Observed over Streamable HTTP, and a HandshakeObserved check at
// the handshake revisions. An Exclusive check takes its turn on
// the revision's serial session over stdio, where a session of its own would be a process of
// its own, and over Streamable HTTP, where it would cost the server an initialize (against a
// single-threaded Node server, ~10 ms of its CPU each, most of them at the start of a run, when
// it is busiest: issue 28). It is Fresh at the stateless
// revision when it says it leaves something open there (StatelessFresh), over HTTP when it
// Waits (on the lane its wait would hold up the checks after it, where in the pool of checks
// that wait it overlaps the rest of the run) or leaves a GET stream open (LeavesGetOpen), and
// over legacy SSE.
func connectionOver(c *Check, revision, transport string) Connection {
	if c.Side.ObservedOverHTTP && transport == wire.HTTP || c.Side.HandshakeObserved && harness.IsHandshake(revision) {
		return Observed
	}
	if c.Side.Connection != Exclusive {
		return c.Side.Connection
	}
	switch {
	case c.Side.StatelessFresh && harness.IsStateless(revision):
		return Fresh
	case transport == wire.Stdio, transport == wire.HTTP && !c.Side.Waits && !c.Side.LeavesGetOpen:
		return Exclusive
	}
	return Fresh
}

// leftAsFound reports whether an Exclusive check left its session fit for the next one: the check
// could do its part (a Broken check may have left anything behind), and the server, asked with a
// sentinel, answers it and then stays silent for the quiet window, so nothing of this check's
// is still on its way. A violation alone does not retire the process, as on a shared session:
// the next check judges only its own requests and what came after its own mark.
//
// Over Streamable HTTP the check must also have left no stream open (a GET, a response still
// streaming): what came on it later would land in the next check's window.
func (r *Runner) leftAsFound(ctx context.Context, s *harness.Session, f Finding) bool {
	if f.Outcome == Broken || isDead(s) {
		return false
	}
	late, err := s.Quiet(ctx, s.Mark())
	if err != nil || len(late) > 0 || isDead(s) {
		return false
	}
	if dr, ok := s.Conn.(wire.Drainer); ok {
		select {
		case <-dr.Drained():
		default:
			return false
		}
	}
	return true
}

// MaxStdioStarts bounds the server processes of sessions of checks' own (Fresh, Exclusive, an
// observation's) that are starting at once over stdio: launched, initialize not yet answered.
// Processes that start together share the CPU until nearly all of them are ready: two dozen Node
// starts on two cores each took ~10 s to answer initialize, on a loaded machine over the
// startup timeout, while checks waited on all of them (issue 28). Bounded, each is ready in a
// fraction of that and the checks begin in turn. The shared sessions, which carry most checks,
// do not queue.
const MaxStdioStarts = 4

// openOwn is openDeclaring for a session of a check's own, which over stdio waits for its turn
// to start (MaxStdioStarts); the wait is bounded by ctx.
func (r *Runner) openOwn(ctx context.Context, transport, revision string, caps map[string]any) Negotiation {
	if transport == wire.Stdio {
		select {
		case r.starts <- struct{}{}:
			defer func() { <-r.starts }()
		case <-ctx.Done():
			return Negotiation{Requested: revision, Err: fmt.Errorf("waiting for a turn to start a server: %w", ctx.Err()), Infra: true}
		}
	}
	return r.openDeclaring(ctx, transport, revision, caps)
}

// A first observation is one that needs a server nobody else has touched and leaves it as it
// found it, quiet (the pristine workload, pristine.go). Where the Exclusive checks take turns
// (over stdio and Streamable HTTP) it runs first on each revision's serial session, before
// they take their turns there, instead of on a session (over stdio, a process) of its own: the
// serial session is untouched until then. Its checks still call
// T.Observe with its key (Fresh), and are handed this run of it.
type firstObservation struct {
	key   string
	work  func(o *T) any
	users []string // the checks that judge it
}

var (
	firstMu      sync.Mutex
	firstOnStdio []firstObservation
)

// ObserveFirst declares the observation key (whose work T.Observe is given, Fresh) as one that
// runs first on each revision's serial session (serial.go), where one of users (the checks
// that judge it) is planned at that revision: a run of none of them makes it nowhere. A
// check not among users that observes key fails (T.Observe), so the list cannot drift. work
// must not use the T's Check: the observation runs before any check.
func ObserveFirst(key string, work func(o *T) any, users ...string) {
	firstMu.Lock()
	defer firstMu.Unlock()
	firstOnStdio = append(firstOnStdio, firstObservation{key, work, users})
}

// firstObservation is the declaration of key by ObserveFirst, if there is one.
func firstObservationOf(key string) (firstObservation, bool) {
	for _, o := range firstObservations() {
		if o.key == key {
			return o, true
		}
	}
	return firstObservation{}, false
}

// firstObservations are those declared with ObserveFirst.
func firstObservations() []firstObservation {
	firstMu.Lock()
	defer firstMu.Unlock()
	return append([]firstObservation(nil), firstOnStdio...)
}

// claimFirst claims, while the specs are planned, the first observations of revision over
// transport that its serial lane will make, of those a planned check judges (planned: the
// planned checks' IDs there): a check asking for one meanwhile waits for the lane's instead of
// starting a server for its own. It returns those claimed (none already made).
func (r *Runner) claimFirst(transport, revision string, planned map[string]bool) []firstObservation {
	var out []firstObservation
	for _, o := range firstObservations() {
		if !slices.ContainsFunc(o.users, func(id string) bool { return planned[id] }) {
			continue
		}
		if r.onceEntry(observeMemo(o.key, Fresh, transport, revision)).claimed.CompareAndSwap(false, true) {
			out = append(out, o)
		}
	}
	return out
}

// runFirst makes the claimed first observations on the serial session of revision over
// transport, holding worker's slot, before the lane's checks. A process the work left unwell or
// not quiet is replaced for the checks after it, as after an Exclusive check.
func (r *Runner) runFirst(firsts []firstObservation, transport, revision string, worker *turns) {
	for _, o := range firsts {
		e := r.onceEntry(observeMemo(o.key, Fresh, transport, revision))
		func() {
			defer close(e.done) // also when the work panics: the waiters then get nil
			ctx, cancel := context.WithTimeout(r.base, r.checkDeadline())
			defer cancel()
			release, err := r.holdShared(ctx, transport, revision, serialSlot, worker)
			if err != nil {
				f := Failed(err)
				e.v = &observation{finding: &f}
				return
			}
			defer release()
			neg := r.negotiationIn(ctx, transport, revision, serialSlot)
			if f, done := notUsable(neg); done {
				obs := &observation{finding: &f}
				if neg.Err == nil || neg.Infra { // the serial process's own answer, not the first session's record
					obs.evidence = tail(neg.Session)
				}
				e.v = obs
				return
			}
			t := &T{Ctx: ctx, Revision: revision, Transport: transport, run: r, worker: worker}
			obs := r.observeOn(t, o.key, neg.Session, o.work)
			if !r.leftAsFound(ctx, neg.Session, Finding{}) {
				r.markSuspect(transport, revision, serialSlot)
			}
			e.v = obs
		}()
	}
}
