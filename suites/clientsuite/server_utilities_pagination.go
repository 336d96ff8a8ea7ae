package clientsuite

import (
	"encoding/json"
	"fmt"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"slices"

	"github.com/mcpspec/mcpspec/harness/probe"
)

// Pagination, the client's half, in the handshake era: the probe pages its tools/list with
// opaque cursors of unlike shapes on pages of unequal sizes (harness/probe/paging.go). The
// client sends each nextCursor back exactly and follows them to the last page, whatever a
// page's size. (At 2026-07-28 the probe's list ends with nextCursor "": PAGE-EMPTY-STRING-CURSOR.)

func init() {
	Register(
		Check{ID: "PAGE-CLIENT-OPAQUE", Revisions: catalog.Until(harness.Rev20251125), Transports: allTransports, Level: "MUST",
			Summary: "the client treats cursors as opaque: each cursor it sends is exactly a nextCursor the server gave",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeCursorOpaque}},
		Check{ID: "PAGE-CLIENT-NO-FIXED-SIZE", Revisions: catalog.Until(harness.Rev20251125), Transports: allTransports, Level: "MUST",
			Summary: "the client assumes no fixed page size: it follows nextCursor past a short page to the last page",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeNoFixedSize}},
	)
}

// cursorNotes are the probe's notes of the cursors it announced and of those it never issued.
func (v *View) cursorNotes() (issued, unknown []string, last bool) {
	for _, r := range v.Records {
		switch {
		case r.Is(record.EvCursorIssued):
			issued = append(issued, r.Event.Cursor)
		case r.Is(record.EvUnknownCursor):
			unknown = append(unknown, fmt.Sprintf("%q; answered with page %d", r.Event.Cursor, r.Event.Page))
		case r.Is(record.EvLastPage):
			last = true
		}
	}
	return issued, unknown, last
}

// cursorsSent are the cursors of the client's tools/list requests, in order.
func (v *View) cursorsSent() []string {
	var out []string
	for _, m := range v.Msgs {
		if m.Method != "tools/list" || !m.IsRequest() {
			continue
		}
		var p struct {
			Params struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &p) == nil && p.Params.Cursor != nil {
			out = append(out, *p.Params.Cursor)
		}
	}
	return out
}

// pagingStart is the common start of the paging checks: why there is nothing to judge, if so.
func (v *View) pagingStart() *Finding {
	issued, _, _ := v.cursorNotes()
	if len(issued) > 0 {
		return nil
	}
	f := untestable("the client never listed the tools, so the probe gave no nextCursor (the contract: list the tools)")
	if len(v.After()) == 0 {
		f = v.notProceeded()
	}
	return &f
}

func judgeCursorOpaque(v *View) Finding {
	if f := v.pagingStart(); f != nil {
		return *f
	}
	issued, unknown, _ := v.cursorNotes()
	if len(unknown) > 0 {
		return violated("the client sent a cursor the probe never gave: %s; the probe's nextCursors were %s", unknown[0], mustString(issued))
	}
	sent := v.cursorsSent()
	if len(sent) == 0 {
		return untestable("the client never asked for a page after the first, so it sent no cursor back (PAGE-CLIENT-NO-FIXED-SIZE judges that)")
	}
	return passed("each of the %d cursors the client sent is exactly a nextCursor the probe gave", len(sent))
}

func judgeNoFixedSize(v *View) Finding {
	if f := v.pagingStart(); f != nil {
		return *f
	}
	_, _, last := v.cursorNotes()
	sent := len(v.cursorsSent())
	if !last && sent == 0 {
		// Listing once shows no assumption about page sizes: only a client that follows a
		// cursor and then stops early took a page's size for the end.
		return untestable("the client did not page: it never followed the first page's nextCursor (the probe's pages have %s tools)", pageSizes(v))
	}
	if !last {
		return violated("the probe's tools/list pages have %s tools, each but the last ending with a nextCursor; the client asked for %d pages after the first and never for the last, whose tool %s it so never saw",
			pageSizes(v), sent, probe.ToolLastPage)
	}
	return passed("the client followed nextCursor past the shorter page to the last (%d pages asked for with a cursor)", sent)
}

// pageSizes describes the probe's page sizes in the view's scenario, for evidence.
func pageSizes(v *View) string {
	b, _ := json.Marshal(probe.PageSizes(v.Scenario, v.Revision))
	return string(b)
}

func init() {
	Register(
		Check{ID: "PAGE-EMPTY-STRING-CURSOR", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio, wire.HTTP},
			Summary: "a nextCursor of \"\" is not taken for the end of the list: the client asks for the page it names",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeEmptyCursor}},
	)
}

func judgeEmptyCursor(v *View) Finding {
	at := slices.IndexFunc(v.Records, func(r record.Record) bool { return r.Is(record.EvEmptyCursor) })
	if at < 0 {
		if !slices.ContainsFunc(v.Msgs, func(m Msg) bool { return m.IsRequest() && m.Method == "tools/list" }) {
			return untestable("the client never listed the tools, so the probe sent no nextCursor \"\"")
		}
		return untestable("the client did not page: it never followed the first page's nextCursor %q, so it never met nextCursor \"\"", probe.StatelessPageCursor)
	}
	for _, m := range v.Msgs {
		if m.Rec <= at || m.Method != "tools/list" {
			continue
		}
		var p struct {
			Params struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &p) == nil && p.Params.Cursor != nil && *p.Params.Cursor == "" {
			return passed("the client asked for the page after nextCursor \"\" (record %d)", v.Records[m.Rec].Seq)
		}
	}
	return violated("answered tools/list with nextCursor \"\", the client never asked for that page: it took a valid cursor for the end of the list")
}
