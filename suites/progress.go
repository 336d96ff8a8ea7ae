package suites

import (
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

func init() {
	conform.Register(modernToo(
		conform.Check{ID: "PROG-TOKEN-TYPE", Level: "MUST",
			Summary: "progress notifications carry the request's token unchanged, same JSON type and value, for string and integer tokens",
			Run:     checkProgressTokenType},
		conform.Check{ID: "PROG-MONOTONIC", Level: "MUST",
			Summary: "progress increases with every notification for a token",
			Run:     checkProgressMonotonic},
		conform.Check{ID: "PROG-KNOWN-TOKEN", Level: "MUST",
			Summary: "no progress for a request that asked for none",
			Run:     checkProgressKnownToken},
		conform.Check{ID: "PROG-STOP", Level: "MUST",
			Summary: "no progress for a token after its request's final response",
			Run:     checkProgressStop},
		conform.Check{ID: "PROG-MESSAGE", Level: "SHOULD",
			Versions: []string{harness.Rev20250326, harness.Rev20250618, harness.Rev20251125, harness.Rev20260728},
			Summary:  "a progress message, when present, is a string",
			Run:      checkProgressMessage},
	)...)
}

// withProgress runs the slow tool with token and returns its progress, or a finding that ends
// the check: no slow tool, no response, or no progress at all to judge.
func withProgress(t *conform.T, token jsonrpc.ID) ([]progress, *conform.Finding) {
	if f, ok := needSlowTool(t); !ok {
		return nil, &f
	}
	_, got, _, err := runSlow(t, token)
	if err != nil {
		f := conform.CannotTest("%v", err)
		return nil, &f
	}
	if len(got) == 0 {
		f := conform.CannotTest("the slow tool %q sent no progress notification, so there is nothing to judge", t.Options().SlowTool)
		return nil, &f
	}
	return got, nil
}

func checkProgressTokenType(t *conform.T) conform.Finding {
	for _, token := range []jsonrpc.ID{t.S.NextID(), t.S.NextNumberID()} {
		got, f := withProgress(t, token)
		if f != nil {
			return *f
		}
		for _, p := range got {
			if p.token != token {
				return conform.Violated("progress for token %s came with token %s: %s", token.Text(), p.token.Text(), show(p.raw))
			}
		}
	}
	return conform.Passed("")
}

func checkProgressMonotonic(t *conform.T) conform.Finding {
	got, f := withProgress(t, t.S.NextID())
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
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	_, got, _, err := runSlow(t, "")
	if err != nil {
		return conform.CannotTest("%v", err)
	}
	if len(got) > 0 {
		return conform.Violated("%d progress notification(s) for a request without a progress token: %s", len(got), show(got[0].raw))
	}
	return conform.Passed("")
}

func checkProgressStop(t *conform.T) conform.Finding {
	if f, ok := needSlowTool(t); !ok {
		return f
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
	respAt := -1
	for _, r := range t.S.Conn.Inbox().Since(call.from) {
		if wire.ContainsResponse(r.Msg, call.id) {
			respAt = r.Index
			break
		}
	}
	for _, p := range progressSince(t, call.from) {
		if p.token == token && p.index > respAt {
			return conform.Violated("progress for token %s after the response %s: %s", token.Text(), clip(show(resp), 80), show(p.raw))
		}
	}
	return conform.Passed("")
}

func checkProgressMessage(t *conform.T) conform.Finding {
	got, f := withProgress(t, t.S.NextID())
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
