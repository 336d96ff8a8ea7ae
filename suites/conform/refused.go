package conform

import (
	"context"
	"fmt"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// A server may open one session in its life, or a few: a small server with one Streamable HTTP
// transport for its whole process refuses a second initialize (the TypeScript SDK answers it
// with HTTP 400 "Server already initialized"). mcpspec opens a session per revision, and more
// for the checks that need one of their own, so such a server refuses most of them. Read as
// answers, those refusals made revisions it serves "not served", the server one "with no MCP
// handshake", and failed the checks that open sessions of their own (LIFE-PRE-INIT-REQUEST,
// LIFE-VERSION-FALLBACK). A refusal says nothing of the revision or the check once the server
// has been seen to refuse a session at a revision it serves on another one: what needed that
// session is untestable, with what the server answered. Over stdio every connection is a
// server process of its own, and there is no such limit.

// sessionRefusal is the server refusing a further session: initialize at revision, which it
// serves on another session, was answered answer.
type sessionRefusal struct {
	revision string
	answer   string
}

func (s *sessionRefusal) finding() Finding {
	return CannotTest("the server would not open a further session: initialize at %s, a revision it serves on another session, was answered %s; "+
		"it opens one session in its life, or only a few (a single transport for its whole process, say), and this check needed one more",
		s.revision, s.answer)
}

// refusedAt marks neg, a further session at revision over transport (never the revision's
// first), as the server's refusal when it got no result while the first session did: the
// revision is served, so the refusal is of the session.
func (r *Runner) refusedAt(ctx context.Context, transport, revision string, neg Negotiation) Negotiation {
	if transport == wire.Stdio || !noResult(neg) || harness.IsStateless(revision) {
		return neg
	}
	if r.recorded(ctx, transport, revision).Supported() {
		neg.Refused = &sessionRefusal{revision: revision, answer: answerOf(neg)}
	}
	return neg
}

// refusesSessions says whether the server refuses a further session over t's transport: asked
// once per transport, with initialize on a connection of its own at a revision the run's first
// session of it was served (t's revision first). Nil when the server opened it, or serves no
// revision of the run (nothing to tell then), and always over stdio.
func (r *Runner) refusesSessions(t *T) *sessionRefusal {
	if t.Transport == wire.Stdio {
		return nil
	}
	v, _ := t.once("refuses-sessions/"+t.Transport, func() any {
		// The run's context, not the check's: a check that ran out its deadline asks too, and
		// the answer is every check's.
		ctx, cancel := context.WithTimeout(r.base, r.env.Timeouts.Startup)
		defer cancel()
		var target harness.Target
		for _, tg := range r.cfg.Targets {
			if tg.Transport == t.Transport {
				target = tg
			}
		}
		order := []string{t.Revision}
		for _, rev := range targetRevisions(target, r.cfg.Revisions) {
			if rev != t.Revision {
				order = append(order, rev)
			}
		}
		for _, rev := range order {
			if !harness.IsHandshake(rev) || !r.recorded(ctx, t.Transport, rev).Supported() {
				continue
			}
			neg := r.open(ctx, t.Transport, rev)
			if neg.Session != nil {
				r.launcher(t.Transport).Release(neg.Session.Conn)
			}
			if noResult(neg) {
				return &sessionRefusal{revision: rev, answer: answerOf(neg)}
			}
			return (*sessionRefusal)(nil)
		}
		return (*sessionRefusal)(nil)
	})
	refusal, _ := v.(*sessionRefusal)
	return refusal
}

// refusedFirst is the finding of a check at a revision whose first session got no result, when
// the server refuses further sessions (it serves another revision on a session of its own, and
// refused that one too): untestable, not "not served" nor "no MCP handshake".
func (r *Runner) refusedFirst(t *T, neg Negotiation) (Finding, bool) {
	if t.Transport == wire.Stdio || !noResult(neg) || harness.IsStateless(neg.Requested) {
		return Finding{}, false
	}
	// The probe is made at a revision the server served, never at neg's.
	if refusal := r.refusesSessions(t); refusal != nil {
		return refusal.finding(), true
	}
	return Finding{}, false
}

// refusedOwn turns f, the finding of a check that made connections of its own (Raw, Observed;
// entries are what they exchanged), into the server's refusal of further sessions when it is
// not a pass, an initialize of the check's got no result, and the server refuses further
// sessions: that initialize was refused for the session, not for what the check did. A finding
// with no such initialize stands (a foreign Origin served is served on any server).
func (r *Runner) refusedOwn(t *T, f Finding, entries []record.Record) Finding {
	if f.Outcome == Pass || f.Outcome == Broken || t.Transport == wire.Stdio || !initializeWithoutResult(entries) {
		return f
	}
	if refusal := r.refusesSessions(t); refusal != nil {
		g := refusal.finding()
		g.Message = fmt.Sprintf("%s (its own finding: %s)", g.Message, clipLine(f.Message, 200))
		return g
	}
	return f
}

// initializeWithoutResult reports whether entries hold an initialize request that no response
// with a result answered (refused with an error, with an HTTP error, or not answered at all).
func initializeWithoutResult(entries []record.Record) bool {
	var asked []jsonrpc.ID
	answered := map[jsonrpc.ID]bool{}
	for _, e := range entries {
		for _, m := range messagesOf(e.Body) {
			switch {
			case e.Dir == record.Send && m.Kind == jsonrpc.Request && m.Method == "initialize":
				asked = append(asked, m.ID)
			case e.Dir == record.Recv && m.Kind == jsonrpc.Response && m.HasResult:
				answered[m.ID] = true
			}
		}
	}
	for _, id := range asked {
		if !answered[id] {
			return true
		}
	}
	return false
}
