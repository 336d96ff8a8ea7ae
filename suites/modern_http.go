package suites

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the Streamable HTTP rules of the stateless revision (2026-07-28): the standard and
// custom (x-mcp-header) request headers, and how response streams behave.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP26-UNSUPPORTED-400", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "a request whose header and body name an unsupported protocol version gets HTTP 400 with -32022 listing the supported versions",
			Run:     checkUnsupported400},
		conform.Check{ID: "HTTP26-STD-HEADERS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "a request without Mcp-Method, or a tools/call, resources/read or prompts/get without Mcp-Name, is refused with 400 and -32020",
			LevelReason: "The spec calls the headers REQUIRED, which RFC 2119 makes equal to MUST. The names sent do not exist, so nothing runs on a server that wrongly serves them.",
			Run:         checkStdHeaders},
		conform.Check{ID: "HTTP26-B64-DECODE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Name sent as =?base64?…?= is decoded: the real name is served, an encoded different name is refused with -32020",
			Run:     checkB64Decode},
		conform.Check{ID: "HTTP26-PARAM-HEADER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Param header of an x-mcp-header parameter must match the argument: a wrong or missing one is refused with 400 and -32020, a matching one is not",
			Run:     checkParamHeader},
		conform.Check{ID: "HTTP26-PARAM-INVALID-CHARS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "a recognised Mcp-Param header holding raw non-ASCII bytes is refused with 400",
			Run:     checkParamInvalidChars},
		conform.Check{ID: "HTTP26-XMCPHEADER-DEF", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "every x-mcp-header in tools/list is a non-empty token, unique ignoring case within its schema, on a string, integer or boolean property reachable through properties alone",
			Run:     checkXMCPHeaderDef},
		conform.Check{ID: "HTTP26-HEADER-SENSITIVE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "no parameter that looks secret (password, token, API key, …) is marked with x-mcp-header",
			LevelReason: "SHOULD NOT in the spec; judged by the names of the property and its header, a heuristic, so a violation is a warning.",
			Run:         checkHeaderSensitive},
		conform.Check{ID: "HTTP26-INT-NUMERIC", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an integer Mcp-Param header is compared with the argument as a number: 42.0 matches 42",
			Run:     checkIntNumeric},
		conform.Check{ID: "HTTP26-HEADER-CASE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "header names are matched ignoring case (lower- and upper-case names are served), header values are not (Mcp-Method in capitals is refused with -32020)",
			Run:     checkHeaderCase},
		conform.Check{ID: "HTTP26-NO-SERVER-REQUESTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "an SSE stream answering a POST never carries a JSON-RPC request from the server",
			LevelReason: "MUST NOT in the spec: any request on the stream is a failure.",
			Run:         checkNoStreamRequests},
		conform.Check{ID: "HTTP26-X-ACCEL", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an SSE response carries X-Accel-Buffering: no, so proxies pass events on at once",
			Run:     checkXAccel},
		conform.Check{ID: "HTTP26-IGNORE-SESSION", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Session-Id on a stateless request is ignored: the request is served and no session id comes back",
			Run:     checkIgnoreSession},
		conform.Check{ID: "HTTP26-NO-RESUME", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "a POST carrying Last-Event-ID is served as if it had none",
			LevelReason: "The spec says streams are not resumable and the header is to be ignored, without a keyword of its own; the catalogue reads it as SHOULD.",
			Run:         checkNoResume},
		conform.Check{ID: "CANCEL26-HTTP-CLOSE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "closing the SSE stream of a running request cancels it: its work stops and is not finished",
			Run:     checkCancelOnClose},
	)
}

// modernDo sends method with params (required _meta added) as one HTTP request shaped by r,
// and returns the reply and its delivery.
func modernDo(t *conform.T, method string, params map[string]any, r streamhttp.Request) (jsonrpc.Message, *wire.Delivery, error) {
	id := t.S.NextID()
	frame := rawRequest(id, method, t.S.ModernParams(params))
	t.S.Sent(id, method)
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, frame, r)
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return resp, d, err
}

// servedFinding judges a request that must be served normally: HTTP 200 and a result.
func servedFinding(what string, resp jsonrpc.Message, d *wire.Delivery, err error) (conform.Finding, bool) {
	switch {
	case err != nil:
		return conform.Violated("%s got no JSON-RPC reply (HTTP %d): %v", what, d.Status, err), false
	case d.Status != http.StatusOK:
		return conform.Violated("%s got HTTP %d, want 200: %s", what, d.Status, show(resp)), false
	case resp.HasError:
		return conform.Violated("%s was refused: %s", what, show(resp)), false
	}
	return conform.Finding{}, true
}

// headerRefused reports whether a reply is a refusal of the request's headers: HTTP 400, or a
// -32020 error.
func headerRefused(resp jsonrpc.Message, d *wire.Delivery) bool {
	if d.Status == http.StatusBadRequest {
		return true
	}
	code, _ := errorCode(resp)
	return resp.HasError && code == codeHeaderMismatch
}

// base64Header is value in the =?base64?…?= form of header values.
func base64Header(value string) string {
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(value)) + "?="
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func checkUnsupported400(t *conform.T) conform.Finding {
	const bogus = "1900-01-01"
	meta := map[string]any{harness.MetaProtocolVersion: bogus, harness.MetaClientCapabilities: map[string]any{}}
	resp, d, err := modernRequest(t, "server/discover", map[string]any{"_meta": meta}, http.Header{streamhttp.HeaderProtocol: {bogus}})
	if d.Status != http.StatusBadRequest {
		return conform.Violated("protocol version %s in header and body got HTTP %d, want 400: %s", bogus, d.Status, show(resp))
	}
	if err != nil {
		return conform.Violated("protocol version %s got HTTP 400 without a JSON-RPC error: %v", bogus, err)
	}
	if ok, why := expectError(resp, codeUnsupportedVersion); !ok {
		return conform.Violated("protocol version %s: %s", bogus, why)
	}
	e, _ := resp.ErrorObject()
	var data struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(e.Data, &data) != nil || len(data.Supported) == 0 {
		return conform.Violated("the -32022 error's data does not list the supported versions: %s", string(e.Data))
	}
	return conform.Passed("")
}

// namedMethods are the methods that must carry Mcp-Name, with the capability that offers them
// and params naming something that does not exist.
var namedMethods = []struct {
	cap, method string
	params      map[string]any
}{
	{"tools", "tools/call", map[string]any{"name": "mcpspec-no-such-tool", "arguments": map[string]any{}}},
	{"resources", "resources/read", map[string]any{"uri": "mcpspec://no-such-resource"}},
	{"prompts", "prompts/get", map[string]any{"name": "mcpspec-no-such-prompt"}},
}

func checkStdHeaders(t *conform.T) conform.Finding {
	method := listMethodModern(t)
	resp, d, err := modernDo(t, method, nil, streamhttp.Request{NoModernHeaders: true})
	if f := expectHeaderMismatch(t, method+" without Mcp-Method", resp, d, err); f.Outcome != conform.Pass {
		return f
	}
	var judged []string
	for _, nm := range namedMethods {
		if !t.S.HasCapability(nm.cap) {
			continue
		}
		resp, d, err := modernDo(t, nm.method, nm.params, streamhttp.Request{NoModernHeaders: true, Header: http.Header{streamhttp.HeaderMethod: {nm.method}}})
		if f := expectHeaderMismatch(t, nm.method+" without Mcp-Name", resp, d, err); f.Outcome != conform.Pass {
			return f
		}
		judged = append(judged, nm.method)
	}
	if len(judged) == 0 {
		return conform.Passed("Mcp-Method judged; the server offers no tools, resources or prompts, so no Mcp-Name could be")
	}
	return conform.Passed("Mcp-Method and Mcp-Name (%s) judged", strings.Join(judged, ", "))
}

// namedTarget is a real thing a named method can be called on without side effects where
// possible: a listed resource, a prompt without required arguments, or the slow tool.
func namedTarget(t *conform.T) (method, name string, params map[string]any, ok bool) {
	if t.S.HasCapability("resources") {
		if resp, err := t.S.Request(t.Ctx, "resources/list", nil); err == nil {
			var r struct {
				Resources []struct {
					URI string `json:"uri"`
				} `json:"resources"`
			}
			if json.Unmarshal(resp.Result, &r) == nil && len(r.Resources) > 0 && r.Resources[0].URI != "" {
				uri := r.Resources[0].URI
				return "resources/read", uri, map[string]any{"uri": uri}, true
			}
		}
	}
	if t.S.HasCapability("prompts") {
		if resp, err := t.S.Request(t.Ctx, "prompts/list", nil); err == nil {
			var r struct {
				Prompts []struct {
					Name      string `json:"name"`
					Arguments []struct {
						Required bool `json:"required"`
					} `json:"arguments"`
				} `json:"prompts"`
			}
			_ = json.Unmarshal(resp.Result, &r)
			for _, p := range r.Prompts {
				if p.Name != "" && !slices.ContainsFunc(p.Arguments, func(a struct {
					Required bool `json:"required"`
				}) bool {
					return a.Required
				}) {
					return "prompts/get", p.Name, map[string]any{"name": p.Name}, true
				}
			}
		}
	}
	if tool := t.Options().SlowTool; tool != "" && t.S.HasCapability("tools") {
		return "tools/call", tool, map[string]any{"name": tool, "arguments": json.RawMessage(t.Options().SlowToolArgs)}, true
	}
	return "", "", nil, false
}

func checkB64Decode(t *conform.T) conform.Finding {
	method, name, params, ok := namedTarget(t)
	if !ok {
		return conform.CannotTest("needs something real to name: a listed resource, a prompt without required arguments, or a tool named with --slow-tool")
	}
	encoded := base64Header(name)
	resp, d, err := modernDo(t, method, params, streamhttp.Request{Header: http.Header{streamhttp.HeaderName: {encoded}}})
	if f, ok := servedFinding(fmt.Sprintf("%s of %q with Mcp-Name: %s", method, name, encoded), resp, d, err); !ok {
		return f
	}
	other := base64Header(name + "-mcpspec-other")
	resp, d, err = modernDo(t, method, params, streamhttp.Request{Header: http.Header{streamhttp.HeaderName: {other}}})
	return expectHeaderMismatch(t, fmt.Sprintf("%s of %q with Mcp-Name: %s (another name, encoded)", method, name, other), resp, d, err)
}

// markedParam is a tool property marked with x-mcp-header.
type markedParam struct {
	tool, prop, header, typ string
	schema                  map[string]any
}

// listTools returns every tool the server lists, across all pages (nil when it offers none).
func listTools(t *conform.T) ([]map[string]any, error) {
	if !t.S.HasCapability("tools") {
		return nil, nil
	}
	w, err := walkList(t, t.S, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	tools := make([]map[string]any, 0, len(w.items))
	for _, raw := range w.items {
		var tool map[string]any
		if json.Unmarshal(raw, &tool) != nil {
			return nil, fmt.Errorf("tools/list listed a tool that is not an object: %s", raw)
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// usableMarks are the top-level properties marked with a well-formed x-mcp-header, of the
// types wanted (any when none given).
func usableMarks(t *conform.T, types ...string) ([]markedParam, *conform.Finding) {
	tools, err := listTools(t)
	if err != nil {
		f := conform.Violated("%v", err)
		return nil, &f
	}
	var out []markedParam
	for _, tool := range tools {
		name, _ := tool["name"].(string)
		schema, _ := tool["inputSchema"].(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, prop := range keys {
			ps, _ := props[prop].(map[string]any)
			header, _ := ps["x-mcp-header"].(string)
			typ, _ := ps["type"].(string)
			if header == "" || !tokenRE.MatchString(header) || (len(types) > 0 && !slices.Contains(types, typ)) {
				continue
			}
			out = append(out, markedParam{tool: name, prop: prop, header: header, typ: typ, schema: ps})
		}
	}
	return out, nil
}

// needMark finds a marked parameter of one of types, or says why the check cannot run.
func needMark(t *conform.T, types ...string) (markedParam, *conform.Finding) {
	marks, f := usableMarks(t, types...)
	if f != nil {
		return markedParam{}, f
	}
	if len(marks) == 0 {
		f := conform.CannotTest("no tool in tools/list marks a %s parameter with x-mcp-header, so there is no Mcp-Param header to send", strings.Join(types, " or "))
		return markedParam{}, &f
	}
	return marks[0], nil
}

// sample returns a value for p, its header form, and the header form of another value.
func (p markedParam) sample() (value any, header, otherHeader string) {
	switch p.typ {
	case "integer":
		return 42, "42", "43"
	case "boolean":
		return true, "true", "false"
	}
	v, o := "mcpspec-a", "mcpspec-b"
	if enum, _ := p.schema["enum"].([]any); len(enum) > 1 {
		s1, ok1 := enum[0].(string)
		s2, ok2 := enum[1].(string)
		if ok1 && ok2 && isPlainHeaderValue(s1) && isPlainHeaderValue(s2) {
			v, o = s1, s2
		}
	}
	return v, v, o
}

func isPlainHeaderValue(s string) bool {
	return s != "" && strings.TrimSpace(s) == s && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r > 0x7e })
}

// callMarked calls p's tool with p's argument set to value (nil: absent) and the header values
// given (nil: no Mcp-Param header).
func callMarked(t *conform.T, p markedParam, value any, header []string) (jsonrpc.Message, *wire.Delivery, error) {
	args := map[string]any{}
	if value != nil {
		args[p.prop] = value
	}
	h := http.Header{}
	if header != nil {
		h["Mcp-Param-"+p.header] = header
	}
	return modernDo(t, "tools/call", map[string]any{"name": p.tool, "arguments": args}, streamhttp.Request{Header: h})
}

func checkParamHeader(t *conform.T) conform.Finding {
	p, f := needMark(t, "string", "integer", "boolean")
	if f != nil {
		return *f
	}
	value, hv, hOther := p.sample()
	what := fmt.Sprintf("tools/call %s with %s=%v", p.tool, p.prop, value)
	if resp, d, err := callMarked(t, p, value, []string{hv}); err != nil || headerRefused(resp, d) {
		return conform.Violated("%s and a matching Mcp-Param-%s: %s was refused (HTTP %d): %s %v", what, p.header, hv, d.Status, show(resp), err)
	}
	resp, d, err := callMarked(t, p, value, []string{hOther})
	if f := expectHeaderMismatch(t, fmt.Sprintf("%s but Mcp-Param-%s: %s", what, p.header, hOther), resp, d, err); f.Outcome != conform.Pass {
		return f
	}
	resp, d, err = callMarked(t, p, value, nil)
	if f := expectHeaderMismatch(t, fmt.Sprintf("%s without Mcp-Param-%s", what, p.header), resp, d, err); f.Outcome != conform.Pass {
		return f
	}
	if resp, d, err := callMarked(t, p, nil, nil); err != nil || headerRefused(resp, d) {
		return conform.Violated("tools/call %s without %s and without Mcp-Param-%s was refused (HTTP %d): %s %v", p.tool, p.prop, p.header, d.Status, show(resp), err)
	}
	return conform.Passed("judged on %s.%s (Mcp-Param-%s)", p.tool, p.prop, p.header)
}

func checkParamInvalidChars(t *conform.T) conform.Finding {
	p, f := needMark(t, "string")
	if f != nil {
		return *f
	}
	const raw = "z\u00fcrich-mcpspec" // raw UTF-8 bytes, not allowed unencoded in a header value
	resp, d, err := callMarked(t, p, raw, []string{raw})
	what := fmt.Sprintf("tools/call %s with %s=%q and the same raw UTF-8 bytes in Mcp-Param-%s", p.tool, p.prop, raw, p.header)
	if err := waitReady(t, d); err != nil {
		return conform.Violated("%s: %v", what, err)
	}
	if d.Status != http.StatusBadRequest {
		return conform.Violated("%s got HTTP %d, want 400: %s %v", what, d.Status, show(resp), err)
	}
	return conform.Passed("")
}

// tokenRE is an HTTP field-name token (RFC 9110 tchar).
var tokenRE = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+\\-.^_`|~]+$")

// headerMark is an x-mcp-header found anywhere in a schema.
type headerMark struct {
	path      string // JSON pointer-ish path of the schema holding it
	prop      string // the property name, when it sits on a property
	value     any
	reachable bool // reached from the root through properties alone
	schema    map[string]any
}

// findMarks walks a schema for x-mcp-header annotations. prop is the property name when node
// is a property's schema; reachable says whether node was reached through properties alone.
func findMarks(node any, path, prop string, reachable bool, out *[]headerMark) {
	switch n := node.(type) {
	case map[string]any:
		if v, ok := n["x-mcp-header"]; ok {
			*out = append(*out, headerMark{path: path, prop: prop, value: v, reachable: reachable && prop != "", schema: n})
		}
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "properties" {
				if props, ok := n[k].(map[string]any); ok {
					names := make([]string, 0, len(props))
					for name := range props {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						findMarks(props[name], path+"/properties/"+name, name, reachable, out)
					}
					continue
				}
			}
			findMarks(n[k], path+"/"+k, "", false, out)
		}
	case []any:
		for i, e := range n {
			findMarks(e, fmt.Sprintf("%s/%d", path, i), "", false, out)
		}
	}
}

// primitiveType reports whether a schema's type is string, integer or boolean (possibly
// together with null).
func primitiveType(schema map[string]any) bool {
	allowed := []string{"string", "integer", "boolean"}
	switch typ := schema["type"].(type) {
	case string:
		return slices.Contains(allowed, typ)
	case []any:
		n := 0
		for _, e := range typ {
			s, _ := e.(string)
			switch {
			case s == "null":
			case slices.Contains(allowed, s):
				n++
			default:
				return false
			}
		}
		return n == 1
	}
	return false
}

// markProblems lists what is wrong with the x-mcp-header annotations of one inputSchema.
func markProblems(marks []headerMark) []string {
	var problems []string
	seen := map[string]string{}
	for _, m := range marks {
		s, isString := m.value.(string)
		switch {
		case !isString || s == "":
			problems = append(problems, fmt.Sprintf("%s: x-mcp-header %v is not a non-empty string", m.path, m.value))
			continue
		case !tokenRE.MatchString(s):
			problems = append(problems, fmt.Sprintf("%s: x-mcp-header %q is not an HTTP token", m.path, s))
		}
		if first, dup := seen[strings.ToLower(s)]; dup {
			problems = append(problems, fmt.Sprintf("%s: x-mcp-header %q repeats %s ignoring case", m.path, s, first))
		} else {
			seen[strings.ToLower(s)] = fmt.Sprintf("%q at %s", s, m.path)
		}
		if !m.reachable {
			problems = append(problems, fmt.Sprintf("%s: x-mcp-header %q is not on a property reachable through properties alone", m.path, s))
		}
		if !primitiveType(m.schema) {
			problems = append(problems, fmt.Sprintf("%s: x-mcp-header %q is on a property whose type %v is not string, integer or boolean", m.path, s, m.schema["type"]))
		}
	}
	return problems
}

// toolMarks returns every tool's x-mcp-header annotations, by tool name.
func toolMarks(t *conform.T) (map[string][]headerMark, int, error) {
	tools, err := listTools(t)
	if err != nil {
		return nil, 0, err
	}
	out := map[string][]headerMark{}
	for _, tool := range tools {
		name, _ := tool["name"].(string)
		var marks []headerMark
		findMarks(tool["inputSchema"], "inputSchema", "", true, &marks)
		if len(marks) > 0 {
			out[name] = marks
		}
	}
	return out, len(tools), nil
}

func checkXMCPHeaderDef(t *conform.T) conform.Finding {
	byTool, n, err := toolMarks(t)
	if err != nil {
		return conform.Violated("%v", err)
	}
	if len(byTool) == 0 {
		return conform.Passed("none of the %d tools listed marks a parameter with x-mcp-header: nothing to judge", n)
	}
	names := make([]string, 0, len(byTool))
	for name := range byTool {
		names = append(names, name)
	}
	sort.Strings(names)
	count := 0
	for _, name := range names {
		count += len(byTool[name])
		if problems := markProblems(byTool[name]); len(problems) > 0 {
			return conform.Violated("tool %q: %s", name, strings.Join(problems, "; "))
		}
	}
	return conform.Passed("%d x-mcp-header annotations in %d tools are well-formed", count, len(names))
}

// sensitiveRE matches names of parameters that look like secrets or personal data.
var sensitiveRE = regexp.MustCompile(`(?i)(passw|passphrase|secret|token|api[-_]?key|private[-_]?key|access[-_]?key|credential|authorization|cookie|session[-_]?id|ssn|social[-_]?security|credit[-_]?card)`)

func checkHeaderSensitive(t *conform.T) conform.Finding {
	byTool, n, err := toolMarks(t)
	if err != nil {
		return conform.Violated("%v", err)
	}
	if len(byTool) == 0 {
		return conform.Passed("none of the %d tools listed marks a parameter with x-mcp-header: nothing to judge", n)
	}
	var found []string
	for name, marks := range byTool {
		for _, m := range marks {
			header, _ := m.value.(string)
			if sensitiveRE.MatchString(m.prop) || sensitiveRE.MatchString(header) {
				found = append(found, fmt.Sprintf("%s.%s (x-mcp-header %q)", name, m.prop, header))
			}
		}
	}
	if len(found) > 0 {
		sort.Strings(found)
		return conform.Violated("parameters that look sensitive are mirrored into headers: %s", strings.Join(found, ", "))
	}
	return conform.Passed("no marked parameter's name looks sensitive (a name heuristic)")
}

func checkIntNumeric(t *conform.T) conform.Finding {
	p, f := needMark(t, "integer")
	if f != nil {
		return *f
	}
	if resp, d, err := callMarked(t, p, 42, []string{"42"}); err != nil || headerRefused(resp, d) {
		return conform.CannotTest("tools/call %s with %s=42 and Mcp-Param-%s: 42 was refused already (HTTP %d): %s %v", p.tool, p.prop, p.header, d.Status, show(resp), err)
	}
	resp, d, err := callMarked(t, p, 42, []string{"42.0"})
	if err != nil || headerRefused(resp, d) {
		return conform.Violated("tools/call %s with %s=42 and Mcp-Param-%s: 42.0 was refused (HTTP %d), though the numbers are equal: %s %v", p.tool, p.prop, p.header, d.Status, show(resp), err)
	}
	return conform.Passed("judged on %s.%s", p.tool, p.prop)
}

func checkHeaderCase(t *conform.T) conform.Finding {
	method := listMethodModern(t)
	for _, names := range [][2]string{{"mcp-protocol-version", "mcp-method"}, {"MCP-PROTOCOL-VERSION", "MCP-METHOD"}} {
		r := streamhttp.Request{NoProtocol: true, NoModernHeaders: true, RawHeader: http.Header{names[0]: {t.Revision}, names[1]: {method}}}
		resp, d, err := modernDo(t, method, nil, r)
		if f, ok := servedFinding(fmt.Sprintf("%s with headers named %s and %s", method, names[0], names[1]), resp, d, err); !ok {
			return f
		}
	}
	upper := strings.ToUpper(method)
	resp, d, err := modernRequest(t, method, nil, http.Header{streamhttp.HeaderMethod: {upper}})
	return expectHeaderMismatch(t, fmt.Sprintf("%s with Mcp-Method: %s", method, upper), resp, d, err)
}

// modernSlowCall calls the slow tool with a progress token on the session's connection and
// waits for its response and for the end of its HTTP response.
func modernSlowCall(t *conform.T) (*wire.Delivery, []wire.Received, *conform.Finding) {
	if f, ok := needSlowTool(t); !ok {
		return nil, nil, &f
	}
	id := t.S.NextID()
	frame := slowFrame(t, id, t.Options().SlowTool, json.RawMessage(t.Options().SlowToolArgs), "mcpspec-progress-"+randomHex(4))
	t.S.Sent(id, "tools/call")
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, frame, streamhttp.Request{})
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		f := conform.Violated("the slow tool %q with a progress token got no response: %v", t.Options().SlowTool, err)
		return d, nil, &f
	}
	ctx, cancel := contextWithTimeout(t, t.S.Env().Timeouts.Request)
	defer cancel()
	if err := d.Finished(ctx); err != nil {
		f := conform.Violated("the response to the slow tool did not end within %s after its JSON-RPC response", t.S.Env().Timeouts.Request)
		return d, nil, &f
	}
	var got []wire.Received
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if r.Via == d {
			got = append(got, r)
		}
	}
	return d, got, nil
}

// slowFrame is a modern tools/call of tool with args and a progress token.
func slowFrame(t *conform.T, id jsonrpc.ID, tool string, args any, token string) []byte {
	meta := map[string]any{
		harness.MetaProtocolVersion:    t.Revision,
		harness.MetaClientCapabilities: map[string]any{},
		harness.MetaClientInfo:         harness.ClientInfo,
		"progressToken":                token,
	}
	return rawRequest(id, "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": meta})
}

func isEventStream(d *wire.Delivery) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(d.ContentType)), "text/event-stream")
}

func checkNoStreamRequests(t *conform.T) conform.Finding {
	d, got, f := modernSlowCall(t)
	if f != nil {
		return *f
	}
	if !isEventStream(d) {
		return conform.CannotTest("the slow tool with a progress token was answered as %q, not an SSE stream: nothing to judge", d.ContentType)
	}
	for _, r := range got {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Request {
				return conform.Violated("the SSE stream answering tools/call carried a request: %s", show(m))
			}
		}
	}
	return conform.Passed("%d messages on the stream, none a request", len(got))
}

func checkXAccel(t *conform.T) conform.Finding {
	d, _, f := modernSlowCall(t)
	if f != nil {
		return *f
	}
	if !isEventStream(d) {
		return conform.CannotTest("the slow tool with a progress token was answered as %q, not an SSE stream: nothing to judge", d.ContentType)
	}
	if v := d.Header.Values("X-Accel-Buffering"); len(v) != 1 || !strings.EqualFold(strings.TrimSpace(v[0]), "no") {
		return conform.Violated("the SSE response has X-Accel-Buffering %q, want no", v)
	}
	return conform.Passed("")
}

func checkIgnoreSession(t *conform.T) conform.Finding {
	method := listMethodModern(t)
	sid := randomHex(16)
	resp, d, err := modernRequest(t, method, nil, http.Header{streamhttp.HeaderSession: {sid}})
	if f, ok := servedFinding(fmt.Sprintf("%s with Mcp-Session-Id: %s", method, sid), resp, d, err); !ok {
		return f
	}
	if got := d.Header.Get(streamhttp.HeaderSession); got != "" {
		return conform.Violated("a stateless %s with Mcp-Session-Id %s was answered with Mcp-Session-Id: %s", method, sid, got)
	}
	return conform.Passed("")
}

func checkNoResume(t *conform.T) conform.Finding {
	method := listMethodModern(t)
	resp, d, err := modernRequest(t, method, nil, http.Header{"Last-Event-ID": {"mcpspec-1"}})
	if f, ok := servedFinding(method+" with Last-Event-ID: mcpspec-1", resp, d, err); !ok {
		return f
	}
	return conform.Passed("")
}

// The effect of closing a stream is invisible on that stream: only a later request can show
// whether the work went on. The reference server's slow tool logs a run under a key, and its
// slow_outcome tool says how that run ended; a server without both cannot be judged.
const (
	probeSlowTool    = "slow"
	probeOutcomeTool = "slow_outcome"
	probeStepMs      = 20
	probeMaxSteps    = 1000
	probeMaxWait     = 10 * time.Second
)

// hasCancelProbe reports whether tools/list offers the slow tool with a key and slow_outcome.
func hasCancelProbe(t *conform.T) (bool, error) {
	tools, err := listTools(t)
	if err != nil {
		return false, err
	}
	slow, outcome := false, false
	for _, tool := range tools {
		schema, _ := tool["inputSchema"].(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		switch tool["name"] {
		case probeSlowTool:
			_, slow = props["key"]
		case probeOutcomeTool:
			_, outcome = props["key"]
		}
	}
	return slow && outcome, nil
}

func checkCancelOnClose(t *conform.T) conform.Finding {
	ok, err := hasCancelProbe(t)
	if err != nil {
		return conform.Violated("%v", err)
	}
	if !ok {
		return conform.CannotTest("needs tools a black-box client can see cancelled work with: %q taking a key, and %q reporting how that run ended (the mcpspec reference server has both); without them the end of a closed stream's work cannot be observed",
			probeSlowTool, probeOutcomeTool)
	}
	// The run must outlast the wait for its outcome by far, so that only a cancellation ends it
	// within the wait.
	wait := min(t.S.Env().Timeouts.Request/2, probeMaxWait)
	steps := min(probeMaxSteps, 3*int(wait/time.Millisecond)/probeStepMs+20)
	key := "mcpspec-" + randomHex(8)

	s2, err := t.Connect()
	if err != nil {
		return conform.Failed(fmt.Errorf("another connection: %w", err))
	}
	hc2, isHTTP := s2.Conn.(*streamhttp.Conn)
	if !isHTTP {
		return conform.Failed(fmt.Errorf("another connection is not Streamable HTTP"))
	}
	hc2.SetProtocolVersion(t.Revision)
	hc2.SetModern(true)
	id := s2.NextID()
	frame := slowFrame(t, id, probeSlowTool, map[string]any{"steps": steps, "stepMs": probeStepMs, "key": key}, "mcpspec-progress-"+randomHex(4))
	s2.Sent(id, "tools/call")
	from := s2.Mark()
	d, err := s2.Send(t.Ctx, frame)
	if err != nil {
		return conform.Failed(fmt.Errorf("sending the slow call: %w", err))
	}
	// The first progress notification shows the work running on an open stream.
	if _, err := s2.WaitFor(t.Ctx, d, from, func(r wire.Received) bool {
		return slices.ContainsFunc(flatten(r.Msg), func(m jsonrpc.Message) bool { return m.Method == "notifications/progress" })
	}); err != nil {
		return conform.CannotTest("the %s call (%d steps of %d ms) sent no progress on its stream, so it cannot be seen running before the close: %v", probeSlowTool, steps, probeStepMs, err)
	}
	if !isEventStream(d) {
		return conform.CannotTest("the %s call was answered as %q, not an SSE stream", probeSlowTool, d.ContentType)
	}
	closedAt := time.Now()
	_ = hc2.Close()

	resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": probeOutcomeTool, "arguments": map[string]any{"key": key, "waitMs": int(wait / time.Millisecond)}})
	if err != nil {
		return conform.Violated("%s got no response: %v", probeOutcomeTool, err)
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(resp.Result, &r) != nil || len(r.Content) == 0 {
		return conform.CannotTest("%s did not answer with text content: %s", probeOutcomeTool, show(resp))
	}
	switch outcome := r.Content[0].Text; outcome {
	case "cancelled":
		return conform.Passed("the run ended cancelled after its stream was closed (reported %s after the close)", time.Since(closedAt).Round(time.Millisecond))
	case "finished":
		return conform.Violated("the %s run (key %s) finished its work although its SSE stream was closed mid-way", probeSlowTool, key)
	case "running":
		return conform.Violated("the %s run (key %s) was still running %s after its SSE stream was closed", probeSlowTool, key, wait)
	default:
		return conform.CannotTest("%s reported %q for key %s: the run was not logged", probeOutcomeTool, outcome, key)
	}
}
