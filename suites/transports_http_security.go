package suites

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of basic/transports/streamable-http § Security Warning: Origin and Host validation and
// where a launched server listens.

func init() {
	conform.Register(
		conform.Check{ID: "HTTP-ORIGIN-VALIDATE", Level: "MUST", Transports: httpOnly, Revisions: conform.Since(harness.Rev20250326),
			Summary:     "a request with a foreign Origin header is refused, never served",
			LevelReason: "Before 2025-11-25 the spec says servers MUST validate Origin without naming a status; the observable part is that a foreign Origin is not served (no 2xx).",
			Side:        conform.Server{Run: checkOriginValidate}},
		conform.Check{ID: "HTTP-ORIGIN-403", Level: "MUST", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary: "a request with a foreign Origin header is answered 403 Forbidden",
			Side:    conform.Server{Run: checkOrigin403}},
		conform.Check{ID: "HTTP-BIND-LOCALHOST", Level: "SHOULD", Transports: []string{wire.HTTP, wire.SSE},
			Revisions: conform.AllCatalogued,
			Summary:   "a server mcpspec launched listens on the endpoint's port on loopback addresses only, not on every interface or another one",
			Side:      conform.Server{Ready: launchedReady, Run: checkBindLocalhost}},
		conform.Check{ID: "HTTP-HOST-LOCAL", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
			Summary:     "a server on a loopback address refuses (4xx) a request whose Host header is not a local name",
			LevelReason: "Derived, no keyword: the spec requires Origin validation (MUST) and binding to localhost (SHOULD) to prevent DNS rebinding, but names no rule for the Host header. A rebound name reaches a loopback server with that name as Host, so refusing non-local Hosts is the guard the official suite's dns-rebinding-protection scenario expects; it is at most a SHOULD here.",
			Side:        conform.Server{Run: checkHostLocal}},
	)
}

// foreignHost is a Host header a server listening on loopback should never see from a local
// client: what a browser sends after the attacker's name was rebound to 127.0.0.1.
const foreignHost = "evil.example"

// checkHostLocal POSTs the session's opening request (initialize, or server/discover at
// 2026-07-28) twice: with the real Host as a control, then with a foreign Host and no Origin.
func checkHostLocal(t *conform.T) conform.Finding {
	u, err := url.Parse(t.TargetURL())
	if err != nil {
		return conform.CannotTest("the target URL %q: %v", t.TargetURL(), err)
	}
	if !isLoopbackHost(u.Hostname()) {
		return conform.NA("the server is reached at %s, not a loopback address: DNS rebinding guards local servers, and a remote server's Host names are its own", u.Host)
	}
	resp, d, err := openingRequest(t, "")
	if err != nil || d.Status < 200 || d.Status > 299 || !resp.HasResult {
		return conform.CannotTest("the control request with Host: %s was not served (%s), so a refusal of a foreign Host would prove nothing", u.Host, describeServed(d, resp, err))
	}
	resp, d, err = openingRequest(t, foreignHost)
	if d.Status == 0 {
		return conform.Violated("a request with Host: %s got no HTTP response: %v", foreignHost, err)
	}
	if d.Status < 400 || d.Status > 499 {
		return conform.Violated("a request with Host: %s got HTTP %d, want a 4xx refusal (%s)", foreignHost, d.Status, describeServed(d, resp, err))
	}
	if resp.HasResult {
		return conform.Violated("a request with Host: %s got HTTP %d but a JSON-RPC result: %s", foreignHost, d.Status, show(resp))
	}
	return conform.Passed("Host: %s refused with HTTP %d", foreignHost, d.Status)
}

// openingRequest sends the request that opens a session (initialize, or server/discover at
// 2026-07-28) outside the check's session, with host as the Host header unless it is empty.
func openingRequest(t *conform.T, host string) (jsonrpc.Message, *wire.Delivery, error) {
	id := t.S.NextID()
	frame := rawRequest(id, "initialize", harness.InitializeParams(t.Revision))
	r := streamhttp.Request{NoSession: true, NoProtocol: true, Host: host}
	if t.S.Stateless() {
		frame, r.NoProtocol = probeRequest(t.S, id), false
	}
	from := t.S.Mark()
	d, err := post(t, frame, r)
	if err != nil {
		return jsonrpc.Message{}, d, err
	}
	// The wait ends when the response does: a refusal without a JSON-RPC body returns at once.
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return resp, d, err
}

// describeServed says what came back for a request: its status and reply, or why none came.
func describeServed(d *wire.Delivery, resp jsonrpc.Message, err error) string {
	switch {
	case d == nil || d.Status == 0:
		return fmt.Sprintf("no HTTP response: %v", err)
	case resp.Kind == jsonrpc.Invalid:
		return fmt.Sprintf("HTTP %d, %s", d.Status, clip(string(d.Body), 240))
	}
	return fmt.Sprintf("HTTP %d, %s", d.Status, show(resp))
}

// isLoopbackHost reports whether host names this machine: localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func checkOriginValidate(t *conform.T) conform.Finding {
	frame, _ := pingFrame(t)
	d, err := post(t, frame, streamhttp.Request{Header: http.Header{"Origin": {foreignOrigin}}})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if d.Status >= 200 && d.Status < 300 {
		return conform.Violated("a request with Origin: %s was served (HTTP %d)", foreignOrigin, d.Status)
	}
	return conform.Passed("refused with HTTP %d", d.Status)
}

func checkOrigin403(t *conform.T) conform.Finding {
	frame, _ := pingFrame(t)
	d, err := post(t, frame, streamhttp.Request{Header: http.Header{"Origin": {foreignOrigin}}})
	if err != nil {
		return conform.Violated("%v", err)
	}
	if d.Status != http.StatusForbidden {
		return conform.Violated("a request with Origin: %s got HTTP %d, want 403", foreignOrigin, d.Status)
	}
	return conform.Passed("")
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
