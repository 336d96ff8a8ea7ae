package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: list methods and their pages (walks bounded by maxPages), and comparing lists.

var templateVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^}]*\}`) })

// maxPages bounds a paginated walk: a server that never stops paging is not followed forever.
const maxPages = 50

// lists are the list methods of the stateless revision, the capability that gates each and the
// member holding its items.
var lists = []struct{ cap, method, key string }{
	{"tools", "tools/list", "tools"}, {"resources", "resources/list", "resources"}, {"prompts", "prompts/list", "prompts"},
}

// canonical is v as JSON with object keys sorted.
func canonical(v any) string {
	raw, _ := json.Marshal(v)
	var x any
	if json.Unmarshal(raw, &x) != nil {
		return string(raw)
	}
	out, _ := json.Marshal(x)
	return string(out)
}

// listWalk is what a paginated walk of a list gave.
type listWalk struct {
	pages []jsonrpc.Message
	items []json.RawMessage
}

// walkList follows method's cursors on s from the first page to the last.
func walkList(t *conform.T, s *harness.Session, method, key string) (listWalk, error) {
	return walkListWith(t, s, method, key, s.NextID)
}

// walkListWith is walkList with request ids from nextID.
func walkListWith(t *conform.T, s *harness.Session, method, key string, nextID func() jsonrpc.ID) (listWalk, error) {
	pages, err := walkPagesOn(t, s, method, nextID)
	return listWalkOf(s.Revision(), method, key, pages, err)
}

// askedList is walkList on the check's session, asked once per revision and transport for
// every check that judges what the list holds (askedPages).
func askedList(t *conform.T, method, key string) (listWalk, error) {
	pages, err := askedPages(t, method)
	return listWalkOf(t.S.Revision(), method, key, pages, err)
}

// listWalkOf is the list a walk's pages give: every page a result object with an array under
// key.
func listWalkOf(revision, method, key string, pages []cursorPage, err error) (listWalk, error) {
	var w listWalk
	if err != nil {
		return w, err
	}
	for i, p := range pages {
		obj, ok := p.resp.ResultObject()
		if !ok {
			return w, fmt.Errorf("%s (page %d) was not answered with a result object: %s", method, i+1, show(p.resp))
		}
		w.pages = append(w.pages, p.resp)
		var items []json.RawMessage
		if json.Unmarshal(obj[key], &items) != nil {
			return w, fmt.Errorf("%s (page %d) has no %s array: %s", method, i+1, key, show(p.resp))
		}
		w.items = append(w.items, items...)
	}
	if _, more, _ := nextCursorOf(revision, pages[len(pages)-1].resp); more && len(pages) == maxPages {
		return w, fmt.Errorf("%s still had a nextCursor after %d pages", method, maxPages)
	}
	return w, nil
}

// itemSet is the items as a sorted list of canonical JSON texts.
func itemSet(items []json.RawMessage) []string {
	out := make([]string, len(items))
	for i, it := range items {
		var v any
		_ = json.Unmarshal(it, &v)
		out[i] = canonical(v)
	}
	sort.Strings(out)
	return out
}

// identitySet is the items as a sorted list of what identifies each (itemIdentity), apart from
// what the items say.
func identitySet(items []json.RawMessage) []string {
	out := make([]string, len(items))
	for i, it := range items {
		var v map[string]any
		_ = json.Unmarshal(it, &v)
		out[i] = itemIdentity(v)
	}
	sort.Strings(out)
	return out
}

// itemIdentity names a list item by what identifies it: a resource's uri, a template's
// uriTemplate, a tool's or prompt's name, or lacking all three its whole canonical text.
func itemIdentity(item map[string]any) string {
	for _, k := range []string{"uri", "uriTemplate", "name"} {
		if v, ok := item[k].(string); ok {
			return k + "=" + v
		}
	}
	return canonical(item)
}

// firstDifference describes how two item sets differ.
func firstDifference(a, b []string) string {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return "only in the first: " + clip(x, 300)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return "only in the second: " + clip(x, 300)
		}
	}
	return fmt.Sprintf("%d items versus %d", len(a), len(b))
}

// listStableAttempts bounds how often a list comparison is repeated. A server may change its
// lists at any time (that is what list_changed is for), and over a shared HTTP server another
// check may be changing it just then; a list that varies per connection or with the
// connection's own requests differs every time.
const listStableAttempts = 3

// listStable checks that a list is the same on another connection and after other requests.
func listStable(key string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		i := slices.IndexFunc(lists, func(l struct{ cap, method, key string }) bool { return l.key == key })
		l := lists[i]
		if !t.S.HasCapability(l.cap) {
			return conform.NA("the server does not declare %s in its server/discover capabilities", l.cap)
		}
		fresh, err := t.Open(t.Revision)
		if err != nil {
			return conform.Failed(fmt.Errorf("opening another connection: %w", err))
		}
		var diffs []string
		for attempt := 1; attempt <= listStableAttempts; attempt++ {
			diff, f := compareListOnce(t, fresh, l.method, l.key)
			if f != nil {
				return *f
			}
			if diff == "" {
				if attempt > 1 {
					return conform.Passed("the same in attempt %d, after: %s", attempt, strings.Join(diffs, "; "))
				}
				return conform.Passed("")
			}
			diffs = append(diffs, diff)
		}
		return conform.Violated("%s (in each of %d attempts: %s)", diffs[0], listStableAttempts, strings.Join(diffs[1:], "; "))
	}
}

// compareListOnce walks method on t.S, sends the connection's other requests, walks it again
// and walks it on fresh; it returns how the walks differ ("" when they do not).
func compareListOnce(t *conform.T, fresh *harness.Session, method, key string) (string, *conform.Finding) {
	fail := func(format string, args ...any) (string, *conform.Finding) {
		f := conform.Violated(format, args...)
		return "", &f
	}
	before, err := walkList(t, t.S, method, key)
	if err != nil {
		return fail("%v", err)
	}
	// Items that change from one walk to the next with nothing in between are unstable
	// (PAGE-STABLE's SHOULD), not varying with the connection or other requests: then only
	// which items the list holds is compared.
	control, err := walkList(t, t.S, method, key)
	if err != nil {
		return fail("%v", err)
	}
	set := itemSet
	if !slices.Equal(itemSet(before.items), itemSet(control.items)) {
		set = identitySet
	}
	// Other requests on the same connection: discover and the other lists.
	for _, other := range append([]string{"server/discover"}, otherLists(t, method)...) {
		if _, err := t.S.Request(t.Ctx, other, nil); err != nil {
			return fail("%s: %v", other, err)
		}
	}
	after, err := walkList(t, t.S, method, key)
	if err != nil {
		return fail("after other requests, %v", err)
	}
	if a, b := set(before.items), set(after.items); !slices.Equal(a, b) {
		return fmt.Sprintf("%s changed after other requests on the connection: %s", method, firstDifference(a, b)), nil
	}
	other, err := walkList(t, fresh, method, key)
	if err != nil {
		return fail("on another connection, %v", err)
	}
	if a, b := set(before.items), set(other.items); !slices.Equal(a, b) {
		return fmt.Sprintf("%s differs on another connection: %s", method, firstDifference(a, b)), nil
	}
	return "", nil
}

// otherLists are the declared list methods other than method.
func otherLists(t *conform.T, method string) []string {
	var out []string
	for _, l := range lists {
		if l.method != method && t.S.HasCapability(l.cap) {
			out = append(out, l.method)
		}
	}
	return out
}

// neverIssuedCursor is a cursor no server can have issued to mcpspec.
const neverIssuedCursor = "mcpspec-never-issued-cursor-!!"

// pagedList is a list operation, the capability that gates it and the member of its items.
type pagedList struct{ cap, method, key string }

var pagedLists = []pagedList{
	{"tools", "tools/list", "tools"},
	{"resources", "resources/list", "resources"},
	{"resources", "resources/templates/list", "resourceTemplates"},
	{"prompts", "prompts/list", "prompts"},
}

// offeredLists are the list operations the server's capabilities promise.
func offeredLists(t *conform.T) []pagedList {
	var out []pagedList
	for _, l := range pagedLists {
		if t.S.HasCapability(l.cap) {
			out = append(out, l)
		}
	}
	if t.Revision == harness.Rev20251125 && listsTasks(t) {
		out = append(out, pagedList{"tasks", "tasks/list", "tasks"})
	}
	return out
}

// listsTasks reports whether the server declares tasks/list (capabilities.tasks.list,
// 2025-11-25).
func listsTasks(t *conform.T) bool {
	var caps struct {
		Tasks struct {
			List json.RawMessage `json:"list"`
		} `json:"tasks"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	return caps.Tasks.List != nil
}

// cursorPage is one page of a walk: the cursor that asked for it ("" for the first) and the
// reply.
type cursorPage struct {
	cursor *string
	resp   jsonrpc.Message
}

// nextCursorOf reads a page's nextCursor at revision: present says whether the member exists,
// ok whether it is a string. An empty string ends the list only before 2026-07-28, which made
// it a valid cursor.
func nextCursorOf(revision string, resp jsonrpc.Message) (cursor string, present, ok bool) {
	obj, _ := resp.ResultObject()
	raw, present := obj["nextCursor"]
	if !present {
		return "", false, true
	}
	cursor, ok = jsonString(raw)
	if ok && cursor == "" && !harness.IsStateless(revision) {
		return "", false, true
	}
	return cursor, true, ok
}

// walkPagesOn is the one list walker: it follows method's cursors on s, request ids from
// nextID, and stops at the end, at a page that is not a result, at a cursor that is not a
// string, at a cursor seen before (PAGE-OPS judges loops), or after maxPages pages. What a page
// must hold is for the caller to judge.
func walkPagesOn(t *conform.T, s *harness.Session, method string, nextID func() jsonrpc.ID) ([]cursorPage, error) {
	var pages []cursorPage
	var cursor *string
	seen := map[string]bool{}
	for range maxPages {
		var params any // absent, not null, for the first page
		if cursor != nil {
			params = map[string]any{"cursor": *cursor}
		}
		resp, err := s.RequestWithID(t.Ctx, nextID(), method, params)
		if err != nil {
			return pages, fmt.Errorf("%s (page %d): %w", method, len(pages)+1, err)
		}
		pages = append(pages, cursorPage{cursor, resp})
		next, present, ok := nextCursorOf(s.Revision(), resp)
		if !resp.HasResult || !present || !ok || seen[next] {
			return pages, nil
		}
		seen[next] = true
		cursor = &next
	}
	return pages, nil
}

// sharedOwner names the requests of the answers asked once for many checks (T.Ask): they are
// every reading check's, not the first asker's.
const sharedOwner = "shared"

// sharedID allocates the ids of those requests.
func sharedID(t *conform.T) func() jsonrpc.ID {
	return func() jsonrpc.ID { return t.S.Env().IDs.String(sharedOwner) }
}

// askedWalk is a walk of a list asked once (askedPages).
type askedWalk struct {
	pages []cursorPage
	err   error
}

// askedPages is walkPages on the check's session, asked once per revision and transport for
// every check that judges what the pages hold (T.Ask): the same requests (the first page, then
// each nextCursor the server gave) get the same answers, whichever check sends them, so one
// walk serves them all. A walk is asked whole on one session: a cursor may be good only on the
// connection that issued it. Checks whose point is the walking itself (a cursor's handling, a
// list's stability, a change) walk on their own.
func askedPages(t *conform.T, method string) ([]cursorPage, error) {
	w, ok := t.Ask("walk "+method, func() any {
		pages, err := walkPagesOn(t, t.S, method, sharedID(t))
		return askedWalk{pages, err}
	}).(askedWalk)
	if !ok {
		return nil, fmt.Errorf("%s: waiting for another check's walk: %w", method, t.Ctx.Err())
	}
	return w.pages, w.err
}

// askedPagesAt is askedPages at another revision the run tests (T.AskAt), on that revision's
// gate session where none of its checks has asked yet. served is false where the server does
// not serve it.
func askedPagesAt(t *conform.T, revision, method string) (w askedWalk, served bool) {
	v, served := t.AskAt(revision, "walk "+method, func(o *conform.T) any {
		pages, err := walkPagesOn(o, o.S, method, sharedID(o))
		return askedWalk{pages, err}
	})
	if !served {
		return askedWalk{}, false
	}
	w, ok := v.(askedWalk)
	if !ok {
		return askedWalk{err: fmt.Errorf("%s at %s: waiting for another check's walk: %w", method, revision, t.Ctx.Err())}, true
	}
	return w, true
}

// askedFirstPage is the first page of askedPages: the answer to method with no params, for
// checks that judge whether and how the server serves it.
func askedFirstPage(t *conform.T, method string) (jsonrpc.Message, error) {
	pages, err := askedPages(t, method)
	if len(pages) == 0 {
		return jsonrpc.Message{}, err
	}
	return pages[0].resp, nil
}

// askedRequest is one request asked once per revision and transport for every check that
// judges its answer's content (T.Ask): a read-only tool's call, a resource read, a prompt
// fetched, each with the same params.
func askedRequest(t *conform.T, method string, params map[string]any) (jsonrpc.Message, error) {
	type reply struct {
		resp jsonrpc.Message
		err  error
	}
	r, ok := t.Ask(method+" "+canonical(params), func() any {
		resp, err := t.S.RequestWithID(t.Ctx, sharedID(t)(), method, params)
		return reply{resp, err}
	}).(reply)
	if !ok {
		return jsonrpc.Message{}, fmt.Errorf("waiting for another check's %s: %w", method, t.Ctx.Err())
	}
	return r.resp, r.err
}

// listItems gathers the items of every page of l, as asked once for every check (askedList).
func listItems(t *conform.T, l pagedList) ([]json.RawMessage, error) {
	w, err := askedList(t, l.method, l.key)
	return w.items, err
}

// walkValidated follows method's cursors from the first page to the last and returns the items.
// With def set, each page's result must validate against that definition (a finding of
// violation otherwise); a request that is not answered with a result makes the check untestable.
func walkValidated(t *conform.T, method, key, def string) ([]json.RawMessage, *conform.Finding) {
	pages, err := walkPagesOn(t, t.S, method, t.S.NextID)
	return validatedItems(t, method, key, def, pages, err)
}

// askedValidated is walkValidated of the walk asked once for every check (askedPages), for
// checks that judge what the list holds.
func askedValidated(t *conform.T, method, key, def string) ([]json.RawMessage, *conform.Finding) {
	pages, err := askedPages(t, method)
	return validatedItems(t, method, key, def, pages, err)
}

// validatedItems are the items of a walk's pages, each page validated against def when set.
func validatedItems(t *conform.T, method, key, def string, pages []cursorPage, err error) ([]json.RawMessage, *conform.Finding) {
	if err != nil {
		f := conform.CannotTest("%v", err)
		return nil, &f
	}
	var all []json.RawMessage
	for i, p := range pages {
		obj, ok := p.resp.ResultObject()
		if !ok {
			f := conform.CannotTest("%s (page %d) was not answered with a result: %s", method, i+1, show(p.resp))
			return nil, &f
		}
		if def != "" {
			if err := t.S.Env().Validator.Definition(t.Revision, def, p.resp.Result); err != nil {
				f := conform.Violated("%s (page %d) does not validate as %s at %s: %v\n  in: %s", method, i+1, def, t.Revision, err, show(p.resp))
				return nil, &f
			}
		}
		var items []json.RawMessage
		_ = json.Unmarshal(obj[key], &items)
		all = append(all, items...)
	}
	return all, nil
}

// listedURIs are the uris of a resources/list walk's items, those that are strings.
func listedURIs(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		var r struct {
			URI json.RawMessage `json:"uri"`
		}
		if json.Unmarshal(it, &r) != nil {
			continue
		}
		if uri, ok := jsonString(r.URI); ok {
			out = append(out, uri)
		}
	}
	return out
}

// pageItems is the canonical JSON of the items under key of method's page at cursor, asked on s,
// or a finding when it got no answer or was refused; where says which cursor it is ("on the
// connection that received it").
func pageItems(t *conform.T, s *harness.Session, method, key, cursor, where string) (string, *conform.Finding) {
	items, refused, f := pageOrRefusal(t, s, method, key, cursor, where)
	if f == nil && refused != nil {
		g := conform.Violated("%s with the cursor %q %s was refused: %s", method, cursor, where, show(*refused))
		f = &g
	}
	return items, f
}

// pageOrRefusal is pageItems with a refusal (an answer that is not a result) given back
// instead of judged, for a check to which a refusal is another requirement's matter.
func pageOrRefusal(t *conform.T, s *harness.Session, method, key, cursor, where string) (string, *jsonrpc.Message, *conform.Finding) {
	resp, err := s.Request(t.Ctx, method, map[string]any{"cursor": cursor})
	if err != nil {
		f := conform.Violated("%s with a cursor %s: %v", method, where, err)
		return "", nil, &f
	}
	obj, ok := resp.ResultObject()
	if !ok {
		return "", &resp, nil
	}
	var items any
	_ = json.Unmarshal(obj[key], &items)
	return canonical(items), nil, nil
}
