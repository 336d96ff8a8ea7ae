package main

// mcpspec judge: its verdicts on mcpspec's own transcripts agree with the active run's, the
// observed checks fail on the reference server's and reference client's faults, and a HAR file
// of a real HTTP session is judged.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/harness/sse"
	"github.com/mcpspec/mcpspec/reports"
)

// judgeTimeout bounds one `mcpspec judge` of a small recording.
const judgeTimeout = 60 * time.Second

// judged runs `mcpspec judge` over files and returns its results; wantCode -1 takes any
// verdict (a fault may fail a MUST or warn a SHOULD).
func judged(t *testing.T, d runDir, wantCode int, args ...string) *reports.Run {
	t.Helper()
	out := t.TempDir()
	r := runBinary(t, judgeTimeout, d.mcpspec, append([]string{"judge", "--out", out}, args...)...)
	if wantCode >= 0 && r.code != wantCode {
		t.Fatalf("judge %v: exit %d, want %d\n%s\n%s", args, r.code, wantCode, tail(r.stdout, 30), r.stderr)
	}
	return assertReports(t, out)
}

// contradiction is "" when an observed verdict and the active one agree: both passed, or both
// found the rule broken; na and untestable on either side are no verdict.
func contradiction(active, seen reports.Status) bool {
	judged := func(s reports.Status) bool { return s == reports.Pass || s == reports.Fail || s == reports.Warn }
	return judged(active) && judged(seen) && (active == reports.Pass) != (seen == reports.Pass)
}

func TestJudgeAgreesWithRun(t *testing.T) {
	d := newRunDir(t)
	out, dir := t.TempDir(), t.TempDir()
	r := runBinary(t, referenceRunTimeout*4, d.mcpspec, "run", "--versions", "all", "--transcript", dir, "--out", out)
	if r.code != reports.ExitOK {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, tail(r.stdout, 30), r.stderr)
	}
	active := assertReports(t, out)
	// The harness breaks client rules on purpose (that is how it tests the server), so the
	// judgement fails on the client side: only the server's verdicts are compared.
	seen := judged(t, d, reports.ExitFailures, filepath.Join(dir, "transcript.jsonl"))
	byKey := map[string]reports.Status{}
	for _, res := range active.Results {
		byKey[res.ID+"|"+res.Version+"|"+res.Transport] = res.Status
	}
	agreed := 0
	for _, res := range seen.Results {
		if res.Mode != reports.ModeObserved || (res.Side != "server" && res.Side != "client") {
			t.Errorf("%s: mode %q side %q: an observed verdict names its mode and side", res.ID, res.Mode, res.Side)
		}
		if res.Side != "server" {
			continue
		}
		if res.Status == reports.Fail || res.Status == reports.Warn || res.Status == reports.Error {
			t.Errorf("observed %s (%s %s) on the clean reference server: %s: %s", res.ID, res.Version, res.Transport, res.Status, res.Message)
		}
		a, ok := byKey[res.ID+"|"+res.Version+"|"+res.Transport]
		if !ok {
			continue
		}
		if contradiction(a, res.Status) {
			t.Errorf("%s %s %s: the run says %s, the judge %s: %s", res.ID, res.Version, res.Transport, a, res.Status, res.Message)
		} else if a == res.Status && a == reports.Pass {
			agreed++
		}
	}
	if agreed < 10 {
		t.Errorf("only %d requirements passed both actively and observed: the comparison proves little", agreed)
	}
}

// TestJudgeSeesServerFaults: each observed check that can see a reference-server fault fails on
// mcpspec run's transcript of that faulty server (the active check makes the server show it).
func TestJudgeSeesServerFaults(t *testing.T) {
	d := newRunDir(t)
	slow := []string{"--slow-tool", "slow", "--slow-tool-args", `{"steps":6,"stepMs":30}`}
	cases := []struct {
		fault, check string
		http         bool
		runArgs      []string
		judgeArgs    []string
	}{
		{fault: "MSG-JSONRPC", check: "MSG-JSONRPC"},
		{fault: "STDIO-STDOUT-ONLY-MCP", check: "STDIO-STDOUT-ONLY-MCP"},
		{fault: "JRPC-REPLY-REQUIRED", check: "JRPC-REPLY-REQUIRED"},
		{fault: "BATCH-REMOVED", check: "BATCH-REMOVED"},
		{fault: "LIFE-SERVER-WAIT-INITIALIZED", check: "LIFE-SERVER-WAIT-INITIALIZED"},
		{fault: "PROG-KNOWN-TOKEN", check: "PROG-KNOWN-TOKEN", runArgs: slow},
		{fault: "PROG-MONOTONIC", check: "PROG-MONOTONIC", runArgs: slow},
		{fault: "PROG-STOP", check: "PROG-STOP", runArgs: slow},
		// The slow tool runs 1.5 s; the faulty server answers when it ends, well past the grace
		// after the cancellation: no response in flight can take that long.
		{fault: "CANCEL-STOP-NO-RESPONSE", check: "CANCEL-STOP-NO-RESPONSE",
			runArgs:   []string{"--slow-tool", "slow", "--slow-tool-args", `{"steps":15,"stepMs":100}`},
			judgeArgs: []string{"--cancel-grace", "500ms"}},
		{fault: "JRPC-NOTIF-NO-REPLY", check: "JRPC-NOTIF-NO-REPLY"},
		{fault: "JRPC-NOTIF-NO-REPLY", check: "JRPC-NOTIF-NO-REPLY", http: true},
		{fault: "HTTP-202-ACCEPTED", check: "HTTP-202-ACCEPTED", http: true},
		{fault: "HTTP-EVENT-ID-UNIQUE", check: "HTTP-EVENT-ID-UNIQUE", http: true, runArgs: slow},
		{fault: "HTTP-RESUME-OTHER-STREAM", check: "HTTP-RESUME-OTHER-STREAM", http: true, runArgs: slow},
	}
	for _, c := range cases {
		name := c.fault
		if c.http {
			name += "/http"
		}
		t.Run(name, func(t *testing.T) {
			out, dir := t.TempDir(), t.TempDir()
			args := []string{"run", "--focus", "^" + c.fault + " ", "--versions", "2025-11-25", "--transcript", dir, "--out", out}
			if c.http {
				addr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
				args = append(args, "--http-cmd", d.mcpspec+" reference --http "+addr+" --fault "+c.fault, "--url", "http://"+addr+"/mcp")
			} else {
				args = append(args, "--stdio", d.mcpspec+" reference --fault "+c.fault)
			}
			r := runBinary(t, referenceRunTimeout*2, d.mcpspec, append(args, c.runArgs...)...)
			if r.code != reports.ExitFailures && r.code != reports.ExitOK {
				t.Fatalf("run: exit %d\n%s\n%s", r.code, tail(r.stdout, 30), r.stderr)
			}
			// A broken SHOULD warns and exits 0, a broken MUST exits 1: the verdict below decides.
			seen := judged(t, d, -1, append(c.judgeArgs, filepath.Join(dir, "transcript.jsonl"))...)
			for _, res := range seen.Results {
				if res.ID == c.check && res.Side == "server" && (res.Status == reports.Fail || res.Status == reports.Warn) {
					if len(res.Evidence) == 0 {
						t.Errorf("%s fails without evidence: %s", c.check, res.Message)
					}
					return
				}
			}
			t.Errorf("no server-side %s failed on the fault %s:\n%s", c.check, c.fault, observedStatuses(seen, c.check))
		})
	}
}

func observedStatuses(run *reports.Run, id string) string {
	var b strings.Builder
	for _, res := range run.Results {
		if res.ID == id {
			fmt.Fprintf(&b, "  %s %s %s: %s\n", res.Side, res.Version, res.Transport, res.Message)
		}
	}
	return b.String()
}

// tap is a recording reverse proxy for the tests: it relays each HTTP exchange to the upstream
// server, streams SSE through as it comes, and keeps both a recording and a HAR of it.
type tap struct {
	upstream string
	rec      *recording.Writer
	mu       sync.Mutex
	exchange int
	entries  []map[string]any
	// active counts the exchanges still being relayed: the server's Close does not wait for its
	// handlers, and the files are written only once every one has recorded its last frame.
	active  sync.WaitGroup
	stopped bool
}

func (p *tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		http.Error(w, "the tap has stopped", http.StatusServiceUnavailable)
		return
	}
	p.active.Add(1)
	defer p.active.Done()
	p.exchange++
	ex := p.exchange
	p.mu.Unlock()
	started := time.Now()
	body, _ := io.ReadAll(r.Body)
	p.rec.Add(recording.Record{From: recording.FromClient, Transport: recording.HTTP, Exchange: ex, Channel: recording.ChanRequest,
		Method: r.Method, Path: r.URL.RequestURI(), Header: flat(r.Header), Body: string(body)})
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), strings.NewReader(string(body)))
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	head := recording.Record{From: recording.FromServer, Transport: recording.HTTP, Exchange: ex, Channel: recording.ChanResponse, Status: resp.StatusCode, Header: flat(resp.Header)}
	var text strings.Builder
	if !stream {
		b, _ := io.ReadAll(resp.Body)
		head.Body = string(b)
		text.Write(b)
		p.rec.Add(head) // before the client has it, as every record below
		_, _ = w.Write(b)
	} else {
		p.rec.Add(head)
		if f, ok := w.(http.Flusher); ok {
			f.Flush() // a stream's head goes out before its first event, as a relay's must
		}
		// Each event is recorded before its bytes go on: the client acts on an event at its
		// blank line (answers the server's request in it with a POST, which this tap records
		// at once), so an event recorded after it had passed could follow that answer in the
		// recording, and the judge would see a response to a request not yet sent.
		var pending []byte
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			pending = append(pending, buf[:n]...)
			end := eventsEnd(pending)
			if err != nil {
				end = len(pending) // the stream's tail, which no blank line dispatches
			}
			if end > 0 {
				p.recordEvents(ex, pending[:end])
				_, _ = w.Write(pending[:end])
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
				text.Write(pending[:end])
				pending = append([]byte(nil), pending[end:]...)
			}
			if err != nil {
				break
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	entry := map[string]any{
		"startedDateTime": started.UTC().Format(time.RFC3339Nano),
		"time":            float64(time.Since(started).Microseconds()) / 1000,
		"request": map[string]any{"method": r.Method, "url": "http://" + r.Host + r.URL.RequestURI(), "httpVersion": "HTTP/1.1",
			"headers": harHeaders(r.Header), "queryString": []any{}, "cookies": []any{}, "headersSize": -1, "bodySize": len(body),
			"postData": map[string]any{"mimeType": r.Header.Get("Content-Type"), "text": string(body)}},
		"response": map[string]any{"status": resp.StatusCode, "statusText": http.StatusText(resp.StatusCode), "httpVersion": "HTTP/1.1",
			"headers": harHeaders(resp.Header), "cookies": []any{}, "redirectURL": "", "headersSize": -1, "bodySize": text.Len(),
			"content": map[string]any{"size": text.Len(), "mimeType": resp.Header.Get("Content-Type"), "text": text.String()}},
		"cache":   map[string]any{},
		"timings": map[string]any{"send": 0, "wait": 0, "receive": 0},
	}
	p.entries = append(p.entries, entry)
}

// recordEvents records the events of b, a part of a stream that ends at an event's end.
func (p *tap) recordEvents(ex int, b []byte) {
	rd := sse.NewReader(bytes.NewReader(b))
	for {
		ev, err := rd.Next()
		if err != nil {
			return
		}
		typ := ev.Type
		if typ == "message" {
			typ = ""
		}
		p.rec.Add(recording.Record{From: recording.FromServer, Transport: recording.HTTP, Exchange: ex, Channel: recording.ChanEvent, EventID: ev.ID, Event: typ, Body: ev.Data})
	}
}

// eventsEnd is the offset just past the last blank line of b (LF or CRLF line ends): the end
// of its last complete event, 0 when none has ended.
func eventsEnd(b []byte) int {
	end, at := 0, 0
	for {
		i := bytes.IndexByte(b[at:], '\n')
		if i < 0 {
			return end
		}
		line := b[at : at+i]
		at += i + 1
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			end = at
		}
	}
}

func flat(h http.Header) map[string]string {
	out := map[string]string{}
	for k, vs := range h {
		out[k] = strings.Join(vs, ", ")
	}
	return out
}

func harHeaders(h http.Header) []map[string]string {
	var out []map[string]string
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, map[string]string{"name": k, "value": v})
		}
	}
	return out
}

// tapDrain bounds the wait for the tap's exchanges after its server closed: closing the
// connections cancels their upstream requests, so each ends at once.
const tapDrain = 30 * time.Second

// stop refuses new exchanges and waits for those under way to record their last frames.
func (p *tap) stop(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	drained := make(chan struct{})
	go func() {
		p.active.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(tapDrain):
		t.Fatalf("the tap's exchanges did not end within %s of its server's close", tapDrain)
	}
}

// writeHAR writes the exchanges the tap relayed as a HAR 1.2 file.
func (p *tap) writeHAR(t *testing.T, path string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	doc := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "mcpspec-test", "version": version}, "entries": p.entries}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tapSession runs the reference client (with faults) against the reference server through a
// tap, and returns the paths of the recording and the HAR of the session.
func tapSession(t *testing.T, d runDir, upstream string, handshake bool, faults ...string) (rec, har string) {
	t.Helper()
	dir := t.TempDir()
	rec, har = filepath.Join(dir, "recording.jsonl"), filepath.Join(dir, "session.har")
	w, err := recording.Create(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &tap{upstream: "http://" + upstream, rec: w}
	// Listening before the client starts: it connects at once.
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", loopbackPort(t)))
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	args := []string{"reference-client", "--timeout", "30s"}
	if handshake {
		args = append(args, "--handshake-only") // initialize, sessions and their headers
	}
	for _, f := range faults {
		args = append(args, "--fault", f)
	}
	r := runBinary(t, 45*time.Second, d.mcpspec, append(args, "http://"+addr+"/mcp")...)
	_ = srv.Close()
	<-served
	p.stop(t)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p.writeHAR(t, har)
	if t.Failed() {
		t.Logf("reference client: exit %d\n%s", r.code, r.stderr)
	}
	return rec, har
}

// TestJudgeSeesClientFaults: the reference client against the reference server through a
// recording tap: clean, no client-side verdict fails; with a fault, the observed check that can
// see it fails. The same sessions' HAR files are judged alike.
func TestJudgeSeesClientFaults(t *testing.T) {
	d := newRunDir(t)
	upstream := startLongRunningReference(t, d)
	stateless, statelessHAR := tapSession(t, d, upstream, false)
	handshake, handshakeHAR := tapSession(t, d, upstream, true)
	for _, file := range []string{stateless, statelessHAR, handshake, handshakeHAR} {
		seen := judged(t, d, reports.ExitOK, file)
		passes := 0
		for _, res := range seen.Results {
			switch res.Status {
			case reports.Pass:
				passes++
			case reports.Fail, reports.Warn, reports.Error:
				t.Errorf("%s: %s (%s) on the clean pair: %s: %s", filepath.Base(file), res.ID, res.Side, res.Status, res.Message)
			}
		}
		if passes < 10 || !strings.Contains(seen.Target.Description, "(") {
			t.Errorf("%s: %d passes (%s): the session was hardly judged", filepath.Base(file), passes, seen.Target.Description)
		}
	}
	// The faults the reference server lets show: MSG-REQ-ID-UNIQUE, HTTP-PROTO-HEADER-NEGOTIATED
	// and PAGE-CLIENT-OPAQUE need the probe's scenarios (a ping during a call, a version other
	// than the one asked for, a paged list), and are pinned by the package's own tests.
	cases := []struct {
		fault, check string
		handshake    bool
		judgeArgs    []string
	}{
		{fault: "LIFE-INITIALIZED-NOTIF", check: "LIFE-INITIALIZED-NOTIF", handshake: true},
		{fault: "MSG-JSONRPC", check: "MSG-JSONRPC", handshake: true},
		// The first request, server/discover, gets the bad id.
		{fault: "MSG-REQ-ID-TYPE", check: "MSG-REQ-ID-TYPE"},
		{fault: "MSG-REQ-ID-NOT-NULL", check: "MSG-REQ-ID-NOT-NULL"},
		// The server refuses the POST, so nothing is negotiated: the revision is given.
		{fault: "HTTP-POST-ACCEPT", check: "HTTP-POST-ACCEPT", handshake: true, judgeArgs: []string{"--revision", "2025-11-25"}},
		{fault: "HTTP-SESSION-CLIENT", check: "HTTP-SESSION-CLIENT", handshake: true},
		{fault: "LIFE-HTTP-VERSION-HEADER", check: "LIFE-HTTP-VERSION-HEADER", handshake: true},
		{fault: "HTTP26-META-HEADERS-CLIENT", check: "HTTP26-META-HEADERS-CLIENT"},
		{fault: "HTTP-GET-ACCEPT", check: "HTTP-GET-ACCEPT", handshake: true},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			rec, har := tapSession(t, d, upstream, c.handshake, c.fault)
			for _, file := range []string{rec, har} {
				seen := judged(t, d, -1, append(c.judgeArgs, file)...)
				found := false
				for _, res := range seen.Results {
					if res.ID == c.check && res.Side == "client" && (res.Status == reports.Fail || res.Status == reports.Warn) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: no client-side %s failed on the fault %s:\n%s", filepath.Base(file), c.check, c.fault, observedStatuses(seen, c.check))
				}
			}
		})
	}
}

func TestJudgeRefusesBadUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.jsonl", "\n\n")
	garbage := write("garbage.txt", "hello world\n")
	other := write("other.jsonl", `{"name":"x"}`+"\n")
	badHAR := write("bad.har", "{\n  \"log\": [\n")
	badStdio := write("bad.txt", "> {\"jsonrpc\":\"2.0\"}\nno prefix\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"judge"}, "judge: no FILE"},
		{[]string{"judge", "--revision", "2099-01-01", empty}, `unknown revision "2099-01-01"`},
		{[]string{"judge", "--revision", "", empty}, "judge: --revision " + emptyMsg},
		{[]string{"judge", "--format", "pcap", empty}, `unknown format "pcap"`},
		{[]string{"judge", "--max-frames", "-1", empty}, "--max-frames must not be negative"},
		{[]string{"judge", "--nope", empty}, "judge: flag provided but not defined: -nope"},
		{[]string{"judge", filepath.Join(dir, "none.jsonl")}, "none.jsonl: open"},
		{[]string{"judge", empty}, "the file is empty"},
		{[]string{"judge", garbage}, "unrecognised content"},
		{[]string{"judge", other}, "neither a recording record nor a transcript line"},
		{[]string{"judge", badHAR}, "HAR file"},
		{[]string{"judge", badStdio}, `line 2: no "> "`},
		{[]string{"judge", "--format", "har", other}, "HAR file: no log object"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, usageRunTimeout, bins.mcpspec, append(c.args[:1:1], append([]string{"--out", filepath.Join(t.TempDir(), "out")}, c.args[1:]...)...)...)
			assertUsageError(t, r, c.want)
			if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n > 0 {
				t.Errorf("the reason takes %d lines, want one:\n%s", n+1, r.stderr)
			}
		})
	}
}

// TestJudgeStdioCapture: the documented line format, judged; a bound on the frames says what
// it skipped.
func TestJudgeStdioCapture(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	capture := filepath.Join(t.TempDir(), "capture.txt")
	lines := strings.Join([]string{
		"# a host and a server, captured by hand",
		`> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`,
		"! server starting",
		`< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		`> {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`< {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`,
		`> {"jsonrpc":"2.0","id":3,"method":"prompts/list"}`,
		`< {"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no prompts"}}`,
	}, "\n") + "\n"
	if err := os.WriteFile(capture, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := judged(t, d, reports.ExitFailures, capture)
	want := map[string]reports.Status{
		"LIFE-INITIALIZED-NOTIF|client":    reports.Fail, // the client never sent it
		"LIFE-OPERATION-NEGOTIATED|client": reports.Fail, // prompts/list without the capability
		"JRPC-REPLY-REQUIRED|server":       reports.Pass,
		"MSG-REQ-ID-UNIQUE|client":         reports.Pass,
		"PROG-MONOTONIC|server":            reports.NA,
	}
	for _, res := range seen.Results {
		k := res.ID + "|" + res.Side
		if w, ok := want[k]; ok {
			if res.Status != w {
				t.Errorf("%s: %s, want %s: %s", k, res.Status, w, res.Message)
			}
			if w == reports.NA && !strings.HasPrefix(res.Message, "not exercised") {
				t.Errorf("%s: na says %q, want \"not exercised…\"", k, res.Message)
			}
			delete(want, k)
		}
	}
	for k := range want {
		t.Errorf("no verdict for %s", k)
	}
	// Four frames kept of seven: the rest is skipped, and said.
	out := t.TempDir()
	r := runBinary(t, judgeTimeout, d.mcpspec, "judge", "--max-frames", "4", "--out", out, capture)
	if !strings.Contains(r.stderr, "3 frames past the reader's bound were skipped") {
		t.Errorf("the skipped frames are not said: exit %d\n%s", r.code, r.stderr)
	}
}

// The stdio tap: the test binary, run with stdioTapEnv set, is a server command that launches
// the real server (stdioTapServerEnv, its words separated by \x1f) and relays every line both
// ways unchanged, recording each into the file stdioTapEnv names.
const (
	stdioTapEnv       = "MCPSPEC_TEST_STDIO_TAP"
	stdioTapServerEnv = "MCPSPEC_TEST_STDIO_TAP_SERVER"
)

func init() {
	if out := os.Getenv(stdioTapEnv); out != "" {
		os.Exit(stdioTap(out, strings.Split(os.Getenv(stdioTapServerEnv), "\x1f")))
	}
}

func stdioTap(out string, server []string) int {
	w, err := recording.Create(out, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	defer w.Close()
	cmd := exec.Command(server[0], server[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "tap:", err)
		return 1
	}
	relay := func(from string, ch string, src io.Reader, dst io.Writer) {
		rd := bufio.NewReader(src)
		for {
			line, err := rd.ReadBytes('\n')
			if len(line) > 0 {
				w.Add(recording.Record{From: from, Transport: recording.Stdio, Channel: ch, Body: strings.TrimRight(string(line), "\r\n")})
				_ = w.Flush()
				_, _ = dst.Write(line)
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		relay(recording.FromClient, recording.ChanStdin, os.Stdin, in)
		_ = in.Close() // the client's EOF is the server's
	}()
	relay(recording.FromServer, recording.ChanStdout, stdout, os.Stdout)
	if err := cmd.Wait(); err != nil {
		return 1
	}
	return 0
}

// TestJudgeStdioSessions: the reference client and server over stdio through the tap: clean,
// at either era, no verdict fails; each client fault the reference server lets show is seen.
func TestJudgeStdioSessions(t *testing.T) {
	d := newRunDir(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	session := func(t *testing.T, handshake bool, faults ...string) string {
		rec := filepath.Join(t.TempDir(), "recording.jsonl")
		args := []string{"reference-client", "--timeout", "30s"}
		if handshake {
			args = append(args, "--handshake-only")
		}
		for _, f := range faults {
			args = append(args, "--fault", f)
		}
		env := []string{stdioTapEnv + "=" + rec, stdioTapServerEnv + "=" + d.mcpspec + "\x1freference"}
		r := runBinaryEnv(t, 45*time.Second, env, d.mcpspec, append(args, self)...)
		if _, err := os.Stat(rec); err != nil {
			t.Fatalf("no recording (reference client: exit %d)\n%s", r.code, r.stderr)
		}
		return rec
	}
	for _, handshake := range []bool{false, true} {
		clean := judged(t, d, reports.ExitOK, session(t, handshake))
		passes := 0
		for _, res := range clean.Results {
			switch {
			case res.Status == reports.Pass:
				passes++
			case res.Status == reports.Fail || res.Status == reports.Warn || res.Status == reports.Error:
				t.Errorf("%s (%s) on the clean pair over stdio: %s: %s", res.ID, res.Side, res.Status, res.Message)
			}
		}
		if passes < 10 {
			t.Errorf("%d passes: the stdio session was hardly judged", passes)
		}
	}
	cases := []struct {
		fault     string
		handshake bool
		judgeArgs []string
	}{
		{"STDIO-CLIENT-STDIN", true, nil},
		// The server refuses the early tools/list and the client stops: nothing was
		// negotiated, so the revision is given.
		{"LIFE-PRE-INIT-REQUEST", true, []string{"--revision", "2025-11-25"}},
		{"LIFE-INITIALIZED-NOTIF", true, nil},
		{"MSG-REQ-ID-NOT-NULL", false, nil},
		{"MSG-JSONRPC", true, nil},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			faulty := judged(t, d, -1, append(c.judgeArgs, session(t, c.handshake, c.fault))...)
			for _, res := range faulty.Results {
				if res.ID == c.fault && res.Side == "client" && (res.Status == reports.Fail || res.Status == reports.Warn) {
					return
				}
			}
			t.Errorf("%s did not fail on its fault:\n%s", c.fault, observedStatuses(faulty, c.fault))
		})
	}
}
