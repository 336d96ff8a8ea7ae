package suites

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// More checks of the Streamable HTTP transport (2025-03-26 on, and the stateless revision):
// refused notifications, what a POST's SSE stream may carry, where a launched server listens.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-NOTIF-REJECT", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a malformed POSTed notification is either accepted (202) or refused with an HTTP error status (400 or above), never another 2xx",
			LevelReason: "The spec lets the server decide what it cannot accept, so a 202 passes; a refusal must carry an error status. The body of a refusal MAY be a JSON-RPC error without an id: a permission, so a body of another form (plain text, an error with an id) is reported in the message, not failed.",
			Run:         checkNotificationReject},
		// The next two wait on slow calls: a session of their own (over HTTP only a new
		// session, not a new server) keeps that wait off the shared sessions.
		conform.Check{ID: "HTTP-SSE-RELATED", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh, Waits: true,
			Summary:     "the notifications on a POST's SSE stream belong to that request: progress under its own token, nothing after its response",
			LevelReason: "SHOULD up to 2025-11-25, MUST at 2026-07-28: a violation warns at the handshake revisions and fails at 2026-07-28. Only what can be tied to a request is judged (progress tokens, and the request still running); a log message's origin cannot be told.",
			Ready:       slowToolReady,
			Run:         checkSSERelated},
		conform.Check{ID: "HTTP-BIND-LOCALHOST", Level: "SHOULD", Transports: []string{wire.HTTP, wire.SSE},
			Revisions: conform.AllCatalogued,
			Summary:   "a server mcpspec launched listens on the endpoint's port on loopback addresses only, not on every interface or another one",
			Ready:     launchedReady,
			Run:       checkBindLocalhost},
		conform.Check{ID: "HTTP-GET-UNRELATED", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh,
			Summary: "the GET stream carries no progress of a request POSTed meanwhile: that belongs to the request's own answer",
			Ready:   slowToolReady,
			Run:     checkGetUnrelated},
		conform.Check{ID: "HTTP-NO-BROADCAST", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh,
			Summary:     "with two GET streams open, each notification a list change causes comes on one stream only, never copied to several",
			LevelReason: "One list change should cause one notification; the same notification text on two streams of the session is read as one message broadcast.",
			Ready:       listToolReady,
			Run:         checkNoBroadcast},
		conform.Check{ID: "HTTP-DISCONNECT-NOT-CANCEL", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh, Waits: true,
			Summary:     "dropping the connection of a running request's SSE stream does not cancel it: its work still runs to the end",
			LevelReason: "SHOULD NOT in the spec. The work's end is invisible on the dropped stream, so only a server with the reference's probe tools (a keyed slow tool and slow_outcome) can be judged; others are untestable.",
			Ready:       cancelProbeReady, Run: checkDisconnectNotCancel},
		conform.Check{ID: "HTTP-SSE-NO-EARLY-CLOSE", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "the SSE stream of a slow request stays open until it has carried the request's response",
			LevelReason: "SHOULD NOT close early in the spec; judged on a slow call, where an early close has time to happen (a quick ping is HTTP-SSE-INCLUDES-RESPONSE's probe).",
			Ready:       slowToolReady,
			Run:         checkSSENoEarlyClose},
		conform.Check{ID: "SSE-MESSAGE-EVENTS", Level: "MUST", Transports: []string{wire.SSE}, Revisions: conform.AllCatalogued, Connection: conform.Observed,
			Summary:     "on the legacy SSE stream every server message comes as a message event whose data is one JSON-RPC message",
			LevelReason: "The row describes the transport rather than using a keyword; a message sent in another event type, or as data that is not JSON-RPC, is not delivered to a client of this transport, so mcpspec reads it as a MUST.",
			Run:         checkSSEMessageEvents},
		conform.Check{ID: "HTTP-RESUME-OTHER-STREAM", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued, Connection: conform.Fresh, Waits: true,
			Summary: "resuming a dropped POST stream with GET and Last-Event-ID replays nothing that belonged to another stream of the session",
			Ready:   slowToolReady,
			Run:     checkResumeOtherStream},
	)
}

// malformedNotifications are notifications no JSON-RPC 2.0 peer has to take: a wrong jsonrpc
// version, and params that are not structured.
func malformedNotifications(t *conform.T) []namedFrame {
	method := "notifications/initialized"
	var params any
	if t.S.Modern() {
		method, params = "notifications/cancelled", t.S.ModernParams(cancelParams(t.S.NextID()))
	}
	wrongVersion := map[string]any{"jsonrpc": "1.0", "method": method}
	if params != nil {
		wrongVersion["params"] = params
	}
	v, _ := json.Marshal(wrongVersion)
	p, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": "mcpspec"})
	return []namedFrame{{"jsonrpc \"1.0\"", v}, {"params a string", p}}
}

// namedFrame is a probe and how the report names it.
type namedFrame struct {
	what  string
	frame []byte
}

func checkNotificationReject(t *conform.T) conform.Finding {
	var notes []string
	for _, n := range malformedNotifications(t) {
		what, frame := n.what, n.frame
		d, err := post(t, frame, streamhttp.Request{})
		if err != nil {
			return conform.Violated("a notification with %s: %v", what, err)
		}
		if err := d.Finished(t.Ctx); err != nil {
			return conform.Violated("a notification with %s: reading the response: %v", what, err)
		}
		if d.Status == http.StatusAccepted {
			notes = append(notes, what+": accepted (202)")
			continue
		}
		if d.Status < 400 {
			return conform.Violated("a notification with %s got HTTP %d: neither 202 (accepted) nor an error status: %s", what, d.Status, clip(string(d.Body), 200))
		}
		note := fmt.Sprintf("%s: refused with HTTP %d", what, d.Status)
		if m := jsonrpc.Parse(d.Body); len(d.Body) > 0 && m.Kind == jsonrpc.Response && m.HasID && !m.ID.IsNull() {
			note += fmt.Sprintf(" (its JSON-RPC error carries id %s, where the permitted body has none)", m.ID.Text())
		}
		notes = append(notes, note)
	}
	return conform.Passed("%s", strings.Join(notes, "; "))
}

// slowToolReady ends a check that needs the slow tool before it runs, when there is none.
func slowToolReady(t *conform.T) (conform.Finding, bool) {
	f, ok := needSlowTool(t)
	return f, !ok
}

func checkSSERelated(t *conform.T) conform.Finding {
	var calls []slowCall
	for _, name := range []string{"a", "b"} {
		token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-related-"+name+"-"+randomHex(4)))
		c, err := startSlow(t, t.S.NextID(), token)
		if err != nil {
			return conform.CannotTest("starting slow call %s: %v", name, err)
		}
		calls = append(calls, c)
	}
	streams := 0
	for _, c := range calls {
		if _, err := c.finish(t); err != nil {
			return conform.CannotTest("the slow tool %q got no response: %v", t.Options().SlowTool, err)
		}
		if mediaType(c.d) == "text/event-stream" {
			streams++
		}
	}
	if streams == 0 {
		return conform.NA("both slow calls were answered as %q, not as SSE streams, so no notification could come with them", calls[0].d.ContentType)
	}
	if err := allArrived(t, calls); err != nil {
		return conform.CannotTest("%v", err)
	}
	f := judgeStreamNotifications(t, calls)
	if f.Outcome == conform.Violation && harness.IsModern(t.Revision) {
		f.Severe = true // MUST at 2026-07-28
	}
	return f
}

// judgeStreamNotifications checks every notification that came on one of the calls' SSE
// streams: progress carries that call's token, and nothing follows the call's response.
func judgeStreamNotifications(t *conform.T, calls []slowCall) conform.Finding {
	answered := map[*wire.Delivery]bool{}
	progress := 0
	for _, r := range t.S.Conn.Inbox().Since(calls[0].from) {
		c, ok := callOf(calls, r.Via)
		if !ok {
			continue
		}
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Response && m.ID == c.id {
				answered[c.d] = true
				continue
			}
			if m.Kind != jsonrpc.Notification {
				continue
			}
			if answered[c.d] {
				return conform.Violated("a notification came on a request's stream after that request's response: %s", show(m))
			}
			if m.Method != "notifications/progress" {
				continue
			}
			progress++
			if token, _ := progressTokenOf(m); token != c.token {
				return conform.Violated("progress under token %s came on the stream of the request with token %s: %s", token.Text(), c.token.Text(), show(m))
			}
		}
	}
	if progress == 0 {
		return conform.CannotTest("the slow tool %q reported no progress on either stream", t.Options().SlowTool)
	}
	return conform.Passed("%d progress notifications, each on the stream of the request whose token it carries", progress)
}

// callOf is the call whose HTTP exchange is d.
func callOf(calls []slowCall, d *wire.Delivery) (slowCall, bool) {
	for _, c := range calls {
		if d != nil && c.d == d {
			return c, true
		}
	}
	return slowCall{}, false
}

// launchedReady ends HTTP-BIND-LOCALHOST at once when mcpspec did not start the server: only
// then is the server known to run here, with sockets mcpspec can look at.
func launchedReady(t *conform.T) (conform.Finding, bool) {
	if t.LaunchedPID() == 0 {
		return conform.CannotTest("mcpspec did not launch the server (no --http-cmd), so it cannot see where the server listens"), true
	}
	if _, err := os.Stat("/proc/self/net/tcp"); err != nil {
		return conform.CannotTest("this system has no /proc to show listening sockets: %v", err), true
	}
	return conform.Finding{}, false
}

func checkBindLocalhost(t *conform.T) conform.Finding {
	pid := t.LaunchedPID()
	u, err := url.Parse(t.TargetURL())
	if err != nil {
		return conform.CannotTest("the target URL %q: %v", t.TargetURL(), err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return conform.CannotTest("the target URL %q names no port", t.TargetURL())
	}
	inodes := socketInodes(processGroup(pid))
	var found []string
	for _, file := range []string{"tcp", "tcp6"} {
		text, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "net", file))
		if err != nil {
			continue // no IPv6, or the process has gone
		}
		for _, l := range listeningSockets(string(text)) {
			if l.port != port || !inodes[l.inode] {
				continue
			}
			where := net.JoinHostPort(l.ip.String(), strconv.Itoa(l.port))
			if !l.ip.IsLoopback() {
				return conform.Violated("the server listens on %s: %s", where, describeBind(l.ip))
			}
			found = append(found, where)
		}
	}
	if len(found) == 0 {
		return conform.CannotTest("no socket of the launched process group (%d) listens on port %d; the server may run elsewhere (a container, a daemon)", pid, port)
	}
	return conform.Passed("listening on %s", strings.Join(found, ", "))
}

func describeBind(ip net.IP) string {
	if ip.IsUnspecified() {
		return "every network interface, where loopback alone would do"
	}
	return "a network interface other than loopback"
}

// listener is one listening TCP socket from /proc/net/tcp or tcp6.
type listener struct {
	ip    net.IP
	port  int
	inode string
}

// listeningSockets parses the text of /proc/<pid>/net/tcp or tcp6 and returns the sockets in
// the LISTEN state (0A).
func listeningSockets(text string) []listener {
	var out []listener
	for _, line := range strings.Split(text, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		addr, portHex, ok := strings.Cut(f[1], ":")
		port, err := strconv.ParseUint(portHex, 16, 16)
		ip := procIP(addr)
		if !ok || err != nil || ip == nil {
			continue
		}
		out = append(out, listener{ip: ip, port: int(port), inode: f[9]})
	}
	return out
}

// procIP decodes an address as /proc/net shows it: 32-bit words in host (little-endian) order.
func procIP(h string) net.IP {
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return nil
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b)
}

// processGroup lists the processes of the group led by pid (the launched server and the
// children it started, which inherit its group).
func processGroup(pid int) []string {
	procs := []string{strconv.Itoa(pid)}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == procs[0] {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces and parentheses.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		if f := strings.Fields(rest); len(f) > 2 && f[2] == procs[0] {
			procs = append(procs, e.Name())
		}
	}
	return procs
}

// socketInodes collects the inodes of the sockets the processes hold open.
func socketInodes(procs []string) map[string]bool {
	inodes := map[string]bool{}
	for _, p := range procs {
		dir := filepath.Join("/proc", p, "fd")
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, fd.Name()))
			if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
				inodes[strings.TrimSuffix(inode, "]")] = true
			}
		}
	}
	return inodes
}

// listToolReady ends a check that needs a list change before it runs, when no list-changed
// tool was named or the server has no tools to call.
func listToolReady(t *conform.T) (conform.Finding, bool) {
	if t.Options().ListTool == "" {
		return conform.CannotTest("needs a tool whose call changes a list: name one with --list-changed-tool"), true
	}
	return capabilityReady("tools")(t)
}

func checkGetUnrelated(t *conform.T) conform.Finding {
	get, f := withGetStream(t)
	if f != nil {
		return *f
	}
	token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-get-unrelated-"+randomHex(4)))
	c, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return conform.CannotTest("starting the slow call: %v", err)
	}
	if _, err := c.finish(t); err != nil {
		return conform.CannotTest("the slow tool %q got no response: %v", t.Options().SlowTool, err)
	}
	if _, err := t.S.Quiet(t.Ctx, c.from); err != nil {
		return conform.Crashed("%v", err)
	}
	own := 0
	for _, r := range t.S.Conn.Inbox().Since(c.from) {
		for _, m := range flatten(r.Msg) {
			if got, ok := progressTokenOf(m); !ok || got != token {
				continue
			}
			if r.Via == get {
				return conform.Violated("progress of a POSTed request came on the GET stream: %s", show(m))
			}
			own++
		}
	}
	if own == 0 {
		return conform.CannotTest("the slow tool %q reported no progress, so none could stray to the GET stream", t.Options().SlowTool)
	}
	return conform.Passed("%d progress notifications, none on the GET stream", own)
}

func checkNoBroadcast(t *conform.T) conform.Finding {
	gets := 0
	var noGet *conform.Finding // why the first GET gave no stream: none offered (na), or no answer
	for i := 0; i < 2; i++ {
		if _, f := withGetStream(t); f == nil {
			gets++
		} else if noGet == nil {
			noGet = f
		}
	}
	if gets == 0 {
		return *noGet
	}
	from := t.S.Mark()
	if err := callListTool(t); err != nil {
		return conform.CannotTest("%v", err)
	}
	defer func() { _ = callListTool(t) }() // change the list back
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		return conform.Crashed("%v", err)
	}
	streams := map[string]map[*wire.Delivery]bool{}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(r.Msg) {
			if m.Kind != jsonrpc.Notification || r.Via == nil {
				continue
			}
			key := string(m.Raw)
			if streams[key] == nil {
				streams[key] = map[*wire.Delivery]bool{}
			}
			streams[key][r.Via] = true
			if n := len(streams[key]); n > 1 {
				return conform.Violated("the same notification came on %d streams (%d GET streams open): %s", n, gets, show(m))
			}
		}
	}
	if len(streams) == 0 {
		return conform.CannotTest("calling the list-changed tool %q caused no notification", t.Options().ListTool)
	}
	return conform.Passed("%d distinct notification(s), each on one stream (%d GET streams open)", len(streams), gets)
}

func checkSSENoEarlyClose(t *conform.T) conform.Finding {
	token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-early-close-"+randomHex(4)))
	c, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return conform.CannotTest("starting the slow call: %v", err)
	}
	if err := waitReady(t, c.d); err != nil {
		return conform.Violated("the slow call: %v", err)
	}
	if mediaType(c.d) != "text/event-stream" {
		return conform.NA("the slow call was answered as %q, not as an SSE stream", c.d.ContentType)
	}
	if _, err := c.finish(t); err != nil {
		if c.d.IsFinished() {
			return conform.Violated("the SSE stream of the slow call ended without its response (%d events): %v", len(c.d.EventsSoFar()), err)
		}
		return conform.CannotTest("the slow tool %q got no response while its stream stayed open: %v", t.Options().SlowTool, err)
	}
	return conform.Passed("")
}

// cancelProbeReady ends HTTP-DISCONNECT-NOT-CANCEL before its session is opened when the
// server lacks the tools that show a run's end.
func cancelProbeReady(t *conform.T) (conform.Finding, bool) {
	ok, err := hasCancelProbe(t)
	switch {
	case err != nil:
		return conform.Violated("%v", err), true
	case !ok:
		return conform.CannotTest("needs tools a black-box client can see a run's end with: %q taking a key, and %q reporting how that run ended (the mcpspec reference server has both)", probeSlowTool, probeOutcomeTool), true
	}
	return conform.Finding{}, false
}

func checkDisconnectNotCancel(t *conform.T) conform.Finding {
	// The run lasts a quarter of the wait for its outcome: long enough for a server to notice
	// the disconnect while it runs, short enough to end within the wait unless stopped.
	wait := min(t.S.Env().Timeouts.Request/2, probeMaxWait)
	steps := max(10, int(wait/time.Millisecond)/(4*probeStepMs))
	key := "mcpspec-" + randomHex(8)

	// Another connection (and session), so that only its streams are dropped.
	s2, err := t.Open(t.Revision)
	if err != nil {
		return conform.Failed(fmt.Errorf("another session: %w", err))
	}
	id := s2.NextID()
	params := map[string]any{"name": probeSlowTool, "arguments": map[string]any{"steps": steps, "stepMs": probeStepMs, "key": key}}
	frame := rawRequest(id, "tools/call", withProgressToken(s2, params, jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-progress-"+randomHex(4)))))
	s2.Sent(id, "tools/call")
	from := s2.Mark()
	d, err := s2.Send(t.Ctx, frame)
	if err != nil {
		return conform.Failed(fmt.Errorf("sending the slow call: %w", err))
	}
	if _, err := s2.WaitFor(t.Ctx, d, from, func(r wire.Received) bool {
		return slices.ContainsFunc(flatten(r.Msg), func(m jsonrpc.Message) bool { return m.Method == "notifications/progress" })
	}); err != nil {
		return conform.CannotTest("the %s call sent no progress on its stream, so it cannot be seen running before the disconnect: %v", probeSlowTool, err)
	}
	if !isEventStream(d) {
		return conform.CannotTest("the %s call was answered as %q, not an SSE stream", probeSlowTool, d.ContentType)
	}
	_ = s2.Conn.Close() // drops the connection; the session is not deleted

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
	case "finished":
		return conform.Passed("the run finished after its stream's connection was dropped")
	case "cancelled":
		return conform.Violated("the %s run (key %s) was cancelled when its SSE stream's connection was dropped", probeSlowTool, key)
	default:
		return conform.CannotTest("%s reported %q for key %s within %s", probeOutcomeTool, outcome, key, wait)
	}
}

// checkSSEMessageEvents judges the pristine session's stream (pristine.go), from its start.
func checkSSEMessageEvents(t *conform.T) conform.Finding {
	p, f := observePristine(t)
	if f != nil {
		return *f
	}
	var found []string
	for _, v := range p.violations {
		if v.Kind == "unexpected-event-type" || v.Kind == "invalid-sse-data" {
			found = append(found, fmt.Sprintf("%s: %q", v.Detail, clip(v.Sample, 160)))
		}
	}
	if len(found) > 0 {
		return conform.Violated("%d event(s) on the SSE stream were not message events carrying JSON-RPC:\n%s", len(found), strings.Join(found, "\n"))
	}
	return conform.Passed("%s", p.workNote())
}

func checkResumeOtherStream(t *conform.T) conform.Finding {
	hc := httpConn(t)
	// Stream A runs on a connection of its own in the same session, so that dropping it
	// leaves stream B and the session alone.
	s2, err := t.Connect()
	if err != nil {
		return conform.Failed(fmt.Errorf("another connection: %w", err))
	}
	hc2, ok := s2.Conn.(*streamhttp.Conn)
	if !ok {
		return conform.Failed(fmt.Errorf("another connection is not Streamable HTTP"))
	}
	hc2.SetSession(hc.Session())
	hc2.SetProtocolVersion(t.Revision)

	tokenB := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-resume-b-"+randomHex(4)))
	b, err := startSlow(t, t.S.NextID(), tokenB)
	if err != nil {
		return conform.CannotTest("starting slow call B: %v", err)
	}
	idA, tokenA := t.S.NextID(), jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-resume-a-"+randomHex(4)))
	params := map[string]any{"name": t.Options().SlowTool, "arguments": json.RawMessage(t.Options().SlowToolArgs)}
	fromA := s2.Mark()
	a, err := s2.Send(t.Ctx, rawRequest(idA, "tools/call", withProgressToken(s2, params, tokenA)))
	if err != nil {
		return conform.CannotTest("starting slow call A: %v", err)
	}
	if _, err := s2.WaitFor(t.Ctx, a, fromA, func(wire.Received) bool { return true }); err != nil {
		return conform.CannotTest("slow call A carried no message before its stream could be dropped: %v", err)
	}
	if !isEventStream(a) {
		return conform.NA("slow call A was answered as %q, not an SSE stream", a.ContentType)
	}
	last := ""
	for _, e := range a.EventsSoFar() {
		if e.HasID && e.ID != "" {
			last = e.ID
			break
		}
	}
	_ = s2.Conn.Close() // drops stream A; the session stays
	if last == "" {
		return conform.NA("stream A carried no event id, so it cannot be resumed")
	}
	if _, err := b.finish(t); err != nil {
		return conform.CannotTest("slow call B got no response: %v", err)
	}

	from := t.S.Mark()
	r := hc.Do(t.Ctx, nil, streamhttp.Request{Method: http.MethodGet, Header: http.Header{"Last-Event-ID": {last}}})
	if err := waitReady(t, r); err != nil {
		// Not answering is no replay of another stream: the resumption is not observable.
		return conform.CannotTest("GET with Last-Event-ID %s got no answer, so no replay to judge: %v", last, err)
	}
	if r.Status != http.StatusOK || !isEventStream(r) {
		return conform.NA("GET with Last-Event-ID %s got HTTP %d %q: the server does not resume streams", last, r.Status, r.ContentType)
	}
	// A server that resumes starts with what A logged meanwhile; one that does not opens a
	// plain GET stream, which a quiet window shows. Once A's replay has begun, A's response
	// ends it; a replay without it (a server that logged no response) is given the late-reply
	// grace, as stored events are sent at once.
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		return conform.Crashed("%v", err)
	}
	if len(replayed(t, from, r, idA, tokenA)) > 0 {
		ctx, cancel := context.WithTimeout(t.Ctx, lateReplyGrace)
		_, _ = t.S.WaitFor(ctx, r, from, func(rc wire.Received) bool { return wire.ContainsResponse(rc.Msg, idA) })
		cancel()
		if _, err := t.S.Quiet(t.Ctx, from); err != nil {
			return conform.Crashed("%v", err)
		}
	}
	if ofB := replayed(t, from, r, b.id, tokenB); len(ofB) > 0 {
		return conform.Violated("resuming stream A (Last-Event-ID %s) replayed %d message(s) of stream B: %s", last, len(ofB), show(ofB[0]))
	}
	ofA := len(replayed(t, from, r, idA, tokenA))
	if ofA == 0 {
		return conform.NA("GET with Last-Event-ID %s replayed nothing of stream A: the server does not resume streams", last)
	}
	return conform.Passed("the resumed stream carried %d message(s) of stream A and none of stream B", ofA)
}

// replayed returns the messages of one call (its response, or progress under its token)
// that came on delivery r from inbox position from on.
func replayed(t *conform.T, from int, r *wire.Delivery, id, token jsonrpc.ID) []jsonrpc.Message {
	var out []jsonrpc.Message
	for _, rc := range t.S.Conn.Inbox().Since(from) {
		for _, m := range flatten(rc.Msg) {
			if rc.Via == r && belongsTo(m, id, token) {
				out = append(out, m)
			}
		}
	}
	return out
}

// belongsTo reports whether m is the response to id or progress under token.
func belongsTo(m jsonrpc.Message, id, token jsonrpc.ID) bool {
	if m.Kind == jsonrpc.Response && m.ID == id {
		return true
	}
	got, ok := progressTokenOf(m)
	return ok && got == token
}
