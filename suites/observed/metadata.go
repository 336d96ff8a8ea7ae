package observed

import (
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
)

// statelessChecks: the 2026-07-28 request metadata, and cursors.
func statelessChecks() []Check {
	return []Check{
		{ID: "HTTP26-META-HEADERS-CLIENT", Level: "MUST", Transports: httpOnly, Versions: []string{harness.Rev20260728},
			Summary: "every POSTed request carries MCP-Protocol-Version and Mcp-Method (and Mcp-Name where the method names something) matching its body",
			Side:    Observed{Whose: Client, Judge: judgeMetaHeaders}},
		{ID: "PAGE-CLIENT-OPAQUE", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "a cursor the client sends is one the server gave, unchanged",
			Side:    Observed{Whose: Client, Judge: judgeCursorsAsGiven}},
	}
}

func judgeMetaHeaders(v *View) Finding {
	n := 0
	for _, m := range v.Msgs {
		r := v.Records[m.Rec]
		if m.From != Client || !m.IsRequest() || r.Channel != recording.ChanRequest {
			continue
		}
		n++
		version, method, name := clientsuite.MirroredHeaders(m.Raw)
		got, ok := Header(r, "MCP-Protocol-Version")
		switch {
		case !ok:
			return violated("record %d: the POST of %s carries no MCP-Protocol-Version", r.Seq, method)
		case version != "" && got != version:
			return violated("record %d: the POST of %s has MCP-Protocol-Version %q, but its _meta names %q", r.Seq, method, got, version)
		}
		if got, ok := Header(r, "Mcp-Method"); !ok || got != method {
			return violated("record %d: the POST of %s has Mcp-Method %q (present: %v), not the body's method", r.Seq, method, got, ok)
		}
		if name == "" {
			continue
		}
		if got, ok := Header(r, "Mcp-Name"); !ok || clientsuite.DecodeHeaderValue(got) != name {
			return violated("record %d: the POST of %s has Mcp-Name %q (present: %v), not %q from the body", r.Seq, method, got, ok, name)
		}
	}
	if n == 0 {
		return notExercised("the client POSTed no request")
	}
	return passed("the %d POSTed requests carry headers matching their bodies", n)
}

// judgeCursorsAsGiven: every cursor in a client request is a nextCursor the server sent before.
func judgeCursorsAsGiven(v *View) Finding {
	given := map[string]bool{}
	n := 0
	for _, m := range v.Msgs {
		switch {
		case m.From == Server && m.IsResponse() && m.HasResult:
			var res struct {
				Next *string `json:"nextCursor"`
			}
			if json.Unmarshal(m.Result, &res) == nil && res.Next != nil {
				given[*res.Next] = true
			}
		case m.From == Client && m.IsRequest():
			var p struct {
				Cursor *string `json:"cursor"`
			}
			if json.Unmarshal(m.Params, &p) != nil || p.Cursor == nil {
				continue
			}
			n++
			if !given[*p.Cursor] {
				if !v.complete() {
					return untestable("record %d: the cursor %q may come from a response among the frames not read", v.seq(m), *p.Cursor)
				}
				return violated("record %d: the client's %s sends the cursor %q, which the server never gave", v.seq(m), m.Method, clip(*p.Cursor))
			}
		}
	}
	if n == 0 {
		return notExercised("the client sent no cursor")
	}
	return passed("the %d cursors the client sent are the server's, unchanged", n)
}
