package suites

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// slowCall is a tools/call of the target's slow tool in flight.
type slowCall struct {
	id    jsonrpc.ID
	token jsonrpc.ID // "" when the call carries no progress token
	from  int        // inbox position before the call was sent
	sent  time.Time
	d     *wire.Delivery
}

// needSlowTool says why a check cannot run without a slow tool.
func needSlowTool(t *conform.T) (conform.Finding, bool) {
	if t.Options().SlowTool == "" {
		return conform.CannotTest("needs a tool that takes a while and reports progress; name one with --slow-tool NAME --slow-tool-args JSON"), false
	}
	s := t.S
	if s == nil { // an Observed check: the revision's shared session says what the server declared
		s = t.Negotiation(t.Revision).Session
	}
	if s == nil || !s.HasCapability("tools") {
		return conform.CannotTest("the server declares no tools capability, so --slow-tool %q cannot be called", t.Options().SlowTool), false
	}
	return conform.Finding{}, true
}

// startSlow calls the slow tool with id and, unless token is "", a progress token.
func startSlow(t *conform.T, id, token jsonrpc.ID) (slowCall, error) {
	params := map[string]any{"name": t.Options().SlowTool, "arguments": json.RawMessage(t.Options().SlowToolArgs)}
	frame, err := jsonrpc.NewRequest(id, "tools/call", withProgressToken(t.S, params, token))
	if err != nil {
		return slowCall{}, err
	}
	t.S.Sent(id, "tools/call")
	if token != "" {
		t.S.NoteProgressToken(token, id)
	}
	c := slowCall{id: id, token: token, from: t.S.Mark(), sent: time.Now()}
	c.d, err = t.S.Send(t.Ctx, frame)
	return c, err
}

// finish waits for the call's response, bounded by the request timeout.
func (c slowCall) finish(t *conform.T) (jsonrpc.Message, error) {
	return t.S.AwaitReply(t.Ctx, c.d, c.from, c.id)
}

// progress is one notifications/progress as received.
type progress struct {
	index    int
	token    jsonrpc.ID
	value    json.RawMessage
	total    json.RawMessage
	message  json.RawMessage
	raw      jsonrpc.Message
	hasToken bool
	via      *wire.Delivery // the HTTP response that carried it (nil on stdio)
}

// progressSince returns every progress notification received from inbox position from on.
func progressSince(t *conform.T, from int) []progress {
	return progressIn(t.S.Conn.Inbox().Since(from))
}

// progressIn returns every progress notification among recs.
func progressIn(recs []wire.Received) []progress {
	var out []progress
	for _, r := range recs {
		for _, m := range flatten(r.Msg) {
			if m.Kind != jsonrpc.Notification || m.Method != "notifications/progress" {
				continue
			}
			var p struct {
				Token    json.RawMessage `json:"progressToken"`
				Progress json.RawMessage `json:"progress"`
				Total    json.RawMessage `json:"total"`
				Message  json.RawMessage `json:"message"`
			}
			_ = json.Unmarshal(m.Params, &p)
			pr := progress{index: r.Index, value: p.Progress, total: p.Total, message: p.Message, raw: m, hasToken: p.Token != nil, via: r.Via}
			if p.Token != nil {
				pr.token, _ = jsonrpc.CanonicalID(p.Token)
			}
			out = append(out, pr)
		}
	}
	return out
}

// minSlowRun is the shortest run of the slow tool that can be a measure: a window derived from
// a shorter one (an error returned at once, a tool that did no work) would prove nothing.
// The SDK targets' slow tools take 150 ms and more; the reference's 180 ms.
const minSlowRun = 50 * time.Millisecond

// slowRun is one call of the slow tool, run to completion, with the progress notifications
// that arrived while it ran, sorted by whose they are.
type slowRun struct {
	resp jsonrpc.Message
	took time.Duration
	own  []progress // carrying the call's own token
	// stray carry a token no request of this session carried: invented, or the call's own
	// token changed on the way (its type, say).
	stray []progress
	// late carry the token of a request of this session (this call's own included) that had
	// been answered before they arrived.
	late []progress
	d    *wire.Delivery // the call's HTTP response (nil when it was never sent)
	// finishErr is why the call got no response (nil when it got one), quietErr why the
	// server did not fall quiet after it.
	finishErr, quietErr error
}

// runSlow calls the slow tool to completion with token ("": none) and verifies that the
// answer is a result and not a tool error: an error is no run of the tool (a tool that refuses
// a call without a progress token, say), so what came with it shows nothing.
func runSlow(t *conform.T, token jsonrpc.ID) (slowRun, error) {
	call, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return slowRun{}, err
	}
	resp, err := call.finish(t)
	run := slowRun{resp: resp, took: time.Since(call.sent), d: call.d, finishErr: err}
	if err != nil {
		return run, fmt.Errorf("the slow tool %q got no response: %w", t.Options().SlowTool, err)
	}
	if _, err := t.S.Quiet(t.Ctx, call.from); err != nil {
		run.quietErr = err
		return run, err
	}
	if failure := slowFailure(resp); failure != "" {
		return run, fmt.Errorf("the slow tool %q answered %s in %s, so this call shows nothing of its work (is --slow-tool-args right?): %s",
			t.Options().SlowTool, failure, run.took.Round(time.Millisecond), show(resp))
	}
	for _, p := range progressSince(t, call.from) {
		switch {
		case earlierAnswered(t, p): // the call's own progress after its response included
			run.late = append(run.late, p)
		case token != "" && p.token == token:
			run.own = append(run.own, p)
		default:
			run.stray = append(run.stray, p)
		}
	}
	return run, nil
}

// slowFailure says how resp is not a successful tool result ("" when it is one).
func slowFailure(resp jsonrpc.Message) string {
	if !resp.HasResult {
		return "with an error"
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(resp.Result, &r) == nil && r.IsError {
		return "with a tool error (isError)"
	}
	return ""
}

// earlierAnswered reports whether p carries the token of a request of this session that had
// been answered before p arrived on the same ordered channel (stdio, or the same HTTP
// response): across HTTP streams arrival order says nothing of the server's.
func earlierAnswered(t *conform.T, p progress) bool {
	id, ok := t.S.ProgressRequest(p.token)
	if !ok || !p.hasToken {
		return false
	}
	for _, r := range t.S.Conn.Inbox().Since(0) {
		if r.Index >= p.index {
			return false
		}
		if wire.ContainsResponse(r.Msg, id) && r.Via == p.via {
			return true
		}
	}
	return false
}

// lateFinding is the violation that late progress shows: PROG-STOP, a MUST, whichever check
// saw it (nil when there is none).
func (r slowRun) lateFinding() *conform.Finding {
	if len(r.late) == 0 {
		return nil
	}
	f := conform.Broke("PROG-STOP", "progress for token %s arrived after its request had been answered: %s", r.late[0].token.Text(), show(r.late[0].raw))
	return &f
}

// withLate is f, unless the calibrating run showed late progress: that breaks PROG-STOP, a
// MUST, so the finding fails on it, keeping what the check itself found when that is a violation
// too (the late progress does not make the calibrated window wrong, only the server's stream).
func (r slowRun) withLate(f conform.Finding) conform.Finding {
	late := r.lateFinding()
	if late == nil || f.Outcome == conform.Violation && f.Rule != "" {
		return f
	}
	if f.Outcome == conform.Violation {
		late.Message = f.Message + "; and " + late.Message
	}
	return *late
}

// calibrate runs the slow tool once with a progress token of its own, as the checks that
// derive a window from its normal run do, and verifies that the run can be that measure: a
// result, at least one progress notification with its own token (so that "under way" can be
// seen later), and a duration of at least minSlowRun. Otherwise the finding says why the check
// cannot test. Late progress it saw is the caller's to judge beside its own finding (withLate).
func calibrate(t *conform.T) (slowRun, *conform.Finding) {
	run, err := runSlow(t, t.S.NextID())
	if err != nil {
		f := conform.CannotTest("calibrating: %v", err)
		return run, &f
	}
	if len(run.own) == 0 {
		f := conform.CannotTest("calibrating: the slow tool %q sent no progress notification with its call's token in %s, so a call of it cannot be seen under way",
			t.Options().SlowTool, run.took.Round(time.Millisecond))
		return run, &f
	}
	if run.took < minSlowRun {
		f := conform.CannotTest("calibrating: the slow tool %q ran %s, shorter than the %s a window can be measured from; give it --slow-tool-args that make it run longer",
			t.Options().SlowTool, run.took.Round(time.Millisecond), minSlowRun)
		return run, &f
	}
	return run, nil
}

// awaitUnderWay waits until call is seen under way: a progress notification with its own
// token. It says why not when the call was answered first or nothing came in time.
func awaitUnderWay(t *conform.T, call slowCall) error {
	r, err := t.S.WaitFor(t.Ctx, nil, call.from, func(r wire.Received) bool {
		if wire.ContainsResponse(r.Msg, call.id) {
			return true
		}
		tok, ok := progressTokenOf(r.Msg)
		return ok && tok == call.token
	})
	switch {
	case err != nil:
		return fmt.Errorf("no progress notification with its token %s came: %w", call.token.Text(), err)
	case wire.ContainsResponse(r.Msg, call.id):
		return fmt.Errorf("it was answered before any progress notification with its token %s came", call.token.Text())
	}
	return nil
}

func cancelParams(id jsonrpc.ID) map[string]any {
	return map[string]any{"requestId": id.JSON(), "reason": "mcpspec"}
}

// slowFrame is a stateless tools/call of tool with args and a progress token.
func slowFrame(t *conform.T, id jsonrpc.ID, tool string, args any, token string) []byte {
	meta := map[string]any{
		harness.MetaProtocolVersion:    t.Revision,
		harness.MetaClientCapabilities: map[string]any{},
		harness.MetaClientInfo:         harness.ClientInfo,
		"progressToken":                token,
	}
	return rawRequest(id, "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": meta})
}

// The effect of closing a stream is invisible on that stream: only a later request can show
// whether the work went on. The reference server's slow tool logs a run under a key, and its
// slow_outcome tool says how that run ended; a server without both cannot be judged.
const (
	probeSlowTool    = "slow"
	probeOutcomeTool = "slow_outcome"
	probeStepMs      = 20
	probeMaxSteps    = 1000
	probeMaxWait     = 10 * time.Second
)

// hasCancelProbe reports whether tools/list offers the slow tool with a key and slow_outcome.
func hasCancelProbe(t *conform.T) (bool, error) {
	tools, err := listTools(t)
	if err != nil {
		return false, err
	}
	slow, outcome := false, false
	for _, tool := range tools {
		schema, _ := tool.member("inputSchema").(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		switch tool.name {
		case probeSlowTool:
			_, slow = props["key"]
		case probeOutcomeTool:
			_, outcome = props["key"]
		}
	}
	return slow && outcome, nil
}

// runShowingProgress sends frame, the slow probe tool's call id, on s and waits for its first
// progress notification on an SSE stream: the run is then under way on an open stream, about to
// lose it by the caller's end (a close, a disconnect). call names the call in the finding
// returned when it is not.
func runShowingProgress(t *conform.T, s *harness.Session, id jsonrpc.ID, frame []byte, call, end string) *conform.Finding {
	s.Sent(id, "tools/call")
	from := s.Mark()
	d, err := s.Send(t.Ctx, frame)
	if err != nil {
		f := conform.Failed(fmt.Errorf("sending the slow call: %w", err))
		return &f
	}
	if _, err := s.WaitFor(t.Ctx, d, from, func(r wire.Received) bool {
		return slices.ContainsFunc(flatten(r.Msg), func(m jsonrpc.Message) bool { return m.Method == "notifications/progress" })
	}); err != nil {
		f := conform.CannotTest("%s sent no progress on its stream, so it cannot be seen running before the %s: %v", call, end, err)
		return &f
	}
	if !isEventStream(d) {
		f := conform.CannotTest("the %s call was answered as %q, not an SSE stream", probeSlowTool, d.ContentType)
		return &f
	}
	return nil
}

// probeOutcome asks the outcome tool, on the check's own session, how the slow probe run with
// key ended, letting it wait up to wait for the run to end.
func probeOutcome(t *conform.T, key string, wait time.Duration) (string, *conform.Finding) {
	var outcome string
	// A run still going after one wait has not ended either way yet (a busy machine slows it):
	// ask again, a bounded number of times, before calling it untestable.
	for range outcomeAsks {
		resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": probeOutcomeTool, "arguments": map[string]any{"key": key, "waitMs": int(wait / time.Millisecond)}})
		if err != nil {
			f := conform.Violated("%s got no response: %v", probeOutcomeTool, err)
			return "", &f
		}
		var r struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(resp.Result, &r) != nil || len(r.Content) == 0 {
			f := conform.CannotTest("%s did not answer with text content: %s", probeOutcomeTool, show(resp))
			return "", &f
		}
		if outcome = r.Content[0].Text; outcome != outcomeRunning {
			break
		}
	}
	return outcome, nil
}

// outcomeAsks bounds how often probeOutcome asks about a run that is still going, and
// outcomeRunning is the reference's word for such a run.
const (
	outcomeAsks    = 3
	outcomeRunning = "running"
)

// allArrived waits until nothing more can come for the calls: over HTTP their response streams
// have ended, on stdio a sentinel has been answered.
func allArrived(t *conform.T, calls []slowCall) error {
	if _, ok := t.S.Conn.(*streamhttp.Conn); !ok {
		_, err := t.S.Quiet(t.Ctx, calls[0].from)
		return err
	}
	ctx, cancel := contextWithTimeout(t, t.S.Env().Timeouts.Request)
	defer cancel()
	for _, c := range calls {
		// A stream whose connection dropped after it carried the response has ended all the
		// same (its error is the abrupt close): only one still open is a timeout.
		if err := c.d.Finished(ctx); err != nil && !c.d.IsFinished() {
			return fmt.Errorf("the response stream of a slow call did not end within %s", t.S.Env().Timeouts.Request)
		}
	}
	return nil
}

// withProgressToken returns request params carrying token (unless "") in their _meta, beside
// the required _meta keys of a stateless session.
func withProgressToken(s *harness.Session, params map[string]any, token jsonrpc.ID) any {
	p := s.StatelessParams(params)
	obj, ok := p.(map[string]any)
	if token == "" || !ok {
		return p
	}
	if obj == nil {
		obj = map[string]any{}
	}
	meta, _ := obj["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["progressToken"] = token.JSON()
	obj["_meta"] = meta
	return obj
}

// progressTokenOf is the token of a progress notification.
func progressTokenOf(m jsonrpc.Message) (jsonrpc.ID, bool) {
	if m.Kind != jsonrpc.Notification || m.Method != "notifications/progress" {
		return "", false
	}
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Token == nil {
		return "", false
	}
	id, err := jsonrpc.CanonicalID(p.Token)
	return id, err == nil
}
