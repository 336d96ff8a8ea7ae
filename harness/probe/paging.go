package probe

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/mcpspec/mcpspec/harness/record"
)

// Pagination in the handshake era. The probe pages its tools/list the way a server may:
// opaque cursors that look nothing alike and that no client could compute (no page numbers,
// no offsets), on pages of unequal sizes (a full one, a shorter one, then the last). A client
// must send each nextCursor back exactly (PAGE-CLIENT-OPAQUE) and follow it until there is
// none, whatever a page's size (PAGE-CLIENT-NO-FIXED-SIZE); the last page holds a tool of its
// own, so a client that stops early never calls it.

// ToolLastPage is the one tool of the last page: an echo that only a client that paged to the
// end can call.
const ToolLastPage = "probe_last_page"

// paged reports whether the scenario's tools/list is paged: the scenarios that list the
// probe's tools (the handshake alone and the elicitation scenario list none or one).
func (s Script) paged() bool {
	_, own := scenarioServes(s.Scenario, s.Revision) // a schema scenario's few tools, on one page
	return s.Scenario != ScenarioInitialize && s.Scenario != ScenarioElicitDefaults && !own
}

// pager holds one run's cursors: page i+1 is named by cursors[i].
type pager struct {
	cursors []string
	served  int // the index of the last page served
}

// newCursors makes opaque cursors of different shapes: hex, then base64url with padding.
func newCursors(n int) []string {
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 9+3*i)
		_, _ = rand.Read(b)
		if i%2 == 0 {
			out[i] = "q" + hex.EncodeToString(b)
		} else {
			out[i] = base64.URLEncoding.EncodeToString(b) + "=="
		}
	}
	return out
}

// firstPage is the size of the first page: the official fixture tool (which a client that
// lists once must find there), probe_echo, probe_ping and probe_roots.
const firstPage = 4

// pages splits the tools: the first page four, the second shorter, the last page the
// probe_last_page tool alone.
func (s *server) pages() [][]map[string]any {
	ts := s.tools()
	if !s.script.paged() || len(ts) < firstPage+2 {
		return [][]map[string]any{ts}
	}
	return [][]map[string]any{ts[:firstPage], ts[firstPage : len(ts)-1], ts[len(ts)-1:]}
}

// listTools answers a handshake-era tools/list with the page its cursor names.
func (s *server) listTools(m message) []byte {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p)
	pages := s.pages()
	s.mu.Lock()
	if s.pager == nil {
		s.pager = &pager{cursors: newCursors(len(pages) - 1)}
	}
	pg := s.pager
	page := 0
	if p.Cursor != nil {
		if i := slices.Index(pg.cursors, *p.Cursor); i >= 0 {
			page = i + 1
		} else {
			// Lenient, so that one slip does not hide the rest: the next page after the
			// last one served. The note names the slip for the checks.
			page = min(pg.served+1, len(pages)-1)
			s.rec.note(record.Event{Kind: record.EvUnknownCursor, Cursor: *p.Cursor, Page: page + 1}, "cursor not issued by the probe: "+strconv.Quote(*p.Cursor)+"; answered with page "+strconv.Itoa(page+1))
		}
	}
	pg.served = page
	s.mu.Unlock()
	res := map[string]any{"tools": pages[page]}
	switch {
	case page < len(pages)-1:
		res["nextCursor"] = pg.cursors[page]
		s.rec.note(record.Event{Kind: record.EvCursorIssued, Cursor: pg.cursors[page]}, "nextCursor sent: "+pg.cursors[page])
	case page > 0:
		s.rec.note(record.Event{Kind: record.EvLastPage}, "last page served")
	}
	return result(m.ID, res)
}

// PageSizes are the sizes of the probe's tools/list pages in a scenario at a revision.
func PageSizes(scenario, revision string) []int {
	var out []int
	for _, p := range (&server{script: Script{Scenario: scenario, Revision: revision}}).pages() {
		out = append(out, len(p))
	}
	return out
}
