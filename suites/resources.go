package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of the Resources feature, at every revision: the capability, the shapes of lists and
// reads, URI validation, and how binary contents and custom URIs are written.
func init() {
	conform.Register(
		conform.Check{ID: "RES-CAP", Revisions: conform.AllCatalogued, Level: "MUST",
			Summary: "a server that lists resources declares the resources capability",
			Run:     capabilityCheck("resources", "resources/list", "resources")},
		conform.Check{ID: "RES-LIST-SCHEMA", Revisions: conform.AllCatalogued, Level: "MUST",
			Summary:     "every page of resources/list, and resources/templates/list where served, validates against the revision's schema",
			LevelReason: "A schema row: the revision's schema defines the result, so a result outside it is malformed.",
			Run:         checkResourceListSchema},
		conform.Check{ID: "RES-READ-SCHEMA", Revisions: conform.AllCatalogued, Level: "MUST",
			Summary:     "resources/read of a listed resource validates against the revision's schema, each content holding a uri and exactly one of text or blob",
			LevelReason: "A schema row: the revision's schema defines the result, and text or blob content is one or the other.",
			Run:         checkResourceReadSchema},
		conform.Check{ID: "RES-URI-VALIDATE", Revisions: conform.AllCatalogued, Level: "MUST",
			Summary: "resources/read of a malformed URI (no scheme, control characters, 10 kB long) is refused with an error, and the server keeps serving",
			Run:     checkResourceURIValidate},
		conform.Check{ID: "RES-BINARY-ENCODED", Revisions: conform.AllCatalogued, Level: "MUST",
			Summary: "every blob a listed resource is read as is standard base64",
			Run:     checkResourceBinaryEncoded},
		conform.Check{ID: "RES-CUSTOM-URI", Revisions: conform.AllCatalogued, Level: "MUST",
			Summary: "every listed resource's uri is an RFC 3986 URI with a scheme",
			Run:     checkResourceCustomURI},
		conform.Check{ID: "RES-LISTCHANGED", Revisions: conform.AllCatalogued, Level: "SHOULD", Connection: conform.Fresh,
			Summary: "a server declaring resources.listChanged announces a change of its resources list (at 2026-07-28 on a listen stream that asked for it)",
			Ready:   listChangedReady("resources"),
			Run:     listChangedCheck("resources", "resources/list", "resources", "notifications/resources/list_changed", "resourcesListChanged")},
		// The next two judge the state session (state.go).
		conform.Check{ID: "RES-SUBSCRIBE", Revisions: conform.AllCatalogued, Level: "MUST", Connection: conform.Observed,
			Summary:     "a server declaring resources.subscribe answers resources/subscribe and resources/unsubscribe of a listed resource with a result",
			LevelReason: "The row describes the feature without a keyword; declaring resources.subscribe announces both methods, so refusing them breaks the declaration. That a change then brings notifications/resources/updated cannot be provoked from outside.",
			Ready:       subscribeReady, Run: checkResourceSubscribe},
		conform.Check{ID: "RES-UPDATED-ONLY-SUBSCRIBED", Revisions: conform.AllCatalogued, Level: "SHOULD", Connection: conform.Observed,
			Summary:     "a session that subscribed to no resource gets no notifications/resources/updated while it lists, reads and changes the server's lists",
			LevelReason: "The schema's lower-case should; mcpspec holds it to SHOULD.",
			Ready:       capabilityReady("resources"), Run: checkResourceUpdatedOnlySubscribed},
	)
}

// maxReads bounds how many listed resources (and prompts) a check reads.
const maxReads = 10

// malformedURIs are strings no server can hold a resource at: no scheme, control characters,
// and a URI too long for any sensible resource.
var malformedURIs = []string{
	"::::",
	"mcpspec://reference/\x01\x7f\x1b[0m",
	"mcpspec://" + strings.Repeat("x", 10*1024),
}

// rfc3986URI matches an absolute URI: a scheme, a colon, then only the characters RFC 3986
// allows (unreserved, reserved, and percent escapes).
var rfc3986URI = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$`)

// needCapability says the check does not apply when the server declares no such capability.
func needCapability(t *conform.T, name string) (conform.Finding, bool) {
	if t.S.HasCapability(name) {
		return conform.Finding{}, true
	}
	return conform.NA("the server declares no %s capability", name), false
}

// capabilityCheck judges that a server which serves a feature's list declares the feature.
func capabilityCheck(name, method, key string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		resp, err := t.S.Request(t.Ctx, method, nil)
		if err != nil {
			return conform.CannotTest("%s got no reply: %v", method, err)
		}
		if t.S.HasCapability(name) {
			return conform.Passed("%s declared", name)
		}
		obj, ok := resp.ResultObject()
		if !ok {
			return conform.NA("the server declares no %s capability and refuses %s: it does not serve them", name, method)
		}
		var items []json.RawMessage
		if json.Unmarshal(obj[key], &items) == nil && len(items) == 0 {
			return conform.NA("the server declares no %s capability and lists none", name)
		}
		return conform.Violated("%s is served, but the capabilities lack %s: %s", method, name, show(resp))
	}
}

// walkValidated follows method's cursors from the first page to the last and returns the items.
// With def set, each page's result must validate against that definition (a finding of
// violation otherwise); a request that is not answered with a result makes the check untestable.
func walkValidated(t *conform.T, method, key, def string) ([]json.RawMessage, *conform.Finding) {
	pages, err := walkPagesOn(t, t.S, method, t.S.NextID)
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

// readResource reads uri. At the stateless revision over HTTP the Mcp-Name header carries the
// uri in Base64, so that any uri can travel in it.
func readResource(t *conform.T, uri string) (jsonrpc.Message, *wire.Delivery, error) {
	params := map[string]any{"uri": uri}
	if t.S.Modern() {
		var h http.Header
		if t.Transport == wire.HTTP {
			h = http.Header{streamhttp.HeaderName: {base64Header(uri)}}
		}
		return modernRequest(t, "resources/read", params, h)
	}
	resp, err := t.S.Request(t.Ctx, "resources/read", params)
	return resp, nil, err
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
	items, f := walkValidated(t, "resources/list", "resources", "")
	if f != nil {
		return nil, f
	}
	uris := listedURIs(items)
	var out []resourceRead
	for _, uri := range uris[:min(len(uris), maxReads)] {
		resp, _, err := readResource(t, uri)
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

// textXorBlob says what is wrong with a resource content's text and blob ("" if nothing).
func textXorBlob(c map[string]json.RawMessage) string {
	_, isText := jsonString(c["text"])
	_, isBlob := jsonString(c["blob"])
	switch {
	case isText && isBlob:
		return "has both text and blob"
	case !isText && !isBlob:
		return "has neither a string text nor a string blob"
	}
	return ""
}

func checkResourceListSchema(t *conform.T) conform.Finding {
	if f, ok := needCapability(t, "resources"); !ok {
		return f
	}
	items, f := walkValidated(t, "resources/list", "resources", "ListResourcesResult")
	if f != nil {
		return *f
	}
	note := ""
	// Templates are optional: a refusal of the list is not this check's to judge.
	if resp, err := t.S.Request(t.Ctx, "resources/templates/list", nil); err == nil && resp.HasResult {
		if _, f := walkValidated(t, "resources/templates/list", "resourceTemplates", "ListResourceTemplatesResult"); f != nil && f.Outcome == conform.Violation {
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
	items, f := walkValidated(t, "resources/list", "resources", "")
	if f != nil {
		return *f
	}
	uris := listedURIs(items)
	if len(uris) == 0 {
		return conform.CannotTest("the server lists no resources")
	}
	for _, uri := range uris {
		if !rfc3986URI.MatchString(uri) {
			return conform.Violated("the listed resource uri %q is not an RFC 3986 URI with a scheme", clip(uri, 200))
		}
	}
	return conform.Passed("%d uris", len(uris))
}

// declaresListChanged reports whether the server's capability for feature has listChanged true.
func declaresListChanged(t *conform.T, feature string) bool {
	var caps map[string]struct {
		ListChanged bool `json:"listChanged"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	return caps[feature].ListChanged
}

// ackTakes reports whether a listen acknowledgment took the notification type member on.
func ackTakes(ack jsonrpc.Message, member string) bool {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	return json.Unmarshal(ack.Params, &p) == nil && string(p.Notifications[member]) == "true"
}

// callListTool calls the target's list-changed tool once.
func callListTool(t *conform.T) error {
	args := t.Options().ListToolArgs
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": t.Options().ListTool, "arguments": args})
	switch {
	case err != nil:
		return fmt.Errorf("calling the list-changed tool %q: %w", t.Options().ListTool, err)
	case !resp.HasResult:
		return fmt.Errorf("the list-changed tool %q failed: %s", t.Options().ListTool, show(resp))
	}
	return nil
}

// listChangedReady ends a list-change check before it starts when the server does not declare
// feature.listChanged or no list-changed tool was named.
func listChangedReady(feature string) func(t *conform.T) (conform.Finding, bool) {
	return func(t *conform.T) (conform.Finding, bool) {
		if !declaresListChanged(t, feature) {
			return conform.NA("the server does not declare %s.listChanged", feature), true
		}
		if t.Options().ListTool == "" {
			return conform.CannotTest("no list change was triggered: name a tool whose call changes the %s list with --list-changed-tool", feature), true
		}
		return conform.Finding{}, false
	}
}

// listChangedCheck judges that a change of a feature's list, made by calling the list-changed
// tool, is announced with notif: at 2026-07-28 on a listen stream that asked for it (filter
// member), before on any stream of the session (over HTTP a GET stream is opened if offered).
func listChangedCheck(feature, method, key, notif, member string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		before, f := walkValidated(t, method, key, "")
		if f != nil {
			return *f
		}
		var l *listen
		switch {
		case t.S.Modern():
			var ack jsonrpc.Message
			if l, ack, f = acknowledged(t, t.S, t.S.NextID(), map[string]any{member: true}); f != nil {
				return *f
			}
			if !ackTakes(ack, member) {
				return conform.Violated("the server declares %s.listChanged, but its listen acknowledgment does not take %s on: %s", feature, member, show(ack))
			}
		case t.Transport == wire.HTTP:
			_, _ = withGetStream(t) // where the server offers one, it may announce changes there
		}
		from := t.S.Mark()
		if err := callListTool(t); err != nil {
			return conform.CannotTest("%v", err)
		}
		// The tool is called again at the end, so that the server's lists are as they were.
		defer func() { _ = callListTool(t) }()
		_, err := t.S.WaitFor(t.Ctx, nil, from, func(r wire.Received) bool {
			return r.Msg.Kind == jsonrpc.Notification && r.Msg.Method == notif && (l == nil || l.owns(r))
		})
		if err == nil {
			return conform.Passed("")
		}
		// No notification: it was owed only if the list did change.
		after, f := walkValidated(t, method, key, "")
		if f != nil {
			return *f
		}
		if slices.Equal(itemSet(before), itemSet(after)) {
			return conform.CannotTest("no %s arrived, but calling the list-changed tool %q did not change the %s list either", notif, t.Options().ListTool, feature)
		}
		return conform.Violated("the %s list changed (%s), but no %s arrived: %v", feature, firstDifference(itemSet(before), itemSet(after)), notif, err)
	}
}

// declaresSubscribe reports whether the server's resources capability has subscribe true.
func declaresSubscribe(t *conform.T) bool {
	var caps struct {
		Resources struct {
			Subscribe bool `json:"subscribe"`
		} `json:"resources"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	return caps.Resources.Subscribe
}

// capabilityReady ends a check before it runs (and before a server of its own is started)
// when the server does not declare the capability name: needCapability as a Ready gate.
func capabilityReady(name string) func(t *conform.T) (conform.Finding, bool) {
	return func(t *conform.T) (conform.Finding, bool) {
		f, ok := needCapability(t, name)
		return f, !ok
	}
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
	if st.unsubscribed == nil {
		return conform.NA("the server declares no resources capability")
	}
	return *st.unsubscribed
}

// subscribeUnsubscribe subscribes to the first listed resource and unsubscribes again.
func subscribeUnsubscribe(t *conform.T) conform.Finding {
	items, f := walkValidated(t, "resources/list", "resources", "")
	if f != nil {
		return *f
	}
	uris := listedURIs(items)
	if len(uris) == 0 {
		return conform.CannotTest("the server lists no resource to subscribe to")
	}
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		resp, err := t.S.Request(t.Ctx, method, map[string]any{"uri": uris[0]})
		if err != nil {
			return conform.Crashed("%s of %s got no reply: %v", method, uris[0], err)
		}
		if _, ok := resp.ResultObject(); !ok {
			return conform.Violated("resources.subscribe is declared, but %s of the listed resource %s was not answered with a result: %s", method, uris[0], show(resp))
		}
	}
	return conform.Passed("")
}

// updatesUnsubscribed lists, reads and (with the list-changed tool) changes resources in a
// session that subscribed to nothing, and fails on any notifications/resources/updated.
func updatesUnsubscribed(t *conform.T) conform.Finding {
	if !t.S.HasCapability("resources") {
		return conform.NA("the server declares no resources capability")
	}
	if t.Transport == wire.HTTP {
		_, _ = withGetStream(t) // where the server offers one, unrequested updates may come there
	}
	from := t.S.Mark()
	items, f := walkValidated(t, "resources/list", "resources", "")
	if f != nil {
		return *f
	}
	uris := listedURIs(items)
	for _, uri := range uris[:min(len(uris), maxReads)] {
		_, _ = t.S.Request(t.Ctx, "resources/read", map[string]any{"uri": uri})
	}
	// A change of the server's lists is the likeliest moment for an unrequested update.
	if t.Options().ListTool != "" {
		for range 2 {
			_ = callListTool(t)
		}
	}
	got, err := t.S.Quiet(t.Ctx, from)
	if err != nil {
		return conform.Crashed("%v", err)
	}
	for _, r := range got {
		if r.Msg.Kind == jsonrpc.Notification && r.Msg.Method == "notifications/resources/updated" {
			return conform.Violated("a session that subscribed to nothing got %s", show(r.Msg))
		}
	}
	return conform.Passed("no notifications/resources/updated within the quiet window (%d resources read)", min(len(uris), maxReads))
}
