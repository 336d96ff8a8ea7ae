package conform

import (
	"context"
	"fmt"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// A shared session is used by one check at a time: the Shared check running on it, or the
// Ready gate of a check with a connection of its own, which reads (and may query) the
// revision's first shared session. Without that, a gate's request would land in the middle of
// a shared check's exchange, tagged with that check's name, and the shared check would judge
// an answer it never asked for: a verdict that depended on which other checks ran beside it.

// useLock is the lock of one shared session (by sharedKey): a channel of one token, so that
// waiting for it is bounded by the check's deadline.
func (r *Runner) useLock(key string) chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.uses == nil {
		r.uses = map[string]chan struct{}{}
	}
	l, ok := r.uses[key]
	if !ok {
		l = make(chan struct{}, 1)
		r.uses[key] = l
	}
	return l
}

// holdShared takes shared session slot at revision over transport for one check, and returns
// the function that gives it back. A check waiting for it gives its worker slot back meanwhile
// (as T.once does): the session's current user may need a worker slot to finish.
func (r *Runner) holdShared(ctx context.Context, transport, revision string, slot int, worker *turns) (func(), error) {
	l := r.useLock(sharedKey(transport, revision, slot))
	release := func() { <-l }
	select {
	case l <- struct{}{}:
		return release, nil
	default:
	}
	if worker != nil {
		worker.give()
		defer worker.take(context.Background(), nil, retake)
	}
	select {
	case l <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the shared %s session at %s, which another check was using: %w", transport, revision, ctx.Err())
	}
}

// gatesOwnSlot numbers the shared session that only the Ready gates use, where another session
// is only another connection: there a gate waits for other gates (most read the initialize
// answer and nothing else), not for every Shared check that runs on the revision's first session
// (a run against a slow tool started its state sessions seconds late behind them). Over stdio
// another session is another server process, and the gates keep to the first session.
const gatesOwnSlot = -2 // serialSlot is -1

// gateSlot is the shared session the Ready gates use over transport.
func gateSlot(transport string) int {
	if transport == wire.Stdio {
		return 0
	}
	return gatesOwnSlot
}

// gate does, for a check with a connection of its own, what the revision's first shared session
// tells before that connection is made: a target that cannot be initialized at this revision, a
// revision it does not serve, and the check's Ready gate. done is true when that is the check's
// finding. The gate holds the shared session, which meanwhile carries the check's name.
func (r *Runner) gate(ctx context.Context, c *Check, revision, transport string, worker *turns) (f Finding, evidence []record.Record, done bool) {
	slot := gateSlot(transport)
	release, err := r.holdShared(ctx, transport, revision, slot, worker)
	if err != nil {
		return Failed(err), nil, true
	}
	defer release()
	neg := r.negotiationIn(ctx, transport, revision, slot)
	if neg.Err != nil && neg.Infra {
		return Failed(neg.Err), tail(neg.Session), true
	}
	// A revision the shared session found unserved is unserved on a fresh server too: no
	// process is launched just to hear the same answer again. A Raw check that binds only a
	// stateless-only server is na there too, as its own first exchange would find it (dualEra):
	// over stdio it would start a server only to be told so.
	if f, done := notUsable(neg); done && (c.Side.Connection != Raw && !c.Side.PreInit || c.Side.StatelessOnlyServer && neg.Err != nil) {
		return f, tail(neg.Session), true
	}
	if c.Side.Ready == nil || neg.Session == nil || neg.Err != nil {
		return Finding{}, nil, false
	}
	neg.Session.SetOwner(c.ID)
	g := &T{Ctx: ctx, Revision: revision, Transport: transport, Check: c, run: r, S: neg.Session, worker: worker}
	defer func() {
		for _, conn := range g.extra {
			r.launcher(transport).Release(conn)
		}
	}()
	mark := neg.Session.Conn.Transcript().Mark()
	if f, done := c.Side.Ready(g); done {
		// What the gate asked for the check, and the answers it read (T.Ask), are its evidence.
		evidence := neg.Session.Conn.Transcript().Since(mark)
		for _, a := range g.othersAnswers() {
			f = withUnanswered(f, a.unanswered)
			evidence = append(evidence, a.evidence...)
		}
		return f, evidence, true
	}
	return Finding{}, nil, false
}

// recorded is what the revision's first shared session was told by initialize, opening that
// session only when there is none yet. Unlike negotiation it never replaces a session that died
// or fell under suspicion, since a check may still be using it; its record still says what the
// server answered. For those who only read the answer (T.Negotiation, the other slots).
func (r *Runner) recorded(ctx context.Context, transport, revision string) Negotiation {
	r.mu.Lock()
	sh, ok := r.shared[sharedKey(transport, revision, 0)]
	r.mu.Unlock()
	if ok {
		return sh.neg
	}
	return r.negotiationIn(ctx, transport, revision, 0)
}
