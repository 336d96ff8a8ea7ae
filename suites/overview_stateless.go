package suites

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/index (Overview) § Statelessness (2026-07-28): no request depends on an
// earlier one or on the connection it came on.

func init() {
	conform.Register(
		conform.Check{ID: "STATELESS-NO-SAME-CONN", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a follow-up request (a list cursor) sent on another connection is served",
			LevelReason: "The spec says SHOULD NOT require the same connection; a refused follow-up on a new connection warns.",
			Side:        conform.Server{Run: checkNoSameConnection}},
		conform.Check{ID: "STATELESS-EXPLICIT-STATE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "state between requests lives in the identifier the client sends: a cursor replayed, on the same or another connection, gives the same page",
			LevelReason: "mcpspec reads 'referenced by an explicit identifier' as: the identifier alone selects the state, so its replay selects the same items (a tool's or prompt's name, a resource's uri). Items whose content changes between replays break only PAGE-STABLE's SHOULD (stable cursors), and a replay served on its own connection but refused on another only STATELESS-NO-SAME-CONN's SHOULD NOT, so both pass here.",
			Side:        conform.Server{Run: checkExplicitState}},
		conform.Check{ID: "STATELESS-NO-PRIOR-CONTEXT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "capabilities declared by an earlier request on the connection are not carried over: a later request declaring none gets no input requests",
			LevelReason: "MUST NOT in the spec; client capabilities are the context probed.",
			Side:        conform.Server{Run: checkNoPriorContext}},
	)
}

// firstCursor finds a declared list whose first page has a nextCursor, asking on s.
func firstCursor(t *conform.T, s *harness.Session) (method, key, cursor string, f *conform.Finding) {
	var declared []string
	for _, l := range lists {
		if !t.S.HasCapability(l.cap) {
			continue
		}
		declared = append(declared, l.method)
		resp, err := s.Request(t.Ctx, l.method, nil)
		if err != nil {
			v := conform.Violated("%s: %v", l.method, err)
			return "", "", "", &v
		}
		obj, ok := resp.ResultObject()
		if !ok {
			continue
		}
		if c, ok := jsonString(obj["nextCursor"]); ok {
			return l.method, l.key, c, nil
		}
	}
	if len(declared) == 0 {
		na := conform.NA("the server declares none of tools, resources, prompts: no list to page through")
		return "", "", "", &na
	}
	ct := conform.CannotTest("every list (%s) fits one page: there is no cursor to send again", strings.Join(declared, ", "))
	return "", "", "", &ct
}

// twoConnections opens two fresh connections at the check's revision.
func twoConnections(t *conform.T) (a, b *harness.Session, err error) {
	if a, err = t.Open(t.Revision); err != nil {
		return nil, nil, fmt.Errorf("opening a connection: %w", err)
	}
	if b, err = t.Open(t.Revision); err != nil {
		return nil, nil, fmt.Errorf("opening a second connection: %w", err)
	}
	return a, b, nil
}

func checkNoSameConnection(t *conform.T) conform.Finding {
	a, b, err := twoConnections(t)
	if err != nil {
		return conform.Failed(err)
	}
	method, key, cursor, f := firstCursor(t, a)
	if f != nil {
		return *f
	}
	if _, f := pageItems(t, b, method, key, cursor, "received on another connection"); f != nil {
		return *f
	}
	return conform.Passed("")
}

func checkExplicitState(t *conform.T) conform.Finding {
	a, b, err := twoConnections(t)
	if err != nil {
		return conform.Failed(err)
	}
	method, key, cursor, f := firstCursor(t, a)
	if f != nil {
		return *f
	}
	want, f := pageItems(t, a, method, key, cursor, "on the connection that received it")
	if f != nil {
		return *f
	}
	var unstable []string
	for _, r := range []struct {
		s     *harness.Session
		where string
	}{{a, "sent again on the same connection"}, {b, "sent again on another connection"}} {
		got, refused, f := pageOrRefusal(t, r.s, method, key, cursor, r.where)
		if f != nil {
			return *f
		}
		if refused != nil {
			if r.s == b {
				// The replay was served on its own connection: refusing it on another requires
				// the same connection, STATELESS-NO-SAME-CONN's SHOULD NOT, not this MUST.
				unstable = append(unstable, "refused when "+r.where+" (STATELESS-NO-SAME-CONN's matter)")
				continue
			}
			return conform.Violated("%s with the cursor %q %s was refused: %s", method, cursor, r.where, show(*refused))
		}
		if pageIdentity(got) != pageIdentity(want) {
			return conform.Violated("%s with the same cursor %s gave another page:\n%s\nversus\n%s", method, r.where, clip(got, 300), clip(want, 300))
		}
		if got != want {
			unstable = append(unstable, r.where+": the same items, their content changed (PAGE-STABLE's matter)")
		}
	}
	if len(unstable) > 0 {
		return conform.Passed("%s with the same cursor, replayed on the connection that received it, selected the same items; %s", method, strings.Join(unstable, "; "))
	}
	return conform.Passed("")
}

// pageIdentity names each item of a page (canonical JSON) by what identifies it (itemIdentity):
// what a cursor selects, apart from what the items say.
func pageIdentity(items string) string {
	var list []map[string]any
	if json.Unmarshal([]byte(items), &list) != nil {
		return items
	}
	ids := make([]string, len(list))
	for i, item := range list {
		ids[i] = itemIdentity(item)
	}
	return strings.Join(ids, "\n")
}

func checkNoPriorContext(t *conform.T) conform.Finding {
	if _, f := askInput(t); f != nil {
		return *f
	}
	resp, _, err := callInputTool(t, map[string]any{}, inputArgs(t), nil)
	if err != nil {
		return conform.Violated("the input tool, called declaring no capabilities, got no reply: %v", err)
	}
	if ir, ok := asInputRequired(resp); ok {
		if why := undeclaredInput(map[string]any{}, ir); why != "" {
			return conform.Violated("after a request declaring elicitation, sampling and roots, a request on the same connection declaring none got %s: %s", why, show(resp))
		}
	}
	return conform.Passed("")
}
