package suites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/index (Overview) § _meta: the per-request protocol fields of the stateless
// revision, the serverInfo a result carries, and trace context.

func init() {
	conform.Register(
		conform.Check{ID: "META26-REQUIRED-FIELDS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a request whose _meta lacks the protocol version or the client capabilities is refused with -32602",
			LevelReason: "Over HTTP, with the MCP-Protocol-Version header present but the body's version missing, -32020 (header mismatch) is accepted too: the spec allows reading it either way.",
			Side:        conform.Server{Run: checkRequiredMeta}},
		conform.Check{ID: "META26-SERVERINFO", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "results carry the server's name and version in _meta io.modelcontextprotocol/serverInfo",
			Side:    conform.Server{Run: checkResultsServerInfo}},
		conform.Check{ID: "META26-INFO-NOT-BEHAVIOR", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "what the client says about itself (clientInfo, or nothing) does not change a list result",
			Side:    conform.Server{Run: checkInfoNotBehavior}},
		conform.Check{ID: "META26-TRACE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a valid traceparent, tracestate and baggage in _meta are accepted, and any the server sends back are well-formed",
			Side:    conform.Server{Run: checkTraceContext}},
		conform.Check{ID: "META26-MISSING-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the input tool called without the capabilities it needs gets -32021 naming them in data.requiredCapabilities (HTTP 400)",
			Side:    conform.Server{Run: checkMissingCap}},
	)
}

func checkRequiredMeta(t *conform.T) conform.Finding {
	for _, missing := range []string{harness.MetaClientCapabilities, harness.MetaProtocolVersion} {
		meta := map[string]any{harness.MetaProtocolVersion: t.Revision, harness.MetaClientCapabilities: map[string]any{}}
		delete(meta, missing)
		resp, d, err := statelessRequest(t, listMethodStateless(t), map[string]any{"_meta": meta}, nil)
		if err != nil {
			return conform.Violated("a request without %s got no JSON-RPC reply: %v", missing, err)
		}
		codes := []int64{codeInvalidParams}
		if missing == harness.MetaProtocolVersion && d.CarriesReplies {
			codes = append(codes, codeHeaderMismatch)
		}
		if ok, why := expectError(resp, codes...); !ok {
			return conform.Violated("a request without _meta %s: %s", missing, why)
		}
		// Its id was readable, so the refusal must carry it (a null id is for unreadable ones).
		if resp.ID.IsNull() {
			return conform.Violated("a request without _meta %s was refused with a null id instead of its own: %s", missing, show(resp))
		}
		if d.CarriesReplies && d.Status != http.StatusBadRequest {
			return conform.Violated("a request without _meta %s was refused with HTTP %d, want 400", missing, d.Status)
		}
	}
	return conform.Passed("")
}

// W3C Trace Context and Baggage, as far as a well-formedness check needs them. The first two
// are compiled on first use: their counted repetitions cost every process that links the checks
// (each reference server a run launches) 1.5 ms at start, which a run pays a hundred times.
var (
	traceparentRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)
	})
	tracestateRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-z0-9][_0-9a-z*/@-]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)
	})
	baggageKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$") })
)

// A valid trace context a client may send (the W3C specification's own examples).
const (
	sampleTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	sampleTracestate  = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
	sampleBaggage     = "userId=alice,serverNode=DF%2028,isProduction=false"
)

func checkResultsServerInfo(t *conform.T) conform.Finding {
	samples, f := sampleResults(t)
	if f != nil {
		return *f
	}
	for _, s := range samples {
		obj, f := resultOf(s)
		if f != nil {
			return *f
		}
		if why := serverInfoProblem(obj); why != "" {
			return conform.Violated("the result of %s %s: %s", s.method, why, show(s.resp))
		}
	}
	return conform.Passed("")
}

func checkInfoNotBehavior(t *conform.T) conform.Finding {
	method, f := declaredList(t)
	if f != nil {
		return *f
	}
	other := map[string]any{"name": "another-client", "version": "9.9.9"}
	return compareAnswers(t, method, []string{"with mcpspec's clientInfo", "with another clientInfo", "without clientInfo"}, []map[string]any{
		{"_meta": statelessMeta(t.Revision, nil)},
		{"_meta": statelessMeta(t.Revision, map[string]any{harness.MetaClientInfo: other})},
		{"_meta": statelessMeta(t.Revision, map[string]any{harness.MetaClientInfo: nil})},
	})
}

// traceProblem says what is wrong with a trace-context value the server sent, or "".
func traceProblem(key string, v any) string {
	s, ok := v.(string)
	if !ok {
		return fmt.Sprintf("%s is not a string", key)
	}
	switch key {
	case "traceparent":
		if !traceparentRE().MatchString(s) || strings.HasPrefix(s, "ff") {
			return fmt.Sprintf("traceparent %q is not version-traceid-parentid-flags in lower-case hex", s)
		}
	case "tracestate":
		for _, m := range strings.Split(s, ",") {
			if m = strings.Trim(m, " \t"); m != "" && !tracestateRE().MatchString(m) {
				return fmt.Sprintf("tracestate member %q is not key=value", m)
			}
		}
	case "baggage":
		for _, m := range strings.Split(s, ",") {
			kv, _, _ := strings.Cut(m, ";")
			k, _, ok := strings.Cut(kv, "=")
			if !ok || !baggageKeyRE().MatchString(strings.Trim(k, " \t")) {
				return fmt.Sprintf("baggage member %q is not key=value", m)
			}
		}
	}
	return ""
}

func checkTraceContext(t *conform.T) conform.Finding {
	method, f := declaredList(t)
	if f != nil {
		method = "server/discover"
	}
	trace := map[string]any{"traceparent": sampleTraceparent, "tracestate": sampleTracestate, "baggage": sampleBaggage}
	resp, err := t.S.Request(t.Ctx, method, map[string]any{"_meta": statelessMeta(t.Revision, trace)})
	if err != nil {
		return conform.Violated("%s with trace context: %v", method, err)
	}
	if _, ok := resp.ResultObject(); !ok {
		return conform.Violated("%s with a valid traceparent, tracestate and baggage was refused: %s", method, show(resp))
	}
	var result any
	_ = json.Unmarshal(resp.Result, &result)
	var bad string
	metaKeys(result, func(key string, v any) {
		if key == "traceparent" || key == "tracestate" || key == "baggage" {
			if why := traceProblem(key, v); why != "" && bad == "" {
				bad = why
			}
		}
	})
	if bad != "" {
		return conform.Violated("the server sent back malformed trace context: %s: %s", bad, show(resp))
	}
	return conform.Passed("")
}

const codeMissingCapability = -32021

func checkMissingCap(t *conform.T) conform.Finding {
	ir, f := askInput(t)
	if f != nil {
		return *f
	}
	var needed []string
	for _, m := range ir.methods() {
		if c, ok := inputMethodCapability[m]; ok && !slices.Contains(needed, c) {
			needed = append(needed, c)
		}
	}
	if len(needed) == 0 {
		return conform.CannotTest("the input tool asks for no input that needs a capability: %s", show(ir.resp))
	}
	resp, d, err := callInputTool(t, map[string]any{}, inputArgs(t), nil)
	if err != nil {
		return conform.Violated("the input tool, called declaring no capabilities, got no reply: %v", err)
	}
	if callOutcome(resp) == "complete" {
		return conform.CannotTest("the input tool completes without any client capability, so it needs none: %s", show(resp))
	}
	if ok, why := expectError(resp, codeMissingCapability); !ok {
		return conform.Violated("the input tool, needing %v, called declaring none: %s", needed, why)
	}
	e, _ := resp.ErrorObject()
	var data struct {
		Required map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	if json.Unmarshal(e.Data, &data) != nil || data.Required == nil {
		return conform.Violated("the -32021 error has no data.requiredCapabilities object: %s", show(resp))
	}
	if len(data.Required) == 0 {
		return conform.Violated("data.requiredCapabilities names no capability: %s", show(resp))
	}
	// The list must be complete: declaring exactly what it names lets the call proceed. (What
	// the tool asks for given everything may include optional input, so it is not the measure.)
	again, _, err := callInputTool(t, data.Required, inputArgs(t), nil)
	if err != nil {
		return conform.Violated("the input tool, called declaring the requiredCapabilities %s, got no reply: %v", asJSON(data.Required), err)
	}
	if ok, _ := expectError(again, codeMissingCapability); ok {
		return conform.Violated("data.requiredCapabilities does not list every missing capability: declaring exactly %s still gets -32021: %s", asJSON(data.Required), show(again))
	}
	if d != nil && d.CarriesReplies && d.Status != http.StatusBadRequest {
		return conform.Violated("the -32021 error came with HTTP %d, want 400", d.Status)
	}
	return conform.Passed("")
}
