package suites

import (
	"encoding/json"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// unsupportedRevision is a protocol version no server supports.
const unsupportedRevision = "1999-01-01"

func init() {
	conform.Register(
		conform.Check{
			ID: "LIFE-INIT-RESULT", Revisions: conform.AllCatalogued, Level: "MUST",
			Summary: "initialize is answered with the server's protocol version, capabilities and serverInfo",
			Run:     checkInitResult,
		},
		conform.Check{
			ID: "LIFE-VERSION-FALLBACK", Revisions: conform.AllCatalogued, Level: "MUST", Connection: conform.Raw, Once: true,
			Summary:     "an unsupported protocol version at initialize is answered with a result naming a version the server supports",
			LevelReason: "The lifecycle page says MUST answer with another supported version; its error-handling example shows an error instead. The normative sentence wins: an error fails.",
			Run:         checkVersionFallback,
		},
		conform.Check{
			ID: "LIFE-VERSION-LATEST", Revisions: conform.AllCatalogued, Level: "SHOULD", Connection: conform.Raw, Once: true,
			Summary: "the fallback version for an unsupported request is the newest version the server supports",
			Run:     checkVersionLatest,
		},
		conform.Check{
			ID: "LIFE-PING-BEFORE-INIT", Revisions: conform.AllCatalogued, Level: "MUST", Connection: conform.Observed, Transports: stdioOnly,
			Summary:     "a ping sent before initialize is answered with an empty result",
			LevelReason: "Pings are the one request allowed before initialize, and ping receivers MUST answer. Over HTTP a server that requires sessions may refuse any request without one, so the check runs over stdio. Before initialize nothing names a revision, so one server's answer stands for every revision the server serves.",
			Run:         checkPingBeforeInit,
		},
		conform.Check{
			ID: "LIFE-PRE-INIT-REQUEST", Revisions: conform.AllCatalogued, Level: "MUST", Connection: conform.Raw,
			Summary:     "a request before initialize neither crashes nor hangs the server, and initialize still works after it",
			LevelReason: "The spec leaves the answer to a premature request open, so any response (or HTTP error status) passes; dying or staying silent makes the server unusable and fails.",
			Run:         checkPreInitRequest,
		},
	)
}

func checkInitResult(t *conform.T) conform.Finding {
	resp := t.S.InitResponse()
	obj, ok := resp.ResultObject()
	if !ok {
		return conform.Violated("initialize result is not an object: %s", show(resp))
	}
	var problems []string
	if _, ok := jsonString(obj["protocolVersion"]); !ok {
		problems = append(problems, "protocolVersion is missing or not a string")
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(obj["capabilities"], &caps) != nil || caps == nil {
		problems = append(problems, "capabilities is missing or not an object")
	}
	var info map[string]json.RawMessage
	if json.Unmarshal(obj["serverInfo"], &info) != nil || info == nil {
		problems = append(problems, "serverInfo is missing or not an object")
	} else {
		for _, k := range []string{"name", "version"} {
			if _, ok := jsonString(info[k]); !ok {
				problems = append(problems, "serverInfo."+k+" is missing or not a string")
			}
		}
	}
	if len(problems) == 0 {
		if err := t.S.Env().Validator.Definition(t.S.Revision(), "InitializeResult", resp.Result); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return conform.Violated("%s", strings.Join(problems, "; "))
	}
	return conform.Passed("")
}

// fallback sends initialize with an unsupported version on the raw connection.
func fallback(t *conform.T) (jsonrpc.Message, error) {
	return t.S.Request(t.Ctx, "initialize", harness.InitializeParams(unsupportedRevision))
}

// echoed lists the handshake revisions the server accepts as requested.
func echoed(t *conform.T) []string {
	var out []string
	for _, rev := range t.Revisions() {
		if t.Negotiation(rev).Supported() {
			out = append(out, rev)
		}
	}
	return out
}

func checkVersionFallback(t *conform.T) conform.Finding {
	resp, err := fallback(t)
	if err != nil {
		return conform.Violated("initialize with protocolVersion %q got no response: %v", unsupportedRevision, err)
	}
	obj, ok := resp.ResultObject()
	if !ok {
		return conform.Violated("initialize with protocolVersion %q was answered without a result: %s", unsupportedRevision, show(resp))
	}
	v, ok := jsonString(obj["protocolVersion"])
	if !ok {
		return conform.Violated("the result has no protocolVersion string: %s", show(resp))
	}
	if v == unsupportedRevision {
		return conform.Violated("the server echoed the unsupported version %q instead of offering one it supports", v)
	}
	if harness.IsHandshake(v) && !t.Negotiation(v).Supported() {
		return conform.Violated("the server offered %q but does not accept %q itself when asked for it", v, v)
	}
	return conform.Passed("offered %s", v)
}

func checkVersionLatest(t *conform.T) conform.Finding {
	resp, err := fallback(t)
	if err != nil {
		return conform.CannotTest("initialize with an unsupported version got no response (see LIFE-VERSION-FALLBACK): %v", err)
	}
	obj, _ := resp.ResultObject()
	v, ok := jsonString(obj["protocolVersion"])
	if !ok {
		return conform.CannotTest("initialize with an unsupported version got no result (see LIFE-VERSION-FALLBACK)")
	}
	supported := echoed(t)
	if len(supported) == 0 {
		return conform.CannotTest("the server accepts none of %v as requested, so its newest version is unknown", t.Revisions())
	}
	newest := supported[len(supported)-1]
	if v != newest {
		return conform.Violated("the server offered %q for an unsupported version, but the newest it accepts is %q (accepted: %v)", v, newest, supported)
	}
	return conform.Passed("")
}

// pingBeforeInit is how a server of its own answered a ping sent before anything else.
type pingBeforeInit struct {
	resp jsonrpc.Message
	err  error
}

func checkPingBeforeInit(t *conform.T) conform.Finding {
	v, f := t.Observe("ping-before-initialize", conform.Raw, func(o *conform.T) any {
		resp, err := o.S.Request(o.Ctx, "ping", nil)
		return pingBeforeInit{resp, err}
	})
	if f != nil {
		return *f
	}
	p := v.(pingBeforeInit)
	if p.err != nil {
		return conform.Violated("ping before initialize: %v", p.err)
	}
	if !isEmptyResult(p.resp) {
		return conform.Violated("ping before initialize was not answered with an empty result: %s", show(p.resp))
	}
	return conform.Passed("")
}

func checkPreInitRequest(t *conform.T) conform.Finding {
	id := t.S.NextID()
	frame := rawRequest(id, "tools/list", nil)
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		return conform.Violated("sending tools/list before initialize: %v", err)
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		// Over HTTP a status without a JSON-RPC body is an answer too.
		if err2 := d.Ready(t.Ctx); err2 != nil || d.Status == 0 {
			return conform.Violated("tools/list before initialize got no answer: %v", err)
		}
	}
	resp, err := t.S.Request(t.Ctx, "initialize", harness.InitializeParams(t.Revision))
	if err != nil {
		return conform.Violated("after a request before initialize, initialize got no answer: %v", err)
	}
	if !resp.HasResult {
		return conform.Violated("after a request before initialize, initialize failed: %s", show(resp))
	}
	return conform.Passed("")
}
