package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/transports/streamable-http § Resumability and Redelivery: event ids, resuming
// with Last-Event-ID, and the retry field a server sends before it closes a request's stream
// (HTTP-SSE-RETRY: the client then resumes with GET).

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-EVENT-ID-UNIQUE", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "SSE event ids are unique across all the streams of a session",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkEventIDsUnique}},
		conform.Check{ID: "HTTP-RESUME-OTHER-STREAM", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "resuming a dropped POST stream with GET and Last-Event-ID replays nothing that belonged to another stream of the session",
			Side:    conform.Server{Connection: conform.Fresh, Waits: true, Ready: slowToolReady, Run: checkResumeOtherStream}},
		conform.Check{ID: "HTTP-SSE-RETRY", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a server that closes the connection of a request's SSE stream before the response sends a retry field on that stream first",
			LevelReason: "Judged only when the slow call's SSE stream ends before carrying the response; a server that keeps it open is n/a. A retry field on any event of the stream before the end counts, the priming event's included. The resumption that follows only tidies up: its outcome is reported, not judged.",
			Side:        conform.Server{Connection: conform.Fresh, Waits: true, Ready: slowToolReady, Run: checkSSERetry}},
		conform.Check{ID: "HTTP26-NO-RESUME", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "a POST carrying Last-Event-ID is served as if it had none",
			LevelReason: "The spec says streams are not resumable and the header is to be ignored, without a keyword of its own; the catalogue reads it as SHOULD.",
			Side:        conform.Server{Run: checkNoResume}},
	)
}

func checkEventIDsUnique(t *conform.T) conform.Finding {
	get, f := openGet(t)
	if f != nil {
		return *f
	}
	deliveries := []*wire.Delivery{get}
	for i := 0; i < 3; i++ {
		d, err := streamedAnswer(t)
		if err != nil {
			return conform.Violated("%v", err)
		}
		deliveries = append(deliveries, d)
	}
	seen := map[string]int{}
	n := 0
	for i, d := range deliveries {
		for _, e := range d.EventsSoFar() {
			if !e.HasID || e.ID == "" {
				continue
			}
			n++
			if prev, dup := seen[e.ID]; dup {
				return conform.Violated("SSE event id %q was used on stream %d and again on stream %d", e.ID, prev, i)
			}
			seen[e.ID] = i
		}
	}
	if n == 0 {
		return conform.NA("the server sent no SSE event ids on this session")
	}
	return conform.Passed("%d event ids, all distinct", n)
}

func checkResumeOtherStream(t *conform.T) conform.Finding {
	hc := httpConn(t)
	// Stream A runs on a connection of its own in the same session, so that dropping it
	// leaves stream B and the session alone.
	s2, err := t.Connect()
	if err != nil {
		return conform.Failed(fmt.Errorf("another connection: %w", err))
	}
	hc2, ok := s2.Conn.(*streamhttp.Conn)
	if !ok {
		return conform.Failed(fmt.Errorf("another connection is not Streamable HTTP"))
	}
	hc2.SetSession(hc.Session())
	hc2.SetProtocolVersion(t.Revision)

	idA, tokenA := t.S.NextID(), jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-resume-a-"+randomHex(4)))
	params := map[string]any{"name": t.Options().SlowTool, "arguments": json.RawMessage(t.Options().SlowToolArgs)}
	fromA := s2.Mark()
	a, err := s2.Send(t.Ctx, rawRequest(idA, "tools/call", withProgressToken(s2, params, tokenA)))
	if err != nil {
		return conform.CannotTest("starting slow call A: %v", err)
	}
	if _, err := s2.WaitFor(t.Ctx, a, fromA, func(wire.Received) bool { return true }); err != nil {
		return conform.CannotTest("slow call A carried no message before its stream could be dropped: %v", err)
	}
	if !isEventStream(a) {
		return conform.NA("slow call A was answered as %q, not an SSE stream", a.ContentType)
	}
	last := ""
	for _, e := range a.EventsSoFar() {
		if e.HasID && e.ID != "" {
			last = e.ID
			break
		}
	}
	_ = s2.Conn.Close() // drops stream A; the session stays
	if last == "" {
		return conform.NA("stream A carried no event id, so it cannot be resumed")
	}
	// B starts only now, and A's stream is resumed once B has a message of its own: B's
	// messages then come after A's last event in any log the server keeps, and A is still
	// under way. With the two started together and A resumed after B's end, A ended as B did,
	// and a server that keeps a call's events only while it runs (rmcp, it seems) replayed
	// nothing: the check flipped between pass and na from run to run.
	tokenB := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-resume-b-"+randomHex(4)))
	b, err := startSlow(t, t.S.NextID(), tokenB)
	if err != nil {
		return conform.CannotTest("starting slow call B: %v", err)
	}
	if _, err := t.S.WaitFor(t.Ctx, b.d, b.from, func(rc wire.Received) bool {
		return slices.ContainsFunc(flatten(rc.Msg), func(m jsonrpc.Message) bool { return belongsTo(m, b.id, tokenB) })
	}); err != nil {
		return conform.CannotTest("slow call B carried no message of its own: %v", err)
	}
	f := resumeA(t, hc, last, idA, tokenA, b.id, tokenB)
	// B is answered before the check ends, whatever the finding (a replay of B's is the
	// violation whether or not B then ends).
	if _, err := b.finish(t); err != nil && f.Outcome != conform.Violation {
		return conform.CannotTest("slow call B got no response: %v", err)
	}
	return f
}

// resumeA resumes stream A with Last-Event-ID last on hc and judges what comes: A's messages
// and none of B's (the call idB with progress token tokenB).
func resumeA(t *conform.T, hc *streamhttp.Conn, last string, idA, tokenA, idB, tokenB jsonrpc.ID) conform.Finding {
	from := t.S.Mark()
	r := hc.Do(t.Ctx, nil, streamhttp.Request{Method: http.MethodGet, Header: http.Header{"Last-Event-ID": {last}}})
	if err := waitReady(t, r); err != nil {
		// Not answering is no replay of another stream: the resumption is not observable.
		return conform.CannotTest("GET with Last-Event-ID %s got no answer, so no replay to judge: %v", last, err)
	}
	if r.Status != http.StatusOK || !isEventStream(r) {
		return conform.NA("GET with Last-Event-ID %s got HTTP %d %q: the server does not resume streams", last, r.Status, r.ContentType)
	}
	// A server that resumes starts with what A logged meanwhile; one that does not opens a
	// plain GET stream, which a quiet window shows. Once A's replay has begun, A's response
	// ends it; a replay without it (a server that logged no response) is given the late-reply
	// grace, as stored events are sent at once.
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		return conform.Crashed("%v", err)
	}
	if len(replayed(t, from, r, idA, tokenA))+len(replayed(t, from, r, idB, tokenB)) == 0 {
		// A loaded server may start its replay after a quiet window: it gets the late-reply
		// grace before its stream counts as a plain one (a replay at load 25 came later than
		// the window, and the check said the server does not resume).
		ctx, cancel := context.WithTimeout(t.Ctx, lateReplyGrace)
		_, _ = t.S.WaitFor(ctx, r, from, func(rc wire.Received) bool {
			return slices.ContainsFunc(flatten(rc.Msg), func(m jsonrpc.Message) bool {
				return belongsTo(m, idA, tokenA) || belongsTo(m, idB, tokenB)
			})
		})
		cancel()
	}
	// A replay of B's is the violation however A's replay ends: waiting for A's response
	// first (the late-reply grace, when the server replays A without it) only made this check
	// the end of a run against such a server (issue 28).
	if ofB := replayed(t, from, r, idB, tokenB); len(ofB) > 0 {
		return conform.Violated("resuming stream A (Last-Event-ID %s) replayed %d message(s) of stream B: %s", last, len(ofB), show(ofB[0]))
	}
	if len(replayed(t, from, r, idA, tokenA)) > 0 {
		ctx, cancel := context.WithTimeout(t.Ctx, lateReplyGrace)
		_, _ = t.S.WaitFor(ctx, r, from, func(rc wire.Received) bool { return wire.ContainsResponse(rc.Msg, idA) })
		cancel()
		if _, err := t.S.Quiet(t.Ctx, from); err != nil {
			return conform.Crashed("%v", err)
		}
	}
	if ofB := replayed(t, from, r, idB, tokenB); len(ofB) > 0 {
		return conform.Violated("resuming stream A (Last-Event-ID %s) replayed %d message(s) of stream B: %s", last, len(ofB), show(ofB[0]))
	}
	ofA := len(replayed(t, from, r, idA, tokenA))
	if ofA == 0 {
		return conform.NA("GET with Last-Event-ID %s replayed nothing of stream A: the server does not resume streams", last)
	}
	return conform.Passed("the resumed stream carried %d message(s) of stream A and none of stream B", ofA)
}

// replayed returns the messages of one call (its response, or progress under its token)
// that came on delivery r from inbox position from on.
func replayed(t *conform.T, from int, r *wire.Delivery, id, token jsonrpc.ID) []jsonrpc.Message {
	var out []jsonrpc.Message
	for _, rc := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(rc.Msg) {
			if rc.Via == r && belongsTo(m, id, token) {
				out = append(out, m)
			}
		}
	}
	return out
}

// belongsTo reports whether m is the response to id or progress under token.
func belongsTo(m jsonrpc.Message, id, token jsonrpc.ID) bool {
	if m.Kind == jsonrpc.Response && m.ID == id {
		return true
	}
	got, ok := progressTokenOf(m)
	return ok && got == token
}

func checkSSERetry(t *conform.T) conform.Finding {
	token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-retry-"+randomHex(4)))
	c, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return conform.CannotTest("starting the slow call: %v", err)
	}
	if err := waitReady(t, c.d); err != nil {
		return conform.CannotTest("the slow call: %v", err)
	}
	if !isEventStream(c.d) {
		return conform.NA("the slow call was answered as %q, not as an SSE stream", c.d.ContentType)
	}
	r, err := t.S.WaitFor(t.Ctx, c.d, c.from, wire.RespondsTo(c.id))
	if resumes := c.d.Resumes(); len(resumes) > 0 {
		// The connection resumed the stream itself: judge the events before the first close.
		f := judgeRetry(c.d.EventsSoFar()[:resumes[0].AfterEvents], nil)
		f.Message = strings.TrimPrefix(f.Message+"; "+describeResumes(resumes, err == nil), "; ")
		return f
	}
	switch {
	case err == nil && r.Via == c.d:
		return conform.NA("the server kept the connection open until the response")
	case !c.d.IsFinished():
		if err == nil {
			return conform.NA("the response came on another stream while the slow call's stream stayed open")
		}
		return conform.CannotTest("the slow tool %q got no response while its stream stayed open: %v", t.Options().SlowTool, err)
	}
	events := c.d.EventsSoFar()
	f := judgeRetry(events, c.d.Err)
	if err != nil { // the response is still to come: resume the stream for it
		f.Message = strings.TrimPrefix(f.Message+"; "+resumeForResponse(t, c, events), "; ")
	}
	return f
}

// judgeRetry judges the events of a stream whose connection ended before the response.
func judgeRetry(events []wire.Event, streamErr error) conform.Finding {
	ended := fmt.Sprintf("the slow call's SSE stream ended before its response, after %d event(s) [%s]", len(events), describeEvents(events))
	if streamErr != nil {
		ended += fmt.Sprintf(" (%v)", streamErr)
	}
	var with []string
	for i, e := range events {
		if e.HasRetry {
			with = append(with, fmt.Sprint(i+1))
		}
	}
	if len(with) == 0 {
		return conform.Violated("%s, and none of them carried a retry field", ended)
	}
	return conform.Passed("%s; a retry field came in event(s) %s", ended, strings.Join(with, ", "))
}

// describeResumes says how the connection's own resumption of the stream went (reported, not
// judged).
func describeResumes(resumes []wire.Resume, answered bool) string {
	var parts []string
	for _, r := range resumes {
		p := fmt.Sprintf("resumed with Last-Event-ID %s after %d event(s): HTTP %d", r.LastEventID, r.AfterEvents, r.Status)
		if r.Err != nil {
			p += fmt.Sprintf(" (%v)", r.Err)
		}
		parts = append(parts, p)
	}
	if answered {
		parts = append(parts, "the response came after resuming")
	} else {
		parts = append(parts, "the resumed stream brought no response")
	}
	return strings.Join(parts, "; ")
}

// describeEvents lists a stream's events briefly: id, retry, whether data came.
func describeEvents(events []wire.Event) string {
	const most = 8
	var parts []string
	for i, e := range events {
		if i == most {
			parts = append(parts, fmt.Sprintf("… %d more", len(events)-most))
			break
		}
		var p []string
		if e.HasID {
			p = append(p, "id "+clip(e.ID, 40))
		}
		if e.HasRetry {
			p = append(p, "retry")
		}
		if strings.TrimSpace(e.Data) != "" {
			p = append(p, "data "+clip(e.Data, 60))
		} else {
			p = append(p, "no data")
		}
		parts = append(parts, strings.Join(p, ", "))
	}
	return strings.Join(parts, "; ")
}

// resumeForResponse resumes the call's stream with GET and Last-Event-ID, so that the server
// can deliver the response rather than hold it, and waits for it within the request timeout.
// It says what came of it; the verdict does not depend on it.
func resumeForResponse(t *conform.T, c slowCall, events []wire.Event) string {
	last := ""
	for _, e := range events {
		if e.HasID && e.ID != "" {
			last = e.ID
		}
	}
	if last == "" {
		return "the stream carried no event id to resume it from"
	}
	ctx, cancel := context.WithCancel(t.Ctx)
	defer cancel() // ends the GET stream
	from := t.S.Mark()
	g := httpConn(t).Do(ctx, nil, streamhttp.Request{Method: http.MethodGet, Header: http.Header{"Last-Event-ID": {last}}})
	if err := waitReady(t, g); err != nil {
		return fmt.Sprintf("resuming with Last-Event-ID %s: %v", last, err)
	}
	if g.Status != http.StatusOK || !isEventStream(g) {
		return fmt.Sprintf("resuming with Last-Event-ID %s got HTTP %d %q", last, g.Status, g.ContentType)
	}
	if _, err := t.S.WaitFor(ctx, g, from, wire.RespondsTo(c.id)); err != nil {
		return fmt.Sprintf("resuming with Last-Event-ID %s brought no response: %v", last, err)
	}
	return fmt.Sprintf("resuming with Last-Event-ID %s brought the response", last)
}

func checkNoResume(t *conform.T) conform.Finding {
	method := listMethodStateless(t)
	resp, d, err := statelessRequest(t, method, nil, http.Header{"Last-Event-ID": {"mcpspec-1"}})
	if f, ok := servedFinding(method+" with Last-Event-ID: mcpspec-1", resp, d, err); !ok {
		return f
	}
	return conform.Passed("")
}
