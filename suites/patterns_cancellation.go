package suites

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/patterns/cancellation (basic/utilities/cancellation before 2026-07-28): what a
// server does with a cancelled request on every transport, and that it sends nothing for it after.

func init() {
	conform.Register(
		conform.Check{ID: "CANCEL-IGNORE-UNKNOWN", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a cancellation for a request that was never sent gets no reply, and the server keeps serving",
			LevelReason: "The spec lets receivers ignore such cancellations (MAY); answering one is never allowed, because it is a notification (JSON-RPC: MUST NOT reply).",
			Side:        conform.Server{JSONRPC: true, Run: checkCancelUnknown}},
		conform.Check{ID: "CANCEL-RACE", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a cancellation that arrives after the response is ignored: no error, no second response",
			Side:    conform.Server{JSONRPC: true, Run: checkCancelRace}},
		conform.Check{ID: "CANCEL-INVALID-IGNORED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "malformed cancellations (no params, a requestId of the wrong type, unknown extra fields) are ignored without a reply",
			Side:    conform.Server{Run: checkCancelInvalid}},
		// At 2026-07-28 over HTTP a request is cancelled by closing its response stream, not by a
		// notification (CANCEL26-HTTP-CLOSE), so the check runs there over stdio only.
		// It judges the last part of the state session (state.go).
		conform.Check{ID: "CANCEL-STOP-NO-RESPONSE", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary:     "a cancelled request stops its work (no more progress) and gets no response, for a string id and for the id 0",
			LevelReason: "The spec says receivers SHOULD stop and SHOULD NOT respond; over HTTP a response stream still open a request timeout after the cancelled call's window (1.5 times the tool's duration from its start, plus 250 ms) fails the same check.",
			Side:        conform.Server{Connection: conform.Observed, Waits: true, StatelessTransports: stdioOnly, Ready: slowToolReady, Run: checkCancelStops}},
		conform.Check{ID: "CANCEL-NO-INIT-CANCEL", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary:     "a cancellation of initialize is not honoured: the server still answers initialize and the session works",
			LevelReason: "\"The initialize request MUST NOT be cancelled\" binds clients; a server that meets such an invalid cancellation is bound by \"receivers SHOULD ignore\" invalid cancellations, so honouring it warns. A target that answers nothing at all is unavailable (error), and initialize is waited for as long as a start.",
			Side:        conform.Server{Connection: conform.Observed, PreInit: true, Waits: true, Run: checkInitNotCancelled}},
		conform.Check{ID: "CANCEL-SAME-DIRECTION", Revisions: conform.Until(harness.Rev20251125), Transports: allTransports, Level: "MUST",
			Summary:     "a notifications/cancelled from the server names a request the server itself issued, never one of the client's",
			LevelReason: "At 2026-07-28 the rule is that server cancellations name an open subscriptions/listen, which CANCEL26-SERVER-LISTEN-ONLY checks; this check covers the handshake revisions.",
			Side:        conform.Server{Connection: conform.Observed, Run: checkCancelSameDirection}},
		conform.Check{ID: "CANCEL26-HTTP-CLOSE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "closing the SSE stream of a running request cancels it: its work stops and is not finished",
			Side:    conform.Server{Run: checkCancelOnClose}},
		conform.Check{ID: "CANCEL26-NO-FURTHER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: stdioOnly,
			Summary:     "after notifications/cancelled nothing more comes for that request: no response, no progress for its token",
			LevelReason: "Over Streamable HTTP a request is cancelled by closing its response stream, after which nothing can arrive for it, so the check runs over stdio. Messages within 100 ms of the server having read the cancellation are allowed: they may already have been under way.",
			Side:        conform.Server{Connection: conform.Fresh, Waits: true, Run: checkNoFurtherAfterCancel}},
		conform.Check{ID: "CANCEL26-SERVER-LISTEN-ONLY", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a notifications/cancelled from the server names an open listen request, never anything else",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkCancelListenOnly}},
	)
}

// expectSilence sends the notifications and fails if anything but the sentinel's answer follows.
func expectSilence(t *conform.T, what string, frames ...[]byte) conform.Finding {
	from := t.S.Mark()
	for _, f := range frames {
		if _, err := t.S.Send(t.Ctx, f); err != nil {
			return conform.Crashed("sending %s: %v", what, err)
		}
	}
	after, err := t.S.Quiet(t.Ctx, from)
	if err != nil {
		return conform.Crashed("after %s the server stopped serving: %v", what, err)
	}
	for _, r := range after {
		if rejectedOverHTTP(r) {
			continue
		}
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response {
				return conform.Violated("%s was answered: %s", what, show(m))
			}
		}
	}
	return conform.Passed("")
}

func checkCancelUnknown(t *conform.T) conform.Finding {
	unknown := jsonrpc.StringID(fmt.Sprintf("mcpspec:never-sent:%s", t.S.NextID().Text()))
	return expectSilence(t, "a cancellation of a request that was never sent", rawNotification("notifications/cancelled", cancelParams(unknown)))
}

func checkCancelRace(t *conform.T) conform.Finding {
	id := t.S.NextID()
	if _, err := t.S.RequestWithID(t.Ctx, id, probeMethod(t.S), nil); err != nil {
		return conform.Violated("%s: %v", probeMethod(t.S), err)
	}
	return expectSilence(t, "a cancellation of a request already answered", rawNotification("notifications/cancelled", cancelParams(id)))
}

func checkCancelInvalid(t *conform.T) conform.Finding {
	unknown := jsonrpc.StringID("mcpspec:never-sent:extra")
	return expectSilence(t, "malformed cancellations",
		rawNotification("notifications/cancelled", nil),
		rawNotification("notifications/cancelled", map[string]any{"requestId": map[string]any{}}),
		rawNotification("notifications/cancelled", map[string]any{"requestId": unknown.JSON(), "mcpspec/extra": true}),
	)
}

func checkCancelStops(t *conform.T) conform.Finding {
	st, f := observeState(t)
	if f != nil {
		return *f
	}
	if st.gone != "" && !st.cancelFirst {
		return conform.CannotTest("the server of the state session stopped answering after %s", st.gone)
	}
	if st.cancelled == nil { // the state session's server offered no tools, unlike the shared one
		return conform.CannotTest("the server declares no tools capability, so --slow-tool %q cannot be called", t.Options().SlowTool)
	}
	return *st.cancelled
}

// awaitInit waits for the answer to initialize. Over stdio a sentinel ping follows the
// cancellation: until something is answered the freshly launched server may still be starting
// (the startup timeout), and once the ping is answered initialize has been read, so silence
// costs the late-reply grace, as for every other probe, not the whole request timeout.
//
// sentinelFirst, when not nil, is called over stdio as soon as the sentinel is answered while
// initialize is not (yet): the sign of a server that honoured the cancellation. Over legacy SSE
// a sentinel is sent only where the POST of initialize was accepted (its 2xx status came) and
// the server has said nothing yet (awaitInitFirst); over Streamable HTTP the POST's response
// carries the answer, or ends without it.
func awaitInit(t *conform.T, d *wire.Delivery, from int, id jsonrpc.ID, accepted bool, sentinelFirst func()) (jsonrpc.Message, error) {
	if t.Transport == wire.SSE && accepted && t.S.Conn.Inbox().Len() == 0 {
		return awaitInitFirst(t, d, from, id)
	}
	if t.Transport != wire.Stdio {
		return t.S.AwaitReply(t.Ctx, d, from, id)
	}
	// Over stdio a sentinel answered before initialize does not end the wait at once: the
	// answer to initialize may take as long as a server's start, and a server slow to set up
	// its session is slow, not refusing. But once the sentinel is answered the server has
	// started and read the initialize, so the wait need not run to the startup timeout: from
	// the sentinel's answer it lasts as long as a whole initialize took this server when it was
	// not asked to drop it (the revision's shared session, its process start included: a
	// measure taken on this machine under this run's load), or as long as the sentinel's answer
	// took here if that was longer, plus initWaitMargin; at most the startup timeout in all.
	startup := t.S.Env().Timeouts.Startup
	sentAt := time.Now()
	sid, sd, err := t.S.Sentinel(t.Ctx)
	if err != nil {
		return jsonrpc.Message{}, err
	}
	wait, cancel := context.WithTimeout(t.Ctx, startup)
	defer cancel()
	if _, err := t.S.AwaitReply(wait, sd, from, sid); err == nil {
		if sentinelFirst != nil && !slices.ContainsFunc(t.S.Conn.Inbox().Since(from), wire.RespondsTo(id)) {
			sentinelFirst()
		}
		measure := max(time.Since(sentAt), t.Negotiation(t.Revision).InitTook())
		until := time.Now().Add(measure + initWaitMargin)
		if latest := sentAt.Add(startup); until.After(latest) {
			until = latest
		}
		cancel()
		wait, cancel = context.WithDeadline(t.Ctx, until)
		defer cancel()
	}
	r, err := t.S.Conn.Inbox().Wait(wait, from, wire.RespondsTo(id))
	if err != nil {
		return jsonrpc.Message{}, fmt.Errorf("no answer within %s", time.Since(sentAt).Round(time.Millisecond))
	}
	resp, _ := wire.FindResponse(r.Msg, id)
	return resp, nil
}

// awaitInitFirst waits for the answer to initialize over legacy SSE where the server has said
// nothing yet on the connection (CANCEL-NO-INIT-CANCEL made apart), so that AwaitReply would
// wait the startup timeout for it: the answer comes on the GET stream, and silence there may be
// a server still starting. Its POST was accepted, though, and a sentinel ping follows the
// cancellation: once that is answered the server is up and has read initialize, and a server
// that drops the answer would otherwise hold the check for the whole startup timeout (30 s of
// the self-test's, 20 s by default). From the sentinel's answer the wait lasts what a request
// gets on a connection where the server has spoken (the request timeout, as on the shared
// conversation, where a request was answered before initialize), or, if longer, as long as a
// whole initialize took this server when it was not asked to drop it plus initWaitMargin (a
// server slow to set up a session is slow, not refusing); at most the startup timeout in all.
// A server answering neither still gets the startup timeout, as before. Either way an
// initialize left unanswered is noted as AwaitReply notes it.
func awaitInitFirst(t *conform.T, d *wire.Delivery, from int, id jsonrpc.ID) (jsonrpc.Message, error) {
	timeouts := t.S.Env().Timeouts
	sentAt := time.Now()
	deadline := sentAt.Add(timeouts.Startup)
	sid, _, err := t.S.Sentinel(t.Ctx)
	if err != nil {
		return jsonrpc.Message{}, err
	}
	either, cancel := context.WithDeadline(t.Ctx, deadline)
	first, err := t.S.Conn.Inbox().Wait(either, from, func(r wire.Received) bool {
		return wire.RespondsTo(id)(r) || wire.RespondsTo(sid)(r)
	})
	cancel()
	if err == nil && !wire.RespondsTo(id)(first) {
		measure := max(time.Since(sentAt), t.Negotiation(t.Revision).InitTook()) + initWaitMargin
		if until := time.Now().Add(max(timeouts.Request, measure)); until.Before(deadline) {
			deadline = until
		}
	}
	return t.S.AwaitReplyBy(t.Ctx, d, from, id, sentAt, deadline)
}

// initWaitMargin is added to the wait for a cancelled initialize's answer over stdio (and over
// legacy SSE, awaitInitFirst) once the server has answered a later ping (awaitInit): the load
// of the machine may differ from when the measure was taken.
const initWaitMargin = time.Second

func checkInitNotCancelled(t *conform.T) conform.Finding {
	return startPart(t, func(s *sessionStart) (*conform.Finding, *conform.Apart) { return s.cancel, nil }, initNotCancelledApart)
}

// initNotCancelledApart is CANCEL-NO-INIT-CANCEL on a connection of its own.
func initNotCancelledApart(t *conform.T) conform.Finding {
	resp, d, f, ok := cancelledInitialize(t, harness.InitializeParams(t.Revision), nil)
	if !ok {
		return f
	}
	if hc, ok := t.S.Conn.(*streamhttp.Conn); ok {
		hc.SetSession(d.Header.Get(streamhttp.HeaderSession))
	}
	if err := t.S.Adopt(resp); err != nil {
		return conform.Violated("%v", err)
	}
	if _, err := t.S.Notify(t.Ctx, "notifications/initialized", nil); err != nil {
		return conform.Crashed("notifications/initialized: %v", err)
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("")
}

// cancelledInitialize sends initialize with params, cancels it at once and waits for its
// answer (awaitInit, which calls sentinelFirst): CANCEL-NO-INIT-CANCEL's first part. ok is
// true when initialize got a result, resp and d its answer and delivery; else f says what
// became of it.
func cancelledInitialize(t *conform.T, params map[string]any, sentinelFirst func()) (resp jsonrpc.Message, d *wire.Delivery, f conform.Finding, ok bool) {
	id := t.S.NextID()
	frame := rawRequest(id, "initialize", params)
	t.S.Sent(id, "initialize")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		return resp, d, conform.Crashed("sending initialize: %v", err), false
	}
	// Where the POST's status comes before the answer (legacy SSE), the cancel follows it, so
	// it cannot overtake the initialize on another connection.
	accepted := false
	if !d.CarriesReplies {
		accepted = waitReady(t, d) == nil && d.Status >= 200 && d.Status < 300
	}
	if _, err := t.S.Send(t.Ctx, rawNotification("notifications/cancelled", cancelParams(id))); err != nil {
		return resp, d, conform.Crashed("sending the cancellation of initialize: %v", err), false
	}
	resp, err = awaitInit(t, d, from, id, accepted, sentinelFirst)
	if err != nil && t.Transport == wire.Stdio && len(t.S.Conn.Inbox().Since(from)) == 0 {
		// Not a word came over stdio, not even to the sentinel: the target is not there (yet),
		// which says nothing about cancellations. (Over HTTP the connection and the POST's
		// status already show a server that is there.)
		return resp, d, conform.Failed(fmt.Errorf("target unavailable: it answered nothing at all, neither initialize nor a ping after it: %w", err)), false
	}
	if err != nil {
		return resp, d, conform.Violated("initialize, cancelled right after it was sent, was never answered: %v", err), false
	}
	if !resp.HasResult {
		return resp, d, conform.Violated("initialize, cancelled right after it was sent, failed: %s", show(resp)), false
	}
	return resp, d, conform.Finding{}, true
}

func checkCancelSameDirection(t *conform.T) conform.Finding {
	ex, f := observePristine(t)
	if f != nil {
		return *f
	}
	var issued []jsonrpc.ID // the server's own requests, in order
	for _, m := range ex.msgs {
		if m.Kind == jsonrpc.Request && m.HasID {
			issued = append(issued, m.ID)
		}
		id, ok := cancelledID(m)
		if !ok || slices.Contains(issued, id) {
			continue
		}
		what := "no request the server issued"
		if ex.answered(id) {
			what = "a request the client issued"
		}
		return conform.Violated("the server's cancellation names %s, %s: %s", id.Text(), what, show(m))
	}
	return conform.Passed("")
}

func checkCancelOnClose(t *conform.T) conform.Finding {
	ok, err := hasCancelProbe(t)
	if err != nil {
		return conform.Violated("%v", err)
	}
	if !ok {
		return conform.CannotTest("needs tools a black-box client can see cancelled work with: %q taking a key, and %q reporting how that run ended (the mcpspec reference server has both); without them the end of a closed stream's work cannot be observed",
			probeSlowTool, probeOutcomeTool)
	}
	// The run must outlast the wait for its outcome by far, so that only a cancellation ends it
	// within the wait.
	wait := min(t.S.Env().Timeouts.Request/2, probeMaxWait)
	steps := min(probeMaxSteps, 3*int(wait/time.Millisecond)/probeStepMs+20)
	key := "mcpspec-" + randomHex(8)

	s2, err := t.Connect()
	if err != nil {
		return conform.Failed(fmt.Errorf("another connection: %w", err))
	}
	hc2, isHTTP := s2.Conn.(*streamhttp.Conn)
	if !isHTTP {
		return conform.Failed(fmt.Errorf("another connection is not Streamable HTTP"))
	}
	hc2.SetProtocolVersion(t.Revision)
	hc2.SetStateless(true)
	id := s2.NextID()
	frame := slowFrame(t, id, probeSlowTool, map[string]any{"steps": steps, "stepMs": probeStepMs, "key": key}, "mcpspec-progress-"+randomHex(4))
	// The first progress notification shows the work running on an open stream.
	if f := runShowingProgress(t, s2, id, frame, fmt.Sprintf("the %s call (%d steps of %d ms)", probeSlowTool, steps, probeStepMs), "close"); f != nil {
		return *f
	}
	closedAt := time.Now()
	_ = hc2.Close()

	outcome, f := probeOutcome(t, key, wait)
	if f != nil {
		return *f
	}
	switch outcome {
	case "cancelled":
		return conform.Passed("the run ended cancelled after its stream was closed (reported %s after the close)", time.Since(closedAt).Round(time.Millisecond))
	case "finished":
		return conform.Violated("the %s run (key %s) finished its work although its SSE stream was closed mid-way", probeSlowTool, key)
	case "running":
		return conform.Violated("the %s run (key %s) was still running %s after its SSE stream was closed", probeSlowTool, key, wait*outcomeAsks)
	default:
		return conform.CannotTest("%s reported %q for key %s: the run was not logged", probeOutcomeTool, outcome, key)
	}
}

// cancelRaceGrace is how long after the server has surely read a cancellation a message for
// the cancelled request may still arrive: one already written, or being written, when it did.
const cancelRaceGrace = 100 * time.Millisecond

func checkNoFurtherAfterCancel(t *conform.T) conform.Finding {
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	// The tool's normal duration, measured on a call like the cancelled one, sets the window in
	// which anything further would show.
	run, f := calibrate(t)
	if f != nil {
		return *f
	}
	return run.withLate(noFurtherWithin(t, run.took))
}

// noFurtherWithin cancels a call of the slow tool under way and judges what comes for it within
// twice took, the tool's normal duration.
func noFurtherWithin(t *conform.T, took time.Duration) conform.Finding {
	id, token := t.S.NextID(), t.S.NextID()
	call, err := startSlow(t, id, token)
	if err != nil {
		return conform.Crashed("starting the slow tool: %v", err)
	}
	if err := awaitUnderWay(t, call); err != nil {
		return conform.CannotTest("the call %s to be cancelled was never seen under way: %v", id.Text(), err)
	}
	cancelAt := t.S.Mark()
	if _, err := t.S.Send(t.Ctx, rawNotification("notifications/cancelled", cancelParams(id))); err != nil {
		return conform.Crashed("sending the cancellation: %v", err)
	}
	// The answer to a request sent after the cancellation proves the server has read it.
	sid, sd, err := t.S.Sentinel(t.Ctx)
	if err == nil {
		_, err = t.S.AwaitReply(t.Ctx, sd, cancelAt, sid)
	}
	if err != nil {
		return conform.Crashed("after a cancellation the server stopped serving: %v", err)
	}
	readAt := time.Now()
	readIndex := replyIndex(t, cancelAt, sid)
	// Anything for the request later than the grace ends the wait at once; silence lasts the window.
	// On the ordered pipe, a second message for it written after the sentinel's answer ends it
	// too, however soon: one may have been under way when the server read the cancellation, two
	// cannot (a loaded machine can otherwise fit all of a faulty server's sending into the grace).
	after := 0
	late := func(r wire.Received) bool {
		_, answered := wire.FindResponse(r.Msg, id)
		got, isProgress := progressTokenOf(r.Msg)
		if !answered && !(isProgress && got == token) {
			return false
		}
		if readIndex >= 0 && r.Index > readIndex {
			after++
		}
		return after >= 2 || !r.At.Before(readAt.Add(cancelRaceGrace))
	}
	ctx, cancel := context.WithTimeout(t.Ctx, 2*took+cancelRaceGrace)
	r, err := t.S.Conn.Inbox().Wait(ctx, cancelAt, late)
	cancel()
	if err == nil {
		return conform.Violated("%s after the server had read the cancellation of %s, this came for it: %s", r.At.Sub(readAt).Round(time.Millisecond), id.Text(), show(r.Msg))
	}
	if t.Ctx.Err() != nil {
		return conform.Failed(t.Ctx.Err())
	}
	if cause := t.S.Conn.Inbox().Closed(); cause != nil {
		return conform.Crashed("the server's output ended after the cancellation: %v", cause)
	}
	return conform.Passed("")
}

func checkCancelListenOnly(t *conform.T) conform.Finding {
	l, _, f := acknowledged(t, t.S, t.S.NextID(), map[string]any{"toolsListChanged": true})
	if f != nil {
		return *f
	}
	// Some traffic beside the open stream: a list change if the target has a tool for it, and a
	// request of its own.
	if _, f := changeAndAwait(t, l); f != nil {
		return *f
	}
	if f := settle(t, l.from); f != nil {
		return *f
	}
	for _, r := range t.S.Conn.Inbox().Since(l.from) {
		for _, m := range flatten(r.Msg) {
			if id, ok := cancelledID(m); ok && id != l.id {
				return conform.Violated("the server sent a cancellation naming %s, which is no open %s request (the open one is %s): %s", id.Text(), methodListen, l.id.Text(), show(m))
			}
		}
	}
	return conform.Passed("")
}

// replyIndex is the inbox position of the response to id received from position from on, or -1.
func replyIndex(t *conform.T, from int, id jsonrpc.ID) int {
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if wire.ContainsResponse(r.Msg, id) {
			return r.Index
		}
	}
	return -1
}
