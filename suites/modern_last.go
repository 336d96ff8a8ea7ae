package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the stateless revision (2026-07-28): the bodies of its HTTP refusals.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP26-MODERN-ERROR-BODY", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "every 400 or 404 a stateless request provokes (unknown method, unsupported version, missing _meta field, header mismatch) carries a JSON-RPC error body",
			LevelReason: "The catalogue files this as guidance: the backward-compatibility section explains why dual-era clients need a readable error body, without a keyword. A plain body breaks their fallback, so it is a warning.",
			Run:         checkModernErrorBody},
		conform.Check{ID: "RES26-PATH-TRAVERSAL", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "reading a file:// URI (listed, or built from a file:// template) that climbs out of its directory with ../ is refused, never served",
			Run:     checkPathTraversal},
		conform.Check{ID: "PROG26-REQUEST-STREAM", Level: "MUST", Revisions: conform.AllCatalogued,
			Summary: "with two slow calls running at once, each one's progress comes only on its own response stream (HTTP: its SSE stream; stdio: before its response), under its own token",
			Run:     checkProgressOwnStream},
	)
}

// errorBodyProbe is one stateless request a server refuses with 400 or 404.
type errorBodyProbe struct {
	what   string
	method string
	params map[string]any
	header http.Header
}

func errorBodyProbes(t *conform.T) []errorBodyProbe {
	const bogus = "1900-01-01"
	return []errorBodyProbe{
		{what: "an unknown method", method: "mcpspec/no-such-method"},
		{what: "an unsupported protocol version", method: "server/discover",
			params: map[string]any{"_meta": modernMeta(bogus, nil)},
			header: http.Header{streamhttp.HeaderProtocol: {bogus}}},
		{what: "_meta without clientCapabilities", method: "server/discover",
			params: map[string]any{"_meta": modernMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: nil})}},
		{what: "an Mcp-Method header that differs from the body", method: "server/discover",
			header: http.Header{"Mcp-Method": {"tools/list"}}},
	}
}

func checkModernErrorBody(t *conform.T) conform.Finding {
	refused := 0
	for _, p := range errorBodyProbes(t) {
		resp, d, err := modernRequest(t, p.method, p.params, p.header)
		if d == nil || (d.Status != http.StatusBadRequest && d.Status != http.StatusNotFound) {
			continue // not a refusal with these statuses: other checks judge the status
		}
		refused++
		if err == nil && resp.HasError {
			continue
		}
		if ferr := d.Finished(t.Ctx); ferr != nil {
			return conform.CannotTest("the HTTP %d body for %s did not end: %v", d.Status, p.what, ferr)
		}
		if !jsonRPCErrorBody(d.Body) {
			return conform.Violated("%s got HTTP %d with a body that is no JSON-RPC error (Content-Type %q): %s",
				p.what, d.Status, d.ContentType, clip(string(d.Body), 240))
		}
	}
	if refused == 0 {
		return conform.CannotTest("none of the probes (unknown method, unsupported version, missing _meta field, header mismatch) got HTTP 400 or 404")
	}
	return conform.Passed("%d refusals with 400/404, each with a JSON-RPC error body", refused)
}

// jsonRPCErrorBody reports whether body is one JSON-RPC error response (any id, null included).
func jsonRPCErrorBody(body []byte) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(string(body))), &m) != nil || m.JSONRPC != "2.0" {
		return false
	}
	var e struct {
		Code    *int64 `json:"code"`
		Message string `json:"message"`
	}
	return json.Unmarshal(m.Error, &e) == nil && e.Code != nil
}

// traversalDepth is how many ../ a probe climbs: enough to reach the file system's root from
// any sensible directory.
const traversalDepth = 16

func checkPathTraversal(t *conform.T) conform.Finding {
	if !t.S.HasCapability("resources") {
		return conform.NA("the server declares no resources capability")
	}
	bases, err := fileURIBases(t)
	if err != nil {
		return conform.CannotTest("%v", err)
	}
	if len(bases) == 0 {
		return conform.NA("the server lists no file:// resource or resource template")
	}
	canary, token, cleanup, err := writeCanary()
	if err != nil {
		return conform.CannotTest("a file for the probes to aim at: %v", err)
	}
	defer cleanup()
	target := strings.TrimPrefix(filepath.ToSlash(canary), "/")
	probes := 0
	for _, base := range bases {
		for _, climb := range []string{"../", "%2E%2E/"} {
			uri := base(strings.Repeat(climb, traversalDepth) + target)
			resp, err := t.S.Request(t.Ctx, "resources/read", map[string]any{"uri": uri})
			if err != nil {
				return conform.CannotTest("resources/read %s: %v", uri, err)
			}
			probes++
			if resp.HasError {
				continue
			}
			served := ""
			if strings.Contains(string(resp.Raw), token) {
				served = " (the contents of the file outside, " + canary + ")"
			}
			return conform.Violated("resources/read %s was answered with a result%s: %s", uri, served, show(resp))
		}
	}
	return conform.Passed("%d traversal reads refused", probes)
}

// fileURIBases lists, for each file:// resource and template the server offers (a few at most),
// a function that puts a relative path in place of its last path segment or first variable.
func fileURIBases(t *conform.T) ([]func(rel string) string, error) {
	var out []func(string) string
	res, err := walkList(t, t.S, "resources/list", "resources")
	if err != nil {
		return nil, err
	}
	for _, raw := range res.items {
		var r struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(raw, &r) == nil && hasFileScheme(r.URI) && len(out) < 2 {
			dir := r.URI[:strings.LastIndex(r.URI, "/")+1]
			out = append(out, func(rel string) string { return dir + rel })
		}
	}
	tpl, err := walkList(t, t.S, "resources/templates/list", "resourceTemplates")
	if err != nil {
		return out, nil // templates are optional: the resources alone will do
	}
	for _, raw := range tpl.items {
		var r struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(raw, &r) == nil && hasFileScheme(r.URITemplate) && len(out) < 4 {
			template := r.URITemplate
			out = append(out, func(rel string) string { return expandWith(template, rel) })
		}
	}
	return out, nil
}

func hasFileScheme(uri string) bool { return len(uri) >= 7 && strings.EqualFold(uri[:7], "file://") }

var templateVar = regexp.MustCompile(`\{[^}]*\}`)

// expandWith fills a URI template's first variable with rel and any others with "x".
func expandWith(template, rel string) string {
	first := true
	return templateVar.ReplaceAllStringFunc(template, func(string) string {
		if first {
			first = false
			return rel
		}
		return "x"
	})
}

// writeCanary writes a file holding a random token for the probes to climb to: if a server
// serves it, the token in the reply shows that the traversal reached the disk.
func writeCanary() (path, token string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "mcpspec-canary-")
	if err != nil {
		return "", "", nil, fmt.Errorf("creating a temporary directory: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	token = "mcpspec-canary-" + randomHex(8)
	path = filepath.Join(dir, "canary.txt")
	if err := os.WriteFile(path, []byte(token), 0o600); err != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return path, token, cleanup, nil
}

func checkProgressOwnStream(t *conform.T) conform.Finding {
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	var calls []slowCall
	for _, name := range []string{"a", "b"} {
		token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-stream-"+name+"-"+randomHex(4)))
		c, err := startSlow(t, t.S.NextID(), token)
		if err != nil {
			return conform.CannotTest("starting slow call %s: %v", name, err)
		}
		calls = append(calls, c)
	}
	for _, c := range calls {
		if _, err := c.finish(t); err != nil {
			return conform.CannotTest("the slow tool %q got no response: %v", t.Options().SlowTool, err)
		}
	}
	if err := allArrived(t, calls); err != nil {
		return conform.CannotTest("%v", err)
	}
	return judgeProgressStreams(t, calls)
}

// allArrived waits until nothing more can come for the calls: over HTTP their response streams
// have ended, on stdio a sentinel has been answered.
func allArrived(t *conform.T, calls []slowCall) error {
	if _, ok := t.S.Conn.(*streamhttp.Conn); !ok {
		_, err := t.S.Quiet(t.Ctx, calls[0].from)
		return err
	}
	ctx, cancel := contextWithTimeout(t, t.S.Env().Timeouts.Request)
	defer cancel()
	for _, c := range calls {
		if err := c.d.Finished(ctx); err != nil {
			return fmt.Errorf("the response stream of a slow call did not end within %s", t.S.Env().Timeouts.Request)
		}
	}
	return nil
}

// judgeProgressStreams checks where each progress notification came: on its call's stream
// (HTTP) and before its call's response, under one of the calls' tokens.
func judgeProgressStreams(t *conform.T, calls []slowCall) conform.Finding {
	byToken := map[jsonrpc.ID]slowCall{}
	answered := map[jsonrpc.ID]int{} // call id → inbox index of its response
	for _, c := range calls {
		byToken[c.token] = c
	}
	seen := 0
	for _, r := range t.S.Conn.Inbox().Since(calls[0].from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response && m.HasID {
				if _, done := answered[m.ID]; !done {
					answered[m.ID] = r.Index
				}
				continue
			}
			if m.Kind != jsonrpc.Notification || m.Method != "notifications/progress" {
				continue
			}
			seen++
			var p struct {
				Token json.RawMessage `json:"progressToken"`
			}
			_ = json.Unmarshal(m.Params, &p)
			token, _ := jsonrpc.CanonicalID(p.Token)
			c, ok := byToken[token]
			switch {
			case !ok:
				return conform.Violated("progress under a token neither call sent: %s", show(m))
			case r.Via != nil && r.Via != c.d:
				return conform.Violated("progress of one call came on another response stream (%s): %s", r.Channel, show(m))
			}
			if at, done := answered[c.id]; done && at < r.Index {
				return conform.Violated("progress of a call came after that call's response: %s", show(m))
			}
		}
	}
	if seen == 0 {
		return conform.CannotTest("the slow tool %q reported no progress for either call", t.Options().SlowTool)
	}
	return conform.Passed("%d progress notifications, each on its own call's stream before its response", seen)
}
