package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/transports/streamable-http § Sending Messages to the Server (§ Receiving Messages
// in 2026-07-28): POST bodies, 202 for notifications, and what a POST's SSE stream may carry.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-202-ACCEPTED", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a POSTed notification is accepted with 202 and an empty body",
			Side:    conform.Server{Run: checkAccepted202}},
		conform.Check{ID: "HTTP-REQ-CONTENT-TYPE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a POSTed request is answered as application/json holding its one response, or as text/event-stream",
			Side:    conform.Server{Run: checkRequestContentType}},
		conform.Check{ID: "HTTP-SSE-INCLUDES-RESPONSE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an SSE response stream carries the request's response before it ends",
			Side:    conform.Server{Run: checkSSEIncludesResponse}},
		conform.Check{ID: "HTTP-SSE-CLOSE-AFTER", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an SSE response stream ends soon (within a second) after its response",
			Side:    conform.Server{Run: checkSSECloseAfter}},
		conform.Check{ID: "HTTP-SSE-PRIME", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an SSE response stream starts with a priming event: an event id and empty data",
			Side:    conform.Server{Run: checkSSEPrime}},
		conform.Check{ID: "HTTP-NOTIF-REJECT", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a malformed POSTed notification is either accepted (202) or refused with an HTTP error status (400 or above), never another 2xx",
			LevelReason: "The spec lets the server decide what it cannot accept, so a 202 passes; a refusal must carry an error status. The body of a refusal MAY be a JSON-RPC error without an id: a permission, so a body of another form (plain text, an error with an id) is reported in the message, not failed.",
			Side:        conform.Server{Run: checkNotificationReject}},
		// The next two wait on slow calls: a session of their own (over HTTP only a new
		// session, not a new server) keeps that wait off the shared sessions.
		conform.Check{ID: "HTTP-SSE-RELATED", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "the notifications on a POST's SSE stream belong to that request: progress under its own token, nothing after its response",
			LevelReason: "SHOULD up to 2025-11-25, MUST at 2026-07-28: a violation warns at the handshake revisions and fails at 2026-07-28. Only what can be tied to a request is judged (progress tokens, and the request still running); a log message's origin cannot be told.",
			Side:        conform.Server{Connection: conform.Fresh, Waits: true, Ready: slowToolReady, Run: checkSSERelated}},
		conform.Check{ID: "HTTP-DISCONNECT-NOT-CANCEL", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "dropping the connection of a running request's SSE stream does not cancel it: its work still runs to the end",
			LevelReason: "SHOULD NOT in the spec. The work's end is invisible on the dropped stream, so only a server with the reference's probe tools (a keyed slow tool and slow_outcome) can be judged; others are untestable.",
			Side:        conform.Server{Connection: conform.Fresh, Waits: true, Ready: cancelProbeReady, Run: checkDisconnectNotCancel}},
		conform.Check{ID: "HTTP-SSE-NO-EARLY-CLOSE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "the SSE stream of a slow request stays open until it has carried the request's response",
			LevelReason: "SHOULD NOT close early in the spec; judged on a slow call, where an early close has time to happen (a quick ping is HTTP-SSE-INCLUDES-RESPONSE's probe).",
			Side:        conform.Server{Connection: conform.Observed, Waits: true, Ready: slowToolReady, Run: checkSSENoEarlyClose}},
		conform.Check{ID: "HTTP26-NO-SERVER-REQUESTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "an SSE stream answering a POST never carries a JSON-RPC request from the server",
			LevelReason: "MUST NOT in the spec: any request on the stream is a failure.",
			Side:        conform.Server{Waits: true, Run: checkNoStreamRequests}},
		conform.Check{ID: "HTTP26-X-ACCEL", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an SSE response carries X-Accel-Buffering: no, so proxies pass events on at once",
			Side:    conform.Server{Waits: true, Run: checkXAccel}},
	)
}

func checkAccepted202(t *conform.T) conform.Finding {
	frame := rawNotification("notifications/initialized", nil)
	if t.S.Stateless() {
		// 2026-07-28 has no initialized notification; a cancellation of a request that never
		// existed is one every server must accept and ignore.
		frame = rawNotification("notifications/cancelled", t.S.StatelessParams(cancelParams(t.S.NextID())))
	}
	d, err := post(t, frame, streamhttp.Request{})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if err := d.Finished(t.Ctx); err != nil {
		return conform.Violated("reading the response: %v", err)
	}
	if d.Status != http.StatusAccepted || len(d.Body) > 0 || d.Events > 0 {
		return conform.Violated("a POSTed notification got HTTP %d with %d body bytes and %d events, want 202 and nothing", d.Status, len(d.Body), d.Events)
	}
	return conform.Passed("")
}

func checkRequestContentType(t *conform.T) conform.Finding {
	frame, id := pingFrame(t)
	if t.S.Stateless() {
		// Any request will do; the one that opens every session is the least telling.
		frame = rawRequest(id, listMethod(t.S), t.S.StatelessParams(nil))
	}
	from := t.S.Mark()
	d, err := post(t, frame, streamhttp.Request{})
	if err != nil {
		return conform.Violated("%v", err)
	}
	switch mediaType(d) {
	case "text/event-stream":
		if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
			return conform.Violated("the SSE response carried no response: %v", err)
		}
		return conform.Passed("answered as text/event-stream")
	case "application/json":
		if err := d.Finished(t.Ctx); err != nil {
			return conform.Violated("reading the body: %v", err)
		}
		m := jsonrpc.Parse(d.Body)
		if m.Kind != jsonrpc.Response || m.ID != id {
			return conform.Violated("the application/json body is not the one response to %s: %s", id.Text(), clip(string(d.Body), 200))
		}
		return conform.Passed("answered as application/json")
	default:
		return conform.Violated("a request was answered with Content-Type %q (HTTP %d), want application/json or text/event-stream", d.ContentType, d.Status)
	}
}

// sseAnswer POSTs a ping with a progress token and returns the delivery when it is answered as an
// SSE stream, or else the slow tool's call with a progress token when that one is; when neither
// is, the SSE checks are not applicable.
func sseAnswer(t *conform.T) (*wire.Delivery, jsonrpc.ID, int, *conform.Finding) {
	frame, id := streamedPing(t)
	from := t.S.Mark()
	d, err := post(t, frame, streamhttp.Request{})
	if err != nil {
		f := conform.Violated("%v", err)
		return nil, id, from, &f
	}
	if mediaType(d) == "text/event-stream" {
		return d, id, from, nil
	}
	_ = d.Finished(t.Ctx)
	// Many servers stream only work that reports progress: the slow tool, called with a
	// progress token, is tried before the SSE checks are given up.
	if _, ok := needSlowTool(t); ok {
		c, err := startSlow(t, t.S.NextID(), t.S.NextID())
		if err == nil && waitReady(t, c.d) == nil && mediaType(c.d) == "text/event-stream" {
			return c.d, c.id, c.from, nil
		}
		slowType := "nothing"
		if err == nil && c.d != nil {
			slowType = fmt.Sprintf("%q", c.d.ContentType)
			_, _ = c.finish(t) // its answer is not judged, but the call is not left running
		}
		f := conform.NA("the server answered a request with a progress token as %q, and the slow tool %q called with one as %s: no SSE stream to judge", d.ContentType, t.Options().SlowTool, slowType)
		return nil, id, from, &f
	}
	f := conform.NA("the server answered a request with a progress token as %q, not as an SSE stream (with --slow-tool the slow tool is tried too)", d.ContentType)
	return nil, id, from, &f
}

func checkSSEIncludesResponse(t *conform.T) conform.Finding {
	d, id, from, f := sseAnswer(t)
	if f != nil {
		return *f
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.Violated("the SSE stream ended without the response to %s: %v", id.Text(), err)
	}
	return conform.Passed("")
}

func checkSSECloseAfter(t *conform.T) conform.Finding {
	d, id, from, f := sseAnswer(t)
	if f != nil {
		return *f
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.CannotTest("the SSE stream carried no response (see HTTP-SSE-INCLUDES-RESPONSE): %v", err)
	}
	ctx, cancel := contextWithTimeout(t, sseCloseWindow)
	defer cancel()
	// A connection dropped after the response has closed the stream too (its error says how).
	if err := d.Finished(ctx); err != nil && !d.IsFinished() {
		return conform.Violated("the SSE stream was still open %s after its response", sseCloseWindow)
	}
	return conform.Passed("")
}

func checkSSEPrime(t *conform.T) conform.Finding {
	d, id, from, f := sseAnswer(t)
	if f != nil {
		return *f
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		return conform.CannotTest("the SSE stream carried no response: %v", err)
	}
	events := d.EventsSoFar()
	if len(events) == 0 {
		return conform.Violated("the SSE stream had no events")
	}
	if first := events[0]; !first.HasID || first.Data != "" {
		return conform.Violated("the first SSE event is not a priming event (id %q, data %q)", first.ID, clip(first.Data, 120))
	}
	return conform.Passed("")
}

// malformedNotifications are notifications no JSON-RPC 2.0 peer has to take: a wrong jsonrpc
// version, and params that are not structured.
func malformedNotifications(t *conform.T) []namedFrame {
	method := "notifications/initialized"
	var params any
	if t.S.Stateless() {
		method, params = "notifications/cancelled", t.S.StatelessParams(cancelParams(t.S.NextID()))
	}
	wrongVersion := map[string]any{"jsonrpc": "1.0", "method": method}
	if params != nil {
		wrongVersion["params"] = params
	}
	v, _ := json.Marshal(wrongVersion)
	p, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": "mcpspec"})
	return []namedFrame{{"jsonrpc \"1.0\"", v}, {"params a string", p}}
}

// namedFrame is a probe and how the report names it.
type namedFrame struct {
	what  string
	frame []byte
}

func checkNotificationReject(t *conform.T) conform.Finding {
	var notes []string
	for _, n := range malformedNotifications(t) {
		what, frame := n.what, n.frame
		d, err := post(t, frame, streamhttp.Request{})
		if err != nil {
			return conform.Violated("a notification with %s: %v", what, err)
		}
		if err := d.Finished(t.Ctx); err != nil {
			return conform.Violated("a notification with %s: reading the response: %v", what, err)
		}
		if d.Status == http.StatusAccepted {
			notes = append(notes, what+": accepted (202)")
			continue
		}
		if d.Status < 400 {
			return conform.Violated("a notification with %s got HTTP %d: neither 202 (accepted) nor an error status: %s", what, d.Status, clip(string(d.Body), 200))
		}
		note := fmt.Sprintf("%s: refused with HTTP %d", what, d.Status)
		if m := jsonrpc.Parse(d.Body); len(d.Body) > 0 && m.Kind == jsonrpc.Response && m.HasID && !m.ID.IsNull() {
			note += fmt.Sprintf(" (its JSON-RPC error carries id %s, where the permitted body has none)", m.ID.Text())
		}
		notes = append(notes, note)
	}
	return conform.Passed("%s", strings.Join(notes, "; "))
}

func checkSSERelated(t *conform.T) conform.Finding {
	var calls []slowCall
	for _, name := range []string{"a", "b"} {
		token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-related-"+name+"-"+randomHex(4)))
		c, err := startSlow(t, t.S.NextID(), token)
		if err != nil {
			return conform.CannotTest("starting slow call %s: %v", name, err)
		}
		calls = append(calls, c)
	}
	streams := 0
	for _, c := range calls {
		if _, err := c.finish(t); err != nil {
			return conform.CannotTest("the slow tool %q got no response: %v", t.Options().SlowTool, err)
		}
		if mediaType(c.d) == "text/event-stream" {
			streams++
		}
	}
	if streams == 0 {
		return conform.NA("both slow calls were answered as %q, not as SSE streams, so no notification could come with them", calls[0].d.ContentType)
	}
	if err := allArrived(t, calls); err != nil {
		return conform.CannotTest("%v", err)
	}
	f := judgeStreamNotifications(t, calls)
	if f.Outcome == conform.Violation && harness.IsStateless(t.Revision) {
		f.Severe = true // MUST at 2026-07-28
	}
	return f
}

// judgeStreamNotifications checks every notification that came on one of the calls' SSE
// streams: progress carries that call's token, and nothing follows the call's response.
func judgeStreamNotifications(t *conform.T, calls []slowCall) conform.Finding {
	answered := map[*wire.Delivery]bool{}
	progress := 0
	for _, r := range t.S.Conn.Inbox().Since(calls[0].from) {
		c, ok := callOf(calls, r.Via)
		if !ok {
			continue
		}
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response && m.ID == c.id {
				answered[c.d] = true
				continue
			}
			if m.Kind != jsonrpc.Notification {
				continue
			}
			if answered[c.d] {
				return conform.Violated("a notification came on a request's stream after that request's response: %s", show(m))
			}
			if m.Method != "notifications/progress" {
				continue
			}
			progress++
			if token, _ := progressTokenOf(m); token != c.token {
				return conform.Violated("progress under token %s came on the stream of the request with token %s: %s", token.Text(), c.token.Text(), show(m))
			}
		}
	}
	if progress == 0 {
		return conform.CannotTest("the slow tool %q reported no progress on either stream", t.Options().SlowTool)
	}
	return conform.Passed("%d progress notifications, each on the stream of the request whose token it carries", progress)
}

// callOf is the call whose HTTP exchange is d.
func callOf(calls []slowCall, d *wire.Delivery) (slowCall, bool) {
	for _, c := range calls {
		if d != nil && c.d == d {
			return c, true
		}
	}
	return slowCall{}, false
}

func checkSSENoEarlyClose(t *conform.T) conform.Finding {
	// Judged on the slow call with a string progress token the progress checks judge too
	// (askedSlowRun), made on a session of its own: the same call, which this check made again
	// on a session of its own.
	r, f := askedSlowRun(t)
	if f != nil {
		return *f
	}
	d := r.run.d
	switch {
	case d == nil:
		return conform.CannotTest("starting the slow call: %v", r.err)
	case r.readyErr != nil:
		return conform.Violated("the slow call: %v", r.readyErr)
	case mediaType(d) != "text/event-stream":
		return conform.NA("the slow call was answered as %q, not as an SSE stream", d.ContentType)
	case r.run.finishErr != nil && d.IsFinished():
		return conform.Violated("the SSE stream of the slow call ended without its response (%d events): %v", len(d.EventsSoFar()), r.run.finishErr)
	case r.run.finishErr != nil:
		return conform.CannotTest("the slow tool %q got no response while its stream stayed open: %v", t.Options().SlowTool, r.run.finishErr)
	}
	return conform.Passed("")
}

// cancelProbeReady ends HTTP-DISCONNECT-NOT-CANCEL before its session is opened when the
// server lacks the tools that show a run's end.
func cancelProbeReady(t *conform.T) (conform.Finding, bool) {
	ok, err := hasCancelProbe(t)
	switch {
	case err != nil:
		return conform.Violated("%v", err), true
	case !ok:
		return conform.CannotTest("needs tools a black-box client can see a run's end with: %q taking a key, and %q reporting how that run ended (the mcpspec reference server has both)", probeSlowTool, probeOutcomeTool), true
	}
	return conform.Finding{}, false
}

func checkDisconnectNotCancel(t *conform.T) conform.Finding {
	// The run lasts a quarter of the wait for its outcome: long enough for a server to notice
	// the disconnect while it runs, short enough to end within the wait unless stopped.
	wait := min(t.S.Env().Timeouts.Request/2, probeMaxWait)
	steps := max(10, int(wait/time.Millisecond)/(4*probeStepMs))
	key := "mcpspec-" + randomHex(8)

	// Another connection (and session), so that only its streams are dropped.
	s2, err := t.Open(t.Revision)
	if err != nil {
		return conform.Failed(fmt.Errorf("another session: %w", err))
	}
	id := s2.NextID()
	params := map[string]any{"name": probeSlowTool, "arguments": map[string]any{"steps": steps, "stepMs": probeStepMs, "key": key}}
	frame := rawRequest(id, "tools/call", withProgressToken(s2, params, jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-progress-"+randomHex(4)))))
	if f := runShowingProgress(t, s2, id, frame, fmt.Sprintf("the %s call", probeSlowTool), "disconnect"); f != nil {
		return *f
	}
	_ = s2.Conn.Close() // drops the connection; the session is not deleted

	outcome, f := probeOutcome(t, key, wait)
	if f != nil {
		return *f
	}
	switch outcome {
	case "finished":
		return conform.Passed("the run finished after its stream's connection was dropped")
	case "cancelled":
		return conform.Violated("the %s run (key %s) was cancelled when its SSE stream's connection was dropped", probeSlowTool, key)
	default:
		return conform.CannotTest("%s reported %q for key %s within %s", probeOutcomeTool, outcome, key, wait*outcomeAsks)
	}
}

// statelessSlowCall calls the slow tool with a progress token on the session's connection and
// waits for its response and for the end of its HTTP response.
func statelessSlowCall(t *conform.T) (*wire.Delivery, []wire.Received, *conform.Finding) {
	if f, ok := needSlowTool(t); !ok {
		return nil, nil, &f
	}
	id := t.S.NextID()
	frame := slowFrame(t, id, t.Options().SlowTool, json.RawMessage(t.Options().SlowToolArgs), "mcpspec-progress-"+randomHex(4))
	t.S.Sent(id, "tools/call")
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, frame, streamhttp.Request{})
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		f := conform.Violated("the slow tool %q with a progress token got no response: %v", t.Options().SlowTool, err)
		return d, nil, &f
	}
	ctx, cancel := contextWithTimeout(t, t.S.Env().Timeouts.Request)
	defer cancel()
	if err := d.Finished(ctx); err != nil && !d.IsFinished() {
		f := conform.Violated("the response to the slow tool did not end within %s after its JSON-RPC response", t.S.Env().Timeouts.Request)
		return d, nil, &f
	}
	var got []wire.Received
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if r.Via == d {
			got = append(got, r)
		}
	}
	return d, got, nil
}

func checkNoStreamRequests(t *conform.T) conform.Finding {
	d, got, f := statelessSlowCall(t)
	if f != nil {
		return *f
	}
	if !isEventStream(d) {
		return conform.CannotTest("the slow tool with a progress token was answered as %q, not an SSE stream: nothing to judge", d.ContentType)
	}
	for _, r := range got {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Request {
				return conform.Violated("the SSE stream answering tools/call carried a request: %s", show(m))
			}
		}
	}
	return conform.Passed("%d messages on the stream, none a request", len(got))
}

func checkXAccel(t *conform.T) conform.Finding {
	d, _, f := statelessSlowCall(t)
	if f != nil {
		return *f
	}
	if !isEventStream(d) {
		return conform.CannotTest("the slow tool with a progress token was answered as %q, not an SSE stream: nothing to judge", d.ContentType)
	}
	if v := d.Header.Values("X-Accel-Buffering"); len(v) != 1 || !strings.EqualFold(strings.TrimSpace(v[0]), "no") {
		return conform.Violated("the SSE response has X-Accel-Buffering %q, want no", v)
	}
	return conform.Passed("")
}
