package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of server/resources: the capability, the shapes of lists and reads, URI validation, how
// binary contents and custom URIs are written, and the methods the stateless revision removed.

func init() {
	conform.Register(
		conform.Check{ID: "RES26-PATH-TRAVERSAL", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "reading a file:// URI (listed, or built from a file:// template) that climbs out of its directory with ../ is refused, never served",
			Side:    conform.Server{Run: checkPathTraversal}},
		conform.Check{ID: "RES26-LIST-STABLE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "resources/list gives the same resources on another connection and after other requests",
			Side:    conform.Server{Run: listStable("resources")}},
		conform.Check{ID: "RES26-SUBSCRIBE-REMOVED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "resources/subscribe and resources/unsubscribe no longer exist: stateless (2026-07-28) requests for them get -32601 (over HTTP with 404)", LevelReason: removedMethodLevelReason,
			Side: conform.Server{Run: checkSubscribeRemoved}},
		conform.Check{ID: "RES-NOT-FOUND", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "reading a resource that does not exist gets -32602",
			LevelReason: "The row is a SHOULD of -32002 up to 2025-11-25 and a MUST of -32602 at 2026-07-28; mcpspec checks the 2026-07-28 MUST.",
			Side:        conform.Server{Run: checkResourceNotFound}},
		conform.Check{ID: "RES26-NO-EMPTY-CONTENTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "reading a resource that does not exist never gets a result with empty contents",
			LevelReason: "MUST NOT: an empty contents array fails.",
			Side:        conform.Server{Run: checkNoEmptyContents}},
		conform.Check{ID: "RES-CAP", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a server that lists resources declares the resources capability, and one that declares it serves resources/list",
			Side:    conform.Server{Run: capabilityCheck("resources", "resources/list", "resources")}},
		conform.Check{ID: "RES-LIST-SCHEMA", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "every page of resources/list, and resources/templates/list where served, validates against the revision's schema",
			LevelReason: "A schema row: the revision's schema defines the result, so a result outside it is malformed.",
			Side:        conform.Server{Run: checkResourceListSchema}},
		conform.Check{ID: "RES-READ-SCHEMA", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "resources/read of a listed resource validates against the revision's schema, each content holding a uri and exactly one of text or blob",
			LevelReason: "A schema row: the revision's schema defines the result, and text or blob content is one or the other.",
			Side:        conform.Server{Run: checkResourceReadSchema}},
		conform.Check{ID: "RES-TEMPLATE-READ", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a resource read through a listed template (its variables filled with values completion offers, or plain ones) is served with contents, one of them under the URI read",
			LevelReason: "Templates describe resources a client reads by expanding them, and a ResourceContents' uri is the URI of that resource: a result without contents, or none under the URI asked for, fails. A value mcpspec chose that the server refuses (an error) proves nothing: only when no template could be read is the check untestable.",
			Side:        conform.Server{Run: checkResourceTemplateRead}},
		conform.Check{ID: "RES-URI-VALIDATE", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "resources/read of a malformed URI (no scheme, control characters, 10 kB long) is refused with an error, and the server keeps serving",
			Side:    conform.Server{Run: checkResourceURIValidate}},
		conform.Check{ID: "RES-BINARY-ENCODED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "every blob a listed resource is read as is standard base64",
			Side:    conform.Server{Run: checkResourceBinaryEncoded}},
		conform.Check{ID: "RES-CUSTOM-URI", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "every listed resource's uri is an RFC 3986 URI with a scheme",
			Side:    conform.Server{Run: checkResourceCustomURI}},
		conform.Check{ID: "RES-LISTCHANGED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "a server declaring resources.listChanged announces a change of its resources list (at 2026-07-28 on a listen stream that asked for it)",
			Side:    conform.Server{Connection: conform.Exclusive, StatelessFresh: true, LeavesGetOpen: true, Ready: listChangedReady("resources"), Run: listChangedCheck("resources", "resources/list", "resources", "notifications/resources/list_changed", "resourcesListChanged")}},
		// The next two judge the state session (state.go).
		conform.Check{ID: "RES-SUBSCRIBE", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a server declaring resources.subscribe answers resources/subscribe and resources/unsubscribe of a listed resource with a result",
			LevelReason: "The row describes the feature without a keyword; declaring resources.subscribe announces both methods, so refusing them breaks the declaration. That a change then brings notifications/resources/updated cannot be provoked from outside.",
			Side:        conform.Server{Connection: conform.Observed, Ready: subscribeReady, Run: checkResourceSubscribe}},
		conform.Check{ID: "RES-UPDATED-ONLY-SUBSCRIBED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary:     "a session that subscribed to no resource gets no notifications/resources/updated while it lists, reads and changes the server's lists",
			LevelReason: "The schema's lower-case should; mcpspec holds it to SHOULD.",
			Side:        conform.Server{Connection: conform.Observed, Ready: capabilityReady("resources"), Run: checkResourceUpdatedOnlySubscribed}},
	)
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
	res, err := askedList(t, "resources/list", "resources")
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
	tpl, err := askedList(t, "resources/templates/list", "resourceTemplates")
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

// expandWith fills a URI template's first variable with rel and any others with "x".
func expandWith(template, rel string) string {
	first := true
	return templateVar().ReplaceAllStringFunc(template, func(string) string {
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

func checkSubscribeRemoved(t *conform.T) conform.Finding {
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		if f := expectRemoved(t, method, map[string]any{"uri": unknownResourceURI}); f.Outcome != conform.Pass {
			return f
		}
	}
	return conform.Passed("")
}

// readUnknownResource reads a resource that does not exist; ok is false (with the finding)
// when the server declares no resources.
func readUnknownResource(t *conform.T) (jsonrpc.Message, conform.Finding, bool) {
	if !t.S.HasCapability("resources") {
		return jsonrpc.Message{}, conform.NA("server/discover declares no resources capability"), false
	}
	resp, _, err := statelessRequest(t, "resources/read", map[string]any{"uri": unknownResourceURI}, nil)
	if err != nil {
		return resp, conform.Violated("resources/read of %s got no JSON-RPC reply: %v", unknownResourceURI, err), false
	}
	return resp, conform.Finding{}, true
}

func checkResourceNotFound(t *conform.T) conform.Finding {
	resp, f, ok := readUnknownResource(t)
	if !ok {
		return f
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("resources/read of %s: %s", unknownResourceURI, why)
	}
	return conform.Passed("")
}

func checkNoEmptyContents(t *conform.T) conform.Finding {
	resp, f, ok := readUnknownResource(t)
	if !ok {
		return f
	}
	obj, isResult := resp.ResultObject()
	if !isResult {
		return conform.Passed("")
	}
	var contents []json.RawMessage
	if json.Unmarshal(obj["contents"], &contents) != nil || len(contents) == 0 {
		return conform.Violated("resources/read of %s, which does not exist, was answered with a result without contents: %s", unknownResourceURI, show(resp))
	}
	return conform.Passed("resources/read of %s returned contents; RES-NOT-FOUND judges that", unknownResourceURI)
}

// malformedURIs are strings no server can hold a resource at: no scheme, control characters,
// and a URI too long for any sensible resource.
var malformedURIs = []string{
	"::::",
	"mcpspec://reference/\x01\x7f\x1b[0m",
	"mcpspec://" + strings.Repeat("x", 10*1024),
}

// readResource reads uri. At the stateless revision over HTTP the Mcp-Name header carries the
// uri in Base64, so that any uri can travel in it.
func readResource(t *conform.T, uri string) (jsonrpc.Message, *wire.Delivery, error) {
	params := map[string]any{"uri": uri}
	if t.S.Stateless() {
		var h http.Header
		if t.Transport == wire.HTTP {
			h = http.Header{streamhttp.HeaderName: {base64Header(uri)}}
		}
		return statelessRequest(t, "resources/read", params, h)
	}
	resp, err := t.S.Request(t.Ctx, "resources/read", params)
	return resp, nil, err
}

// askedRead is readResource of a listed resource, asked once per revision and transport for
// every check that judges what it holds (T.Ask).
func askedRead(t *conform.T, uri string) (jsonrpc.Message, error) {
	type reply struct {
		resp jsonrpc.Message
		err  error
	}
	// A key of its own, not askedRequest's: the answer is readResource's, of its own type.
	r, ok := t.Ask("read "+uri, func() any {
		resp, _, err := readResource(t, uri)
		return reply{resp, err}
	}).(reply)
	if !ok {
		return jsonrpc.Message{}, fmt.Errorf("waiting for another check's resources/read: %w", t.Ctx.Err())
	}
	return r.resp, r.err
}

// resourceRead is the answer to reading one listed resource.
type resourceRead struct {
	uri  string
	resp jsonrpc.Message
}

// readListed lists the resources and reads up to maxReads of them; reads answered with an
// error are left out (other checks judge those). No read that succeeded makes the check
// untestable.
func readListed(t *conform.T) ([]resourceRead, *conform.Finding) {
	if f, ok := needCapability(t, "resources"); !ok {
		return nil, &f
	}
	items, f := askedValidated(t, "resources/list", "resources", "")
	if f != nil {
		return nil, f
	}
	uris := listedURIs(items)
	var out []resourceRead
	for _, uri := range uris[:min(len(uris), maxReads)] {
		resp, err := askedRead(t, uri)
		if err != nil {
			f := conform.CannotTest("resources/read of %s got no reply: %v", uri, err)
			return nil, &f
		}
		if resp.HasResult {
			out = append(out, resourceRead{uri: uri, resp: resp})
		}
	}
	if len(out) == 0 {
		f := conform.CannotTest("no listed resource could be read (%d listed)", len(uris))
		return nil, &f
	}
	return out, nil
}

// resourceContents are the contents of a read result.
func resourceContents(m jsonrpc.Message) []map[string]json.RawMessage {
	var r struct {
		Contents []map[string]json.RawMessage `json:"contents"`
	}
	_ = json.Unmarshal(m.Result, &r)
	return r.Contents
}

func checkResourceListSchema(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "resources"); !ok {
		return f
	}
	items, f := askedValidated(t, "resources/list", "resources", "ListResourcesResult")
	if f != nil {
		return *f
	}
	note := ""
	// Templates are optional: a refusal of the list is not this check's to judge.
	if pages, err := askedPages(t, "resources/templates/list"); len(pages) > 0 && pages[0].resp.HasResult {
		if _, f := validatedItems(t, "resources/templates/list", "resourceTemplates", "ListResourceTemplatesResult", pages, err); f != nil && f.Outcome == conform.Violation {
			return *f
		}
	} else {
		note = "; resources/templates/list not served"
	}
	return conform.Passed("%d resources listed%s", len(items), note)
}

func checkResourceReadSchema(t *conform.T) conform.Finding {
	reads, f := readListed(t)
	if f != nil {
		return *f
	}
	for _, r := range reads {
		if err := t.S.Env().Validator.Definition(t.Revision, "ReadResourceResult", r.resp.Result); err != nil {
			return conform.Violated("resources/read of %s does not validate as ReadResourceResult at %s: %v\n  in: %s", r.uri, t.Revision, err, show(r.resp))
		}
		for i, c := range resourceContents(r.resp) {
			if why := textXorBlob(c); why != "" {
				return conform.Violated("resources/read of %s: contents[%d] %s: %s", r.uri, i, why, show(r.resp))
			}
		}
	}
	return conform.Passed("%d resources read", len(reads))
}

// templateReads bounds how many listed templates RES-TEMPLATE-READ reads through.
const templateReads = 4

func checkResourceTemplateRead(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "resources"); !ok {
		return f
	}
	w, err := askedList(t, "resources/templates/list", "resourceTemplates")
	if err != nil {
		return conform.NA("resources/templates/list is not served: %v", err)
	}
	var refused []string
	read := 0
	for _, raw := range w.items {
		var tpl struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(raw, &tpl) != nil || tpl.URITemplate == "" {
			continue // RES-LIST-SCHEMA's matter
		}
		if read+len(refused) == templateReads {
			break
		}
		uri := expandTemplate(tpl.URITemplate, templateValues(t, tpl.URITemplate))
		resp, d, err := readResource(t, uri)
		switch {
		case err != nil && d != nil && d.Status >= 400:
			refused = append(refused, fmt.Sprintf("%s (HTTP %d)", uri, d.Status))
			continue
		case err != nil:
			return conform.Crashed("resources/read of %s, from the template %s, got no reply: %v", uri, tpl.URITemplate, err)
		case resp.HasError:
			code, _ := errorCode(resp)
			refused = append(refused, fmt.Sprintf("%s (error %d)", uri, code))
			continue
		}
		contents := resourceContents(resp)
		if len(contents) == 0 {
			return conform.Violated("resources/read of %s, from the template %s, was served without contents: %s", uri, tpl.URITemplate, show(resp))
		}
		var uris []string
		for _, c := range contents {
			u, _ := jsonString(c["uri"])
			uris = append(uris, u)
		}
		if !slices.Contains(uris, uri) {
			return conform.Violated("resources/read of %s, from the template %s, was served with contents under %q, none under the URI read: %s", uri, tpl.URITemplate, uris, show(resp))
		}
		read++
	}
	switch {
	case read > 0:
		return conform.Passed("%d templates read through", read)
	case len(refused) > 0:
		return conform.CannotTest("no template could be read with the values mcpspec chose: %s", strings.Join(refused, ", "))
	}
	return conform.NA("the server lists no resource templates")
}

// templateValues picks a value for each of a template's variables: the first value completion
// offers (given the values already picked), or "1" when it offers none.
func templateValues(t *conform.T, template string) map[string]string {
	values := map[string]string{}
	completes := t.Revision == harness.Rev20241105 || t.S.HasCapability("completions")
	for _, v := range templateVariables(template) {
		values[v] = "1"
		if !completes {
			continue
		}
		var context map[string]any
		if len(values) > 1 {
			args := map[string]any{}
			for k, val := range values {
				if k != v {
					args[k] = val
				}
			}
			context = map[string]any{"arguments": args}
		}
		target := completionTarget{ref: map[string]any{"type": "ref/resource", "uri": template}, argument: v}
		resp, err := complete(t, target, "", context)
		if err != nil || !resp.HasResult {
			continue
		}
		var r struct {
			Completion struct {
				Values []string `json:"values"`
			} `json:"completion"`
		}
		if json.Unmarshal(resp.Result, &r) == nil && len(r.Completion.Values) > 0 && r.Completion.Values[0] != "" {
			values[v] = r.Completion.Values[0]
		}
	}
	return values
}

// expandTemplate expands an RFC 6570 URI template with values, for the operators of levels 1
// to 3 (no prefix or explode modifiers are honoured beyond dropping them).
func expandTemplate(template string, values map[string]string) string {
	return templateVar().ReplaceAllStringFunc(template, func(expr string) string {
		expr = strings.Trim(expr, "{}")
		op := ""
		if expr != "" && strings.ContainsRune("+#./;?&", rune(expr[0])) {
			op, expr = expr[:1], expr[1:]
		}
		prefix, sep, named := op, ",", false
		switch op {
		case "", "+":
			prefix = ""
		case ".", "/":
			sep = op
		case ";":
			sep, named = ";", true
		case "?", "&":
			sep, named = "&", true
		}
		reserved := op == "+" || op == "#"
		var parts []string
		for _, name := range strings.Split(expr, ",") {
			name = strings.TrimRight(name, "*")
			if i := strings.IndexByte(name, ':'); i >= 0 {
				name = name[:i]
			}
			v := escapeTemplateValue(values[name], reserved)
			if named {
				v = name + "=" + v
			}
			parts = append(parts, v)
		}
		return prefix + strings.Join(parts, sep)
	})
}

// escapeTemplateValue percent-encodes all but the unreserved characters (and, for the + and #
// operators, the reserved ones).
func escapeTemplateValue(v string, reserved bool) string {
	var b strings.Builder
	for _, c := range []byte(v) {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', strings.IndexByte("-._~", c) >= 0:
			b.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func checkResourceURIValidate(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "resources"); !ok {
		return f
	}
	for _, uri := range malformedURIs {
		shown := clip(fmt.Sprintf("%q", uri), 60)
		resp, d, err := readResource(t, uri)
		switch {
		case err != nil && d != nil && d.Status >= 400:
			// Refused over HTTP before any JSON-RPC answer: also a refusal.
		case err != nil:
			return conform.Crashed("resources/read of %s got no reply: %v", shown, err)
		case resp.HasResult:
			return conform.Violated("resources/read of the malformed URI %s was served: %s", shown, show(resp))
		}
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("")
}

func checkResourceBinaryEncoded(t *conform.T) conform.Finding {
	reads, f := readListed(t)
	if f != nil {
		return *f
	}
	blobs := 0
	for _, r := range reads {
		for i, c := range resourceContents(r.resp) {
			raw, present := c["blob"]
			if !present {
				continue
			}
			blobs++
			if s, ok := jsonString(raw); !ok || !isBase64(s) {
				return conform.Violated("resources/read of %s: contents[%d].blob is not base64: %s", r.uri, i, clip(string(raw), 120))
			}
		}
	}
	if blobs == 0 {
		return conform.CannotTest("none of the %d resources read has binary (blob) contents", len(reads))
	}
	return conform.Passed("%d blobs decoded", blobs)
}

func checkResourceCustomURI(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "resources"); !ok {
		return f
	}
	items, f := askedValidated(t, "resources/list", "resources", "")
	if f != nil {
		return *f
	}
	uris := listedURIs(items)
	if len(uris) == 0 {
		return conform.CannotTest("the server lists no resources")
	}
	for _, uri := range uris {
		if !rfc3986URI().MatchString(uri) {
			return conform.Violated("the listed resource uri %q is not an RFC 3986 URI with a scheme", clip(uri, 200))
		}
	}
	return conform.Passed("%d uris", len(uris))
}

// subscribeReady ends RES-SUBSCRIBE before its server is started when the server does not
// declare resources.subscribe.
func subscribeReady(t *conform.T) (conform.Finding, bool) {
	if !declaresSubscribe(t) {
		return conform.NA("the server does not declare resources.subscribe"), true
	}
	return conform.Finding{}, false
}

func checkResourceSubscribe(t *conform.T) conform.Finding {
	st, f := observeState(t)
	if f != nil {
		return *f
	}
	if st.gone != "" && st.cancelFirst { // its part came after the cancel part (stateParts)
		return conform.CannotTest("the server of the state session stopped answering after %s", st.gone)
	}
	if st.subscribed == nil { // the server of its own declared no subscribe, unlike the shared one
		return conform.NA("the server does not declare resources.subscribe")
	}
	return *st.subscribed
}

func checkResourceUpdatedOnlySubscribed(t *conform.T) conform.Finding {
	st, f := observeState(t)
	if f != nil {
		return *f
	}
	if st.gone != "" && st.cancelFirst { // its part came after the cancel part (stateParts)
		return conform.CannotTest("the server of the state session stopped answering after %s", st.gone)
	}
	if st.unsubscribed == nil {
		return conform.NA("the server declares no resources capability")
	}
	return *st.unsubscribed
}
