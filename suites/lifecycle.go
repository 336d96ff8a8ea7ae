package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/lifecycle (the handshake revisions; the newest revision replaces it by
// basic/versioning): initialize first, requests only once initialized, only what was negotiated,
// version negotiation, timeouts and how a stdio server shuts down.

func init() {
	conform.Register(
		conform.Check{
			ID: "LIFE-INIT-RESULT", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "initialize is answered with the server's protocol version, capabilities and serverInfo",
			Side:    conform.Server{Run: checkInitResult},
		},
		conform.Check{
			ID: "LIFE-VERSION-FALLBACK", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "an unsupported protocol version at initialize is answered with a result naming a version the server supports",
			LevelReason: "The lifecycle page says MUST answer with another supported version; its error-handling example shows an error instead. The normative sentence wins: an error fails.",
			Side:        conform.Server{Connection: conform.Observed, PreInit: true, Once: true, Run: checkVersionFallback},
		},
		conform.Check{
			ID: "LIFE-VERSION-LATEST", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "the fallback version for an unsupported request is the newest version the server supports",
			Side:    conform.Server{Connection: conform.Observed, PreInit: true, Once: true, Run: checkVersionLatest},
		},
		conform.Check{
			ID: "LIFE-PING-BEFORE-INIT", Revisions: conform.AllCatalogued, Level: "MUST", Transports: stdioOnly,
			Summary:     "a ping sent before initialize is answered with an empty result",
			LevelReason: "Pings are the one request allowed before initialize, and ping receivers MUST answer. Over HTTP a server that requires sessions may refuse any request without one, so the check runs over stdio. Before initialize nothing names a revision, so one server's answer stands for every revision the server serves.",
			Side:        conform.Server{Connection: conform.Observed, Run: checkPingBeforeInit},
		},
		conform.Check{
			ID: "LIFE-PRE-INIT-REQUEST", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a request before initialize neither crashes nor hangs the server, and initialize still works after it",
			LevelReason: "The SHOULD NOT binds the client and leaves the server's answer open, so any response (or HTTP error status) passes. What fails is the server's own MUST: JSON-RPC obliges it to answer every request, so staying silent fails, and so does dying, which leaves the initialize after it unanswered.",
			Side:        conform.Server{Connection: conform.Observed, PreInit: true, Run: checkPreInitRequest},
		},
		conform.Check{ID: "LIFE-INIT-FIRST", Revisions: conform.AllCatalogued, Level: "MUST", Transports: stdioOnly,
			Summary:     "the server sends nothing of its own (a ping aside) before the client has initialized: its first words answer the client",
			LevelReason: "The server's part of initialization coming first is that it speaks only when spoken to until initialize. A ping, allowed before initialize, is the point of observation. Over HTTP a server can speak only in answer to a request, so the check runs on stdio.",
			Side:        conform.Server{Connection: conform.Observed, PreInit: true, Once: true, Run: checkInitFirst}},
		conform.Check{ID: "LIFE-VERSION-ECHO", Revisions: conform.AllCatalogued, Level: "MUST", Transports: streamTransport,
			Summary:     "initialize asking for a revision the server supports is answered with that same revision",
			LevelReason: "A revision counts as supported when the server echoes it, offers it in answer to another, or lists it in server/discover (a dual-era server). The legacy HTTP+SSE transport carries no server/discover, so the check runs over stdio and Streamable HTTP.",
			Side:        conform.Server{Connection: conform.Observed, PreInit: true, Once: true, Run: checkVersionEcho}},
		conform.Check{ID: "LIFE-SERVER-WAIT-INITIALIZED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary: "between initialize and notifications/initialized the server sends no request but ping, even to a client declaring roots, sampling and elicitation",
			Side:    conform.Server{Connection: conform.Observed, PreInit: true, Run: checkServerWaitsInitialized}},
		// The next two judge the pristine session (pristine.go): everything the server sent.
		conform.Check{ID: "LIFE-OPERATION-NEGOTIATED", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary:     "the server sends only what was negotiated: no sampling, roots or elicitation requests to a client declaring none, and list-change, resource-update and log notifications only with the capability that announces them",
			LevelReason: "SHOULD at 2024-11-05 and 2025-03-26, MUST from 2025-06-18: a violation warns at the first two and fails from 2025-06-18 on. Respecting the negotiated revision's schema is MSG-JSONRPC's to judge.",
			Side:        conform.Server{Connection: conform.Observed, Run: checkOperationNegotiated}},
		conform.Check{ID: "LIFE-STDIO-EXIT-ON-EOF", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: stdioOnly,
			Summary: "a stdio server exits soon after its stdin is closed, within the shutdown timeout",
			Side:    conform.Server{Connection: conform.Observed, PreInit: true, Run: checkExitOnEOF}},
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

// fallbackAnswer is how a server of its own answered initialize with an unsupported version.
type fallbackAnswer struct {
	resp jsonrpc.Message
	err  error
}

// fallback sends initialize with an unsupported version as the first thing on a server of its
// own, once per transport (T.Observe): LIFE-VERSION-FALLBACK and LIFE-VERSION-LATEST judge the
// one answer, where each would otherwise start a server over stdio to hear it.
func fallback(t *conform.T) (fallbackAnswer, *conform.Finding) {
	v, f := t.Observe("unsupported-version", conform.Raw, func(o *conform.T) any {
		resp, err := o.S.Request(o.Ctx, "initialize", harness.InitializeParams(unsupportedRevision))
		return fallbackAnswer{resp, err}
	})
	if f != nil {
		return fallbackAnswer{}, f
	}
	return v.(fallbackAnswer), nil
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
	a, f := fallback(t)
	if f != nil {
		return *f
	}
	resp, err := a.resp, a.err
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
	a, f := fallback(t)
	if f != nil {
		return *f
	}
	resp, err := a.resp, a.err
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

// pingBeforeInit is how a server of its own answered a ping sent before anything else, and
// everything it had written by then.
type pingBeforeInit struct {
	resp     jsonrpc.Message
	err      error
	received []wire.Received
}

// beforeInit is what one server of its own did before any initialize: over stdio a ping as the
// first thing (LIFE-PING-BEFORE-INIT judges the answer, LIFE-INIT-FIRST what the server wrote
// before it), then server/discover (LIFE-VERSION-ECHO) and the exit once its stdin was closed
// (LIFE-STDIO-EXIT-ON-EOF); over the other transports server/discover alone.
type beforeInit struct {
	ping       pingBeforeInit
	discovered discoveredFirst
}

// observeBeforeInit makes that observation once per transport (T.Observe, Raw): over stdio each
// of the four checks would otherwise start a server for its first request. Each part judges
// only what came in answer to its own request, and the ping's cannot depend on what follows
// it. Where the ping got no answer, or the server then left server/discover unanswered, the
// discover part is made again on a server of its own (T.Connect), so that no verdict of
// LIFE-VERSION-ECHO or LIFE-STDIO-EXIT-ON-EOF rests on a server the ping left unwell.
func observeBeforeInit(t *conform.T) (beforeInit, *conform.Finding) {
	v, f := t.Observe("before-initialize", conform.Raw, func(o *conform.T) any {
		var b beforeInit
		if o.Transport != wire.Stdio {
			b.discovered = discoverFirst(o, o.S)
			return b
		}
		resp, err := o.S.Request(o.Ctx, "ping", nil)
		b.ping = pingBeforeInit{resp, err, o.S.Conn.Inbox().Since(0)}
		if err == nil {
			b.discovered = discoverFirst(o, o.S)
		}
		if err != nil || b.discovered.answered != nil {
			s, err := o.Connect()
			if err != nil {
				b.discovered = discoveredFirst{answered: err}
				return b
			}
			b.discovered = discoverFirst(o, s)
		}
		return b
	})
	if f != nil {
		return beforeInit{}, f
	}
	return v.(beforeInit), nil
}

// observePingBeforeInit is the ping part of observeBeforeInit.
func observePingBeforeInit(t *conform.T) (pingBeforeInit, *conform.Finding) {
	b, f := observeBeforeInit(t)
	return b.ping, f
}

func checkPingBeforeInit(t *conform.T) conform.Finding {
	p, f := observePingBeforeInit(t)
	if f != nil {
		return *f
	}
	if p.err != nil {
		return conform.Violated("ping before initialize: %v", p.err)
	}
	if !isEmptyResult(p.resp) {
		return conform.Violated("ping before initialize was not answered with an empty result: %s", show(p.resp))
	}
	return conform.Passed("")
}

func checkPreInitRequest(t *conform.T) conform.Finding {
	return startPart(t, func(s *sessionStart) (*conform.Finding, *conform.Apart) { return s.preInit, nil }, preInitRequestApart)
}

// askBeforeInit sends tools/list as the first thing on a connection and waits for its answer:
// LIFE-PRE-INIT-REQUEST's request. ok is false, with the violation, when none came.
func askBeforeInit(t *conform.T) (f conform.Finding, ok bool) {
	id := t.S.NextID()
	frame := rawRequest(id, "tools/list", nil)
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, frame)
	if err != nil {
		return conform.Violated("sending tools/list before initialize: %v", err), false
	}
	if _, err := t.S.AwaitReply(t.Ctx, d, from, id); err != nil {
		// Over HTTP a status without a JSON-RPC body is an answer too.
		if err2 := d.Ready(t.Ctx); err2 != nil || d.Status == 0 {
			return conform.Violated("tools/list before initialize got no answer: %v", err), false
		}
	}
	return conform.Passed(""), true
}

// preInitRequestApart is LIFE-PRE-INIT-REQUEST on a connection of its own.
func preInitRequestApart(t *conform.T) conform.Finding {
	if f, ok := askBeforeInit(t); !ok {
		return f
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

func checkInitFirst(t *conform.T) conform.Finding {
	p, f := observePingBeforeInit(t)
	if f != nil {
		return *f
	}
	if p.err != nil {
		return conform.CannotTest("a ping before initialize got no answer, so there is no moment before initialize to observe from: %v", p.err)
	}
	// Everything so far came before the client sent initialize.
	for _, r := range p.received {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response || (m.Kind == jsonrpc.Request && m.Method == "ping") {
				continue
			}
			return conform.Violated("before the client sent initialize the server sent: %s", show(m))
		}
	}
	return conform.Passed("")
}

// discoveredFirst is what a server did with server/discover sent before any initialize
// (harness.OpenStateless: the handshake revisions it lists, for LIFE-VERSION-ECHO) and, over
// stdio, once that was answered, with its stdin closed (LIFE-STDIO-EXIT-ON-EOF).
type discoveredFirst struct {
	versions  []string // the handshake revisions server/discover listed in supportedVersions
	supported string   // that list as sent, for findings
	answered  error    // nil when server/discover got an answer, a result or an error
	eof       conform.Finding
}

// discoverFirst sends server/discover on s, on which no initialize has been sent, and over
// stdio, once it was answered, closes the server's stdin and sees it exit.
func discoverFirst(t *conform.T, s *harness.Session) discoveredFirst {
	var d discoveredFirst
	ms, err := harness.OpenStateless(t.Ctx, s.Conn, s.Env(), harness.Rev20260728, "discover-first")
	if err == nil {
		var versions []string
		_ = json.Unmarshal(ms.InitResult()["supportedVersions"], &versions)
		for _, v := range versions {
			if harness.IsHandshake(v) {
				d.versions = append(d.versions, v)
			}
		}
		d.supported = string(ms.InitResult()["supportedVersions"])
	}
	// Answered with an error (a server of the handshake alone) is answered all the same.
	if infra := (*harness.InfraError)(nil); errors.As(err, &infra) {
		d.answered = err
	}
	if sc, ok := s.Conn.(*stdio.Conn); ok && d.answered == nil {
		d.eof = exitOnEOF(t, sc)
	}
	return d
}

// observeDiscoverFirst is the discover part of observeBeforeInit.
func observeDiscoverFirst(t *conform.T) (discoveredFirst, *conform.Finding) {
	b, f := observeBeforeInit(t)
	return b.discovered, f
}

// supportEvidence says, for each handshake revision the server gives a sign of serving other
// than echoing it, what that sign is: offered in answer to another request, or listed by
// server/discover.
func supportEvidence(t *conform.T, d discoveredFirst) map[string]string {
	out := map[string]string{}
	for _, u := range t.Revisions() {
		if n := t.Negotiation(u); n.Err == nil && n.Answered != "" && n.Answered != u {
			out[n.Answered] = fmt.Sprintf("the server offered it when asked for %s", u)
		}
	}
	for _, v := range d.versions {
		out[v] = "server/discover lists it in supportedVersions " + d.supported
	}
	return out
}

func checkVersionEcho(t *conform.T) conform.Finding {
	d, f := observeDiscoverFirst(t)
	if f != nil {
		return *f
	}
	evidence := supportEvidence(t, d)
	var echoed, other []string
	for _, v := range t.Revisions() {
		n := t.Negotiation(v)
		switch {
		case n.Err != nil:
			other = append(other, v+" (no result)")
		case n.Answered == v:
			echoed = append(echoed, v)
		case evidence[v] != "":
			return conform.Violated("initialize asking for %s was answered with %q, yet the server supports %s: %s. The answer: %s", v, n.Answered, v, evidence[v], clip(string(n.Response), 240))
		default:
			other = append(other, fmt.Sprintf("%s (answered %s)", v, n.Answered))
		}
	}
	if len(echoed) == 0 && !strings.Contains(strings.Join(other, ","), "answered") {
		// No initialize got a result: the server serves none of these revisions (a server of
		// 2026-07-28 alone, say), so there is no version to echo.
		return conform.NA("the server does not serve revision %s: initialize got no result at any of %v", t.Revision, t.Revisions())
	}
	if len(echoed) == 0 {
		return conform.CannotTest("the server echoed none of %v, so no revision is known to be supported: %s", t.Revisions(), strings.Join(other, ", "))
	}
	return conform.Passed("echoed %s; not served: %s", strings.Join(echoed, ", "), strings.Join(other, ", "))
}

// everyInputCapability declares each client capability a server could send requests for.
func everyInputCapability(revision string) map[string]any {
	caps := map[string]any{"roots": map[string]any{"listChanged": true}, "sampling": map[string]any{}}
	if revision >= harness.Rev20250618 {
		caps["elicitation"] = map[string]any{}
	}
	return caps
}

func checkServerWaitsInitialized(t *conform.T) conform.Finding {
	return startPart(t, func(s *sessionStart) (*conform.Finding, *conform.Apart) { return s.waits, s.waitsApart }, serverWaitsInitializedApart)
}

// declaringInitialize are initialize's params at revision declaring every input capability.
func declaringInitialize(revision string) map[string]any {
	params := harness.InitializeParams(revision)
	params["capabilities"] = everyInputCapability(revision)
	return params
}

// serverWaitsInitializedApart is LIFE-SERVER-WAIT-INITIALIZED on a connection of its own.
func serverWaitsInitializedApart(t *conform.T) conform.Finding {
	id := t.S.NextID()
	t.S.Sent(id, "initialize")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "initialize", declaringInitialize(t.Revision)))
	if err != nil {
		return conform.Crashed("sending initialize: %v", err)
	}
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	if err != nil || !resp.HasResult {
		return conform.CannotTest("initialize did not succeed: %v %s", err, show(resp))
	}
	if hc, ok := t.S.Conn.(*streamhttp.Conn); ok {
		hc.SetSession(d.Header.Get(streamhttp.HeaderSession))
	}
	if err := t.S.Adopt(resp); err != nil {
		return conform.CannotTest("%v", err)
	}
	return waitsForInitialized(t, from)
}

// waitsForInitialized judges what the server sent since from (the initialize, now answered)
// until a sentinel ping is answered and the quiet window has passed, then sends
// notifications/initialized: LIFE-SERVER-WAIT-INITIALIZED once initialize has succeeded.
func waitsForInitialized(t *conform.T, from int) conform.Finding {
	// The sentinel ping is the one request a client may send now; whatever the server sends
	// until it is answered and the quiet window has passed came before initialized.
	after, quietErr := t.S.Quiet(t.Ctx, from)
	for _, r := range after {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Request && m.Method != "ping" {
				return conform.Violated("before the client sent notifications/initialized the server sent the request: %s", show(m))
			}
		}
	}
	if quietErr != nil {
		select {
		case <-t.S.Conn.Done():
			return conform.Crashed("before notifications/initialized the server went away: %v", quietErr)
		default:
		}
		// Some servers answer nothing until initialized; without the ping's answer the
		// silence that follows proves nothing either way.
		return conform.CannotTest("the ping sent before notifications/initialized was not answered, so the server's silence cannot be proven: %v", quietErr)
	}
	if _, err := t.S.Notify(t.Ctx, "notifications/initialized", nil); err != nil {
		return conform.Crashed("notifications/initialized: %v", err)
	}
	return conform.Passed("")
}

func checkOperationNegotiated(t *conform.T) conform.Finding {
	ex, f := observePristine(t)
	if f != nil {
		return *f
	}
	for _, m := range ex.msgs {
		if why := ex.unnegotiated(m); why != "" {
			v := conform.Violated("the server sent %s: %s", why, show(m))
			v.Severe = t.Revision >= harness.Rev20250618 // MUST from 2025-06-18
			return v
		}
	}
	return conform.Passed("")
}

func checkExitOnEOF(t *conform.T) conform.Finding {
	d, f := observeDiscoverFirst(t)
	if f != nil {
		return *f
	}
	// A stateless request first: the server is up and serving the revision.
	if d.answered != nil {
		return conform.CannotTest("server/discover got no answer, so the server may never have been up: %v", d.answered)
	}
	return d.eof
}

// exitOnEOF closes the stdin of the server of sc, which has answered a request, and judges
// whether it exits within the shutdown timeout.
func exitOnEOF(t *conform.T, sc *stdio.Conn) conform.Finding {
	if err := sc.CloseStdin(); err != nil {
		return conform.Failed(fmt.Errorf("closing the server's stdin: %w", err))
	}
	limit := t.S.Env().Timeouts.Shutdown
	start := time.Now()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-sc.Done():
		return conform.Passed("exited %s after stdin was closed", time.Since(start).Round(time.Millisecond))
	case <-timer.C:
		return conform.Violated("the server was still running %s after its stdin was closed", limit)
	case <-t.Ctx.Done():
		return conform.Failed(t.Ctx.Err())
	}
}
