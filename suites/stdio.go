package suites

import (
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

func init() {
	conform.Register(modernToo(
		conform.Check{
			ID: "STDIO-NEWLINE", Level: "MUST", Connection: conform.Fresh, Transports: stdioOnly,
			Summary: "every message is written on one line: no pretty-printed JSON spread over several",
			Run:     framingCheck(stdio.EmbeddedNewline),
		},
		conform.Check{
			ID: "STDIO-STDOUT-ONLY-MCP", Level: "MUST", Connection: conform.Fresh, Transports: stdioOnly,
			Summary:     "nothing but MCP messages on stdout: no banners, no log lines",
			LevelReason: "A line that is not JSON, or JSON that is not a JSON-RPC message, fails; a blank line is reported in the message but tolerated, as the catalogue suggests.",
			Run:         framingCheck(stdio.NonJSONLine, stdio.OversizedLine, "not-jsonrpc"),
		},
		conform.Check{
			ID: "STDIO-UTF8", Level: "MUST", Connection: conform.Fresh, Transports: stdioOnly,
			Versions: []string{harness.Rev20250326, harness.Rev20250618, harness.Rev20251125, harness.Rev20260728},
			Summary:  "stdout is UTF-8 without a byte order mark, and non-ASCII text comes back unchanged",
			Run:      checkUTF8,
		},
	)...)
}

// stdioWorkload makes the server write a few ordinary messages: results, a list, an error.
func stdioWorkload(t *conform.T) error {
	for _, m := range []string{probeMethod(t.S), listMethod(t.S), unknownMethod} {
		if _, err := t.S.Request(t.Ctx, m, nil); err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
	}
	_, err := t.S.Quiet(t.Ctx, t.S.Mark())
	return err
}

// framingCheck fails when the connection saw any violation of the given kinds, from the server's
// start to the end of an ordinary workload.
func framingCheck(kinds ...string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		if err := stdioWorkload(t); err != nil {
			return conform.Violated("%v", err)
		}
		var found []string
		for _, v := range t.S.Conn.Violations() {
			for _, k := range kinds {
				if v.Kind == k {
					found = append(found, fmt.Sprintf("%s: %s: %q", v.Kind, v.Detail, clip(v.Sample, 160)))
				}
			}
		}
		if contains(kinds, "not-jsonrpc") {
			for _, r := range t.S.Conn.Inbox().Since(0) {
				if r.Msg.Kind == jsonrpc.Invalid {
					found = append(found, fmt.Sprintf("not a JSON-RPC message: %s", show(r.Msg)))
				}
			}
		}
		if len(found) > 0 {
			return conform.Violated("%d framing violation(s) on stdout:\n%s", len(found), strings.Join(found, "\n"))
		}
		return conform.Passed("")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func checkUTF8(t *conform.T) conform.Finding {
	const text = "ü-ÿ 日本 🎉"
	id := jsonrpc.StringID(fmt.Sprintf("mcpspec:%s:%s", t.Check.ID, text))
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, probeRequest(t.S, id))
	if err != nil {
		return conform.Violated("sending a %s with a non-ASCII id: %v", probeMethod(t.S), err)
	}
	r, err := t.S.WaitFor(t.Ctx, d, from, func(r wire.Received) bool { return r.Msg.Kind == jsonrpc.Response })
	if err != nil {
		return conform.Violated("%s with a non-ASCII id got no response: %v", probeMethod(t.S), err)
	}
	for _, v := range t.S.Conn.Violations() {
		if v.Kind == stdio.InvalidUTF8 || v.Kind == stdio.ByteOrderMark {
			return conform.Violated("%s: %q", v.Detail, clip(v.Sample, 160))
		}
	}
	if r.Msg.ID != id {
		return conform.Violated("the non-ASCII id %s came back as %s", id.Text(), r.Msg.ID.Text())
	}
	return conform.Passed("")
}
