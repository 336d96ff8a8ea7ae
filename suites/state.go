package suites

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// cancelStopID is the check that judges the state session's last part.
const cancelStopID = "CANCEL-STOP-NO-RESPONSE"

// The state session is one server of its own per revision and transport for the checks that
// change a session's state and need it unchanged by anyone else: first its resources (listed,
// read and changed with no subscription, then one subscribed to and unsubscribed again), then
// its log level ("info", then an unknown level), last the slow tool's cancelled calls, whose
// work may go on (over HTTP and legacy SSE at once, the others beside them on a session of their
// own, and further attempts on sessions of their own). Each check judges its own part; a part
// after which the server no longer answers leaves the later ones untestable.

// stateSession is what the state session's server did, part by part.
type stateSession struct {
	unsubscribed *conform.Finding   // RES-UPDATED-ONLY-SUBSCRIBED's verdict; nil without resources
	subscribed   *conform.Finding   // RES-SUBSCRIBE's verdict; nil without resources.subscribe
	levels       *setLevels         // LOG-SETLEVEL's and LOG-INVALID-LEVEL's answers; nil without logging
	cancelled    *conform.Finding   // CANCEL-STOP-NO-RESPONSE's verdict; nil where it does not run
	gone         string             // the part after which the server stopped answering
	cancelFirst  bool               // the cancel part ran before the others, on the same session (stateParts)
	beside       []*harness.Session // sessions of the cancelled calls' own (stateParts, cancelAttempts)
	// notifications are every notification the server sent in the state session and beside it
	// (progress, resource updates, log messages): MSG-NOTIF-NO-ID judges them too.
	notifications []jsonrpc.Message
}

// notificationsOf are the notifications a session received.
func notificationsOf(s *harness.Session) []jsonrpc.Message {
	var out []jsonrpc.Message
	for _, r := range s.Conn.Inbox().Since(0) {
		for _, m := range flatten(r.Msg) {
			if m.HasMethod && strings.HasPrefix(m.Method, "notifications/") {
				out = append(out, m)
			}
		}
	}
	return out
}

func observeState(t *conform.T) (*stateSession, *conform.Finding) {
	v, f := t.Observe("state", conform.Fresh, func(o *conform.T) any {
		st := stateParts(o)
		st.notifications = notificationsOf(o.S)
		for _, s := range st.beside {
			st.notifications = append(st.notifications, notificationsOf(s)...)
		}
		return st
	})
	if f != nil {
		return nil, f
	}
	return v.(*stateSession), nil
}

// stateParts runs the state session's parts in order, until one leaves the server silent. Over
// HTTP and legacy SSE the cancelled calls need nothing of the earlier parts, and another session
// is only another connection: the cancel part, the longest (the slow tool's calls, one attempt
// after another), starts at once on the state session, and the earlier parts run beside it on a
// session of their own (a server that will not open one gets them on the state session once the
// cancel part is over). Waiting for a second handshake first put the cancel part, the end of a
// run against a server that ignores cancellations, that much later (issue 28).
func stateParts(o *conform.T) *stateSession {
	st := &stateSession{}
	var cancelPart func(s *harness.Session)
	if c, ok := conform.Lookup(cancelStopID); ok && c.AppliesTo(o.Revision, o.Transport) {
		if _, ready := needSlowTool(o); ready {
			cancelPart = func(s *harness.Session) {
				cancelled, beside := cancelStops(o, s)
				st.cancelled = &cancelled
				st.beside = beside
			}
		}
	}
	if cancelPart == nil || o.Transport == wire.Stdio {
		if st.gone = earlierParts(o, st); st.gone == "" && cancelPart != nil {
			cancelPart(o.S)
		}
		return st
	}
	cancelled := make(chan struct{})
	go func() {
		defer close(cancelled)
		cancelPart(o.S)
	}()
	s, err := o.Open(o.Revision)
	if err != nil {
		<-cancelled
		st.cancelFirst = true
		if !o.S.Responsive(o.Ctx) {
			st.gone = "the slow tool's calls were cancelled"
			return st
		}
		st.gone = earlierParts(o, st)
		return st
	}
	s.SetOwner("state")
	// Every call the cancel part started is over before the state session is judged, whatever
	// became of the other parts.
	gone := earlierParts(o.On(s), st)
	<-cancelled
	st.gone = gone
	st.beside = append(st.beside, s)
	return st
}

// earlierParts runs the state session's resource and log-level parts, and says after which of
// them the server stopped answering ("" when it did not).
func earlierParts(o *conform.T, st *stateSession) string {
	if !o.S.Stateless() && o.S.HasCapability("resources") {
		unsubscribed := updatesUnsubscribed(o)
		st.unsubscribed = &unsubscribed
		if declaresSubscribe(o) {
			subscribed := subscribeUnsubscribe(o)
			st.subscribed = &subscribed
		}
		if !o.S.Responsive(o.Ctx) {
			return "its resources were listed, read and subscribed to"
		}
	}
	if o.S.HasCapability("logging") {
		st.levels = setLevelPart(o)
		if !o.S.Responsive(o.Ctx) {
			return "its log level was set"
		}
	}
	return ""
}

// cancelStops runs the slow tool once on s (the state session, or over HTTP and legacy SSE a
// session owner opened beside it), and meanwhile cancels two calls of it (a string id, the id 0)
// and judges what follows each. It returns the sessions it opened beside s for attempts of their
// own (over HTTP and legacy SSE).
func cancelStops(owner *conform.T, s *harness.Session) (conform.Finding, []*harness.Session) {
	t := owner.On(s)
	// The tool's normal duration sets the window (cancelWindow). It is measured on a call like
	// the cancelled ones (with a progress token), and only a real run of the tool is a measure.
	// The measuring run goes on beside the cancelled calls, which need its duration only once
	// their silence has lasted that long: one after the other, the run and the two windows were
	// most of a run against a slow tool (issue 28). A server that takes one call at a time only
	// makes the measure longer, and so the window.
	w := &calibration{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.run, w.f = calibrate(t)
	}()
	a := &cancelAttempts{owner: owner, t: t, cal: w}
	// Each cancelled call has its own id, token and window; the string id's finding comes
	// first, so once it is other than a pass the id 0's attempts are stopped: their finding
	// would not be reported (against a server that ignores cancellations, they were the rest
	// of the cancel part over stdio, where the id 0's attempts follow each other).
	ids := []jsonrpc.ID{t.S.NextID(), jsonrpc.NumberID(0)}
	outcomes := make([]attempt, len(ids))
	zeroCtx, stopZero := context.WithCancel(t.Ctx)
	defer stopZero()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if outcomes[0] = a.decide(t.Ctx, ids[0]); !outcomes[0].ok {
			stopZero()
		}
	}()
	go func() {
		defer wg.Done()
		outcomes[1] = a.decide(zeroCtx, ids[1])
	}()
	wg.Wait()
	<-w.done
	if w.f != nil {
		return *w.f, a.opened
	}
	for _, o := range outcomes {
		if !o.ok {
			return w.run.withLate(o.f), a.opened
		}
	}
	return w.run.withLate(conform.Passed("")), a.opened
}

// calibration is the slow tool's measuring run, once done is closed: f says why it is no
// measure (nil when it is one).
type calibration struct {
	done chan struct{}
	run  slowRun
	f    *conform.Finding
}

// window is how long after its start a cancelled call is watched, once the calibration is
// done; ok is false when the calibration is no measure (the check then reports why, not the
// calls).
func (c *calibration) window() (time.Duration, bool) {
	<-c.done
	return cancelWindow(c.run.took), c.f == nil
}

// A cancelled call is watched from its start until the tool's normal duration, times
// cancelWindowFactor, plus cancelWindowMargin, have passed: a server that ignores the
// cancellation answers, and a server that works on sends progress, within about the duration
// after the start, as the measuring run did. That run goes on beside the cancelled calls, on the
// same server and machine, so load that slows them slows it too; the factor covers a run slower
// than it all the same, the margin the delivery of a short tool's answer. Silence until then is
// the evidence a server that ignored the cancellation would not give. (The window once ran twice
// the duration from when the cancellation was read, most of a run against a slow tool.) Over HTTP
// an answer on the call's stream counts however late it comes (cancelOne waits for its end).
const (
	cancelWindowFactor = 1.5
	cancelWindowMargin = 250 * time.Millisecond
)

// cancelWindow is the window for a tool whose normal run took took.
func cancelWindow(took time.Duration) time.Duration {
	return time.Duration(float64(took)*cancelWindowFactor) + cancelWindowMargin
}

// cancelAttemptsMax bounds the calls cancelled with one id: a call the server finished before
// it surely read the cancellation proves nothing either way, and under load that can happen; an
// answer seen after the cancellation was read is judged only when every attempt gets one.
const cancelAttemptsMax = 3

// attempt is what one cancelled call showed. raced: the call was answered, or worked on, around
// when the server read the cancellation, so another attempt decides (the finding says what the
// check could not tell, or what every attempt showing it would mean).
type attempt struct {
	f     conform.Finding
	ok    bool
	raced bool
	// say writes a raced attempt's message, given which attempts showed the same ("in each of 3
	// attempts", or as deciding finds them: they need not all have raced alike); shown is what
	// it showed, in a few words, for the message of a later attempt that decides.
	say   func(times string) string
	shown string
}

// racedAs is a raced attempt whose finding is f, with its message said by say for every attempt.
func racedAs(f func(format string, args ...any) conform.Finding, shown string, say func(times string) string) attempt {
	return attempt{f: f("%s", say(fmt.Sprintf("in each of %d attempts", cancelAttemptsMax))), raced: true, say: say, shown: shown}
}

// cancelAttempts makes the attempts of the check's ids on the cancel part's session (the state
// session over stdio) and, over HTTP and legacy SSE, on sessions of their own.
type cancelAttempts struct {
	owner  *conform.T // opens the sessions (T.Open)
	t      *conform.T // on the session of the first attempts
	cal    *calibration
	mu     sync.Mutex
	opened []*harness.Session
}

// decide is the finding of the first attempt with id that did not race, or of the last one,
// made until ctx ends. The first attempt is made on the cancel part's session, and at the first
// sign of a race (a message of the call's own after the cancellation was read, or its end) the
// next one starts beside it (inTurn): over HTTP and legacy SSE on a session of its own (another
// connection), over stdio on the same session (another session is another server process) with
// a string id of its own. Not all at once: a race comes of the server reading the cancellation
// late, which a burst of load does to calls made at the same moment alike (a conformant
// reference then raced three times over in the self-test), while the next attempt, started once
// the sign shows, meets the server later, after the earlier cancellation was read. An attempt seen
// working on after the cancellation ends there (it counts as raced whatever follows: a later
// answer is raced too), any other waits out its window; an attempt that ends without racing
// stops the attempts started after it (their findings would not count), so the finding is the
// one the attempts made one after another would give, and a server that ignores cancellations
// costs about one step of the tool's progress per attempt beyond the first, not one window
// (issue 28). Over stdio the id 0 cannot be used again while a call with it may still be
// answered: its attempts follow each other, each over before the next.
func (a *cancelAttempts) decide(ctx context.Context, id jsonrpc.ID) attempt {
	t := a.t.On(a.t.S)
	t.Ctx = ctx
	if t.Transport == wire.Stdio && id.IsNumber() {
		var o attempt
		for range cancelAttemptsMax {
			if o = cancelOne(t, id, a.cal, nil); !o.raced || ctx.Err() != nil {
				break
			}
		}
		return o
	}
	ahead := &sessionsAhead{open: a.preopen}
	return inTurn(ctx, func(ctx context.Context, i int, before []chan struct{}, sig *raceSignals) attempt {
		if t.Transport != wire.Stdio {
			ahead.session(i + 1)
		}
		if i == 0 {
			return cancelOne(t, id, a.cal, sig)
		}
		if t.Transport == wire.Stdio {
			release := a.owner.Beside(ctx, before[i-1])
			defer release()
			u := t.On(t.S)
			u.Ctx = ctx
			if ctx.Err() != nil {
				return attempt{} // stopped: an attempt before it decided
			}
			return cancelOne(u, u.S.NextID(), a.cal, sig)
		}
		next := ahead.session(i)
		// A slot of the scheduler's for the further call, or the place of the attempt before,
		// once it is over: never slower than one attempt after the other.
		release := a.owner.Beside(ctx, before[i-1])
		defer release()
		return a.beside(ctx, id, <-next, before, sig)
	})
}

// inTurn makes up to cancelAttemptsMax attempts with run (decide): the first at once, each
// further one at the first sign of a race of the one before (sig's hint or racing, or its end
// with raced), with a context that ends when an attempt before it ends without racing. It
// returns the deciding attempt once every one started is over.
func inTurn(ctx context.Context, run func(ctx context.Context, i int, before []chan struct{}, sig *raceSignals) attempt) attempt {
	outcomes := make([]attempt, cancelAttemptsMax)
	done := make([]chan struct{}, cancelAttemptsMax)
	signals := make([]*raceSignals, cancelAttemptsMax)
	launch := func(i int, ctx context.Context) {
		done[i], signals[i] = make(chan struct{}), newRaceSignals()
		signals[i].last = i == cancelAttemptsMax-1
		go func() {
			defer close(done[i])
			outcomes[i] = run(ctx, i, done[:i], signals[i])
		}()
	}
	launch(0, ctx)
	started := 1
	for i := 1; i < cancelAttemptsMax; i++ {
		select {
		case <-done[i-1]:
		case <-signals[i-1].racing:
		case <-signals[i-1].hint:
		}
		if !mayRace(done[i-1], &outcomes[i-1]) {
			break
		}
		attemptCtx, stop := context.WithCancel(ctx)
		launch(i, attemptCtx)
		// The attempt before that ends without racing decides: this one is stopped, and so
		// (as it then ends without racing) every one after it.
		go func() {
			defer stop()
			select {
			case <-done[i-1]:
				if !outcomes[i-1].raced {
					stop()
				}
				<-done[i]
			case <-done[i]:
			}
		}()
		started++
	}
	for _, d := range done[:started] {
		<-d
	}
	return deciding(outcomes[:started])
}

// deciding is the attempt whose finding is the check's: the first that did not race, else the
// last.
func deciding(outcomes []attempt) attempt {
	for _, o := range outcomes[:len(outcomes)-1] {
		if !o.raced {
			return o
		}
	}
	last := outcomes[len(outcomes)-1]
	if last.say == nil {
		return last
	}
	// Every attempt raced: the last decides, and says which attempts showed what it did.
	var alike []string
	var others []string
	for i, o := range outcomes {
		if o.shown == last.shown {
			alike = append(alike, strconv.Itoa(i+1))
		} else {
			others = append(others, fmt.Sprintf("attempt %d: %s", i+1, o.shown))
		}
	}
	if len(others) == 0 {
		return last
	}
	which := "attempt " + alike[0]
	if n := len(alike); n > 1 {
		which = "attempts " + strings.Join(alike[:n-1], ", ") + " and " + alike[n-1]
	}
	last.f.Message = last.say(fmt.Sprintf("in %s of %d (%s)", which, len(outcomes), strings.Join(others, "; ")))
	return last
}

// mayRace says whether an attempt raced, or may have: it is still going (it was seen racing
// early), or it is over and raced.
func mayRace(done <-chan struct{}, o *attempt) bool {
	select {
	case <-done:
		return o.raced
	default:
		return true
	}
}

// sessionsAhead are the sessions of further attempts over HTTP and legacy SSE, each opened when
// the attempt before it starts rather than at its sign of a race: against a server that ignores
// cancellations, a handshake queued behind the server's backlog (0.2-0.4 s against
// server-everything) came twice in the chain of attempts that ended the run (issue 28). A
// server that honours the cancellation leaves one such session per id unused.
type sessionsAhead struct {
	open func() chan *harness.Session
	mu   sync.Mutex
	at   [cancelAttemptsMax]chan *harness.Session
}

// session is attempt i's session, opened now unless it already is; nil past the last attempt.
func (s *sessionsAhead) session(i int) <-chan *harness.Session {
	if i >= cancelAttemptsMax {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at[i] == nil {
		s.at[i] = s.open()
	}
	return s.at[i]
}

// preopen opens a session for a further attempt in the background: it delivers nil when the
// server would not open one.
func (a *cancelAttempts) preopen() chan *harness.Session {
	out := make(chan *harness.Session, 1)
	go func() {
		s, err := a.owner.Open(a.t.Revision)
		if err != nil {
			out <- nil
			return
		}
		s.SetOwner("state")
		a.mu.Lock()
		a.opened = append(a.opened, s)
		a.mu.Unlock()
		out <- s
	}()
	return out
}

// beside makes an attempt with id on s, a session of its own, until ctx ends. A server that
// would not open one (s nil) gets it on the cancel part's session, once every attempt before it
// is over (the first one used the id there).
func (a *cancelAttempts) beside(ctx context.Context, id jsonrpc.ID, s *harness.Session, before []chan struct{}, sig *raceSignals) attempt {
	t := a.t
	if s != nil {
		t = t.On(s)
	} else {
		for _, d := range before {
			<-d
		}
		t = t.On(t.S)
	}
	t.Ctx = ctx
	if ctx.Err() != nil {
		return attempt{} // stopped: an attempt before it decided
	}
	return cancelOne(t, id, a.cal, sig)
}

// raceSignals are what an attempt made beside others tells as soon as it sees it: hint, a
// message of the call's own after the cancellation was read (a race may follow); racing, the
// call answered or working on after it (the attempt will count as raced). Each closes once.
type raceSignals struct {
	hint, racing         chan struct{}
	hintOnce, racingOnce sync.Once
	last                 bool // the signals of the last attempt: none follows it
}

func newRaceSignals() *raceSignals {
	return &raceSignals{hint: make(chan struct{}), racing: make(chan struct{})}
}

func (r *raceSignals) hinted() { r.hintOnce.Do(func() { close(r.hint) }) }

func (r *raceSignals) raced() {
	r.hinted()
	r.racingOnce.Do(func() { close(r.racing) })
}

// cancelOne starts a slow call with id, cancels it once it is under way, and judges what follows.
// sig, unless nil (attempts one after another on one session), is told as soon as the call is
// seen racing; such an attempt, on a session only the cancel part uses, also ends as soon as
// the call is seen working on after the cancellation was read: it counts as raced whatever
// follows, and the next attempt has started.
func cancelOne(t *conform.T, id jsonrpc.ID, cal *calibration, sig *raceSignals) attempt {
	token := t.S.NextID()
	call, err := startSlow(t, id, token)
	if err != nil {
		return attempt{f: conform.Crashed("starting the slow tool: %v", err)}
	}
	// Under way: a progress notification with its own token arrived (the calibration showed
	// the tool sends them). Another call's progress says nothing of this one.
	if err := awaitUnderWay(t, call); err != nil {
		return attempt{f: conform.CannotTest("the call %s to be cancelled was never seen under way: %v", id.Text(), err)}
	}
	cancelAt := t.S.Mark()
	cd, err := t.S.Send(t.Ctx, rawNotification("notifications/cancelled", cancelParams(id)))
	if err != nil {
		return attempt{f: conform.Crashed("sending the cancellation: %v", err)}
	}
	// From when the server has surely read the cancellation (its HTTP answer came back, or on a
	// stream a ping sent after it was answered), at most one progress notification already on its
	// way may follow.
	if cd.CarriesReplies {
		_ = waitReady(t, cd)
	} else if sid, sd, err := t.S.Sentinel(t.Ctx); err == nil {
		_, _ = t.S.AwaitReply(t.Ctx, sd, cancelAt, sid)
	}
	readAt := t.S.Mark()
	ends := wire.RespondsTo(id)
	if sig != nil {
		watch, stop := context.WithCancel(t.Ctx)
		defer stop()
		go func() {
			racing := answeredOrWorking(id, token, readAt)
			if _, err := t.S.Conn.Inbox().Wait(watch, call.from, func(r wire.Received) bool {
				if ownAfter(id, token, readAt)(r) {
					sig.hinted()
				}
				return racing(r)
			}); err == nil {
				sig.raced()
			}
		}()
		ends = answeredOrWorking(id, token, readAt)
	}
	// Silence for the window proves the cancel was honoured; a response ends the wait at once.
	// Until the calibration tells the window, the wait lasts as long as the calibration does.
	early, stop := context.WithCancel(t.Ctx)
	go func() {
		select {
		case <-cal.done:
		case <-early.Done():
		}
		stop()
	}()
	_, silent := t.S.Conn.Inbox().Wait(early, call.from, ends)
	stop()
	if silent == nil && !answeredSince(t, call.from, id) {
		return keptWorking(t, id, token, readAt)
	}
	window, measured := cal.window()
	if !measured {
		return attempt{} // the calibration's finding is the check's
	}
	if silent != nil {
		ctx, cancel := context.WithDeadline(t.Ctx, call.sent.Add(window))
		_, silent = t.S.Conn.Inbox().Wait(ctx, call.from, ends)
		cancel()
		if silent == nil && !answeredSince(t, call.from, id) {
			return keptWorking(t, id, token, readAt)
		}
	}
	if silent == nil {
		return answered(t, call, cancelAt, readAt)
	}
	if _, err := t.S.Quiet(t.Ctx, cancelAt); err != nil {
		return attempt{f: conform.Crashed("after a cancellation the server stopped serving: %v", err)}
	}
	for _, r := range t.S.Conn.Inbox().Since(call.from) {
		if resp, ok := wire.FindResponse(r.Msg, id); ok {
			return attempt{f: conform.Violated("the cancelled request %s was answered: %s", id.Text(), show(resp))}
		}
	}
	if a := keptWorking(t, id, token, readAt); a.raced {
		return a
	}
	// The server ends the call's stream once it has stopped the call; how soon that end reaches
	// mcpspec depends on the machine's load as much as on the server, so it gets the request
	// timeout, not the tool's window (a loaded machine made this a warning now and then). An
	// answer the stream carried meanwhile is judged as one within the window.
	if call.d.CarriesReplies && !call.d.IsFinished() {
		// A progress of the call's own came after the cancellation was read, and its stream is
		// open still: the call may still be working on (a server that reads the cancellation
		// late, as server-everything does now and then under load, sends the last progress
		// just after it, then drops the answer and never ends the stream). That is a race: the
		// next attempt, started at that progress, decides. The last attempt waits as any other.
		if sig != nil && !sig.last && progressOf(t, token, readAt) > 0 {
			sig.hinted()
			return racedAs(conform.Violated, "its response stream was still open at the end of its window, after a progress notification of its own that came after its cancellation was read", func(times string) string {
				return fmt.Sprintf("the cancelled request %s's HTTP response stream was still open at the end of its window (%s), after a progress notification of its own that came after the cancellation was read, %s", id.Text(), window, times)
			})
		}
		ctx, cancel := contextWithTimeout(t, t.S.Env().Timeouts.Request)
		err := call.d.Finished(ctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			return attempt{f: conform.Violated("the cancelled request %s's HTTP response stream is still open %s after the call started", id.Text(), window+t.S.Env().Timeouts.Request)}
		}
		if answeredSince(t, call.from, id) {
			return answered(t, call, cancelAt, readAt)
		}
	}
	return attempt{ok: true}
}

// answered judges a cancelled call that was answered: before the server surely read the
// cancellation (inbox position readAt) it proves nothing, unless it is an error, the server
// answering the cancellation.
func answered(t *conform.T, call slowCall, cancelAt, readAt int) attempt {
	id := call.id
	if early, ok := answerBefore(t, call.from, readAt, id); ok {
		// An error answer that came after the cancellation is the server's answer to it, not
		// a run that finished first: the tool's normal runs are results (calibrate).
		if _, afterCancel := answerBefore(t, cancelAt, readAt, id); afterCancel && slowFailure(early) != "" {
			return attempt{f: conform.Violated("the cancelled request %s was answered %s, so the server had read the cancellation: %s", id.Text(), slowFailure(early), show(early))}
		}
		return racedAs(conform.CannotTest, "answered before the server had surely read its cancellation", func(times string) string {
			return fmt.Sprintf("the slow call %s was answered before the server had surely read its cancellation, %s: the tool is too quick to be cancelled here: %s", id.Text(), times, show(early))
		})
	}
	// Over HTTP the answer comes on the call's stream and the cancellation's 202 on another
	// connection: an answer the server wrote before it read the cancellation can still be
	// delivered after the 202. So a late answer is a violation only when it recurs: raced,
	// and the last attempt decides (a server that ignores cancellations answers every one).
	resp, _ := t.S.AwaitReply(t.Ctx, call.d, call.from, id)
	return racedAs(conform.Violated, "answered after the server had read its cancellation", func(times string) string {
		return fmt.Sprintf("the cancelled request %s was answered after the server had read its cancellation, %s: %s", id.Text(), times, show(resp))
	})
}

// keptWorking judges the call's own progress since the cancellation was read (inbox position
// readAt): one notification may already have been on its way; more is a call that kept working.
// Only the call's own count: an earlier call's progress is another matter (PROG-STOP). A
// "surely read" cancellation is its acknowledgement or a later ping's answer, and a server that
// handles its POSTs concurrently (legacy SSE, Streamable HTTP) may answer those before the
// cancellation has taken effect; so, as for a late answer, progress that went on counts as
// raced and the last attempt decides: a server that ignores cancellations keeps working every
// time. The zero attempt is a call that did not keep working.
func keptWorking(t *conform.T, id, token jsonrpc.ID, readAt int) attempt {
	own := progressOf(t, token, readAt)
	if own < 2 {
		return attempt{}
	}
	return racedAs(conform.Violated, "kept working", func(times string) string {
		return fmt.Sprintf("the cancelled request %s kept working: %d progress notifications with its token %s after the cancellation, %s", id.Text(), own, token.Text(), times)
	})
}

// progressOf counts the progress notifications with token from inbox position from on.
func progressOf(t *conform.T, token jsonrpc.ID, from int) int {
	own := 0
	for _, p := range progressSince(t, from) {
		if p.token == token {
			own++
		}
	}
	return own
}

// ownAfter matches the response to id, or a progress notification with token from inbox
// position readAt on: the first sign that the call may have raced its cancellation.
func ownAfter(id, token jsonrpc.ID, readAt int) func(wire.Received) bool {
	return func(r wire.Received) bool {
		if wire.ContainsResponse(r.Msg, id) {
			return true
		}
		tok, ok := progressTokenOf(r.Msg)
		return ok && tok == token && r.Index >= readAt
	}
}

// answeredOrWorking matches the response to id, or the second progress notification with token
// from inbox position readAt on: a call that kept working after its cancellation was read (one
// may already have been on its way). A message seen again (a second Wait) counts once.
func answeredOrWorking(id, token jsonrpc.ID, readAt int) func(wire.Received) bool {
	own := map[int]bool{}
	return func(r wire.Received) bool {
		if wire.ContainsResponse(r.Msg, id) {
			return true
		}
		if tok, ok := progressTokenOf(r.Msg); ok && tok == token && r.Index >= readAt {
			own[r.Index] = true
		}
		return len(own) > 1
	}
}

// answeredSince says whether a response to id is in the inbox from position from on.
func answeredSince(t *conform.T, from int, id jsonrpc.ID) bool {
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if wire.ContainsResponse(r.Msg, id) {
			return true
		}
	}
	return false
}

// answerBefore finds the response to id among the messages from index from up to index at: an
// answer the server sent before it surely read what the client sent at at.
func answerBefore(t *conform.T, from, at int, id jsonrpc.ID) (jsonrpc.Message, bool) {
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if r.Index >= at {
			break
		}
		if resp, ok := wire.FindResponse(r.Msg, id); ok {
			return resp, true
		}
	}
	return jsonrpc.Message{}, false
}

// setLevelPart sends logging/setLevel "info" and then the unknown level (at 2026-07-28 only
// the latter, in a request's _meta).
func setLevelPart(t *conform.T) *setLevels {
	obs := &setLevels{}
	if !t.S.Stateless() {
		obs.valid, obs.validErr = setLevel(t, "info")
		if obs.goneAfterValid = obs.validErr != nil; obs.goneAfterValid {
			return obs
		}
	}
	obs.invalidMethod, obs.invalid, obs.invalidErr = sendInvalidLevel(t)
	return obs
}

// sendInvalidLevel asks for the unknown log level: with logging/setLevel in a handshake
// session, in a list request's _meta at 2026-07-28.
func sendInvalidLevel(t *conform.T) (string, jsonrpc.Message, error) {
	if !t.S.Stateless() {
		resp, err := setLevel(t, unknownLogLevel)
		return "logging/setLevel", resp, err
	}
	params, _ := t.S.StatelessParams(nil).(map[string]any)
	if meta, ok := params["_meta"].(map[string]any); ok {
		meta[metaLogLevel] = unknownLogLevel
	}
	method := listMethodStateless(t)
	resp, _, err := statelessRequest(t, method, params, nil)
	return method + " with _meta log level", resp, err
}

// subscribeUnsubscribe subscribes to the first listed resource and unsubscribes again.
func subscribeUnsubscribe(t *conform.T) conform.Finding {
	items, f := walkValidated(t, "resources/list", "resources", "")
	if f != nil {
		return *f
	}
	uris := listedURIs(items)
	if len(uris) == 0 {
		return conform.CannotTest("the server lists no resource to subscribe to")
	}
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		resp, err := t.S.Request(t.Ctx, method, map[string]any{"uri": uris[0]})
		if err != nil {
			return conform.Crashed("%s of %s got no reply: %v", method, uris[0], err)
		}
		if _, ok := resp.ResultObject(); !ok {
			return conform.Violated("resources.subscribe is declared, but %s of the listed resource %s was not answered with a result: %s", method, uris[0], show(resp))
		}
	}
	return conform.Passed("")
}

// updatesUnsubscribed lists, reads and (with the list-changed tool) changes resources in a
// session that subscribed to nothing, and fails on any notifications/resources/updated.
func updatesUnsubscribed(t *conform.T) conform.Finding {
	if !t.S.HasCapability("resources") {
		return conform.NA("the server declares no resources capability")
	}
	if t.Transport == wire.HTTP {
		_, _ = withGetStream(t) // where the server offers one, unrequested updates may come there
	}
	from := t.S.Mark()
	items, f := walkValidated(t, "resources/list", "resources", "")
	if f != nil {
		return *f
	}
	uris := listedURIs(items)
	for _, uri := range uris[:min(len(uris), maxReads)] {
		_, _ = t.S.Request(t.Ctx, "resources/read", map[string]any{"uri": uri})
	}
	// A change of the server's lists is the likeliest moment for an unrequested update.
	if t.Options().ListTool != "" {
		for range 2 {
			_ = callListTool(t)
		}
	}
	got, err := t.S.Quiet(t.Ctx, from)
	if err != nil {
		return conform.Crashed("%v", err)
	}
	for _, r := range got {
		if r.Msg.Kind == jsonrpc.Notification && r.Msg.Method == "notifications/resources/updated" {
			return conform.Violated("a session that subscribed to nothing got %s", show(r.Msg))
		}
	}
	return conform.Passed("no notifications/resources/updated within the quiet window (%d resources read)", min(len(uris), maxReads))
}
