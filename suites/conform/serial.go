package conform

import (
	"context"
	"fmt"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The serial session: over stdio every session is a server process, whose start is the dearest
// thing a run does against a Node or Python server (issue 28). Checks that need a session no
// other check uses at the same time, and that leave it as they found it, say so with
// Connection: Exclusive; over stdio those of one revision take turns on one process (shared
// session number serialSlot), in spec order.

// serialSlot numbers the serial session among a revision's shared sessions: apart from the
// round-robin slots (0 and up), so that no Shared check ever runs on it.
const serialSlot = -1

// connectionOver is the connection the check starts from at revision over transport: an
// Exclusive check is Fresh except over stdio, where a session of its own would be a process of
// its own, and at the stateless revision when it says it leaves something open there
// (StatelessFresh).
func connectionOver(c *Check, revision, transport string) Connection {
	if c.Side.Connection != Exclusive {
		return c.Side.Connection
	}
	if transport != wire.Stdio || c.Side.StatelessFresh && harness.IsStateless(revision) {
		return Fresh
	}
	return Exclusive
}

// leftAsFound reports whether an Exclusive check left its session fit for the next one: the check
// could do its part (a Broken check may have left anything behind), and the server, asked with a
// sentinel, answers it and then stays silent for the quiet window, so nothing of this check's
// is still on its way. A violation alone does not retire the process, as on a shared session:
// the next check judges only its own requests and what came after its own mark.
func (r *Runner) leftAsFound(ctx context.Context, s *harness.Session, f Finding) bool {
	if f.Outcome == Broken || isDead(s) {
		return false
	}
	late, err := s.Quiet(ctx, s.Mark())
	return err == nil && len(late) == 0 && !isDead(s)
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
