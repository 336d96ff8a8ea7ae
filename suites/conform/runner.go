package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/finding"
)

// Options are run-wide settings that some checks read.
type Options struct {
	SlowTool     string          // a tool of the target's that takes time and reports progress
	SlowToolArgs json.RawMessage // its arguments
	// ListTool is a tool of the target's whose every call changes its tools list, so that
	// notifications/tools/list_changed follows (subscription checks call it twice).
	ListTool     string
	ListToolArgs json.RawMessage
	// InputTool is a tool of the target's that needs the client's input (2026-07-28: it answers
	// with an InputRequiredResult), and InputToolArgs its arguments.
	InputTool     string
	InputToolArgs json.RawMessage
	LogTool       string          // a tool of the target's that writes log messages (2026-07-28)
	LogToolArgs   json.RawMessage // its arguments
	// AuthTokenNarrow is a valid access token of the target's that lacks a scope tools/call
	// needs; AuthTokenForeign one issued for another resource (audience). The AUTH checks use
	// them beside the run's own Authorization header.
	AuthTokenNarrow  string
	AuthTokenForeign string
	// AuthTokenExpired is a token the target's authorization server issued that has expired:
	// AUTH-JWT-EXPIRED sends it beside a JWT of its own making.
	AuthTokenExpired string
}

// Config is one run: the targets (one per transport), the revisions, the timeouts.
type Config struct {
	Validator harness.Validator
	Targets   []harness.Target
	Revisions []string
	Timeouts  harness.Timeouts
	Options   Options
	// Secrets (header and environment values) are redacted from every result before it is
	// recorded or shown, so they cannot reach the console either.
	Secrets []string
	// Archive keeps every connection's whole transcript (--transcript); nil: none.
	Archive *transcript.Archive
	// OnResult, when set, is called with each result as soon as it is recorded (the console's
	// progress line); checks end concurrently, so it must be safe to call from several goroutines.
	OnResult func(reports.Result)
}

// Runner executes checks against a run's targets and collects their results.
type Runner struct {
	cfg       Config
	env       *harness.Env
	started   time.Time
	launchers map[string]*harness.Launcher

	mu      sync.Mutex
	shared  map[string]*sharedSession // by transport + "/" + revision
	results []reports.Result
	errors  []string

	futures   map[string]*future
	order     map[string]int // spec key → position, for results in spec order
	startGate chan struct{}  // StartShared starts nothing until it is closed (HoldStart), if set
	waiting   int            // checks that mostly wait, at once (SetWaiting; < 1: DefaultWaiting)
	release   sync.Once
	keyLocks  map[string]*sync.Mutex
	once      map[string]*onceValue    // values computed once per run (T.Memo, T.Observe)
	uses      map[string]chan struct{} // by sharedKey: held by the one check using that session
	starts    chan struct{}            // stdio processes of checks' own sessions starting (openOwn)
	// handshakes are the transports whose server has no MCP handshake (handshake.go).
	handshakes map[string]handshakeVerdict

	base        context.Context // every check's context: cancelled by Interrupt
	cancelBase  context.CancelFunc
	interrupted string // why the run was interrupted, "" while it was not
}

type sharedSession struct {
	s       *harness.Session
	neg     Negotiation
	suspect bool
}

// Negotiation is the outcome of initialize at one requested revision.
type Negotiation struct {
	Requested string
	Answered  string // protocolVersion of the result, "" when there was none
	Response  []byte // the raw response
	Err       error  // the server never answered, or answered without a result
	Infra     bool   // Err is an infrastructure failure
	Session   *harness.Session
	// Refused is set on a further session the server would not open at a revision it serves
	// on another (refused.go): the refusal is of the session, not of the revision.
	Refused *sessionRefusal
}

// Supported reports whether the server accepted the requested revision as is.
func (n Negotiation) Supported() bool { return n.Err == nil && n.Answered == n.Requested }

// InitTook is how long the server took to answer this session's initialize (its start
// included over stdio); 0 when it was not answered.
func (n Negotiation) InitTook() time.Duration {
	if n.Err != nil || n.Session == nil {
		return 0
	}
	return n.Session.InitTook()
}

// NewRunner prepares a run; nothing is launched until a check needs it.
func NewRunner(cfg Config) *Runner {
	env := harness.NewEnv(cfg.Timeouts, cfg.Validator)
	env.Archive = cfg.Archive
	r := &Runner{cfg: cfg, env: env, started: time.Now(), launchers: map[string]*harness.Launcher{}, shared: map[string]*sharedSession{}, order: map[string]int{},
		starts: make(chan struct{}, MaxStdioStarts)}
	r.base, r.cancelBase = context.WithCancel(context.Background())
	for _, t := range cfg.Targets {
		r.launchers[t.Transport] = harness.NewLauncher(t, r.env)
	}
	return r
}

// Env is the run's shared environment.
func (r *Runner) Env() *harness.Env { return r.env }

// Started is when the run began.
func (r *Runner) Started() time.Time { return r.started }

func (r *Runner) launcher(transport string) *harness.Launcher { return r.launchers[transport] }

// Close stops every server and connection of the run.
func (r *Runner) Close() {
	var wg sync.WaitGroup
	for _, l := range r.launchers {
		wg.Add(1)
		go func() { defer wg.Done(); l.Close() }()
	}
	wg.Wait()
}

// Results returns what has been recorded so far, in spec order (execution may overlap).
func (r *Runner) Results() []reports.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]reports.Result(nil), r.results...)
	pos := func(x reports.Result) int {
		if i, ok := r.order[x.Transport+"/"+x.Version+"/"+x.ID]; ok {
			return i
		}
		return len(r.order)
	}
	sort.SliceStable(out, func(i, j int) bool { return pos(out[i]) < pos(out[j]) })
	return append(out, r.handshakeResults(out)...)
}

// Errors returns infrastructure errors that happened outside any check.
func (r *Runner) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

// ServerInfo returns the serverInfo of the first session that has one.
func (r *Runner) ServerInfo() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rev := range r.cfg.Revisions {
		for _, t := range r.cfg.Targets {
			if sh, ok := r.shared[sharedKey(t.Transport, rev, 0)]; ok && sh.s != nil {
				if info := sh.s.ServerInfo(); info != nil {
					return info
				}
			}
		}
	}
	return nil
}

// negotiation returns (opening if needed) the shared session at revision over transport.
func (r *Runner) negotiation(ctx context.Context, transport, revision string) Negotiation {
	return r.negotiationIn(ctx, transport, revision, 0)
}

// sharedKey names one of the shared sessions at revision over transport.
// ServedRevisions are the run's revisions less those the server was found not to serve: at
// which initialize was refused, or answered with another version, over every transport that
// tried. A revision nothing negotiated (a focus that needed no session) stays in the list.
func (r *Runner) ServedRevisions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rev := range r.cfg.Revisions {
		tried, served := false, false
		for transport := range r.launchers {
			sh, ok := r.shared[sharedKey(transport, rev, 0)]
			if !ok || sh.neg.Infra {
				continue
			}
			tried = true
			served = served || sh.neg.Supported()
		}
		if served || !tried {
			out = append(out, rev)
		}
	}
	return out
}

func sharedKey(transport, revision string, slot int) string {
	return fmt.Sprintf("%s/%s/%d", transport, revision, slot)
}

// negotiationIn returns (opening if needed) shared session number slot at revision over
// transport. Several slots let checks at one revision run side by side.
func (r *Runner) negotiationIn(ctx context.Context, transport, revision string, slot int) Negotiation {
	// A revision the first session found unserved (or a target that could not be reached)
	// is no better on another: no server is started just to hear the same answer again.
	if slot != 0 { // another round-robin slot, the serial session, or the gates'
		if first := r.recorded(ctx, transport, revision); first.Err != nil || first.Answered != first.Requested {
			return first
		}
	}
	key := sharedKey(transport, revision, slot)
	lock := r.keyLock(key)
	lock.Lock()
	defer lock.Unlock()
	r.mu.Lock()
	sh, ok := r.shared[key]
	r.mu.Unlock()
	if ok && !sh.suspect && (sh.neg.Err != nil || !isDead(sh.s)) {
		return sh.neg
	}
	if ok && sh.s != nil {
		r.launcher(transport).Release(sh.s.Conn)
	}
	var neg Negotiation
	if slot == serialSlot {
		neg = r.openOwn(ctx, transport, revision, nil)
	} else {
		neg = r.open(ctx, transport, revision)
	}
	if slot != 0 {
		neg = r.refusedAt(ctx, transport, revision, neg)
	}
	r.mu.Lock()
	r.shared[key] = &sharedSession{s: neg.Session, neg: neg}
	r.mu.Unlock()
	return neg
}

func (r *Runner) open(ctx context.Context, transport, revision string) Negotiation {
	return r.openDeclaring(ctx, transport, revision, nil)
}

// openDeclaring is open with the client capabilities caps declared at a handshake revision
// (nil: none).
func (r *Runner) openDeclaring(ctx context.Context, transport, revision string, caps map[string]any) Negotiation {
	if revision == harness.RevJSONRPC {
		return r.openPlain(ctx, transport) // the JSON-RPC profile has no handshake
	}
	neg := Negotiation{Requested: revision}
	l := r.launcher(transport)
	conn, err := l.Connect(ctx)
	if err != nil {
		neg.Err, neg.Infra = err, true
		return neg
	}
	open := func(ctx context.Context, conn wire.Conn, env *harness.Env, revision, owner string) (*harness.Session, error) {
		return harness.OpenDeclaring(ctx, conn, env, revision, owner, caps)
	}
	if harness.IsStateless(revision) {
		open = harness.OpenStateless
	}
	s, err := open(ctx, conn, r.env, revision, "session")
	neg.Session = s
	neg.Response = s.InitResponse().Raw
	neg.Answered = s.Negotiated()
	if err != nil {
		neg.Err = err
		var infra *harness.InfraError
		if errors.As(err, &infra) {
			neg.Infra = true
			l.Broken(err)
		}
	}
	return neg
}

func isDead(s *harness.Session) bool {
	if s == nil {
		return true
	}
	select {
	case <-s.Conn.Done():
		return true
	default:
		return s.Conn.Inbox().Closed() != nil
	}
}

// markSuspect makes the next check open a new shared session (the server may be in a bad state).
func (r *Runner) markSuspect(transport, revision string, slot int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sh, ok := r.shared[sharedKey(transport, revision, slot)]; ok {
		sh.suspect = true
	}
}

// checkDeadline bounds one check as a whole, on top of every wait inside it.
func (r *Runner) checkDeadline() time.Duration {
	t := r.cfg.Timeouts
	return t.Startup + 6*t.Request + 4*t.Shutdown
}

// Execute runs one check at revision over transport and records its result.
func (r *Runner) Execute(c *Check, revision, transport string) reports.Result {
	return r.execute(c, revision, transport, 0, nil)
}

// execute runs the check; a check that shares a session uses shared session number slot.
// worker is the scheduler's semaphore when the caller holds one of its slots (nil otherwise).
func (r *Runner) execute(c *Check, revision, transport string, slot int, worker *turns) reports.Result {
	start := time.Now()
	e, _ := catalog.Lookup(c.ID)
	res := reports.Result{
		ID: c.ID, Title: c.Title(), Area: e.Area, Level: c.Level, Version: revision, Transport: transport,
		SpecURL: e.SpecURL(revision),
	}
	if x, ok := e.ExtensionOf(); ok {
		res.Extension = x.ID
	}
	// The check's deadline starts once it holds what it waited for (run): time spent queued
	// behind a shared session another check was using is no time of its own, and a deadline
	// that counted it cut a slow server's answer short only in a busy full run.
	finding, evidence := r.runUnlessInterrupted(r.base, c, revision, transport, slot, worker)
	res.Status = statusOf(finding.Outcome, levelOf(finding, c.Level))
	res.Message = finding.Message
	// Every verdict keeps the exchange that decided it, a pass as much as a failure, so that a
	// person can check either.
	res.Evidence = r.exchanges(evidence)
	res.DurationMs = time.Since(start).Milliseconds()
	if len(r.cfg.Secrets) > 0 {
		one := &reports.Run{Results: []reports.Result{res}}
		reports.Redact(one, r.cfg.Secrets)
		res = one.Results[0]
	}
	r.mu.Lock()
	r.results = append(r.results, res)
	r.mu.Unlock()
	if r.cfg.OnResult != nil {
		r.cfg.OnResult(res)
	}
	return res
}

func statusOf(o Outcome, level string) reports.Status { return o.Status(level) }

// run acquires the connection the check needs, runs it, and returns its finding with the
// transcript entries that are its evidence.
func (r *Runner) run(ctx context.Context, c *Check, revision, transport string, slot int, worker *turns) (f Finding, evidence []record.Record) {
	l := r.launcher(transport)
	if l == nil {
		return Failed(fmt.Errorf("no %s target in this run", transport)), nil
	}
	// The same words whether this check found the target broken or the one that broke it ran
	// beside it: a message must not depend on the order checks happen to start in.
	if err := l.BrokenErr(); err != nil {
		return Failed(err), nil
	}
	t := &T{Ctx: ctx, Revision: revision, Transport: transport, Check: c, run: r, worker: worker}
	connection := connectionOver(c, revision, transport)
	defer func() {
		for _, conn := range t.extra {
			l.Release(conn)
		}
	}()

	// A server with no MCP handshake at any revision is one failure, not one per check. (Only
	// the record is read: a check may be using the session.)
	if neg := r.recorded(ctx, transport, revision); true {
		// Nor is a revision whose first session a server refused while it serves another
		// revision on a session of its own, and refuses a further session there too.
		if f, done := r.refusedFirst(t, neg); done {
			return f, nil
		}
		if f, done := r.handshakeGate(t, neg); done {
			if f.Outcome == Violation {
				return f, tail(neg.Session)
			}
			return f, nil
		}
	}
	// Whatever connection the check uses, a target that cannot even be initialized at this
	// revision is an infrastructure failure for it too (the shared session is opened once).
	// A shared check on a session of its own (ownSession) is gated the same way, before that
	// session is opened: one that ends at Ready (no slow tool, no log tool) needs none.
	own := ownSession(Spec{Check: c, Revision: revision, Transport: transport})
	if connection != Shared || own {
		if f, evidence, done := r.gate(ctx, c, revision, transport, worker); done {
			return f, evidence
		}
	}
	// From here on the check works: its deadline runs (see execute).
	var cancel context.CancelFunc
	if connection != Shared && connection != Exclusive {
		ctx, cancel = context.WithTimeout(ctx, r.checkDeadline())
		defer cancel()
		t.Ctx = ctx
	}
	var ownSess *harness.Session
	switch connection {
	case Exclusive, Shared:
		// The check holds its session until its result is taken (see holdShared): a shared
		// session's slot, or the serial session of the Exclusive checks, whose Ready the gate
		// asked already.
		onSlot := slot
		if connection == Exclusive {
			onSlot = serialSlot
		}
		release, err := r.holdShared(ctx, transport, revision, onSlot, worker)
		if err != nil {
			return Failed(err), nil
		}
		defer release()
		ctx, cancel = context.WithTimeout(ctx, r.checkDeadline())
		defer cancel()
		t.Ctx = ctx
		neg := r.negotiationIn(ctx, transport, revision, onSlot)
		if f, done := notUsable(neg); done {
			return f, tail(neg.Session)
		}
		t.S = neg.Session
		if connection == Shared {
			t.S.SetOwner(c.ID) // before Ready, which may send too
			if c.Side.Ready != nil && !own {
				if f, done := c.Side.Ready(t); done {
					return f, nil
				}
			}
		}
	case Fresh:
		neg := r.refusedAt(ctx, transport, revision, r.openOwn(ctx, transport, revision, nil))
		if neg.Session != nil {
			ownSess = neg.Session
			defer l.Release(ownSess.Conn)
		}
		if f, done := notUsable(neg); done {
			return f, tail(neg.Session)
		}
		t.S = neg.Session
	case Raw:
		conn, err := l.Connect(ctx)
		if err != nil {
			return Failed(err), nil
		}
		defer l.Release(conn)
		t.S = harness.Attach(conn, r.env, revision)
	}
	if connection == Observed {
		defer func() {
			if p := recover(); p != nil {
				f = Failed(fmt.Errorf("check panicked: %v", p))
			}
			evidence = t.evidence
			for _, o := range t.observed {
				f = withUnanswered(f, o.unanswered)
			}
			// Sessions the check opened itself (T.Open) are judged with it, as on any connection.
			f = withUnanswered(f, t.unanswered(0))
			for _, extra := range t.extra {
				evidence = append(evidence, extra.Transcript().Since(0)...)
			}
			for _, a := range t.othersAnswers() {
				f = withUnanswered(f, a.unanswered)
				evidence = append(evidence, a.evidence...)
			}
			if c.Side.PreInit {
				if na, ok := r.unservedRefusal(ctx, t, f, t.evidence); ok {
					f = na
				}
			}
			f = r.refusedOwn(t, f, evidence)
			if f.Outcome == Violation || f.Outcome == Broken {
				for _, o := range t.observed {
					f.Message = o.explain(f.Message)
				}
			}
		}()
		return c.Side.Run(t), nil
	}
	t.S.SetOwner(c.ID)
	timeoutsBefore := t.S.Timeouts()
	unansweredBefore := t.S.UnansweredCount()
	mark := t.S.Conn.Transcript().Mark()
	if connection != Shared && connection != Exclusive {
		mark = 0
	}
	defer func() {
		if p := recover(); p != nil {
			f = Failed(fmt.Errorf("check panicked: %v", p))
		}
		f = withUnanswered(f, t.unanswered(unansweredBefore))
		if connection == Raw {
			entries := t.S.Conn.Transcript().Since(0)
			for _, extra := range t.extra {
				entries = append(entries, extra.Transcript().Since(0)...)
			}
			if na, ok := r.unservedRefusal(ctx, t, f, entries); ok {
				f = na
			}
			f = r.refusedOwn(t, f, entries)
		} else if len(t.extra) > 0 {
			// Sessions the check opened beside its own (T.Open) may be refused the same way.
			var entries []record.Record
			for _, extra := range t.extra {
				entries = append(entries, extra.Transcript().Since(0)...)
			}
			f = r.refusedOwn(t, f, entries)
		}
		if f.Outcome == Violation || f.Outcome == Broken {
			f.Message = explainServer(f.Message, goneCause(t.S), t.S.Timeouts() > timeoutsBefore, t.S.Conn.Diagnostics)
		}
		evidence = t.S.Conn.Transcript().Since(mark)
		for _, extra := range t.extra {
			evidence = append(evidence, extra.Transcript().Since(0)...)
		}
		for _, o := range t.declared {
			f = withUnanswered(f, o.unanswered)
			evidence = append(evidence, o.evidence...)
		}
		// The answers other checks asked for (T.Ask) are part of what this one judged, in the
		// order things happened (the list before the calls made from it).
		if others := t.othersAnswers(); len(others) > 0 {
			for _, a := range others {
				f = withUnanswered(f, a.unanswered)
				evidence = append(evidence, a.evidence...)
			}
			slices.SortStableFunc(evidence, func(x, y record.Record) int { return x.At.Compare(y.At) })
		}
		// A violation need not leave the server unwell (most are a wrong answer to one
		// request): the shared session is replaced only when it no longer answers, which
		// spares a server start per violation. The probe comes after the evidence is taken,
		// and is spared where the check's last message was a request the server answered
		// (that answer proved as much as the probe's would), or where the check sent nothing
		// at all (it judged answers other checks asked for: T.Ask).
		if connection == Shared && (f.Outcome == Violation || f.Outcome == Broken) && (isDead(t.S) || !t.provenServing(mark) && !t.S.Responsive(ctx)) {
			r.markSuspect(transport, revision, slot)
		}
		if connection == Exclusive && !r.leftAsFound(ctx, t.S, f) {
			r.markSuspect(transport, revision, serialSlot)
		}
	}()
	return c.Side.Run(t), nil
}

// observation is what T.Observe keeps of one workload on a server of its own.
type observation struct {
	v        any
	finding  *Finding // why there is no value
	evidence []record.Record
	gone     string // how the server died, if it did
	timedOut bool   // a wait for the server's answer ran out
	stderr   string // the tail of what the server wrote on stderr
	// unanswered are the requests the observation's sessions left unanswered: every check that
	// judges it fails on them (rules.go).
	unanswered []harness.Unanswered
}

// explain adds to a violation's message what became of the observed server.
func (o *observation) explain(msg string) string {
	return explainServer(msg, o.gone, o.timedOut, func() string { return o.stderr })
}

// explainServer adds to a violation's message what became of the server: how it died, and its
// stderr when it died or fell silent (what it said there may tell why).
func explainServer(msg, gone string, silent bool, stderr func() string) string {
	switch {
	case gone != "":
		return withStderr(msg+"\nthe server is gone: "+gone, stderr())
	case silent:
		return withStderr(msg, stderr())
	}
	return msg
}

// goneCause says how the session's connection died, or "" while it lives.
func goneCause(s *harness.Session) string {
	if !isDead(s) {
		return ""
	}
	return deathCause(s)
}

// observe opens the server an observation needs, runs work on it and closes it.
// caps, when not nil, are the client capabilities a Fresh observation's session declares.
func (r *Runner) observe(t *T, key string, conn Connection, caps map[string]any, work func(o *T) any) *observation {
	l := r.launcher(t.Transport)
	var s *harness.Session
	switch conn {
	case Raw:
		c, err := l.Connect(t.Ctx)
		if err != nil {
			f := Failed(err)
			return &observation{finding: &f}
		}
		defer l.Release(c)
		s = harness.Attach(c, r.env, t.Revision)
	default:
		neg := r.openOwn(t.Ctx, t.Transport, t.Revision, caps)
		if neg.Session != nil {
			defer l.Release(neg.Session.Conn)
		}
		if f, done := notUsable(neg); done {
			return &observation{finding: &f, evidence: tail(neg.Session)} // as for a Fresh check's own server
		}
		s = neg.Session
	}
	return r.observeOn(t, key, s, work)
}

// observeOn runs an observation's work on s, a session nobody else has used, and keeps what it
// did: s's whole transcript is the observation's evidence.
func (r *Runner) observeOn(t *T, key string, s *harness.Session, work func(o *T) any) (obs *observation) {
	l := r.launcher(t.Transport)
	obs = &observation{}
	s.SetOwner(key)
	// The observation holds the slot of the check that asked for it first (Beside takes more).
	o := &T{Ctx: t.Ctx, Revision: t.Revision, Transport: t.Transport, Check: t.Check, run: r, S: s, worker: t.worker}
	defer func() {
		for _, c := range o.extra {
			l.Release(c)
		}
		obs.evidence = s.Conn.Transcript().Since(0)
		for _, c := range o.extra { // sessions the work opened beside its own (T.Open)
			obs.evidence = append(obs.evidence, c.Transcript().Since(0)...)
		}
		obs.gone = goneCause(s)
		obs.timedOut = s.Timeouts() > 0
		obs.stderr = s.Conn.Diagnostics()
		obs.unanswered = o.unanswered(0)
		for _, a := range o.othersAnswers() { // answers the work read that a check asked for (T.Ask)
			obs.evidence = append(obs.evidence, a.evidence...)
			obs.unanswered = append(obs.unanswered, a.unanswered...)
		}
		if p := recover(); p != nil {
			f := Failed(fmt.Errorf("observation %s panicked: %v", key, p))
			obs.finding = &f
		}
	}()
	obs.v = work(o)
	return obs
}

// provenServing reports whether what the check did on its session since mark shows the server
// still serving it: the check's last message was a request the server answered, or the check
// sent nothing there or anywhere else, so it cannot have left the server unwell.
func (t *T) provenServing(mark int) bool {
	recs := t.S.Conn.Transcript().Since(mark)
	extraMu.Lock()
	others := len(t.extra)
	extraMu.Unlock()
	if others == 0 && !slices.ContainsFunc(recs, func(r record.Record) bool { return r.Dir == record.Send }) {
		return true
	}
	return answeredLast(recs)
}

// answeredLast reports whether the last message sent in recs was a request that the server
// answered: after everything the check sent, it was still serving.
func answeredLast(recs []record.Record) bool {
	last := -1
	for i, r := range recs {
		if r.Dir == record.Send {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	sent := jsonrpc.Parse([]byte(recs[last].Body))
	if sent.Kind != jsonrpc.Request || !sent.HasID {
		return false
	}
	for _, r := range recs[last+1:] {
		if r.Dir != record.Recv {
			continue
		}
		m := jsonrpc.Parse([]byte(r.Body))
		for _, x := range append([]jsonrpc.Message{m}, m.Elems...) {
			if x.Kind == jsonrpc.Response && x.HasID && x.ID == sent.ID {
				return true
			}
		}
	}
	return false
}

// deathCause says how a dead connection ended.
func deathCause(s *harness.Session) string {
	if err := s.Conn.Inbox().Closed(); err != nil {
		return err.Error()
	}
	if err := s.Conn.Err(); err != nil {
		return err.Error()
	}
	return "connection closed"
}

// notUsable turns a failed negotiation into the finding for every check that needed the session.
func notUsable(neg Negotiation) (Finding, bool) {
	switch {
	case neg.Refused != nil:
		return neg.Refused.finding(), true
	case neg.Err != nil && neg.Infra:
		return Failed(neg.Err), true
	case neg.Err != nil:
		return NA("the server does not serve revision %s: %v", neg.Requested, neg.Err), true
	case neg.Answered != neg.Requested:
		return NA("the server does not serve revision %s: it answered initialize with protocolVersion %q", neg.Requested, neg.Answered), true
	}
	return Finding{}, false
}

func tail(s *harness.Session) []record.Record {
	if s == nil {
		return nil
	}
	return s.Conn.Transcript().Since(0)
}

func withStderr(msg, stderr string) string {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return msg
	}
	lines := strings.Split(stderr, "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return msg + "\nserver stderr (last lines):\n" + strings.Join(lines, "\n")
}

// exchanges turns a check's transcript into its result's evidence, bounded as every result's is.
func (r *Runner) exchanges(entries []record.Record) []reports.Exchange {
	return finding.Evidence(entries, r.started, nil)
}

// RecordError notes an infrastructure error outside any check.
func (r *Runner) RecordError(err error) {
	r.mu.Lock()
	r.errors = append(r.errors, err.Error())
	r.mu.Unlock()
}

// onceValue is one value of T.once: the first check to claim it computes it, the others wait
// for done.
type onceValue struct {
	claimed atomic.Bool
	done    chan struct{}
	v       any
	dropped bool // the value was not kept (T.onceKept): whoever waited asks again
}

// forget removes e, a value not kept, so that the next check to ask for key computes it anew.
func (r *Runner) forget(key string, e *onceValue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.once[key] == e {
		delete(r.once, key)
	}
}

// made is the run's value for key when it has been computed and kept (T.once).
func (r *Runner) made(key string) (any, bool) {
	e := r.onceEntry(key)
	select {
	case <-e.done:
		if !e.dropped {
			return e.v, true
		}
	default:
	}
	return nil, false
}

func (r *Runner) onceEntry(key string) *onceValue {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.once == nil {
		r.once = map[string]*onceValue{}
	}
	e, ok := r.once[key]
	if !ok {
		e = &onceValue{done: make(chan struct{})}
		r.once[key] = e
	}
	return e
}
