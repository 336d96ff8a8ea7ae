package suites

import (
	"sync"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// The start of a session, shared. LIFE-PRE-INIT-REQUEST (a request before initialize, then
// initialize must still work), CANCEL-NO-INIT-CANCEL (initialize cancelled at once must still be
// answered, and the session work) and LIFE-SERVER-WAIT-INITIALIZED (before initialized the server
// sends no request but ping to a client declaring roots, sampling and elicitation) each needed a
// connection on which nothing had been sent, over stdio a server process: 12 per stdio target of
// the 35 a run against server-everything started (issue 28). One conversation per revision and
// transport (T.ObserveStart) now serves the three, each judging only its own part of it:
//
//	tools/list                                   LIFE-PRE-INIT-REQUEST's request
//	initialize declaring every input capability, LIFE-PRE-INIT-REQUEST's initialize,
//	  cancelled at once, its answer                CANCEL-NO-INIT-CANCEL's part
//	the quiet window, notifications/initialized  LIFE-SERVER-WAIT-INITIALIZED's part
//	a ping answered                              CANCEL-NO-INIT-CANCEL: the session works
//
// No verdict may depend on the sharing: a part whose finding here could differ from the one it
// would have on a connection of its own is made again on one (conform.T.MakeApart), as before
// the sharing, and that is what its check reports. sessionStart records which parts stand.

// sessionStart is what the shared conversation showed, part by part: a part's finding where it
// was judged cleanly, nil where it must be made on a connection of its own.
type sessionStart struct {
	preInit, cancel, waits *conform.Finding
	// waitsApart is LIFE-SERVER-WAIT-INITIALIZED already made on a connection of its own,
	// beside the conversation (see observeSessionStart).
	waitsApart *conform.Apart
}

// waitsOwner owns the ids of LIFE-SERVER-WAIT-INITIALIZED's connection when the shared
// conversation makes it (the conversation's own ids are the observation's).
const waitsOwner = "LIFE-SERVER-WAIT-INITIALIZED"

// startPart is the Run of the three checks: the check's part of the shared conversation if it
// stands (pick returns its finding there, or a connection of its own made already), else the
// check made on a connection of its own (apart).
func startPart(t *conform.T, pick func(*sessionStart) (*conform.Finding, *conform.Apart), apart func(*conform.T) conform.Finding) conform.Finding {
	// A revision the shared session found unserved: there initialize is refused, which ends
	// every part at once, and a check alone reads the refusal as na (T.MakeApart does as a Raw
	// check). Sharing would only add the conversation's connection to the three.
	if t.Negotiation(t.Revision).Err != nil {
		return t.Report(t.MakeApart(t.Check.ID, apart))
	}
	v, f := t.ObserveStart("session-start", observeSessionStart)
	if f != nil {
		return *f
	}
	s, _ := v.(*sessionStart)
	if s == nil {
		return t.Report(t.MakeApart(t.Check.ID, apart))
	}
	found, made := pick(s)
	switch {
	case made != nil:
		return t.Report(made)
	case found != nil:
		return *found
	}
	return t.Report(t.MakeApart(t.Check.ID, apart))
}

// observeSessionStart holds the conversation the three checks share (see the top of this file).
func observeSessionStart(o *conform.T) any {
	s := &sessionStart{}
	// The request before initialize is the first thing on the connection, as on one of its
	// own: unanswered, that is LIFE-PRE-INIT-REQUEST's violation. The server may be dead or
	// unwell after it, so the other two are made apart.
	f, ok := askBeforeInit(o)
	if !ok {
		s.preInit = &f
		return s
	}
	var beside sync.WaitGroup
	defer beside.Wait()
	from := o.S.Mark()
	resp, d, cancelF, answered := cancelledInitialize(o, declaringInitialize(o.Revision), func() {
		// Over stdio the ping sent after the cancellation was answered and initialize was not:
		// most likely the server honoured the cancellation, and initialize will not be
		// answered here. LIFE-SERVER-WAIT-INITIALIZED needs an answered initialize, so it is
		// made on a connection of its own now, beside the rest of CANCEL-NO-INIT-CANCEL's wait,
		// not after it. Once started, that is its finding, whatever comes here. It takes no
		// slot of the scheduler's (T.Beside): the pool of waiting checks is full at this
		// point of a run, and queued behind them it started only once the wait had ended;
		// the launcher still bounds how many servers start at once.
		beside.Add(1)
		go func() {
			defer beside.Done()
			s.waitsApart = o.MakeApart(waitsOwner, serverWaitsInitializedApart)
		}()
	})
	passed := conform.Passed("")
	if !answered {
		// LIFE-PRE-INIT-REQUEST needs an initialize answered after its request: a plain one,
		// not cancelled. Its result also shows the server serving initialize after the request
		// before it, so CANCEL-NO-INIT-CANCEL's violation (its initialize never answered, or
		// refused) was found on a server in order, as on a connection of its own: it stands.
		// A server that does not answer this one either (the reference under the
		// CANCEL-NO-INIT-CANCEL fault refuses a second initialize) leaves both to be made
		// apart. LIFE-SERVER-WAIT-INITIALIZED is never judged after a cancelled initialize that
		// went unanswered: its window would start from a handshake not its own.
		if again, err := plainInitialize(o, declaringInitialize(o.Revision)); err == nil && again.HasResult {
			s.preInit = &passed
			if cancelF.Outcome == conform.Violation {
				s.cancel = &cancelF
			}
		}
		return s
	}
	s.preInit = &passed
	if hc, ok := o.S.Conn.(*streamhttp.Conn); ok {
		hc.SetSession(d.Header.Get(streamhttp.HeaderSession))
	}
	// From here on a part that does not pass leaves the server in a state no check alone
	// would meet: it and the parts after it are made apart.
	if err := o.S.Adopt(resp); err != nil {
		return s
	}
	if f := waitsForInitialized(o, from); f.Outcome != conform.Pass {
		return s
	}
	s.waits = &passed
	if _, ok := stillServes(o); ok {
		s.cancel = &passed
	}
	return s
}

// plainInitialize sends initialize with params on t.S and waits for its answer.
func plainInitialize(t *conform.T, params map[string]any) (jsonrpc.Message, error) {
	id := t.S.NextID()
	t.S.Sent(id, "initialize")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "initialize", params))
	if err != nil {
		return jsonrpc.Message{}, err
	}
	return t.S.AwaitReply(t.Ctx, d, from, id)
}
