package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/patterns/progress (basic/utilities/progress before 2026-07-28): progress
// notifications for a request that asked for them, on the slow tool (slowtool.go).

func init() {
	conform.Register(
		conform.Check{ID: "PROG26-REQUEST-STREAM", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "with two slow calls running at once, each one's progress comes only on its own response stream (HTTP: its SSE stream; stdio: before its response), under its own token",
			Side:    conform.Server{Waits: true, Run: checkProgressOwnStream}},
		conform.Check{ID: "PROG-TOKEN-TYPE", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "progress notifications carry the request's token unchanged, same JSON type and value, for string and integer tokens",
			Side:    conform.Server{ObservedOverHTTP: true, Waits: true, Run: checkProgressTokenType}},
		conform.Check{ID: "PROG-MONOTONIC", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "progress increases with every notification for a token",
			Side:    conform.Server{ObservedOverHTTP: true, Waits: true, Run: checkProgressMonotonic}},
		conform.Check{ID: "PROG-KNOWN-TOKEN", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "no progress for a request that asked for none",
			Side:    conform.Server{Waits: true, Run: checkProgressKnownToken}},
		conform.Check{ID: "PROG-STOP", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "no progress for a token after its request's final response",
			Side:    conform.Server{ObservedOverHTTP: true, Waits: true, Run: checkProgressStop}},
		conform.Check{ID: "PROG-MESSAGE", Level: "SHOULD",
			Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a progress message, when present, is a string",
			Side:    conform.Server{ObservedOverHTTP: true, Waits: true, Run: checkProgressMessage}},
		conform.Check{ID: "PROG-TASK-TOKEN", Revisions: conform.AllCatalogued, Level: "MUST", Transports: taskTransports,
			Summary: "a task's progress carries the task-augmented request's token and stops once the task is terminal",
			Side:    conform.Server{Waits: true, Ready: taskToolReady, Run: checkProgTaskToken}},
	)
}

func checkProgressOwnStream(t *conform.T) conform.Finding {
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	var calls []slowCall
	for _, name := range []string{"a", "b"} {
		token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-stream-"+name+"-"+randomHex(4)))
		c, err := startSlow(t, t.S.NextID(), token)
		if err != nil {
			return conform.CannotTest("starting slow call %s: %v", name, err)
		}
		calls = append(calls, c)
	}
	for _, c := range calls {
		if _, err := c.finish(t); err != nil {
			return conform.CannotTest("the slow tool %q got no response: %v", t.Options().SlowTool, err)
		}
	}
	if err := allArrived(t, calls); err != nil {
		return conform.CannotTest("%v", err)
	}
	return judgeProgressStreams(t, calls)
}

// judgeProgressStreams checks where each progress notification came: on its call's stream
// (HTTP) and before its call's response, under one of the calls' tokens.
func judgeProgressStreams(t *conform.T, calls []slowCall) conform.Finding {
	byToken := map[jsonrpc.ID]slowCall{}
	answered := map[jsonrpc.ID]int{} // call id → inbox index of its response
	for _, c := range calls {
		byToken[c.token] = c
	}
	seen := 0
	for _, r := range t.S.Conn.Inbox().Since(calls[0].from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response && m.HasID {
				if _, done := answered[m.ID]; !done {
					answered[m.ID] = r.Index
				}
				continue
			}
			if m.Kind != jsonrpc.Notification || m.Method != "notifications/progress" {
				continue
			}
			seen++
			var p struct {
				Token json.RawMessage `json:"progressToken"`
			}
			_ = json.Unmarshal(m.Params, &p)
			token, _ := jsonrpc.CanonicalID(p.Token)
			c, ok := byToken[token]
			switch {
			case !ok:
				return conform.Violated("progress under a token neither call sent: %s", show(m))
			case r.Via != nil && r.Via != c.d:
				return conform.Violated("progress of one call came on another response stream (%s): %s", r.Channel, show(m))
			}
			if at, done := answered[c.id]; done && at < r.Index {
				return conform.Violated("progress of a call came after that call's response: %s", show(m))
			}
		}
	}
	if seen == 0 {
		return conform.CannotTest("the slow tool %q reported no progress for either call", t.Options().SlowTool)
	}
	return conform.Passed("%d progress notifications, each on its own call's stream before its response", seen)
}

// withProgress runs the slow tool with token and returns what came, or a finding that ends the
// check: no slow tool, no result, or progress of an earlier call after its response.
func withProgress(t *conform.T, token jsonrpc.ID) (slowRun, *conform.Finding) {
	if f, ok := needSlowTool(t); !ok {
		return slowRun{}, &f
	}
	run, err := runSlow(t, token)
	if err != nil {
		f := conform.CannotTest("%v", err)
		return run, &f
	}
	if f := run.lateFinding(); f != nil {
		return run, f
	}
	return run, nil
}

// tokenRun is a run of the slow tool with a string progress token, and that token.
type tokenRun struct {
	run   slowRun
	token jsonrpc.ID
	err   error
	notes []jsonrpc.Message // every notification the call's session got, from the call on
	// readyErr is why the call's HTTP response never began (nil when it did, and on stdio).
	readyErr error
	received []wire.Received // what the call's session got, from the call on
}

// askedSlowRun is a run of the slow tool with a string progress token, made once per revision
// and transport for every check that judges what such a call gets: PROG-MONOTONIC,
// PROG-MESSAGE and PROG-TOKEN-TYPE's string token judge its progress (askedProgress), each for
// its own rule, MSG-NOTIF-NO-ID every notification it brought, and over HTTP PROG-STOP what
// came after its response and HTTP-SSE-NO-EARLY-CLOSE its SSE stream, where each made the same
// call, and waited for it, on a session of its own. Over stdio and legacy SSE the first to
// come asks it on its session (T.Ask); over Streamable HTTP they are Observed
// (ObservedOverHTTP), and the call is an observation on a session of its own, made by the
// first to come (T.Observe): none of them opens a session only to read its answer.
func askedSlowRun(t *conform.T) (tokenRun, *conform.Finding) {
	const key = "slow run with a string progress token"
	call := func(o *conform.T) any {
		token := sharedID(o)()
		from := o.S.Mark()
		run, err := runSlow(o, token)
		r := tokenRun{run: run, token: token, err: err, received: o.S.Conn.Inbox().Since(from)}
		if run.d != nil && o.Transport != wire.Stdio {
			r.readyErr = waitReady(o, run.d) // at once: the call is over
		}
		for _, got := range r.received {
			for _, m := range flatten(got.Msg) {
				if m.HasMethod && strings.HasPrefix(m.Method, "notifications/") {
					r.notes = append(r.notes, m)
				}
			}
		}
		return r
	}
	var v any
	if t.S != nil {
		v = t.Ask(key, func() any { return call(t) })
	} else {
		obs, f := t.Observe(key, conform.Fresh, call)
		if f != nil {
			return tokenRun{}, f
		}
		v = obs
	}
	r, ok := v.(tokenRun)
	if !ok {
		f := conform.Failed(fmt.Errorf("waiting for another check's run of the slow tool: %w", t.Ctx.Err()))
		return tokenRun{}, &f
	}
	return r, nil
}

// askedProgress is withProgress with a string token, asked once (askedSlowRun). It returns
// the token the call carried.
func askedProgress(t *conform.T) (slowRun, jsonrpc.ID, *conform.Finding) {
	if f, ok := needSlowTool(t); !ok {
		return slowRun{}, "", &f
	}
	r, f := askedSlowRun(t)
	if f != nil {
		return slowRun{}, "", f
	}
	if r.err != nil {
		f := conform.CannotTest("%v", r.err)
		return r.run, r.token, &f
	}
	if f := r.run.lateFinding(); f != nil {
		return r.run, r.token, f
	}
	return r.run, r.token, nil
}

// ownProgress is askedProgress that also needs progress with the call's own token to judge.
func ownProgress(t *conform.T) ([]progress, *conform.Finding) {
	run, _, f := askedProgress(t)
	if f != nil {
		return nil, f
	}
	if len(run.own) == 0 {
		f := conform.CannotTest("the slow tool %q sent no progress notification with its call's token, so there is nothing to judge", t.Options().SlowTool)
		return nil, &f
	}
	return run.own, nil
}

func checkProgressTokenType(t *conform.T) conform.Finding {
	// The string token's call is the one the progress checks share (askedProgress); the
	// integer token's is this check's own. Over stdio it runs on the check's session after the
	// shared one. Elsewhere it runs on a session it opens beside the shared call, so that the
	// check waits for the slow tool once, not twice (the 3 s slow tool's whole run hung on it; a
	// run judges the progress its own session got, so neither sees the other's), or, when the
	// server opens no other session then, after the shared call: on the check's own session
	// over legacy SSE, on one it opens over Streamable HTTP, where the check is Observed
	// (ObservedOverHTTP) and has none.
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	var second *conform.Finding
	besideDone, sharedDone := make(chan struct{}), make(chan struct{})
	besideRan := t.Transport != wire.Stdio
	if besideRan {
		go func() {
			defer close(besideDone)
			release := t.Beside(t.Ctx, sharedDone)
			defer release()
			s, err := t.Open(t.Revision)
			if err != nil {
				besideRan = false
				return
			}
			second = tokenTypeRun(t.On(s), s.NextNumberID())
		}()
	} else {
		close(besideDone)
	}
	run, token, first := askedProgress(t)
	if first == nil {
		first = judgeTokenType(t, run, token)
	}
	close(sharedDone)
	<-besideDone
	if first != nil {
		return *first
	}
	if !besideRan {
		on := t
		if t.S == nil {
			s, err := t.Open(t.Revision)
			if err != nil {
				return conform.CannotTest("opening a session for the call with an integer progress token: %v", err)
			}
			on = t.On(s)
		}
		second = tokenTypeRun(on, on.S.NextNumberID())
	}
	if second != nil {
		return *second
	}
	return conform.Passed("")
}

// tokenTypeRun calls the slow tool with token and judges the progress it got: nil when it
// came with that token, unchanged.
func tokenTypeRun(t *conform.T, token jsonrpc.ID) *conform.Finding {
	run, f := withProgress(t, token)
	if f != nil {
		return f
	}
	return judgeTokenType(t, run, token)
}

// judgeTokenType judges the progress a call with token got: nil when it came with that token,
// unchanged.
func judgeTokenType(t *conform.T, run slowRun, token jsonrpc.ID) *conform.Finding {
	// A token changed on the way is one no request carried.
	if len(run.stray) > 0 {
		p := run.stray[0]
		f := conform.Violated("progress for token %s came with token %s: %s", token.Text(), p.token.Text(), show(p.raw))
		return &f
	}
	if len(run.own) == 0 {
		f := conform.CannotTest("the slow tool %q sent no progress notification, so there is nothing to judge", t.Options().SlowTool)
		return &f
	}
	return nil
}

func checkProgressMonotonic(t *conform.T) conform.Finding {
	got, f := ownProgress(t)
	if f != nil {
		return *f
	}
	var last *float64
	for _, p := range got {
		var v float64
		if err := json.Unmarshal(p.value, &v); err != nil {
			return conform.Violated("progress is not a number: %s", show(p.raw))
		}
		if last != nil && v <= *last {
			return conform.Violated("progress went from %v to %v: %s", *last, v, show(p.raw))
		}
		last = &v
	}
	return conform.Passed("")
}

func checkProgressKnownToken(t *conform.T) conform.Finding {
	// Silence about progress proves something only of a call the tool really ran: runSlow
	// refuses an error answer (a tool that fails at once without a token shows nothing).
	run, f := withProgress(t, "")
	if f != nil {
		return *f
	}
	if len(run.stray) > 0 {
		return conform.Violated("%d progress notification(s) for a request without a progress token: %s", len(run.stray), show(run.stray[0].raw))
	}
	return conform.Passed("")
}

func checkProgressStop(t *conform.T) conform.Finding {
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	if t.S == nil {
		return checkProgressStopShared(t)
	}
	token := t.S.NextID()
	call, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return conform.Crashed("starting the slow tool: %v", err)
	}
	resp, err := call.finish(t)
	if err != nil {
		return conform.CannotTest("the slow tool got no response: %v", err)
	}
	if _, err := t.S.Quiet(t.Ctx, call.from); err != nil {
		return conform.Crashed("%v", err)
	}
	recs := t.S.Conn.Inbox().Since(call.from)
	respAt, own := ownBeforeResponse(recs, token, resp)
	if len(own) == 0 {
		return conform.CannotTest("the slow tool %q sent no progress with its call's token before its answer, so there is nothing to stop: %s", t.Options().SlowTool, clip(show(resp), 160))
	}
	// Progress a server keeps sending comes at the pace of the work: after the response, wait
	// as long as the longest gap between the call's own progress notifications (measured, so
	// at least two of them), or the quiet window already waited where there is no gap.
	if gap := longestGap(t, own); gap > 0 {
		ctx, cancel := context.WithTimeout(t.Ctx, min(2*gap, t.S.Env().Timeouts.Request))
		_, _ = t.S.Conn.Inbox().Wait(ctx, respAt+1, func(r wire.Received) bool {
			tok, ok := progressTokenOf(r.Msg)
			return ok && tok == token
		})
		cancel()
	}
	return progressAfterResponse(t.S.Conn.Inbox().Since(call.from), token, resp)
}

// checkProgressStopShared is PROG-STOP over Streamable HTTP, where the check is Observed
// (ObservedOverHTTP): judged on the slow run with a string token the progress checks share
// (askedSlowRun). There progress comes only on a stream the client opened, and that run ends
// with every stream of its session ended (Session.Quiet): after that nothing can come, so the
// wait a call of the check's own made after its response could add nothing.
func checkProgressStopShared(t *conform.T) conform.Finding {
	r, f := askedSlowRun(t)
	if f != nil {
		return *f
	}
	run := r.run
	switch {
	case run.d == nil:
		return conform.Crashed("starting the slow tool: %v", r.err)
	case run.finishErr != nil:
		return conform.CannotTest("the slow tool got no response: %v", run.finishErr)
	case run.quietErr != nil:
		return conform.Crashed("%v", run.quietErr)
	}
	if _, own := ownBeforeResponse(r.received, r.token, run.resp); len(own) == 0 {
		return conform.CannotTest("the slow tool %q sent no progress with its call's token before its answer, so there is nothing to stop: %s", t.Options().SlowTool, clip(show(run.resp), 160))
	}
	return progressAfterResponse(r.received, r.token, run.resp)
}

// ownBeforeResponse finds, in what a session received from a slow call on (recs), the call's
// response resp (its position, -1 if absent) and the progress with token before it.
func ownBeforeResponse(recs []wire.Received, token jsonrpc.ID, resp jsonrpc.Message) (int, []progress) {
	respAt := -1
	for _, r := range recs {
		if wire.ContainsResponse(r.Msg, resp.ID) {
			respAt = r.Index
			break
		}
	}
	var own []progress
	for _, p := range progressIn(recs) {
		if p.token == token && p.index < respAt {
			own = append(own, p)
		}
	}
	return respAt, own
}

// progressAfterResponse is PROG-STOP's finding on what a session received from a slow call
// with token on (recs): a violation for progress with that token sent after the call's
// response resp.
func progressAfterResponse(recs []wire.Received, token jsonrpc.ID, resp jsonrpc.Message) conform.Finding {
	respAt, respRecv := -1, wire.Received{}
	for _, r := range recs {
		if wire.ContainsResponse(r.Msg, resp.ID) {
			respAt, respRecv = r.Index, r
			break
		}
	}
	for _, p := range progressIn(recs) {
		if p.token == token && p.index > respAt && afterResponse(recs, p, respRecv) {
			return conform.Violated("progress for token %s after the response %s: %s", token.Text(), clip(show(resp), 80), show(p.raw))
		}
	}
	return conform.Passed("")
}

// afterResponse reports whether p, received after the response resp, was sent after it too:
// on one ordered channel (stdio, or the same HTTP response) arrival order is the server's;
// across HTTP streams only a gap longer than the late-reply grace says so.
func afterResponse(recs []wire.Received, p progress, resp wire.Received) bool {
	if p.via == resp.Via {
		return true
	}
	for _, r := range recs {
		if r.Index == p.index {
			return r.At.Sub(resp.At) > lateReplyGrace
		}
	}
	return false
}

// longestGap is the longest time between two consecutive progress notifications of got (0 for
// fewer than two).
func longestGap(t *conform.T, got []progress) time.Duration {
	at := map[int]time.Time{}
	for _, r := range t.S.Conn.Inbox().Since(got[0].index) {
		at[r.Index] = r.At
	}
	var gap time.Duration
	for i := 1; i < len(got); i++ {
		gap = max(gap, at[got[i].index].Sub(at[got[i-1].index]))
	}
	return gap
}

func checkProgressMessage(t *conform.T) conform.Finding {
	got, f := ownProgress(t)
	if f != nil {
		return *f
	}
	for _, p := range got {
		if p.message == nil {
			continue
		}
		if _, ok := jsonString(p.message); !ok {
			return conform.Violated("progress message %s is not a string", string(p.message))
		}
	}
	return conform.Passed("%d notifications", len(got))
}

// progTaskAttempts bounds the tasks PROG-TASK-TOKEN creates to see some progress: a task's
// progress sent before its tasks/result request arrives has no open stream to take it over
// HTTP, so a short task on a busy machine can end unseen; another task is another chance.
const progTaskAttempts = 3

func checkProgTaskToken(t *conform.T) conform.Finding {
	// The slow tool when it supports tasks, else the listed task tool the TASK-* checks call:
	// whether its task reports progress is what the run shows, not what the options promise.
	tt, f := pickTaskTool(t)
	if f != nil {
		return *f
	}
	for range progTaskAttempts {
		ours, f := progTaskAttempt(t, tt)
		if f != nil {
			return *f
		}
		if ours > 0 {
			return conform.Passed("%d notification(s) for the token, none after the end", ours)
		}
	}
	return conform.CannotTest("none of %d tasks of %q sent progress for its token that reached this session; name a tool whose task reports progress with --slow-tool", progTaskAttempts, tt.name)
}

// progTaskAttempt runs one task of tt to its end through tasks/result and counts the progress
// notifications for its token, judging any that came after the end.
func progTaskAttempt(t *conform.T, tt taskTarget) (int, *conform.Finding) {
	token := t.S.NextID()
	from := t.S.Mark()
	ct, f := createTask(t, tt, token)
	if f != nil {
		return 0, f
	}
	id := t.S.NextID()
	t.S.Sent(id, "tasks/result")
	resp, err := t.S.Exchange(t.Ctx, id, rawRequest(id, "tasks/result", map[string]any{"taskId": ct.id}))
	if err != nil {
		f := conform.CannotTest("tasks/result got no response: %v", err)
		return 0, &f
	}
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		f := conform.Crashed("%v", err)
		return 0, &f
	}
	respAt := -1
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if wire.ContainsResponse(r.Msg, id) {
			respAt = r.Index
			break
		}
	}
	ours := 0
	for _, p := range progressSince(t, from) {
		if p.token != token {
			continue
		}
		if p.index > respAt {
			f := conform.Violated("progress for token %s after the task ended (%s): %s", token.Text(), clip(show(resp), 80), show(p.raw))
			return 0, &f
		}
		ours++
	}
	return ours, nil
}
