package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/transports/streamable-http § Protocol Version Header, Standard Request Headers and
// custom (x-mcp-header) request headers, and the bodies of the stateless revision's refusals.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-PROTO-HEADER-INVALID", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "an invalid or unsupported MCP-Protocol-Version header is answered 400",
			Side:    conform.Server{Run: checkProtocolHeaderInvalid}},
		conform.Check{ID: "HTTP-PROTO-HEADER-DEFAULT", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a request without MCP-Protocol-Version is still served (the negotiated revision applies)",
			Side:    conform.Server{Run: checkProtocolHeaderDefault}},
		conform.Check{ID: "HTTP26-METHOD-404", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an unknown method is answered with HTTP 404 carrying the -32601 error",
			Side:    conform.Server{Run: checkMethod404}},
		conform.Check{ID: "HTTP26-PROTO-MISMATCH", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an MCP-Protocol-Version header that differs from the body's protocol version is refused with 400 and -32020",
			Side:    conform.Server{Run: checkProtocolMismatch}},
		conform.Check{ID: "HTTP26-HEADER-MISMATCH", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Method header that differs from the body's method is refused with 400 and -32020",
			Side:    conform.Server{Run: checkHeaderMismatch}},
		conform.Check{ID: "HTTP26-UNSUPPORTED-400", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "a request whose header and body name an unsupported protocol version gets HTTP 400 with -32022 listing the supported versions",
			Side:    conform.Server{Run: checkUnsupported400}},
		conform.Check{ID: "HTTP26-STD-HEADERS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "a request without Mcp-Method, or a tools/call, resources/read or prompts/get without Mcp-Name, is refused with 400 and -32020",
			LevelReason: "The spec calls the headers REQUIRED, which RFC 2119 makes equal to MUST. The names sent do not exist, so nothing runs on a server that wrongly serves them.",
			Side:        conform.Server{Run: checkStdHeaders}},
		conform.Check{ID: "HTTP26-B64-DECODE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Name sent as =?base64?…?= is decoded: the real name is served, an encoded different name is refused with -32020",
			Side:    conform.Server{Run: checkB64Decode}},
		conform.Check{ID: "HTTP26-PARAM-HEADER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an Mcp-Param header of an x-mcp-header parameter must match the argument: a wrong or missing one is refused with 400 and -32020, a matching one is not",
			Side:    conform.Server{Run: checkParamHeader}},
		conform.Check{ID: "HTTP26-PARAM-INVALID-CHARS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "a recognised Mcp-Param header holding raw non-ASCII bytes is refused with 400",
			Side:    conform.Server{Run: checkParamInvalidChars}},
		conform.Check{ID: "HTTP26-XMCPHEADER-DEF", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "every x-mcp-header in tools/list is a non-empty token, unique ignoring case within its schema, on a string, integer or boolean property reachable through properties alone",
			Side:    conform.Server{Run: checkXMCPHeaderDef}},
		conform.Check{ID: "HTTP26-HEADER-SENSITIVE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "no parameter that looks secret (password, token, API key, …) is marked with x-mcp-header",
			LevelReason: "SHOULD NOT in the spec; judged by the names of the property and its header, a heuristic, so a violation is a warning.",
			Side:        conform.Server{Run: checkHeaderSensitive}},
		conform.Check{ID: "HTTP26-INT-NUMERIC", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "an integer Mcp-Param header is compared with the argument as a number: 42.0 matches 42",
			Side:    conform.Server{Run: checkIntNumeric}},
		conform.Check{ID: "HTTP26-HEADER-CASE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "header names are matched ignoring case (lower- and upper-case names are served), header values are not (Mcp-Method in capitals is refused with -32020)",
			Side:    conform.Server{Run: checkHeaderCase}},
		conform.Check{ID: "HTTP26-MODERN-ERROR-BODY", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary:     "every 400 or 404 a stateless request provokes (unknown method, unsupported version, missing _meta field, header mismatch) carries a JSON-RPC error body",
			LevelReason: "The catalogue files this as guidance: the backward-compatibility section explains why dual-era clients need a readable error body, without a keyword. A plain body breaks their fallback, so it is a warning.",
			Side:        conform.Server{Run: checkStatelessErrorBody}},
		conform.Check{ID: "HTTP26-PROTO-HEADER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: httpOnly,
			Summary: "a stateless-only server refuses a POST without MCP-Protocol-Version with 400 and -32020",
			Side:    conform.Server{Connection: conform.Raw, StatelessOnlyServer: true, Run: checkProtoHeaderRequired}},
	)
}

func checkProtocolHeaderInvalid(t *conform.T) conform.Finding {
	for _, v := range []string{unsupportedRevision, "garbage"} {
		d, err := post(t, rawRequest(t.S.NextID(), listMethod(t.S), nil), streamhttp.Request{Header: http.Header{streamhttp.HeaderProtocol: {v}}})
		if err != nil {
			return conform.Violated("%v", err)
		}
		if d.Status != http.StatusBadRequest {
			return conform.Violated("MCP-Protocol-Version: %s got HTTP %d, want 400", v, d.Status)
		}
	}
	return conform.Passed("")
}

func checkProtocolHeaderDefault(t *conform.T) conform.Finding {
	frame, id := pingFrame(t)
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, frame, streamhttp.Request{NoProtocol: true})
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	if err != nil || !resp.HasResult {
		return conform.Violated("a request without MCP-Protocol-Version was not served (HTTP %d): %v %s", d.Status, err, show(resp))
	}
	return conform.Passed("")
}

func checkMethod404(t *conform.T) conform.Finding {
	resp, d, err := statelessRequest(t, unknownMethod, nil, nil)
	if err != nil {
		return conform.Violated("%s got no JSON-RPC reply (HTTP %d): %v", unknownMethod, d.Status, err)
	}
	if ok, why := expectError(resp, codeMethodNotFound); !ok {
		return conform.Violated("%s: %s", unknownMethod, why)
	}
	if d.Status != http.StatusNotFound {
		return conform.Violated("%s was answered -32601 with HTTP %d, want 404", unknownMethod, d.Status)
	}
	return conform.Passed("")
}

// expectHeaderMismatch judges a request the server must refuse with 400 and -32020.
func expectHeaderMismatch(t *conform.T, what string, resp jsonrpc.Message, d *wire.Delivery, err error) conform.Finding {
	if d.Status != http.StatusBadRequest {
		return conform.Violated("%s got HTTP %d, want 400", what, d.Status)
	}
	if err != nil {
		return conform.Violated("%s got HTTP 400 without a JSON-RPC error: %v", what, err)
	}
	if ok, why := expectError(resp, codeHeaderMismatch); !ok {
		return conform.Violated("%s: %s", what, why)
	}
	return conform.Passed("")
}

func checkProtocolMismatch(t *conform.T) conform.Finding {
	meta := map[string]any{harness.MetaProtocolVersion: harness.Rev20251125, harness.MetaClientCapabilities: map[string]any{}}
	resp, d, err := statelessRequest(t, "server/discover", map[string]any{"_meta": meta}, http.Header{streamhttp.HeaderProtocol: {t.Revision}})
	return expectHeaderMismatch(t, fmt.Sprintf("MCP-Protocol-Version %s with %s in the body", t.Revision, harness.Rev20251125), resp, d, err)
}

func checkHeaderMismatch(t *conform.T) conform.Finding {
	resp, d, err := statelessRequest(t, "server/discover", nil, http.Header{streamhttp.HeaderMethod: {"tools/list"}})
	return expectHeaderMismatch(t, "Mcp-Method: tools/list on a server/discover request", resp, d, err)
}

// statelessDo sends method with params (required _meta added) as one HTTP request shaped by r,
// and returns the reply and its delivery.
func statelessDo(t *conform.T, method string, params map[string]any, r streamhttp.Request) (jsonrpc.Message, *wire.Delivery, error) {
	id := t.S.NextID()
	frame := rawRequest(id, method, t.S.StatelessParams(params))
	t.S.Sent(id, method)
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, frame, r)
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return resp, d, err
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

func checkUnsupported400(t *conform.T) conform.Finding {
	const bogus = "1900-01-01"
	meta := map[string]any{harness.MetaProtocolVersion: bogus, harness.MetaClientCapabilities: map[string]any{}}
	resp, d, err := statelessRequest(t, "server/discover", map[string]any{"_meta": meta}, http.Header{streamhttp.HeaderProtocol: {bogus}})
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
	method := listMethodStateless(t)
	resp, d, err := statelessDo(t, method, nil, streamhttp.Request{NoStatelessHeaders: true})
	if f := expectHeaderMismatch(t, method+" without Mcp-Method", resp, d, err); f.Outcome != conform.Pass {
		return f
	}
	var judged []string
	for _, nm := range namedMethods {
		if !t.S.HasCapability(nm.cap) {
			continue
		}
		resp, d, err := statelessDo(t, nm.method, nm.params, streamhttp.Request{NoStatelessHeaders: true, Header: http.Header{streamhttp.HeaderMethod: {nm.method}}})
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
	if t.S.HasCapability("tools") {
		if tt, f := safeTool(t); f == nil {
			args := tt.args
			if len(args) == 0 {
				args = json.RawMessage(`{}`)
			}
			return "tools/call", tt.name, map[string]any{"name": tt.name, "arguments": args}, true
		}
	}
	return "", "", nil, false
}

func checkB64Decode(t *conform.T) conform.Finding {
	method, name, params, ok := namedTarget(t)
	if !ok {
		return conform.CannotTest("needs something real to name: a listed resource, a prompt without required arguments, a listed read-only tool whose arguments mcpspec can build, or a tool named with --slow-tool")
	}
	encoded := base64Header(name)
	resp, d, err := statelessDo(t, method, params, streamhttp.Request{Header: http.Header{streamhttp.HeaderName: {encoded}}})
	if f, ok := servedFinding(fmt.Sprintf("%s of %q with Mcp-Name: %s", method, name, encoded), resp, d, err); !ok {
		return f
	}
	other := base64Header(name + "-mcpspec-other")
	resp, d, err = statelessDo(t, method, params, streamhttp.Request{Header: http.Header{streamhttp.HeaderName: {other}}})
	return expectHeaderMismatch(t, fmt.Sprintf("%s of %q with Mcp-Name: %s (another name, encoded)", method, name, other), resp, d, err)
}

// markedParam is a tool property marked with x-mcp-header.
type markedParam struct {
	tool, prop, header, typ string
	schema                  map[string]any
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
		name := tool.name
		schema, _ := tool.member("inputSchema").(map[string]any)
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
			if header == "" || !tokenRE().MatchString(header) || (len(types) > 0 && !slices.Contains(types, typ)) {
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
	return statelessDo(t, "tools/call", map[string]any{"name": p.tool, "arguments": args}, streamhttp.Request{Header: h})
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
var tokenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[A-Za-z0-9!#$%&'*+\\-.^_`|~]+$") })

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
		case !tokenRE().MatchString(s):
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
		name := tool.name
		var marks []headerMark
		findMarks(tool.member("inputSchema"), "inputSchema", "", true, &marks)
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
var sensitiveRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(passw|passphrase|secret|token|api[-_]?key|private[-_]?key|access[-_]?key|credential|authorization|cookie|session[-_]?id|ssn|social[-_]?security|credit[-_]?card)`)
})

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
			if sensitiveRE().MatchString(m.prop) || sensitiveRE().MatchString(header) {
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
	method := listMethodStateless(t)
	for _, names := range [][2]string{{"mcp-protocol-version", "mcp-method"}, {"MCP-PROTOCOL-VERSION", "MCP-METHOD"}} {
		r := streamhttp.Request{NoProtocol: true, NoStatelessHeaders: true, RawHeader: http.Header{names[0]: {t.Revision}, names[1]: {method}}}
		resp, d, err := statelessDo(t, method, nil, r)
		if f, ok := servedFinding(fmt.Sprintf("%s with headers named %s and %s", method, names[0], names[1]), resp, d, err); !ok {
			return f
		}
	}
	upper := strings.ToUpper(method)
	resp, d, err := statelessRequest(t, method, nil, http.Header{streamhttp.HeaderMethod: {upper}})
	return expectHeaderMismatch(t, fmt.Sprintf("%s with Mcp-Method: %s", method, upper), resp, d, err)
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
			params: map[string]any{"_meta": statelessMeta(bogus, nil)},
			header: http.Header{streamhttp.HeaderProtocol: {bogus}}},
		{what: "_meta without clientCapabilities", method: "server/discover",
			params: map[string]any{"_meta": statelessMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: nil})}},
		{what: "an Mcp-Method header that differs from the body", method: "server/discover",
			header: http.Header{"Mcp-Method": {"tools/list"}}},
	}
}

func checkStatelessErrorBody(t *conform.T) conform.Finding {
	refused := 0
	for _, p := range errorBodyProbes(t) {
		resp, d, err := statelessRequest(t, p.method, p.params, p.header)
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

func checkProtoHeaderRequired(t *conform.T) conform.Finding {
	resp, _, _ := legacyInitialize(t)
	if f, na := dualEra(t, resp); na {
		return f
	}
	meta := map[string]any{harness.MetaProtocolVersion: t.Revision, harness.MetaClientCapabilities: map[string]any{}, harness.MetaClientInfo: harness.ClientInfo}
	id := t.S.NextID()
	from := t.S.Mark()
	d := httpConn(t).Do(t.Ctx, rawRequest(id, "server/discover", map[string]any{"_meta": meta}),
		streamhttp.Request{NoProtocol: true, NoSession: true, Header: http.Header{streamhttp.HeaderMethod: {"server/discover"}}})
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return expectHeaderMismatch(t, "server/discover POSTed without MCP-Protocol-Version", resp, d, err)
}
