package suites

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"

	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/transports/streamable-http § Session Management, and of how the stateless
// revision treats the session ids and methods of earlier revisions.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-SESSION-ID-CHARSET", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a session id contains only visible ASCII characters",
			Side:    conform.Server{Run: checkSessionIDCharset}},
		conform.Check{ID: "HTTP-SESSION-ID-SECURE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "session ids are unique and unguessable: distinct, at least 16 characters, not a counter",
			Side:    conform.Server{Run: checkSessionIDSecure}},
		conform.Check{ID: "HTTP-SESSION-REQUIRED-400", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "once sessions are in use, a request without a session id is answered 400",
			Side:    conform.Server{Run: checkSessionRequired}},
		conform.Check{ID: "HTTP-SESSION-TERMINATED-404", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a request with a terminated (deleted) or unknown session id is answered 404",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkSessionTerminated}},
		conform.Check{ID: "HTTP26-GET-DELETE-405", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "GET and DELETE on the endpoint are refused with 405: the stateless revision has no streams or sessions to open or end",
			Side:    conform.Server{Run: checkGetDelete405}},
		conform.Check{ID: "HTTP26-IGNORE-SESSION", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Session-Id on a stateless request is ignored: the request is served and no session id comes back",
			Side:    conform.Server{Run: checkIgnoreSession}},
	)
}

var visibleASCII = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\x21-\x7E]+$`) })

func checkSessionIDCharset(t *conform.T) conform.Finding {
	id := httpConn(t).Session()
	if id == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	if !visibleASCII().MatchString(id) {
		return conform.Violated("session id %q has characters outside visible ASCII (0x21-0x7E)", id)
	}
	return conform.Passed("")
}

// checkSessionIDSecure judges three session ids: the shared session's, which the run opened
// anyway, and two opened one after the other, which a counter would number in a row.
func checkSessionIDSecure(t *conform.T) conform.Finding {
	ids := []string{httpConn(t).Session()}
	if ids[0] == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	for i := 1; i < 3; i++ {
		s, err := t.Open(t.Revision)
		if err != nil {
			return conform.Violated("opening session %d: %v", i+1, err)
		}
		ids = append(ids, s.Conn.(*streamhttp.Conn).Session())
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return conform.Violated("two sessions got the same id %q", id)
		}
		seen[id] = true
		if len(id) < 16 {
			return conform.Violated("session id %q is %d characters long; at least 16 are needed to be hard to guess", id, len(id))
		}
	}
	if a, errA := strconv.ParseInt(ids[1], 10, 64); errA == nil {
		if b, errB := strconv.ParseInt(ids[2], 10, 64); errB == nil && b-a == 1 {
			return conform.Violated("session ids count up: %v", ids)
		}
	}
	return conform.Passed("")
}

func checkSessionRequired(t *conform.T) conform.Finding {
	if httpConn(t).Session() == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	d, err := post(t, rawRequest(t.S.NextID(), listMethod(t.S), nil), streamhttp.Request{NoSession: true})
	if err != nil {
		return conform.Violated("%v", err)
	}
	switch {
	case d.Status == http.StatusBadRequest:
		return conform.Passed("")
	case d.Status >= 200 && d.Status < 300:
		return conform.NA("the server serves requests without a session id (HTTP %d): it does not require sessions", d.Status)
	}
	return conform.Violated("a request without Mcp-Session-Id got HTTP %d, want 400", d.Status)
}

func checkSessionTerminated(t *conform.T) conform.Finding {
	hc := httpConn(t)
	old := hc.Session()
	if old == "" {
		return conform.NA("the server issued no Mcp-Session-Id")
	}
	del := hc.Do(t.Ctx, nil, streamhttp.Request{Method: http.MethodDelete})
	if err := waitReady(t, del); err != nil {
		return conform.Violated("DELETE: %v", err)
	}
	target, what := old, "deleted"
	switch {
	case del.Status == http.StatusMethodNotAllowed:
		target, what = "mcpspec-no-such-session-"+t.S.NextID().Text()[1:9], "unknown"
	case del.Status < 200 || del.Status >= 300:
		return conform.Violated("DELETE of the session got HTTP %d, want 2xx or 405", del.Status)
	}
	d, err := post(t, rawRequest(t.S.NextID(), "ping", nil), streamhttp.Request{Header: http.Header{streamhttp.HeaderSession: {target}}})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if d.Status != http.StatusNotFound {
		return conform.Violated("a request with the %s session id %q got HTTP %d, want 404", what, target, d.Status)
	}
	return conform.Passed("")
}

func checkGetDelete405(t *conform.T) conform.Finding {
	hc := httpConn(t)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		d := hc.Do(t.Ctx, nil, streamhttp.Request{Method: method})
		if err := waitReady(t, d); err != nil {
			return conform.Violated("%s: %v", method, err)
		}
		if d.Status != http.StatusMethodNotAllowed {
			return conform.Violated("%s on the endpoint got HTTP %d, want 405", method, d.Status)
		}
	}
	return conform.Passed("")
}

func checkIgnoreSession(t *conform.T) conform.Finding {
	method := listMethodStateless(t)
	sid := randomHex(16)
	resp, d, err := statelessRequest(t, method, nil, http.Header{streamhttp.HeaderSession: {sid}})
	if f, ok := servedFinding(fmt.Sprintf("%s with Mcp-Session-Id: %s", method, sid), resp, d, err); !ok {
		return f
	}
	if got := d.Header.Get(streamhttp.HeaderSession); got != "" {
		return conform.Violated("a stateless %s with Mcp-Session-Id %s was answered with Mcp-Session-Id: %s", method, sid, got)
	}
	return conform.Passed("")
}
