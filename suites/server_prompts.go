package suites

import (
	"encoding/json"
	"fmt"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of server/prompts: the capability, the shapes of lists and prompts, the errors for unknown
// prompts and bad arguments, embedded resources, and the content types prompts share with tools
// and resources.

func init() {
	conform.Register(
		conform.Check{ID: "PROMPT26-LIST-STABLE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "prompts/list gives the same prompts on another connection and after other requests",
			Side:    conform.Server{Run: listStable("prompts")}},
		conform.Check{ID: "PROMPT-CAP", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "a server that lists prompts declares the prompts capability, and one that declares it serves prompts/list",
			Side:    conform.Server{Run: capabilityCheck("prompts", "prompts/list", "prompts")}},
		conform.Check{ID: "PROMPT-SCHEMA", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "every page of prompts/list, and prompts/get of each listed prompt, validates against the revision's schema",
			LevelReason: "A schema row: the revision's schema defines the results, so a result outside it is malformed.",
			Side:        conform.Server{Run: checkPromptSchema}},
		conform.Check{ID: "PROMPT-INVALID-NAME", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "prompts/get of a name the server does not have gets -32602",
			Side:    conform.Server{Run: checkPromptInvalidName}},
		conform.Check{ID: "PROMPT-MISSING-ARGS", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "prompts/get without a required argument gets -32602",
			Side:    conform.Server{Run: checkPromptMissingArgs}},
		conform.Check{ID: "PROMPT-VALIDATE-ARGS", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary:     "prompts/get with an argument value that is not a string is refused with an error",
			LevelReason: "mcpspec reads 'validate prompt arguments' narrowly: argument values are strings in every revision's schema, so a number in their place must not be processed.",
			Side:        conform.Server{Run: checkPromptValidateArgs}},
		conform.Check{ID: "PROMPT-EMBEDDED-RES", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a resource embedded in a prompt message has a valid URI and either text or base64 blob",
			LevelReason: "The prose also asks for a MIME type, which every revision's schema leaves optional; mcpspec fails a missing or invalid uri and text/blob, and only notes a missing mimeType.",
			Side:        conform.Server{Run: checkPromptEmbeddedRes}},
		conform.Check{ID: "PROMPT-LISTCHANGED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "a server declaring prompts.listChanged announces a change of its prompts list (at 2026-07-28 on a listen stream that asked for it)",
			Side:    conform.Server{Connection: conform.Exclusive, StatelessFresh: true, LeavesGetOpen: true, Ready: listChangedReady("prompts"), Run: listChangedCheck("prompts", "prompts/list", "prompts", "notifications/prompts/list_changed", "promptsListChanged")}},
		conform.Check{ID: "CONTENT-BASE64", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "image and audio data and resource blobs in tool results are standard base64, with a type/subtype MIME type",
			Side:    conform.Server{Run: checkContentBase64}},
	)
}

// promptArg is one declared argument of a prompt.
type promptArg struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

// promptDef is a listed prompt, as far as the checks need it.
type promptDef struct {
	Name      string      `json:"name"`
	Arguments []promptArg `json:"arguments"`
}

// listPrompts walks prompts/list (validating each page against def when set).
func listPrompts(t *conform.T, def string) ([]promptDef, *conform.Finding) {
	if f, ok := needCapability(t, "prompts"); !ok {
		return nil, &f
	}
	items, f := askedValidated(t, "prompts/list", "prompts", def)
	if f != nil {
		return nil, f
	}
	var out []promptDef
	for _, it := range items {
		var p promptDef
		if json.Unmarshal(it, &p) == nil && p.Name != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// requiredArgs fills every required argument of p with a string.
func (p promptDef) requiredArgs() map[string]any {
	args := map[string]any{}
	for _, a := range p.Arguments {
		if a.Required {
			args[a.Name] = "mcpspec"
		}
	}
	return args
}

// getPrompt sends prompts/get of name with args (nil: no arguments member).
func getPrompt(t *conform.T, name string, args map[string]any) (jsonrpc.Message, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	resp, err := t.S.Request(t.Ctx, "prompts/get", params)
	if err != nil {
		return resp, fmt.Errorf("prompts/get of %q got no reply: %w", name, err)
	}
	return resp, nil
}

// promptGot is a prompt fetched with its required arguments.
type promptGot struct {
	name string
	resp jsonrpc.Message
}

// getListed fetches up to maxReads listed prompts with their required arguments, each asked
// once per revision and transport for every check that judges what it holds (askedRequest);
// those answered with an error are left out.
func getListed(t *conform.T, prompts []promptDef) ([]promptGot, *conform.Finding) {
	var out []promptGot
	for _, p := range prompts[:min(len(prompts), maxReads)] {
		resp, err := askedRequest(t, "prompts/get", map[string]any{"name": p.Name, "arguments": p.requiredArgs()})
		if err != nil {
			err = fmt.Errorf("prompts/get of %q got no reply: %w", p.Name, err)
		}
		if err != nil {
			f := conform.CannotTest("%v", err)
			return nil, &f
		}
		if resp.HasResult {
			out = append(out, promptGot{name: p.Name, resp: resp})
		}
	}
	if len(out) == 0 {
		f := conform.CannotTest("no listed prompt could be fetched (%d listed)", len(prompts))
		return nil, &f
	}
	return out, nil
}

func checkPromptSchema(t *conform.T) conform.Finding {
	prompts, f := listPrompts(t, "ListPromptsResult")
	if f != nil {
		return *f
	}
	if len(prompts) == 0 {
		return conform.Passed("prompts/list validates; no prompts to fetch")
	}
	got, f := getListed(t, prompts)
	if f != nil {
		return *f
	}
	for _, g := range got {
		if err := t.S.Env().Validator.Definition(t.Revision, "GetPromptResult", g.resp.Result); err != nil {
			return conform.Violated("prompts/get of %q does not validate as GetPromptResult at %s: %v\n  in: %s", g.name, t.Revision, err, show(g.resp))
		}
	}
	return conform.Passed("%d prompts fetched", len(got))
}

func checkPromptInvalidName(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "prompts"); !ok {
		return f
	}
	resp, err := getPrompt(t, unknownPromptName, nil)
	if err != nil {
		return conform.Crashed("%v", err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("prompts/get of the unknown prompt %q: %s", unknownPromptName, why)
	}
	return conform.Passed("")
}

// promptWith finds a listed prompt with an argument that match accepts.
func promptWith(t *conform.T, what string, match func(promptArg) bool) (promptDef, promptArg, *conform.Finding) {
	prompts, f := listPrompts(t, "")
	if f != nil {
		return promptDef{}, promptArg{}, f
	}
	for _, p := range prompts {
		for _, a := range p.Arguments {
			if match(a) {
				return p, a, nil
			}
		}
	}
	nf := conform.CannotTest("none of the %d listed prompts has %s", len(prompts), what)
	return promptDef{}, promptArg{}, &nf
}

func checkPromptMissingArgs(t *conform.T) conform.Finding {
	p, a, f := promptWith(t, "a required argument", func(a promptArg) bool { return a.Required })
	if f != nil {
		return *f
	}
	args := p.requiredArgs()
	delete(args, a.Name)
	resp, err := getPrompt(t, p.Name, args)
	if err != nil {
		return conform.Crashed("%v", err)
	}
	if ok, why := expectError(resp, codeInvalidParams); !ok {
		return conform.Violated("prompts/get of %q without its required argument %q: %s", p.Name, a.Name, why)
	}
	return conform.Passed("")
}

func checkPromptValidateArgs(t *conform.T) conform.Finding {
	p, a, f := promptWith(t, "an argument", func(promptArg) bool { return true })
	if f != nil {
		return *f
	}
	args := p.requiredArgs()
	args[a.Name] = 42
	resp, err := getPrompt(t, p.Name, args)
	if err != nil {
		return conform.Crashed("%v", err)
	}
	if resp.HasResult {
		return conform.Violated("prompts/get of %q with the number 42 as argument %q was served: %s", p.Name, a.Name, show(resp))
	}
	if f, ok := stillServes(t); !ok {
		return f
	}
	return conform.Passed("")
}

// embeddedResources are the resources embedded in a prompt's messages.
func embeddedResources(m jsonrpc.Message) []map[string]json.RawMessage {
	var r struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(m.Result, &r)
	var out []map[string]json.RawMessage
	for _, msg := range r.Messages {
		var c struct {
			Type     string                     `json:"type"`
			Resource map[string]json.RawMessage `json:"resource"`
		}
		if json.Unmarshal(msg.Content, &c) == nil && c.Type == "resource" {
			out = append(out, c.Resource)
		}
	}
	return out
}

// embeddedProblem says what is wrong with an embedded resource ("" if nothing).
func embeddedProblem(r map[string]json.RawMessage) string {
	uri, ok := jsonString(r["uri"])
	switch {
	case !ok:
		return "has no string uri"
	case !rfc3986URI().MatchString(uri):
		return fmt.Sprintf("has the uri %q, which is not a URI", clip(uri, 120))
	}
	if why := textXorBlob(r); why != "" {
		return why
	}
	if blob, ok := jsonString(r["blob"]); ok && !isBase64(blob) {
		return "has a blob that is not base64"
	}
	return ""
}

func checkPromptEmbeddedRes(t *conform.T) conform.Finding {
	prompts, f := listPrompts(t, "")
	if f != nil {
		return *f
	}
	got, f := getListed(t, prompts)
	if f != nil {
		return *f
	}
	seen, noMIME := 0, 0
	for _, g := range got {
		for _, r := range embeddedResources(g.resp) {
			seen++
			if why := embeddedProblem(r); why != "" {
				return conform.Violated("prompts/get of %q: an embedded resource %s: %s", g.name, why, show(g.resp))
			}
			if _, ok := jsonString(r["mimeType"]); !ok {
				noMIME++
			}
		}
	}
	if seen == 0 {
		return conform.CannotTest("none of the %d prompts fetched embeds a resource", len(got))
	}
	if noMIME > 0 {
		return conform.Passed("%d embedded resources; %d without a mimeType, which the prose asks for and the schema leaves optional", seen, noMIME)
	}
	return conform.Passed("%d embedded resources", seen)
}

// base64Field is the member of an item (or of its resource) that must be base64, if any.
func base64Field(it contentItem) (value, mime json.RawMessage, what string) {
	switch it.typ {
	case "image", "audio":
		return it.obj["data"], it.obj["mimeType"], it.typ + " data"
	case "resource":
		var r map[string]json.RawMessage
		if json.Unmarshal(it.obj["resource"], &r) == nil && r["blob"] != nil {
			return r["blob"], r["mimeType"], "resource blob"
		}
	}
	return nil, nil, ""
}

func checkContentBase64(t *conform.T) conform.Finding {
	items, calls, f := sampleContent(t)
	if f != nil {
		return *f
	}
	n := 0
	for _, it := range items {
		value, mime, what := base64Field(it)
		if what == "" {
			continue
		}
		n++
		s, _ := jsonString(value)
		if !isBase64(s) {
			return conform.Violated("the %s of a %s result is not standard base64: %s", what, it.tool, clip(string(it.raw), 240))
		}
		if m, ok := jsonString(mime); (what != "resource blob" || mime != nil) && (!ok || !mimeTypeFormat().MatchString(m)) {
			return conform.Violated("the %s of a %s result has no valid MIME type: %s", what, it.tool, clip(string(it.raw), 240))
		}
	}
	if n == 0 {
		return conform.CannotTest("the results of %s held no image, audio or blob content", callNames(calls))
	}
	return conform.Passed("%d item(s) checked", n)
}
