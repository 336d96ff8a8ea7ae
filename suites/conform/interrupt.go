package conform

import (
	"context"
	"fmt"

	"github.com/mcpspec/mcpspec/harness/record"
)

// Interrupt ends the run early (SIGINT, SIGTERM): every server is stopped, checks under way end
// with an error saying so, and checks not yet started are recorded as such errors without
// running. Reports written afterwards are complete: every selected check has a result.
func (r *Runner) Interrupt(reason string) {
	r.mu.Lock()
	first := r.interrupted == ""
	if first {
		r.interrupted = reason
	}
	r.mu.Unlock()
	if !first {
		return
	}
	r.cancelBase()
	r.Close()
}

// Interruption is why the run was interrupted, or "".
func (r *Runner) Interruption() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.interrupted
}

// runUnlessInterrupted runs the check unless the run was interrupted before it began; a check
// the interruption caught midway is an error whatever it concluded, since its servers were
// stopped under it.
func (r *Runner) runUnlessInterrupted(ctx context.Context, c *Check, revision, transport string, slot int, worker *turns) (Finding, []record.Record) {
	if why := r.Interruption(); why != "" {
		return Failed(fmt.Errorf("interrupted (%s) before the check ran", why)), nil
	}
	f, evidence := r.run(ctx, c, revision, transport, slot, worker)
	if why := r.Interruption(); why != "" {
		return Failed(fmt.Errorf("interrupted (%s) while the check ran: %s", why, f.Message)), evidence
	}
	return f, evidence
}
