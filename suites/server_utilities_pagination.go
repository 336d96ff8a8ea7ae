package suites

import (
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of server/utilities/pagination: the list operations, their cursors, and invalid cursors
// (lists.go walks the pages).

func init() {
	conform.Register(
		conform.Check{ID: "PAGE-INVALID-CURSOR", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a list request with a cursor the server never issued gets -32602",
			Side:    conform.Server{Run: checkInvalidCursor}},
		conform.Check{ID: "PAGE-NEXTCURSOR", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "nextCursor, where a list result has one, is a string",
			LevelReason: "The prose only describes nextCursor; every revision's schema makes it a string (Cursor), so another type fails.",
			Side:        conform.Server{Run: checkNextCursorType}},
		conform.Check{ID: "PAGE-OPS", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "following nextCursor through each list the server offers ends, every cursor it issued is accepted, and no cursor comes back",
			LevelReason: "The row names the paginated operations without a keyword, so a cursor chain that must end and cursors that must be accepted are mcpspec's reading of them, the nearest keyword PAGE-STABLE's SHOULD (stable cursors): a loop or a refused cursor warns. A cursor left unanswered, or a server that dies on one, fails (JSON-RPC: every request is answered).",
			Side:        conform.Server{Run: checkPageOps}},
		conform.Check{ID: "PAGE-STABLE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "the same cursor, sent twice while nothing changes, selects the same page",
			Side:    conform.Server{Run: checkPageStable}},
	)
}

// servedLists are the offered lists whose first page is a result: a list the server does not
// serve at all (resources/templates/list refused by a server of plain resources) is another
// requirement's matter, not pagination's.
func servedLists(t *conform.T) ([]pagedList, *conform.Finding) {
	offered := offeredLists(t)
	if len(offered) == 0 {
		f := conform.NA("the server declares no tools, resources or prompts, so it has no list to page")
		return nil, &f
	}
	var out []pagedList
	for _, l := range offered {
		resp, err := askedFirstPage(t, l.method)
		if err != nil {
			f := conform.Crashed("%s: %v", l.method, err)
			return nil, &f
		}
		if resp.HasResult {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		f := conform.CannotTest("none of the lists the server's capabilities promise was answered with a result")
		return nil, &f
	}
	return out, nil
}

// listPage requests one page of l.
func listPage(t *conform.T, l pagedList, cursor *string) (jsonrpc.Message, error) {
	var params any // absent, not null, for the first page
	if cursor != nil {
		params = map[string]any{"cursor": *cursor}
	}
	resp, err := t.S.Request(t.Ctx, l.method, params)
	if err != nil {
		return resp, fmt.Errorf("%s: %w", l.method, err)
	}
	return resp, nil
}

func checkInvalidCursor(t *conform.T) conform.Finding {
	lists, f := servedLists(t)
	if f != nil {
		return *f
	}
	for _, l := range lists {
		bogus := neverIssuedCursor
		resp, err := listPage(t, l, &bogus)
		if err != nil {
			return conform.Crashed("%s with a cursor it never issued got no reply: %v", l.method, err)
		}
		if ok, why := expectError(resp, codeInvalidParams); !ok {
			return conform.Violated("%s with the cursor %q, which it never issued: %s", l.method, bogus, why)
		}
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("%d list(s) refused the cursor with -32602", len(lists))
}

func checkNextCursorType(t *conform.T) conform.Finding {
	lists, f := servedLists(t)
	if f != nil {
		return *f
	}
	cursors := 0
	for _, l := range lists {
		pages, err := askedPages(t, l.method)
		if err != nil {
			return conform.Violated("%v", err)
		}
		for _, p := range pages {
			obj, _ := p.resp.ResultObject()
			if raw, ok := obj["nextCursor"]; ok {
				if _, isString := jsonString(raw); !isString {
					return conform.Violated("%s gave a nextCursor that is not a string: %s", l.method, show(p.resp))
				}
				cursors++
			}
		}
	}
	return conform.Passed("%d nextCursor value(s), all strings", cursors)
}

func checkPageOps(t *conform.T) conform.Finding {
	lists, f := servedLists(t)
	if f != nil {
		return *f
	}
	var walked []string
	for _, l := range lists {
		pages, err := askedPages(t, l.method)
		if err != nil {
			return conform.Violated("%v", err)
		}
		last := pages[len(pages)-1]
		if !last.resp.HasResult {
			if len(pages) == 1 {
				return conform.Violated("%s (first page) was not answered with a result: %s", l.method, show(last.resp))
			}
			return conform.Violated("%s refused the cursor %q it had issued: %s", l.method, *last.cursor, show(last.resp))
		}
		next, present, ok := nextCursorOf(t.Revision, last.resp)
		switch {
		case !ok:
			return conform.Violated("%s gave a nextCursor that is not a string: %s", l.method, show(last.resp))
		case present && len(pages) == maxPages:
			return conform.CannotTest("%s still had a nextCursor after %d pages", l.method, maxPages)
		case present:
			return conform.Violated("%s gave the cursor %q again after %d page(s): following its cursors never ends", l.method, next, len(pages))
		}
		walked = append(walked, fmt.Sprintf("%s: %d page(s)", l.method, len(pages)))
	}
	return conform.Passed("%s", strings.Join(walked, ", "))
}

func checkPageStable(t *conform.T) conform.Finding {
	lists, f := servedLists(t)
	if f != nil {
		return *f
	}
	compared := 0
	for _, l := range lists {
		first, err := listPage(t, l, nil)
		if err != nil {
			return conform.Violated("%v", err)
		}
		cursor, present, ok := nextCursorOf(t.Revision, first)
		if !present || !ok {
			continue
		}
		a, f := pageItems(t, t.S, l.method, l.key, cursor, "it had issued")
		if f != nil {
			return *f
		}
		b, f := pageItems(t, t.S, l.method, l.key, cursor, "it had issued")
		if f != nil {
			return *f
		}
		if a != b {
			return conform.Violated("%s with the cursor %q gave %s, then %s", l.method, cursor, clip(a, 300), clip(b, 300))
		}
		compared++
	}
	if compared == 0 {
		return conform.CannotTest("no list the server offers has more than one page, so there is no cursor to send twice")
	}
	return conform.Passed("%d list(s): the same cursor gave the same page", compared)
}
