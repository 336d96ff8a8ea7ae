package suites

import (
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/transports/stdio: framing, what the server writes to stdout and stdin's end. The
// framing checks judge the pristine session (pristine.go), from its first byte.

func init() {
	conform.Register(
		conform.Check{ID: "STDIO26-NO-REQUESTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: stdioOnly,
			Summary: "the server writes no JSON-RPC request of its own to stdout: not while serving discover, lists, errors or a tool call",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkNoServerRequests}},
		conform.Check{
			ID: "STDIO-NEWLINE", Revisions: conform.AllCatalogued, Level: "MUST", Transports: stdioOnly,
			Summary: "every message is written on one line: no pretty-printed JSON spread over several",
			Side:    conform.Server{Connection: conform.Observed, Run: framingCheck(stdio.EmbeddedNewline)},
		},
		conform.Check{
			ID: "STDIO-STDOUT-ONLY-MCP", Revisions: conform.AllCatalogued, Level: "MUST", Transports: stdioOnly,
			Summary:     "nothing but MCP messages on stdout: no banners, no log lines",
			LevelReason: "A line that is not JSON, or JSON that is not a JSON-RPC message, fails; a blank line is reported in the message but tolerated, as the catalogue suggests.",
			Side:        conform.Server{Connection: conform.Observed, Run: framingCheck(stdio.NonJSONLine, stdio.OversizedLine, "not-jsonrpc")},
		},
		conform.Check{
			ID: "STDIO-UTF8", Level: "MUST", Transports: stdioOnly,
			Revisions: conform.AllCatalogued,
			Summary:   "stdout is UTF-8 without a byte order mark, and non-ASCII text comes back unchanged",
			Side:      conform.Server{Connection: conform.Observed, Run: checkUTF8},
		},
	)
}

// framingCheck fails when the server's stdout showed any violation of the given kinds, from
// its start to the end of the pristine session's workload.
func framingCheck(kinds ...string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		tr, f := observePristine(t)
		if f != nil {
			return *f
		}
		var found []string
		for _, v := range tr.violations {
			for _, k := range kinds {
				if v.Kind == k {
					found = append(found, fmt.Sprintf("%s: %s: %q", v.Kind, v.Detail, clip(v.Sample, 160)))
				}
			}
		}
		if contains(kinds, "not-jsonrpc") {
			for _, r := range tr.received {
				if r.Msg.Kind == jsonrpc.Invalid {
					found = append(found, fmt.Sprintf("not a JSON-RPC message: %s", show(r.Msg)))
				}
			}
		}
		if len(found) > 0 {
			return conform.Violated("%d framing violation(s) on stdout: %s", len(found), strings.Join(found, "\n"))
		}
		return conform.Passed("%s", tr.workNote())
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
	tr, f := observePristine(t)
	if f != nil {
		return *f
	}
	for _, v := range tr.violations {
		if v.Kind == stdio.InvalidUTF8 || v.Kind == stdio.ByteOrderMark {
			return conform.Violated("%s: %q", v.Detail, clip(v.Sample, 160))
		}
	}
	if tr.utf8Err != nil {
		return conform.Violated("%v", tr.utf8Err)
	}
	if tr.utf8Reply.ID != tr.utf8ID {
		return conform.Violated("the non-ASCII id %s came back as %s", tr.utf8ID.Text(), tr.utf8Reply.ID.Text())
	}
	return conform.Passed("")
}
