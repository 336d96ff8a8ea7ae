package suites

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// This file runs the generic checks (JSON-RPC, cancellation, progress, stdio, parts of HTTP) at
// the stateless revision too, and holds the checks of 2026-07-28 about what the server must not
// send (requests, traffic after a cancellation) and how a stdio server ends.

// probeMethod is a request every server of the session's revision serves with a result: ping
// in the handshake revisions, server/discover in the stateless one (which has no ping).
func probeMethod(s *harness.Session) string {
	if s.Modern() {
		return "server/discover"
	}
	return "ping"
}

// modernFrame adds the stateless revision's required _meta to a raw frame a check built itself,
// in a modern session and when the frame is a request-like object (a method, or params) whose
// params are absent or an object:
// without it a modern server would refuse the frame for its _meta, not for what the check
// probes. Other frames, and every frame of a handshake session, are sent as written.
func modernFrame(s *harness.Session, frame []byte) []byte {
	if !s.Modern() {
		return frame
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil {
		return frame
	}
	_, hasMethod := obj["method"]
	p, has := obj["params"]
	if !hasMethod && !has {
		return frame // not a request: a response, or an object the check keeps bare on purpose
	}
	if _, isObj := p.(map[string]any); has && !isObj {
		return frame
	}
	obj["params"] = s.ModernParams(p)
	out, err := json.Marshal(obj)
	if err != nil {
		return frame
	}
	return out
}

// probeRequest is a request frame of probeMethod with id, carrying _meta in a modern session.
func probeRequest(s *harness.Session, id jsonrpc.ID) []byte {
	return rawRequest(id, probeMethod(s), s.ModernParams(nil))
}

// withProgressToken returns request params carrying token (unless "") in their _meta, beside
// the required _meta keys of a modern session.
func withProgressToken(s *harness.Session, params map[string]any, token jsonrpc.ID) any {
	p := s.ModernParams(params)
	obj, ok := p.(map[string]any)
	if token == "" || !ok {
		return p
	}
	if obj == nil {
		obj = map[string]any{}
	}
	meta, _ := obj["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["progressToken"] = token.JSON()
	obj["_meta"] = meta
	return obj
}

// cancelRaceGrace is how long after the server has surely read a cancellation a message for
// the cancelled request may still arrive: one already written, or being written, when it did.
const cancelRaceGrace = 100 * time.Millisecond

func init() {
	conform.Register(
		conform.Check{ID: "STDIO26-NO-REQUESTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: stdioOnly, Connection: conform.Fresh,
			Summary: "the server writes no JSON-RPC request of its own to stdout: not while serving discover, lists, errors or a tool call",
			Run:     checkNoServerRequests},
		conform.Check{ID: "MRTR-NO-SERVER-REQUESTS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport, Connection: conform.Fresh,
			Summary:     "the server initiates no JSON-RPC request: anything it needs from the client comes back as an MRTR result instead",
			LevelReason: "Only the prohibition is observable from outside; whether a server that needs client input uses MRTR is judged by the MRTR-* checks.",
			Run:         checkNoServerRequests},
		conform.Check{ID: "CANCEL26-NO-FURTHER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: stdioOnly, Connection: conform.Fresh, Waits: true,
			Summary:     "after notifications/cancelled nothing more comes for that request: no response, no progress for its token",
			LevelReason: "Over Streamable HTTP a request is cancelled by closing its response stream, after which nothing can arrive for it, so the check runs over stdio. Messages within 100 ms of the server having read the cancellation are allowed: they may already have been under way.",
			Run:         checkNoFurtherAfterCancel},
		conform.Check{ID: "LIFE-STDIO-EXIT-ON-EOF", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: stdioOnly, Connection: conform.Raw,
			Summary: "a stdio server exits soon after its stdin is closed, within the shutdown timeout",
			Run:     checkExitOnEOF},
	)
}

// checkNoServerRequests provokes the ordinary exchanges (discover, a list, an error and, given
// a slow tool, a tool call with a progress token) and fails on any request the server sent.
func checkNoServerRequests(t *conform.T) conform.Finding {
	from := t.S.Mark()
	for _, m := range []string{"server/discover", listMethod(t.S), unknownMethod} {
		if _, err := t.S.Request(t.Ctx, m, nil); err != nil {
			return conform.Violated("%s: %v", m, err)
		}
	}
	note := "no --slow-tool: only discover, list and error exchanges were observed"
	if _, ok := needSlowTool(t); ok {
		if _, err := runSlow(t, t.S.NextID()); err != nil {
			return conform.CannotTest("%v", err)
		}
		note = ""
	}
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		return conform.Crashed("%v", err)
	}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Request {
				return conform.Violated("the server sent a request of its own: %s", show(m))
			}
		}
	}
	return conform.Passed("%s", note)
}

func checkNoFurtherAfterCancel(t *conform.T) conform.Finding {
	if f, ok := needSlowTool(t); !ok {
		return f
	}
	// The tool's normal duration, measured on a call like the cancelled one, sets the window in
	// which anything further would show.
	run, f := calibrate(t)
	if f != nil {
		return *f
	}
	took := run.took
	id, token := t.S.NextID(), t.S.NextID()
	call, err := startSlow(t, id, token)
	if err != nil {
		return conform.Crashed("starting the slow tool: %v", err)
	}
	if err := awaitUnderWay(t, call); err != nil {
		return conform.CannotTest("the call %s to be cancelled was never seen under way: %v", id.Text(), err)
	}
	cancelAt := t.S.Mark()
	if _, err := t.S.Send(t.Ctx, rawNotification("notifications/cancelled", cancelParams(id))); err != nil {
		return conform.Crashed("sending the cancellation: %v", err)
	}
	// The answer to a request sent after the cancellation proves the server has read it.
	sid, sd, err := t.S.Sentinel(t.Ctx)
	if err == nil {
		_, err = t.S.AwaitReply(t.Ctx, sd, cancelAt, sid)
	}
	if err != nil {
		return conform.Crashed("after a cancellation the server stopped serving: %v", err)
	}
	readAt := time.Now()
	// Anything for the request later than the grace ends the wait at once; silence lasts the window.
	late := func(r wire.Received) bool {
		if r.At.Before(readAt.Add(cancelRaceGrace)) {
			return false
		}
		if _, ok := wire.FindResponse(r.Msg, id); ok {
			return true
		}
		got, ok := progressTokenOf(r.Msg)
		return ok && got == token
	}
	ctx, cancel := context.WithTimeout(t.Ctx, 2*took+cancelRaceGrace)
	r, err := t.S.Conn.Inbox().Wait(ctx, cancelAt, late)
	cancel()
	if err == nil {
		return conform.Violated("%s after the server had read the cancellation of %s, this came for it: %s", r.At.Sub(readAt).Round(time.Millisecond), id.Text(), show(r.Msg))
	}
	if t.Ctx.Err() != nil {
		return conform.Failed(t.Ctx.Err())
	}
	if cause := t.S.Conn.Inbox().Closed(); cause != nil {
		return conform.Crashed("the server's output ended after the cancellation: %v", cause)
	}
	return conform.Passed("")
}

// progressTokenOf is the token of a progress notification.
func progressTokenOf(m jsonrpc.Message) (jsonrpc.ID, bool) {
	if m.Kind != jsonrpc.Notification || m.Method != "notifications/progress" {
		return "", false
	}
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Token == nil {
		return "", false
	}
	id, err := jsonrpc.CanonicalID(p.Token)
	return id, err == nil
}

func checkExitOnEOF(t *conform.T) conform.Finding {
	sc, ok := t.S.Conn.(*stdio.Conn)
	if !ok {
		return conform.Failed(fmt.Errorf("not a stdio connection"))
	}
	// A stateless request first: the server is up and serving the revision.
	if _, err := t.S.Request(t.Ctx, "server/discover", nil); err != nil {
		return conform.CannotTest("server/discover got no answer, so the server may never have been up: %v", err)
	}
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

// metaLogLevel is the _meta key by which a stateless request asks for log messages.
const metaLogLevel = "io.modelcontextprotocol/logLevel"

// logSeverity orders the RFC 5424 levels, least severe first.
var logSeverity = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3,
	"error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

func init() {
	conform.Register(
		conform.Check{ID: "LOG26-OPT-IN", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport, Connection: conform.Fresh,
			Summary: "a request whose _meta names no log level gets no log messages (the log tool logs when asked to)",
			Run:     checkLogOptIn},
		conform.Check{ID: "LOG26-SCOPE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport, Connection: conform.Fresh,
			Summary: "a request's log messages come only before its response, on its own response stream",
			Run:     checkLogScope},
		conform.Check{ID: "LOG26-AT-OR-ABOVE", Level: "MAY", Revisions: conform.AllCatalogued, Transports: streamTransport, Connection: conform.Fresh,
			Summary:     "log messages for a request are at or above the level it asked for",
			LevelReason: "The spec allows messages at or above the requested level (MAY); one below it was not asked for, which mcpspec reports as a warning.",
			Run:         checkLogAtOrAbove},
	)
}

// logRun is what came for one call of the log tool.
type logRun struct {
	d      *wire.Delivery
	respAt int             // inbox index of the response
	logs   []wire.Received // every notifications/message from the call on
}

// noLogTool says why a check that needs log messages could not run.
const noLogTool = "needs a tool that writes log messages; name one with --log-tool NAME --log-tool-args JSON"

// runLogTool calls the --log-tool with level in its _meta (none when "") and gathers every log
// message from the call until the server is quiet after its response.
func runLogTool(t *conform.T, level string) (logRun, *conform.Finding) {
	var run logRun
	if t.Options().LogTool == "" {
		f := conform.CannotTest("%s", noLogTool)
		return run, &f
	}
	if !t.S.HasCapability("tools") {
		f := conform.CannotTest("the server declares no tools capability, so --log-tool %q cannot be called", t.Options().LogTool)
		return run, &f
	}
	args := t.Options().LogToolArgs
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	params, _ := t.S.ModernParams(map[string]any{"name": t.Options().LogTool, "arguments": args}).(map[string]any)
	if meta, ok := params["_meta"].(map[string]any); ok && level != "" {
		meta[metaLogLevel] = level
	}
	id := t.S.NextID()
	t.S.Sent(id, "tools/call")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "tools/call", params))
	if err != nil {
		f := conform.Crashed("calling the log tool: %v", err)
		return run, &f
	}
	run.d = d
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	if err != nil || !resp.HasResult {
		f := conform.CannotTest("the log tool %q was not answered with a result: %v %s", t.Options().LogTool, err, show(resp))
		return run, &f
	}
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		f := conform.Crashed("%v", err)
		return run, &f
	}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if wire.ContainsResponse(r.Msg, id) {
			run.respAt = r.Index
		}
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Notification && m.Method == "notifications/message" {
				run.logs = append(run.logs, r)
			}
		}
	}
	return run, nil
}

func checkLogOptIn(t *conform.T) conform.Finding {
	asked, f := runLogTool(t, "debug")
	if f != nil {
		return *f
	}
	if len(asked.logs) == 0 {
		return conform.CannotTest("the log tool %q wrote nothing even at debug, so its silence without a level would prove nothing", t.Options().LogTool)
	}
	unasked, f := runLogTool(t, "")
	if f != nil {
		return *f
	}
	if len(unasked.logs) > 0 {
		return conform.Violated("%d log message(s) for a request that named no log level: %s", len(unasked.logs), show(unasked.logs[0].Msg))
	}
	return conform.Passed("")
}

func checkLogScope(t *conform.T) conform.Finding {
	run, f := runLogTool(t, "debug")
	if f != nil {
		return *f
	}
	if len(run.logs) == 0 {
		return conform.CannotTest("the log tool %q wrote nothing at debug, so there is no log message to place", t.Options().LogTool)
	}
	for _, r := range run.logs {
		if r.Index > run.respAt {
			return conform.Violated("a log message came after the request's response: %s", show(r.Msg))
		}
		if run.d.CarriesReplies && r.Via != run.d {
			return conform.Violated("a log message came on another stream than the request's response: %s", show(r.Msg))
		}
	}
	return conform.Passed("")
}

func checkLogAtOrAbove(t *conform.T) conform.Finding {
	const asked = "warning"
	run, f := runLogTool(t, asked)
	if f != nil {
		return *f
	}
	for _, r := range run.logs {
		var p struct {
			Level string `json:"level"`
		}
		_ = json.Unmarshal(r.Msg.Params, &p)
		if n, known := logSeverity[p.Level]; !known || n < logSeverity[asked] {
			return conform.Violated("a log message at %q for a request that asked for %s and above: %s", p.Level, asked, show(r.Msg))
		}
	}
	return conform.Passed("%d log message(s), all at %s or above", len(run.logs), asked)
}
