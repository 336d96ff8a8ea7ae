package suites

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
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
	if !t.S.HasCapability("tools") {
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
}

// progressSince returns every progress notification received from inbox position from on.
func progressSince(t *conform.T, from int) []progress {
	var out []progress
	for _, r := range t.S.Conn.Inbox().Since(from) {
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
			pr := progress{index: r.Index, value: p.Progress, total: p.Total, message: p.Message, raw: m, hasToken: p.Token != nil}
			if p.Token != nil {
				pr.token, _ = jsonrpc.CanonicalID(p.Token)
			}
			out = append(out, pr)
		}
	}
	return out
}

// runSlow calls the slow tool to completion and returns the response, the progress received for
// the call, and how long it took.
func runSlow(t *conform.T, token jsonrpc.ID) (jsonrpc.Message, []progress, time.Duration, error) {
	call, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return jsonrpc.Message{}, nil, 0, err
	}
	resp, err := call.finish(t)
	took := time.Since(call.sent)
	if err != nil {
		return resp, nil, took, fmt.Errorf("the slow tool %q got no response: %w", t.Options().SlowTool, err)
	}
	if _, err := t.S.Quiet(t.Ctx, call.from); err != nil {
		return resp, nil, took, err
	}
	return resp, progressSince(t, call.from), took, nil
}
