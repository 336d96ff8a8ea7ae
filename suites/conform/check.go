// Package conform is the one path by which a requirement becomes a Ginkgo spec: it looks the ID up
// in the catalogue, adds the labels, gives the check a session at the right revision over the
// right transport, and turns the check's finding into a result and a Ginkgo outcome.
package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/check"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Connection says what a check needs to start from.
type Connection int

const (
	// Shared: an initialized session that other checks use too. Most checks.
	Shared Connection = iota
	// Fresh: an initialized session of its own (the check reuses ids, or breaks state).
	Fresh
	// Raw: a connection of its own on which nothing has been sent yet.
	Raw
	// Observed: the check judges what one server of its own did under a workload that other
	// checks judge too (T.Observe): the runner opens nothing for it, and T.S is nil.
	Observed
	// Exclusive: an initialized session no other check uses while this one runs, which the
	// check leaves as it found it (it changes no server state, and what it sends is answered
	// within it). Over stdio, where a session is a server process, the Exclusive checks of one
	// revision take turns on the revision's serial session, each ending with silence proven
	// (Session.Quiet); a session that fails that proof is replaced (serial.go). Over Streamable
	// HTTP they do the same, except one that Waits or says LeavesGetOpen; over legacy SSE it is
	// Fresh, and at the stateless revision too where the check says StatelessFresh.
	Exclusive
)

// Check is one requirement's server check (package check: the fields every kind has), with
// mcpspec's own reading of it.
type Check = check.Check[Server]

// Server is what only a server check has: the connection it starts from, how it is scheduled,
// and its Run.
type Server struct {
	// StatelessTransports narrows Transports at the stateless revision (nil: the same), for checks
	// whose probe means something else there on some transport.
	StatelessTransports []string
	Connection          Connection
	// Once: the check does not depend on the session's revision (it probes the server with its
	// own initialize); it runs at the newest selected revision only.
	Once bool
	// StatelessOnlyServer: the requirement binds only a server that serves no handshake revision;
	// against a dual-era server the check reports na, and so it does, before its connection is
	// made, at a revision the shared session found unserved (a Raw check otherwise runs there).
	StatelessOnlyServer bool
	// Waits: the check spends most of its time waiting out a bounded window (a cancelled
	// request's silence, an answer that may never come, a call of the slow tool). Such checks
	// are started first, so that their waits overlap the rest of the run instead of ending it;
	// a Shared one gets a shared session of its own except over stdio (StartShared).
	Waits bool
	// Ready tells, before the check runs, whether it would end at once: given the revision's
	// shared session (capabilities, options), it returns that finding and true. For a check
	// with a connection of its own it is asked before that connection is made, which spares a
	// server start for a capability the server lacks or a tool mcpspec was not given. Run may
	// take for granted what Ready let through.
	Ready func(t *T) (Finding, bool)
	Run   func(t *T) Finding
	// PreInit: an Observed check whose observations are Raw (T.Observe with Raw, T.ObserveStart:
	// a server of its own spoken to before any initialize at the check's revision), or whose part
	// is made apart (T.MakeApart) as a Raw check's Run. Like a Raw check it runs at
	// a revision the shared session found unserved, and a refused initialize of its
	// observation's at such a revision is na (unservedRefusal).
	PreInit bool
	// HandshakeObserved: a Shared check that at the handshake revisions judges only what a
	// declaring observation gathered (T.ObserveDeclaring) and sends nothing on its session:
	// there it is Observed. On a shared session it held that session, and every check queued
	// behind it, while the observation's server started and its tools were called (issue 28:
	// seconds over stdio); Observed, it waits holding nothing. At the stateless revision, where
	// it works on the shared session, it stays Shared.
	HandshakeObserved bool
	// StatelessFresh: an Exclusive check that at the stateless revision leaves something open
	// when it ends (a listen), so that the next check on its session would not find it as it
	// was: there it is Fresh over stdio too.
	StatelessFresh bool
	// LeavesGetOpen: an Exclusive check that over Streamable HTTP leaves a GET stream open when
	// it ends (for a notification to come on), so that the next check on its session would not
	// find it as it was: there it is Fresh.
	LeavesGetOpen bool
	// ObservedOverHTTP: Connection (Shared or Exclusive) is the check's connection over stdio
	// and legacy SSE; over Streamable HTTP it is Observed. It judges answers that another
	// check, or an observation, may have had already: over stdio they are asked (T.Ask) on a
	// session that serves other checks too, as an observation would be a server process of its
	// own; over Streamable HTTP, where another session is only another connection (and every
	// stream of it the client's, so that a session whose streams have ended can get nothing
	// more), they are an observation (T.Observe) made on a session of its own by the first check
	// to come, and the check opens none for itself (issue 28: one opened for each such check
	// before it ran was most often never used).
	ObservedOverHTTP bool
	// JSONRPC: the check belongs to the JSON-RPC profile too (mcpspec run --jsonrpc): it judges a
	// rule of JSON-RPC 2.0 itself, and Run works on a plain session (harness.RevJSONRPC: no
	// handshake, no method known to succeed, the sentinel an unknown method).
	JSONRPC bool
}

// Kind makes Server a check side.
func (Server) Kind() check.Kind { return check.Server }

// Scope narrows where a server check applies: at the JSON-RPC profile only if it belongs to it,
// at the stateless revision over StatelessTransports if it names them.
func (s Server) Scope(revision string, versions, transports []string) []string {
	if revision == harness.RevJSONRPC {
		if s.JSONRPC {
			return transports
		}
		return nil
	}
	if !slices.Contains(versions, revision) {
		return nil
	}
	if s.StatelessTransports != nil && harness.IsStateless(revision) {
		return s.StatelessTransports
	}
	return transports
}

// validateServer completes a server check once check.Validate has passed: it needs a Run, and
// an extension's check is gated on the server declaring the extension.
func validateServer(c *Check) error {
	if c.Side.Run == nil {
		return fmt.Errorf("server check %s: needs a Run function", c.ID)
	}
	if c.Side.HandshakeObserved && c.Side.Connection != Shared {
		return fmt.Errorf("server check %s: HandshakeObserved is for a Shared check", c.ID)
	}
	e, _ := catalog.Lookup(c.ID)
	if x, ok := e.ExtensionOf(); ok {
		c.Side.Ready = extensionGate(x, c.Side.Ready)
	}
	return nil
}

// extensionGate is the Ready gate of an extension's check: the check applies only to a server
// that declares the extension in capabilities.extensions, then ready (if any) decides.
func extensionGate(x catalog.Extension, ready func(t *T) (Finding, bool)) func(t *T) (Finding, bool) {
	return func(t *T) (Finding, bool) {
		if _, declared := ServerExtension(t.S, x.ID); !declared {
			return NA("extension not declared: the server's capabilities.extensions has no %s", x.ID), true
		}
		if ready != nil {
			return ready(t)
		}
		return Finding{}, false
	}
}

// ServerExtension returns the server's capabilities.extensions entry for id (from initialize or
// server/discover), and whether the server declares it at all.
func ServerExtension(s *harness.Session, id string) (json.RawMessage, bool) {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if s == nil {
		return nil, false
	}
	_ = json.Unmarshal(s.InitResult()["capabilities"], &caps)
	raw, ok := caps.Extensions[id]
	return raw, ok
}

// Outcome and Finding are the verdict of every check, server and client alike (package finding).
type (
	Outcome = finding.Outcome
	Finding = finding.Finding
)

// The outcomes, as package finding names them.
const (
	Pass          = finding.Pass
	Violation     = finding.Violation
	NotApplicable = finding.NotApplicable
	Untestable    = finding.Untestable
	Broken        = finding.Broken
)

// Passed is a pass, with an optional note.
func Passed(format string, args ...any) Finding {
	return Finding{Outcome: Pass, Message: fmt.Sprintf(format, args...)}
}

// Violated says the server broke the requirement: a failure for a MUST, a warning for a SHOULD.
func Violated(format string, args ...any) Finding {
	return Finding{Outcome: Violation, Message: fmt.Sprintf(format, args...)}
}

// Crashed is a violation that fails even a SHOULD: the server died or stopped answering.
func Crashed(format string, args ...any) Finding {
	return Finding{Outcome: Violation, Message: fmt.Sprintf(format, args...), Severe: true}
}

// NA says the requirement does not apply here, and why.
func NA(format string, args ...any) Finding {
	return Finding{Outcome: NotApplicable, Message: fmt.Sprintf(format, args...)}
}

// CannotTest says a prerequisite is missing (never a pass).
func CannotTest(format string, args ...any) Finding {
	return Finding{Outcome: Untestable, Message: fmt.Sprintf(format, args...)}
}

// Failed says the harness could not do its part.
func Failed(err error) Finding { return Finding{Outcome: Broken, Message: err.Error()} }

// T is what a check works with.
type T struct {
	Ctx       context.Context
	S         *harness.Session
	Revision  string
	Transport string
	Check     *Check
	run       *Runner
	extra     []wire.Conn
	sessions  []*harness.Session // the sessions of extra, whose unanswered requests count too
	evidence  []record.Record    // from the observations the check judged (T.Observe)
	observed  []*observation
	declared  []*observation // those of ObserveDeclaring, whose evidence every check keeps
	worker    *turns         // the scheduler's worker slots, one of which this check holds (nil: none)
	// answers are the answers of T.Ask this check read or made: the exchanges of those another
	// check made are part of its evidence, their unanswered requests fail it.
	answers map[*answer]bool
}

// answer is one answer of T.Ask: f's value, with the exchanges it took and the requests the
// server left unanswered meanwhile, on the sessions of the check that asked first.
type answer struct {
	v          any
	evidence   []record.Record
	unanswered []harness.Unanswered
}

// Ask gives the check the answer to a question that many checks put to the server in the same
// words and judge for its content only (a list walked, a read-only tool called with the same
// arguments, a resource read): f asks it on the check's own session (T.S, or sessions it opens)
// the first time any check asks for key at this revision over this transport; every other check
// asking for key meanwhile or later reads that answer instead of asking again. Whoever asked,
// the exchanges f took are in the evidence of every check that read the answer, and a request
// among them that the server left unanswered fails each such check as one of its own would.
// A check whose point is to make the request itself (its effect, its id, what follows it) does
// not ask through here. An answer f made after the check's context ended is not kept: the next
// check asks again.
func (t *T) Ask(key string, f func() any) any {
	memo := fmt.Sprintf("ask/%s/%s/%s", t.Transport, t.Revision, key)
	v, _ := t.onceKept(memo, func() (any, bool) {
		a := t.asking(f)
		t.read(a, true)
		return a, t.Ctx.Err() == nil
	})
	a, ok := v.(*answer)
	if !ok {
		return nil
	}
	t.read(a, false)
	return a.v
}

// AskAt is Ask at another revision of the run over this transport, for a check that needs an
// answer the server gives only there (the tool annotations of a newer revision): the first
// check to ask for key at revision, this one or one of that revision's through Ask, asks it;
// here f runs on a T of that revision whose S is its gate session (the first shared session
// over stdio), so that no server is started for it. Its exchanges are the evidence of every
// check that reads the answer, as Ask's are. served is false, and nothing asked, where the
// server does not serve revision (its shared session's initialize said so) or the run does not
// test it (RunsAt).
func (t *T) AskAt(revision, key string, f func(o *T) any) (v any, served bool) {
	if !t.RunsAt(revision) || !t.Negotiation(revision).Supported() {
		return nil, false
	}
	memo := fmt.Sprintf("ask/%s/%s/%s", t.Transport, revision, key)
	got, made := t.run.made(memo)
	if !made {
		// The session is held before the answer is claimed, never the other way round: a check
		// of that revision holding the session may be asking for the same answer.
		release, err := t.run.holdShared(t.Ctx, t.Transport, revision, gateSlot(t.Transport), t.worker)
		if err != nil {
			return nil, true
		}
		defer release()
		got, _ = t.onceKept(memo, func() (any, bool) {
			a := t.askingAt(revision, f)
			if a == nil {
				return nil, false
			}
			return a, t.Ctx.Err() == nil
		})
	}
	a, ok := got.(*answer)
	if !ok {
		return nil, true
	}
	t.read(a, false) // made on another session: its exchanges are not in the check's transcript
	return a.v, true
}

// askingAt runs f on revision's gate session, which the caller holds; nil when it cannot be had.
func (t *T) askingAt(revision string, f func(o *T) any) *answer {
	neg := t.run.negotiationIn(t.Ctx, t.Transport, revision, gateSlot(t.Transport))
	if _, done := notUsable(neg); done || neg.Session == nil {
		return nil
	}
	o := &T{Ctx: t.Ctx, Revision: revision, Transport: t.Transport, Check: t.Check, run: t.run, S: neg.Session, worker: t.worker}
	if t.Check != nil {
		o.S.SetOwner(t.Check.ID)
	}
	return o.asking(func() any { return f(o) })
}

// RunsAt reports whether the run tests revision over this transport.
func (t *T) RunsAt(revision string) bool {
	for _, tg := range t.run.cfg.Targets {
		if tg.Transport == t.Transport {
			return slices.Contains(targetRevisions(tg, t.run.cfg.Revisions), revision)
		}
	}
	return false
}

// asking runs f and keeps what it exchanged on the check's sessions.
func (t *T) asking(f func() any) *answer {
	mark, unanswered := t.S.Conn.Transcript().Mark(), t.S.UnansweredCount()
	extraMu.Lock()
	conns, sessions := len(t.extra), len(t.sessions)
	extraMu.Unlock()
	a := &answer{v: f()}
	a.evidence = t.S.Conn.Transcript().Since(mark)
	a.unanswered = t.S.UnansweredSince(unanswered)
	extraMu.Lock()
	defer extraMu.Unlock()
	for _, c := range t.extra[conns:] {
		a.evidence = append(a.evidence, c.Transcript().Since(0)...)
	}
	for _, s := range t.sessions[sessions:] {
		a.unanswered = append(a.unanswered, s.UnansweredSince(0)...)
	}
	return a
}

// read notes that the check judged a; own says it made it (its exchanges are the check's own).
func (t *T) read(a *answer, own bool) {
	extraMu.Lock()
	defer extraMu.Unlock()
	if t.answers == nil {
		t.answers = map[*answer]bool{}
	}
	if _, seen := t.answers[a]; !seen {
		t.answers[a] = own
	}
}

// othersAnswers are the answers the check read that another check made.
func (t *T) othersAnswers() []*answer {
	extraMu.Lock()
	defer extraMu.Unlock()
	var out []*answer
	for a, own := range t.answers {
		if !own {
			out = append(out, a)
		}
	}
	// In the order they were had, so that evidence reads as a story: by the first record's time.
	slices.SortFunc(out, func(x, y *answer) int {
		if len(x.evidence) == 0 || len(y.evidence) == 0 {
			return len(x.evidence) - len(y.evidence)
		}
		return x.evidence[0].At.Compare(y.evidence[0].At)
	})
	return out
}

// Memo returns the run's value for key, computing it with f the first time any check asks: for
// facts about the server that several checks need and that cost a connection to learn. Checks
// asking meanwhile wait for the first one's answer (nil if their own deadline comes first).
func (t *T) Memo(key string, f func() any) any {
	v, _ := t.once("memo/"+key, f)
	return v
}

// Observe runs work once per run on a server of its own and gives every check that asks for
// key the same value, with that server's transcript as its evidence. Checks that judge one
// pristine server from different angles need a server nobody else has touched, not one each.
// conn is Fresh (a session initialized at the check's revision; one observation per revision)
// or Raw (nothing sent yet; the observation serves every revision, so work must not depend on
// one). Work gets a T whose S is that server's session; when the server cannot be had, the
// finding says why and the value is nil.
func (t *T) Observe(key string, conn Connection, work func(o *T) any) (any, *Finding) {
	if o, first := firstObservationOf(key); first && t.Check != nil && !slices.Contains(o.users, t.Check.ID) {
		f := Failed(fmt.Errorf("%s observes %q, but is not among the checks its ObserveFirst declares", t.Check.ID, key))
		return nil, &f
	}
	return t.observeUnder(observeMemo(key, conn, t.Transport, t.Revision), key, conn, work)
}

// ObserveStart is Observe on a connection on which nothing has been sent yet (as Raw), made once
// per revision and transport: for a workload that speaks before initialize and then initializes
// at the check's revision (the request before initialize, the cancelled initialize and the
// window before initialized share one: sessionstart.go in suites).
func (t *T) ObserveStart(key string, work func(o *T) any) (any, *Finding) {
	return t.observeUnder(fmt.Sprintf("observe-start/%s/%s/%s", key, t.Transport, t.Revision), key, Raw, work)
}

// observeUnder is Observe with the observation memoized under memo.
func (t *T) observeUnder(memo, key string, conn Connection, work func(o *T) any) (any, *Finding) {
	obs, f := t.observation(memo, key, func() any { return t.run.observe(t, key, conn, nil, work) })
	if f != nil {
		return nil, f
	}
	t.evidence = append(t.evidence, obs.evidence...)
	t.observed = append(t.observed, obs)
	return obs.v, obs.finding
}

// Apart is a part of a check made on a connection of its own (T.MakeApart): its finding, judged
// as a Raw check's would be, and that connection's transcript.
type Apart struct {
	f        Finding
	evidence []record.Record
}

// MakeApart makes part on a connection of its own on which nothing has been sent yet, exactly
// as a Raw check's Run would be made, its ids owned by owner: for a check that judges a shared
// observation where its own part could not be judged cleanly (the conversation went wrong
// before it). The connection is closed before MakeApart returns. An observation's work may call
// it too, beside its own conversation; it uses nothing of t but its context, revision and
// transport.
func (t *T) MakeApart(owner string, part func(o *T) Finding) *Apart {
	l := t.run.launcher(t.Transport)
	conn, err := l.Connect(t.Ctx)
	if err != nil {
		return &Apart{f: Failed(err)}
	}
	defer l.Release(conn)
	o := &T{Ctx: t.Ctx, Revision: t.Revision, Transport: t.Transport, Check: t.Check, run: t.run, worker: t.worker,
		S: harness.Attach(conn, t.run.env, t.Revision)}
	o.S.SetOwner(owner)
	defer func() {
		for _, c := range o.extra {
			l.Release(c)
		}
	}()
	f := func() (f Finding) {
		defer func() {
			if p := recover(); p != nil {
				f = Failed(fmt.Errorf("check panicked: %v", p))
			}
		}()
		return part(o)
	}()
	// As the runner finishes a Raw check's finding (runner.go).
	f = withUnanswered(f, o.unanswered(0))
	entries := conn.Transcript().Since(0)
	for _, c := range o.extra {
		entries = append(entries, c.Transcript().Since(0)...)
	}
	if na, ok := t.run.unservedRefusal(t.Ctx, o, f, entries); ok {
		f = na
	}
	if f.Outcome == Violation || f.Outcome == Broken {
		f.Message = explainServer(f.Message, goneCause(o.S), o.S.Timeouts() > 0, o.S.Conn.Diagnostics)
	}
	return &Apart{f: f, evidence: entries}
}

// Report makes a the check's finding, for an Observed check: what it observed (T.Observe's
// evidence, and the requests left unanswered there) is dropped, and a's connection is its
// evidence, so that the result is the one the check would have had on a connection of its own.
func (t *T) Report(a *Apart) Finding {
	t.evidence, t.observed = a.evidence, nil
	return a.f
}

// observeMemo names the run's value of the observation key over transport: one per revision,
// or one for every revision when the observation is Raw.
func observeMemo(key string, conn Connection, transport, revision string) string {
	memo := fmt.Sprintf("observe/%s/%s", key, transport)
	if conn != Raw {
		memo += "/" + revision
	}
	return memo
}

// ObserveDeclaring is Observe on a session initialized at the check's revision that declared
// the client capabilities caps: for checks that each judge, from their own angle, the requests
// a server sends a client that declared them (elicitation, sampling). One server per revision
// and transport serves them all, where each would otherwise open a session (over stdio, a
// process) of its own to see the same requests. Whatever the check's own connection, the
// observation's transcript is part of its evidence and the requests it left unanswered fail it,
// as a session of its own would.
func (t *T) ObserveDeclaring(key string, caps map[string]any, work func(o *T) any) (any, *Finding) {
	memo := fmt.Sprintf("observe-declaring/%s/%s/%s", key, t.Transport, t.Revision)
	obs, f := t.observation(memo, key, func() any { return t.run.observe(t, key, Fresh, caps, work) })
	if f != nil {
		return nil, f
	}
	t.evidence = append(t.evidence, obs.evidence...)
	t.observed = append(t.observed, obs)
	t.declared = append(t.declared, obs)
	return obs.v, obs.finding
}

// observation is the observation memoized under memo, made by start in the first check asking.
func (t *T) observation(memo, key string, start func() any) (*observation, *Finding) {
	v, err := t.once(memo, start)
	obs, ok := v.(*observation)
	if !ok {
		if err == nil {
			err = errors.New("it did not finish")
		}
		f := Failed(fmt.Errorf("waiting for the observation %s: %w", key, err))
		return nil, &f
	}
	return obs, nil
}

// once computes the run's value for key with f in the first check that asks; the others wait
// for it without holding a worker slot meanwhile (a check waiting on another's work would
// otherwise keep a slot from checks that could run), and give up at their own deadline.
func (t *T) once(key string, f func() any) (any, error) {
	return t.onceKept(key, func() (any, bool) { return f(), true })
}

// onceKept is once for a value that f may decline to keep (false): the check that made it gets
// it all the same, and the next one to ask (a waiter included) computes it anew.
func (t *T) onceKept(key string, f func() (any, bool)) (any, error) {
	released := false
	defer func() {
		if released {
			t.worker.take(context.Background(), nil, retake)
		}
	}()
	for {
		e := t.run.onceEntry(key)
		if e.claimed.CompareAndSwap(false, true) {
			if released { // the value another check dropped: computed on a slot of this one's
				t.worker.take(context.Background(), nil, retake)
				released = false
			}
			kept := true // also when f panics: the waiters then get nil
			defer func() {
				if !kept {
					e.dropped = true
					t.run.forget(key, e)
				}
				close(e.done)
			}()
			e.v, kept = f()
			return e.v, nil
		}
		if t.worker != nil && !released {
			t.worker.give()
			released = true
		}
		select {
		case <-e.done:
			if !e.dropped {
				return e.v, nil
			}
		case <-t.Ctx.Done():
			return nil, t.Ctx.Err()
		}
	}
}

// Beside takes one more of the scheduler's slots, beside the one the check holds, for work it
// would otherwise do after its own (a slow call on a session of its own): the slots bound how
// many such calls the server gets at once. It waits for a free slot until ctx ends or done is
// closed (the work then takes the place of what done ended, which holds no slot any more);
// release gives the slot back. Without a scheduler (Execute) there is nothing to bound.
func (t *T) Beside(ctx context.Context, done <-chan struct{}) (release func()) {
	if t.worker == nil {
		return func() {}
	}
	if t.worker.take(ctx, done, arrival) {
		return t.worker.give
	}
	return func() {}
}

// On is t working on s, another session the check opened, for helpers that work on T.S. Only
// t opens further sessions (On's copy would lose them).
func (t *T) On(s *harness.Session) *T {
	extraMu.Lock()
	if t.answers == nil { // shared with the copy, so that the answers it reads are t's too
		t.answers = map[*answer]bool{}
	}
	extraMu.Unlock()
	u := *t
	u.S = s
	return &u
}

// keep records a connection and its session the check opened, to be closed when it ends and
// judged with it. The check may open them from goroutines of its own, hence the lock.
func (t *T) keep(conn wire.Conn, s *harness.Session) {
	extraMu.Lock()
	defer extraMu.Unlock()
	if conn != nil {
		t.extra = append(t.extra, conn)
	}
	if s != nil {
		t.sessions = append(t.sessions, s)
	}
}

// extraMu guards the sessions checks open (T.keep): it is seldom taken, and briefly.
var extraMu sync.Mutex

// Connect opens another raw connection to the target, closed when the check ends.
func (t *T) Connect() (*harness.Session, error) {
	conn, err := t.run.launcher(t.Transport).Connect(t.Ctx)
	if err != nil {
		return nil, err
	}
	s := harness.Attach(conn, t.run.env, t.Revision)
	s.SetOwner(t.Check.ID)
	t.keep(conn, s)
	return s, nil
}

// OpenDeclaring opens another session initialized at a handshake revision with the client
// capabilities caps, closed when the check ends.
func (t *T) OpenDeclaring(revision string, caps map[string]any) (*harness.Session, error) {
	conn, err := t.run.launcher(t.Transport).Connect(t.Ctx)
	if err != nil {
		return nil, err
	}
	s, err := harness.OpenDeclaring(t.Ctx, conn, t.run.env, revision, t.Check.ID, caps)
	t.keep(conn, s)
	return s, err
}

// Open opens another initialized session at revision, closed when the check ends.
func (t *T) Open(revision string) (*harness.Session, error) {
	conn, err := t.run.launcher(t.Transport).Connect(t.Ctx)
	if err != nil {
		return nil, err
	}
	open := harness.Open
	if harness.IsStateless(revision) {
		open = harness.OpenStateless
	}
	s, err := open(t.Ctx, conn, t.run.env, revision, t.Check.ID)
	t.keep(conn, s)
	return s, err
}

// unanswered are the requests this check's sessions left unanswered since it began (mark: the
// count on T.S then).
func (t *T) unanswered(mark int) []harness.Unanswered {
	var out []harness.Unanswered
	if t.S != nil {
		out = t.S.UnansweredSince(mark)
	}
	for _, s := range t.sessions {
		out = append(out, s.UnansweredSince(0)...)
	}
	return out
}

// Negotiation is what the server answered to initialize at revision over this transport, from
// the run's shared session (opened if needed). Its Session is for reading only: another check
// may be using it.
func (t *T) Negotiation(revision string) Negotiation {
	return t.run.recorded(t.Ctx, t.Transport, revision)
}

// Revisions are the handshake revisions mcpspec knows.
func (t *T) Revisions() []string { return harness.HandshakeRevisions }

// Options are run-wide settings checks may need.
func (t *T) Options() Options { return t.run.cfg.Options }

// LaunchedPID is the process id of the server mcpspec launched for this transport's target
// (--http-cmd), or 0 when it reaches a server it did not start.
func (t *T) LaunchedPID() int { return t.run.launcher(t.Transport).ServerPID() }

// TargetURL is the URL of this transport's target ("" over stdio).
func (t *T) TargetURL() string { return t.run.launcher(t.Transport).Target().URL }

// TargetCredential is the credential of the run's own Authorization header for this
// transport's target ("" when there is none): the AUTH checks move it where it does not belong
// to see that the server refuses it there. It is a secret, redacted from every result.
func (t *T) TargetCredential() string {
	_, cred, _ := strings.Cut(strings.TrimSpace(t.run.launcher(t.Transport).Target().Header.Get("Authorization")), " ")
	return strings.TrimSpace(cred)
}
