package suites

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

func init() {
	conform.Register(
		conform.Check{ID: "CANCEL-IGNORE-UNKNOWN", Revisions: conform.AllCatalogued, JSONRPC: true, Level: "MUST",
			Summary:     "a cancellation for a request that was never sent gets no reply, and the server keeps serving",
			LevelReason: "The spec lets receivers ignore such cancellations (MAY); answering one is never allowed, because it is a notification (JSON-RPC: MUST NOT reply).",
			Run:         checkCancelUnknown},
		conform.Check{ID: "CANCEL-RACE", Revisions: conform.AllCatalogued, JSONRPC: true, Level: "MUST",
			Summary: "a cancellation that arrives after the response is ignored: no error, no second response",
			Run:     checkCancelRace},
		conform.Check{ID: "CANCEL-INVALID-IGNORED", Revisions: conform.AllCatalogued, Level: "SHOULD",
			Summary: "malformed cancellations (no params, a requestId of the wrong type, unknown extra fields) are ignored without a reply",
			Run:     checkCancelInvalid},
		// At 2026-07-28 over HTTP a request is cancelled by closing its response stream, not by a
		// notification (CANCEL26-HTTP-CLOSE), so the check runs there over stdio only.
		// It judges the last part of the state session (state.go).
		conform.Check{ID: "CANCEL-STOP-NO-RESPONSE", Revisions: conform.AllCatalogued, Level: "SHOULD", Connection: conform.Observed, Waits: true, ModernTransports: stdioOnly,
			Summary:     "a cancelled request stops its work (no more progress) and gets no response, for a string id and for the id 0",
			LevelReason: "The spec says receivers SHOULD stop and SHOULD NOT respond; over HTTP a response stream left open past twice the tool's duration fails the same check.",
			Ready:       slowToolReady, Run: checkCancelStops},
	)
	conform.Register(
		conform.Check{ID: "CANCEL-NO-INIT-CANCEL", Revisions: conform.AllCatalogued, Level: "MUST", Connection: conform.Raw, Waits: true,
			Summary:     "a cancellation of initialize is not honoured: the server still answers initialize and the session works",
			LevelReason: "Clients MUST NOT cancel initialize, so a server has no reason to honour it; one that drops initialize leaves the client with no session, which mcpspec treats as a failure.",
			Run:         checkInitNotCancelled},
	)
}

func cancelParams(id jsonrpc.ID) map[string]any {
	return map[string]any{"requestId": id.JSON(), "reason": "mcpspec"}
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
	if st.gone != "" {
		return conform.CannotTest("the server of the state session stopped answering after %s", st.gone)
	}
	if st.cancelled == nil { // the state session's server offered no tools, unlike the shared one
		return conform.CannotTest("the server declares no tools capability, so --slow-tool %q cannot be called", t.Options().SlowTool)
	}
	return *st.cancelled
}

// cancelStops runs the slow tool once, then cancels two calls of it (a string id, the id 0) and
// judges what follows each.
func cancelStops(t *conform.T) conform.Finding {
	// The tool's normal duration sets the window: a cancelled call must stay silent for twice
	// it. It is measured on a call like the cancelled ones (with a progress token), and only a
	// real run of the tool is a measure.
	run, f := calibrate(t)
	if f != nil {
		return *f
	}
	window := 2 * run.took
	for _, id := range []jsonrpc.ID{t.S.NextID(), jsonrpc.NumberID(0)} {
		if f, ok := cancelRetried(t, id, window); !ok {
			return f
		}
	}
	return conform.Passed("")
}

// cancelAttempts bounds the calls cancelled with one id: a call the server finished before it
// surely read the cancellation proves nothing either way, and under load that can happen.
const cancelAttempts = 3

// cancelRetried is cancelOne, again while the server's answer raced the cancellation (its
// previous call with the id is over, so the id may be used again).
func cancelRetried(t *conform.T, id jsonrpc.ID, window time.Duration) (conform.Finding, bool) {
	for range cancelAttempts - 1 {
		f, ok, raced := cancelOne(t, id, window)
		if !raced {
			return f, ok
		}
	}
	f, ok, _ := cancelOne(t, id, window)
	return f, ok
}

// cancelOne starts a slow call with id, cancels it once it is under way, and judges what follows.
// raced: the call was answered before the server surely read the cancellation (the finding then
// says the check could not tell).
func cancelOne(t *conform.T, id jsonrpc.ID, window time.Duration) (f conform.Finding, ok, raced bool) {
	token := t.S.NextID()
	call, err := startSlow(t, id, token)
	if err != nil {
		return conform.Crashed("starting the slow tool: %v", err), false, false
	}
	// Under way: a progress notification with its own token arrived (the calibration showed
	// the tool sends them). Another call's progress says nothing of this one.
	if err := awaitUnderWay(t, call); err != nil {
		return conform.CannotTest("the call %s to be cancelled was never seen under way: %v", id.Text(), err), false, false
	}
	cancelAt := t.S.Mark()
	cd, err := t.S.Send(t.Ctx, rawNotification("notifications/cancelled", cancelParams(id)))
	if err != nil {
		return conform.Crashed("sending the cancellation: %v", err), false, false
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
	// Silence for the window proves the cancel was honoured; a response ends the wait at once.
	ctx, cancel := context.WithTimeout(t.Ctx, window)
	_, answered := t.S.Conn.Inbox().Wait(ctx, call.from, wire.RespondsTo(id))
	cancel()
	if answered == nil {
		if early, ok := answerBefore(t, call.from, readAt, id); ok {
			return conform.CannotTest("the slow call %s was answered before the server had surely read its cancellation, %d time(s): the tool is too quick to be cancelled here: %s", id.Text(), cancelAttempts, show(early)), false, true
		}
		resp, _ := t.S.AwaitReply(t.Ctx, call.d, call.from, id)
		return conform.Violated("the cancelled request %s was answered: %s", id.Text(), show(resp)), false, false
	}
	if _, err := t.S.Quiet(t.Ctx, cancelAt); err != nil {
		return conform.Crashed("after a cancellation the server stopped serving: %v", err), false, false
	}
	for _, r := range t.S.Conn.Inbox().Since(call.from) {
		if resp, ok := wire.FindResponse(r.Msg, id); ok {
			return conform.Violated("the cancelled request %s was answered: %s", id.Text(), show(resp)), false, false
		}
	}
	// One progress notification may already have been on its way when the cancel arrived.
	// Only the call's own count: an earlier call's progress is another matter (PROG-STOP).
	var own []progress
	for _, p := range progressSince(t, readAt) {
		if p.token == token {
			own = append(own, p)
		}
	}
	if len(own) > 1 {
		return conform.Violated("the cancelled request %s kept working: %d progress notifications with its token %s after the cancellation", id.Text(), len(own), token.Text()), false, false
	}
	if call.d.CarriesReplies && !call.d.IsFinished() {
		return conform.Violated("the cancelled request %s's HTTP response stream is still open %s after the cancellation", id.Text(), window), false, false
	}
	return conform.Finding{}, true, false
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

// awaitInit waits for the answer to initialize. Over stdio a sentinel ping follows the
// cancellation: until something is answered the freshly launched server may still be starting
// (the startup timeout), and once the ping is answered initialize has been read, so silence
// costs the late-reply grace, as for every other probe, not the whole request timeout.
func awaitInit(t *conform.T, d *wire.Delivery, from int, id jsonrpc.ID) (jsonrpc.Message, error) {
	if t.Transport != wire.Stdio {
		return t.S.AwaitReply(t.Ctx, d, from, id)
	}
	r, err := awaitProbe(t, d, from, wire.RespondsTo(id))
	if err != nil {
		return jsonrpc.Message{}, err
	}
	resp, _ := wire.FindResponse(r.Msg, id)
	return resp, nil
}

func checkInitNotCancelled(t *conform.T) conform.Finding {
	id := t.S.NextID()
	frame := rawRequest(id, "initialize", harness.InitializeParams(t.Revision))
	t.S.Sent(id, "initialize")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		return conform.Crashed("sending initialize: %v", err)
	}
	// Where the POST's status comes before the answer (legacy SSE), the cancel follows it, so
	// it cannot overtake the initialize on another connection.
	if !d.CarriesReplies {
		_ = waitReady(t, d)
	}
	if _, err := t.S.Send(t.Ctx, rawNotification("notifications/cancelled", cancelParams(id))); err != nil {
		return conform.Crashed("sending the cancellation of initialize: %v", err)
	}
	resp, err := awaitInit(t, d, from, id)
	if err != nil {
		return conform.Violated("initialize, cancelled right after it was sent, was never answered: %v", err)
	}
	if !resp.HasResult {
		return conform.Violated("initialize, cancelled right after it was sent, failed: %s", show(resp))
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
