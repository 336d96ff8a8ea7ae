package main

// `mcpspec proxy` as a host sees it: real processes, real pipes, real HTTP on 127.0.0.1.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/reports"
)

const (
	// proxySessionTimeout bounds one whole session through the proxy in these tests.
	proxySessionTimeout = 2 * time.Minute
	// proxyReadyTimeout bounds how long an HTTP relay or server takes to accept connections.
	proxyReadyTimeout = 30 * time.Second
)

// proxyProc is a process started by a test, with its pipes.
type proxyProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	outEnd io.Closer // the test's end of the stdout pipe
	stderr *syncBuf
	exited chan error
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProc starts argv in its own process group with piped stdin and stdout.
func startProc(t *testing.T, argv ...string) *proxyProc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &proxyProc{cmd: cmd, stderr: &syncBuf{}, exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A pipe of our own, not StdoutPipe: Wait (in the goroutine below) closes StdoutPipe's read
	// end when the process exits, which can be before the test has read everything it wrote.
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { out.Close() })
	p.stdin, p.stdout, p.outEnd = in, bufio.NewReaderSize(out, 1<<20), out
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return p
}

// wait awaits the exit, at most proxySessionTimeout, and returns the exit code.
func (p *proxyProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.exited:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
	case <-time.After(proxySessionTimeout):
		t.Fatalf("%s did not exit within %s\nstderr:\n%s", strings.Join(p.cmd.Args, " "), proxySessionTimeout, tail(p.stderr.String(), 20))
	}
	return p.cmd.ProcessState.ExitCode()
}

// step is one line a host writes, and how many lines it then reads before the next.
type step struct {
	line    string
	replies int
}

// drive plays script in lockstep (so that a server answering concurrently answers in one
// order), closes stdin, and returns every byte the process wrote to stdout.
func drive(t *testing.T, p *proxyProc, script []step, last string) string {
	t.Helper()
	var got strings.Builder
	for _, s := range script {
		if _, err := io.WriteString(p.stdin, s.line+"\n"); err != nil {
			t.Fatalf("write %q: %v", s.line, err)
		}
		for range s.replies {
			line, err := p.stdout.ReadString('\n')
			got.WriteString(line)
			if err != nil {
				t.Fatalf("reply to %q: %v (stderr: %s)", s.line, err, tail(p.stderr.String(), 10))
			}
		}
	}
	if _, err := io.WriteString(p.stdin, last); err != nil {
		t.Fatal(err)
	}
	p.stdin.Close()
	rest, err := io.ReadAll(p.stdout)
	if err != nil {
		t.Fatal(err)
	}
	got.Write(rest)
	return got.String()
}

var hostScript = []step{
	{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`, 1},
	{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0},
	{`{"jsonrpc":"2.0","id":"two","method":"ping"}`, 1},
	{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, 1},
	{`not json {`, 1},
	{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("é", 5000) + `"}}}`, 1},
}

// hostLast is the host's last write: a line without its newline.
const hostLast = `{"jsonrpc":"2.0","id":5,"method":"ping"}`

func readRecording(t *testing.T, dir string) []recording.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, RecordingFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := recording.Read(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func frameBodies(recs []recording.Record, channel string) []string {
	var out []string
	for _, r := range recs {
		if r.Channel == channel {
			out = append(out, r.Body)
		}
	}
	return out
}

// TestProxyStdioChangesNoByte: a host driving the reference server directly and through the
// proxy gets the same bytes, and the server gets the same bytes (both sides teed to files).
func TestProxyStdioChangesNoByte(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	dir := t.TempDir()
	server := func(tag string) []string {
		in, out := filepath.Join(dir, tag+".in"), filepath.Join(dir, tag+".out")
		return []string{"sh", "-c", fmt.Sprintf("tee %s | %s reference | tee %s", in, d.mcpspec, out)}
	}
	direct := drive(t, startProc(t, server("direct")...), hostScript, hostLast)
	out := filepath.Join(dir, "report")
	p := startProc(t, append([]string{d.mcpspec, "proxy", "--out", out, "--"}, server("proxied")...)...)
	proxied := drive(t, p, hostScript, hostLast)
	// The host's "not json {" breaks MSG-JSONRPC on the client's side: the judged session fails.
	if code := p.wait(t); code != reports.ExitFailures {
		t.Errorf("proxy exit %d, want 1 (the host sent a line that is not JSON)\nstderr:\n%s", code, p.stderr.String())
	}
	if r := verdictOf(t, assertReports(t, out), "MSG-JSONRPC", "client"); r.Status != reports.Fail {
		t.Errorf("MSG-JSONRPC (client) = %s: %s", r.Status, r.Message)
	}
	if direct != proxied || !strings.Contains(direct, `"id":"two"`) {
		t.Errorf("the host got different bytes through the proxy:\ndirect:\n%s\nproxied:\n%s", direct, proxied)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := read("direct.in"), read("proxied.in"); a != b {
		t.Errorf("the server got different bytes through the proxy:\n%q\n%q", a, b)
	}
	if got := read("proxied.out"); got != proxied {
		t.Errorf("the host did not get what the server wrote:\n%q\n%q", got, proxied)
	}
	recs := readRecording(t, out)
	var sent []string
	for _, s := range hostScript {
		sent = append(sent, s.line)
	}
	sent = append(sent, hostLast)
	if got := frameBodies(recs, recording.ChanStdin); strings.Join(got, "\n") != strings.Join(sent, "\n") {
		t.Errorf("stdin frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(sent, "\n"))
	}
	if got := frameBodies(recs, recording.ChanStdout); strings.Join(got, "\n")+"\n" != proxied {
		t.Errorf("stdout frames do not match what the host got:\n%s", strings.Join(got, "\n"))
	}
	if !strings.Contains(p.stderr.String(), "session ended: the host closed stdin") {
		t.Errorf("stderr does not say how the session ended:\n%s", p.stderr.String())
	}
	assertNoLeftovers(t, d)
}

// verdictOf finds the result of requirement id for side.
func verdictOf(t *testing.T, run *reports.Run, id, side string) reports.Result {
	t.Helper()
	for _, r := range run.Results {
		if r.ID == id && r.Side == side {
			return r
		}
	}
	t.Fatalf("no result for %s (%s) among %d", id, side, len(run.Results))
	return reports.Result{}
}

// TestProxyStdioReferenceClient: the bundled reference client, launching the proxy as its
// server, completes its whole contract through it, and the reports judge both sides: clean,
// then with a fault of the server and one of the client, each caught on its side.
func TestProxyStdioReferenceClient(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	r := runBinary(t, proxySessionTimeout, d.mcpspec, "reference-client", "--handshake-only", d.mcpspec, "proxy", "--out", out, "--", d.mcpspec, "reference")
	if r.code != reports.ExitOK {
		t.Fatalf("reference-client through the proxy: exit %d\nstderr:\n%s", r.code, tail(r.stderr, 30))
	}
	run := assertReports(t, out)
	sides := map[string]int{}
	for _, res := range run.Results {
		if res.Status != reports.Pass && res.Status != reports.NA {
			t.Errorf("%s (%s): %s: %s", res.ID, res.Side, res.Status, res.Message)
		}
		if res.Status == reports.Pass {
			sides[res.Side]++
		}
	}
	if sides["server"] == 0 || sides["client"] == 0 {
		t.Errorf("passes by side: %v, want both sides judged", sides)
	}
	for _, c := range []struct{ id, side, client, server string }{
		{"STDIO-STDOUT-ONLY-MCP", "server", "", "--fault=STDIO-STDOUT-ONLY-MCP"},
		{"LIFE-INITIALIZED-NOTIF", "client", "--fault=LIFE-INITIALIZED-NOTIF", ""},
	} {
		faulty := t.TempDir()
		args := []string{"reference-client", "--handshake-only"}
		if c.client != "" {
			args = append(args, c.client)
		}
		args = append(args, d.mcpspec, "proxy", "--out", faulty, "--", d.mcpspec, "reference")
		if c.server != "" {
			args = append(args, c.server)
		}
		runBinary(t, proxySessionTimeout, d.mcpspec, args...) // the client may give up: the proxy's reports are what count
		if res := verdictOf(t, assertReports(t, faulty), c.id, c.side); res.Status != reports.Fail {
			t.Errorf("%s (%s) with its fault = %s: %s", c.id, c.side, res.Status, res.Message)
		}
	}
	recs := readRecording(t, out)
	from := map[string]int{}
	for _, rec := range recs {
		from[rec.From]++
	}
	if from[recording.FromClient] < 3 || from[recording.FromServer] < 3 || from[recording.FromProxy] != 1 {
		t.Errorf("records by side: %v", from)
	}
	assertNoLeftovers(t, d)
}

// TestProxyStdioEndings: the server's exit (exit 3, said on stderr), SIGTERM and --for each end
// the session in bounded time with the recording written and nothing left running.
func TestProxyStdioEndings(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	t.Run("server exits", func(t *testing.T) {
		out := t.TempDir()
		p := startProc(t, d.mcpspec, "proxy", "--out", out, "--", "sh", "-c", "echo '{\"jsonrpc\":\"2.0\",\"method\":\"bye\"}'; echo dying >&2; exit 4")
		if got, _ := p.stdout.ReadString('\n'); got != `{"jsonrpc":"2.0","method":"bye"}`+"\n" {
			t.Errorf("host stdout = %q", got)
		}
		if rest, err := io.ReadAll(p.stdout); err != nil || len(rest) > 0 {
			t.Errorf("the host's stdout must be closed after the server's last line: %q %v", rest, err)
		}
		if code := p.wait(t); code != reports.ExitHarness {
			t.Errorf("exit %d, want 3", code)
		}
		assertReports(t, out)
		if s := p.stderr.String(); !strings.Contains(s, "dying\n") || !strings.Contains(s, "mcpspec proxy: the server exited (exit status 4) while the host was connected") {
			t.Errorf("stderr:\n%s", s)
		}
		if recs := readRecording(t, out); len(frameBodies(recs, recording.ChanStderr)) != 1 {
			t.Errorf("recording: %+v", recs)
		}
	})
	t.Run("SIGTERM", func(t *testing.T) {
		out := t.TempDir()
		p := startProc(t, d.mcpspec, "proxy", "--out", out, "--", d.mcpspec, "reference")
		if err := awaitProcess(d.marker, d.mcpspec+" reference", p.exited); err != nil {
			t.Fatal(err)
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		// No traffic: nothing to judge, exit 4 as a run with nothing to run.
		if code := p.wait(t); code != reports.ExitNothingRan {
			t.Errorf("exit %d, want 4: SIGTERM is how hosts end a stdio server, and nothing was said\nstderr:\n%s", code, p.stderr.String())
		}
		assertReports(t, out)
		recs := readRecording(t, out)
		if len(recs) == 0 || !strings.Contains(recs[len(recs)-1].Note, "the proxy got SIGTERM") {
			t.Errorf("recording: %+v", recs)
		}
	})
	t.Run("--for", func(t *testing.T) {
		out := t.TempDir()
		p := startProc(t, d.mcpspec, "proxy", "--out", out, "--for", "300ms", "--", d.mcpspec, "reference")
		if code := p.wait(t); code != reports.ExitNothingRan {
			t.Errorf("exit %d\nstderr:\n%s", code, p.stderr.String())
		}
		if !strings.Contains(p.stderr.String(), "session ended: --for 300ms passed") {
			t.Errorf("stderr:\n%s", p.stderr.String())
		}
	})
	t.Run("host stops reading", func(t *testing.T) {
		// A server that floods stdout, and a host that closes its end of the pipe: the proxy's
		// write fails (not SIGPIPE: it must live to stop the server and write its reports).
		out := t.TempDir()
		p := startProc(t, d.mcpspec, "proxy", "--out", out, "--timeout-shutdown", "200ms", "--", "sh", "-c", `while :; do echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'; done`)
		if _, err := p.stdout.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if err := p.outEnd.Close(); err != nil {
			t.Fatal(err)
		}
		code := p.wait(t)
		if code != reports.ExitNothingRan {
			t.Errorf("exit %d, want 4 (nothing to judge: no handshake)\nstderr:\n%s", code, p.stderr.String())
		}
		if !strings.Contains(p.stderr.String(), "session ended: the host stopped reading") {
			t.Errorf("stderr:\n%s", tail(p.stderr.String(), 10))
		}
		assertReports(t, out)
	})
	t.Run("server cannot start", func(t *testing.T) {
		out := t.TempDir()
		r := runBinary(t, proxySessionTimeout, d.mcpspec, "proxy", "--out", out, "--", filepath.Join(out, "no-such-server"))
		if r.code != reports.ExitHarness || !strings.Contains(r.stderr, "mcpspec: proxy: the server could not be started") || r.stdout != "" {
			t.Errorf("exit %d, stdout %q, stderr %q: want 3 and why", r.code, r.stdout, r.stderr)
		}
		assertReports(t, out)
		if _, err := os.Stat(filepath.Join(out, RecordingFile)); err != nil {
			t.Errorf("the recording is written anyway: %v", err)
		}
	})
	assertNoLeftovers(t, d)
}

// awaitListening waits until addr accepts connections, at most proxyReadyTimeout.
func awaitListening(t *testing.T, addr string, p *proxyProc) {
	t.Helper()
	deadline := time.Now().Add(proxyReadyTimeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-p.exited:
			t.Fatalf("%s exited (%v) before listening on %s\nstderr:\n%s", p.cmd.Args[1], err, addr, p.stderr.String())
		case <-time.After(leftoverPoll):
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s after %s", addr, proxyReadyTimeout)
		}
	}
}

// TestProxyHTTP: the reference client over Streamable HTTP (also with streams cut and resumed)
// and over legacy HTTP+SSE through the relay to the reference server, every exchange recorded
// and both sides judged clean; SIGTERM ends the relay. One proxy per transport, as a host uses one per server (a recording
// holding both is not split by transport by the judge yet).
func TestProxyHTTP(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	for _, c := range []struct {
		transport, path string
		server, args    []string
		channels        []string
	}{
		{"http", "/mcp", nil, nil, []string{"http request", "http response", "http event"}},
		{"sse", "/sse", nil, []string{"--sse"}, []string{"legacy-sse request", "legacy-sse response", "legacy-sse event"}},
		// The server cuts each POST's stream after its first event: the client resumes it
		// with a GET and Last-Event-ID, through the proxy.
		{"http", "/mcp", []string{"--sse-poll"}, nil, []string{"http request", "http event", "Last-Event-ID"}},
	} {
		upAddr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
		up := startProc(t, append([]string{d.mcpspec, "reference", "--http", upAddr}, c.server...)...)
		awaitListening(t, upAddr, up)
		out := t.TempDir()
		proxyAddr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
		p := startProc(t, d.mcpspec, "proxy", "--out", out, "--listen", proxyAddr, "--upstream", "http://"+upAddr+"/mcp")
		awaitListening(t, proxyAddr, p)
		args := append(append([]string{"reference-client", "--handshake-only"}, c.args...), "http://"+proxyAddr+c.path)
		if r := runBinary(t, proxySessionTimeout, d.mcpspec, args...); r.code != reports.ExitOK {
			t.Errorf("reference-client %v through the proxy: exit %d\nstderr:\n%s", args, r.code, tail(r.stderr, 20))
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(t); code != reports.ExitOK {
			t.Errorf("%s %v: proxy exit %d, want 0: the reference pair judged clean\nstderr:\n%s", c.transport, c.server, code, p.stderr.String())
		}
		if run := assertReports(t, out); !slices.Equal(run.Target.Transports, []string{c.transport}) {
			t.Errorf("judged transports %v, want %s", run.Target.Transports, c.transport)
		}
		if b, _ := io.ReadAll(p.stdout); len(b) > 0 {
			t.Errorf("the HTTP relay wrote to stdout: %q", b)
		}
		count := map[string]int{}
		for _, r := range readRecording(t, out) {
			count[r.Transport+" "+r.Channel]++
			if _, ok := r.Header["Last-Event-Id"]; ok && r.Channel == recording.ChanRequest {
				count["Last-Event-ID"]++
			}
		}
		for _, want := range c.channels {
			if count[want] == 0 {
				t.Errorf("%v: no %s recorded: %v", c.server, want, count)
			}
		}
		if count["http request"] != count["http response"] {
			t.Errorf("every request has its response recorded: %v", count)
		}
		_ = up.cmd.Process.Signal(syscall.SIGTERM)
		up.wait(t)
	}
	assertNoLeftovers(t, d)
}

// TestProxyHTTPRefusedUpstream: an upstream that refuses gets the host a 502 with one line.
func TestProxyHTTPRefusedUpstream(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	out := t.TempDir()
	proxyAddr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	refused := fmt.Sprintf("http://127.0.0.1:%d/mcp", loopbackPort(t))
	p := startProc(t, d.mcpspec, "proxy", "--out", out, "--for", "1h", "--listen", proxyAddr, "--upstream", refused)
	awaitListening(t, proxyAddr, p)
	resp, err := http.Post("http://"+proxyAddr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || strings.Count(string(body), "\n") != 1 || !strings.Contains(string(body), "connection refused") {
		t.Errorf("got %d %q, want 502 and one line", resp.StatusCode, body)
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != reports.ExitNothingRan {
		t.Errorf("proxy exit %d, want 4: no conversation reached a server", code)
	}
	recs := readRecording(t, out)
	found := false
	for _, r := range recs {
		found = found || (r.From == recording.FromProxy && r.Status == http.StatusBadGateway)
	}
	if !found {
		t.Errorf("the 502 is not recorded: %+v", recs)
	}
	assertNoLeftovers(t, d)
}

func TestProxyBadFlagsExit2WithOneLine(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{},
		{"--out", file, "--", "cat"},
		{"--for", "-1s", "--", "cat"},
		{"--listen", "127.0.0.1:1"},
		{"--upstream", "http://127.0.0.1:1/mcp"},
		{"--listen", "0.0.0.0:1", "--upstream", "http://127.0.0.1:1/mcp"},
		{"--listen", "127.0.0.1:1", "--upstream", "http://192.0.2.1/mcp"},
		{"--listen", "127.0.0.1:1", "--upstream", "ftp://127.0.0.1/"},
		{"--listen", "127.0.0.1:1", "--upstream", "http://127.0.0.1:1/mcp", "cat"},
		{"--timeout-shutdown", "0s", "--", "cat"},
		{"--bogus"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"proxy"}, args...), &stdout, &stderr)
		if code != reports.ExitUsage || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0 {
			t.Errorf("proxy %q: exit %d, stdout %q, stderr %q: want 2 and one line on stderr", args, code, stdout.String(), stderr.String())
		}
	}
}

// interopNodeModules is the interop cache's node_modules holding server-everything and the
// TypeScript SDK it depends on (`make interop` or fixtures/targets/install-everything.sh
// installs them); "" with the reason when the test cannot run here.
func interopNodeModules() (string, string) {
	cache := os.Getenv("MCPSPEC_INTEROP_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "mcpspec-interop")
	}
	mods := filepath.Join(cache, "npm", "node_modules")
	for _, need := range []string{"@modelcontextprotocol/server-everything/dist/index.js", "@modelcontextprotocol/sdk/package.json"} {
		if _, err := os.Stat(filepath.Join(mods, need)); err != nil {
			return "", fmt.Sprintf("no %s in the interop cache (make interop installs it)", need)
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", "no node on PATH"
	}
	return mods, ""
}

// TestProxyInteropTypeScript: the TypeScript SDK's client (fixtures/targets/tsclient) against
// server-everything, directly and through the proxy, over stdio and Streamable HTTP: the
// client ends the same way with the same output, and over stdio the bytes each side saw (teed
// on the server's side) are the recording's frames.
func TestProxyInteropTypeScript(t *testing.T) {
	mods, why := interopNodeModules()
	if mods == "" {
		t.Skip(why)
	}
	t.Parallel()
	d := newRunDir(t)
	everything := filepath.Join(mods, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	client := func(target string) procRun {
		script, err := filepath.Abs("../../fixtures/targets/tsclient/client.cjs")
		if err != nil {
			t.Fatal(err)
		}
		return runBinaryEnv(t, proxySessionTimeout, []string{"MCPSPEC_SDK_NODE_MODULES=" + mods}, "node", script, target)
	}
	// The client's own words: its stderr also holds the server's (inherited over stdio), whose
	// last lines depend on when the client left (server-everything dies of EPIPE writing its
	// next log notification to a client that is gone; the proxy stops it instead).
	own := func(stderr string) string {
		var kept []string
		for _, l := range strings.SplitAfter(stderr, "\n") {
			if strings.HasPrefix(l, "tsclient") {
				kept = append(kept, l)
			}
		}
		return strings.Join(kept, "")
	}
	same := func(direct, proxied procRun) {
		t.Helper()
		if direct.code != proxied.code || direct.stdout != proxied.stdout || own(direct.stderr) != own(proxied.stderr) {
			t.Errorf("the client behaves differently through the proxy:\ndirect: exit %d\n%s%s\nproxied: exit %d\n%s%s",
				direct.code, direct.stdout, direct.stderr, proxied.code, proxied.stdout, proxied.stderr)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		dir := t.TempDir()
		// The SDK launches one command without arguments: each is a script.
		write := func(name, body string) string {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			return path
		}
		out := filepath.Join(dir, "report")
		teed := fmt.Sprintf("tee %s/in | node %s stdio | tee %s/out", dir, everything, dir)
		direct := client(write("direct.sh", "exec node "+everything+" stdio"))
		proxied := client(write("proxied.sh", fmt.Sprintf("exec %s proxy --out %s -- sh -c '%s'", d.mcpspec, out, teed)))
		same(direct, proxied)
		judgedBothSides(t, out)
		recs := readRecording(t, out)
		for file, channel := range map[string]string{"in": recording.ChanStdin, "out": recording.ChanStdout} {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(frameBodies(recs, channel), "\n") + "\n"; got != string(b) || len(b) < 100 {
				t.Errorf("%s frames differ from what crossed the server's %s (%d bytes)", channel, file, len(b))
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		upAddr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
		preload, err := filepath.Abs("../../fixtures/targets/bind-localhost.cjs")
		if err != nil {
			t.Fatal(err)
		}
		up := startProc(t, "sh", "-c", fmt.Sprintf("PORT=%s exec node --require %s %s streamableHttp", strings.TrimPrefix(upAddr, "127.0.0.1:"), preload, everything))
		awaitListening(t, upAddr, up)
		out := t.TempDir()
		proxyAddr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
		p := startProc(t, d.mcpspec, "proxy", "--out", out, "--listen", proxyAddr, "--upstream", "http://"+upAddr+"/mcp")
		awaitListening(t, proxyAddr, p)
		direct := client("http://" + upAddr + "/mcp")
		proxied := client("http://" + proxyAddr + "/mcp")
		same(direct, proxied)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.wait(t); code != reports.ExitOK && code != reports.ExitFailures {
			t.Errorf("proxy exit %d, want the judgement's (0 or 1)\n%s", code, p.stderr.String())
		}
		judgedBothSides(t, out)
		count := map[string]int{}
		for _, r := range readRecording(t, out) {
			count[r.From+" "+r.Channel]++
		}
		if count["client request"] < 5 || count["server response"] != count["client request"] || count["server event"] == 0 {
			t.Errorf("recording: %v", count)
		}
	})
	assertNoLeftovers(t, d)
}

// judgedBothSides requires the reports in out to hold verdicts (pass or fail) on both sides.
func judgedBothSides(t *testing.T, out string) {
	t.Helper()
	judged := map[string]int{}
	for _, r := range assertReports(t, out).Results {
		if r.Status == reports.Pass || r.Status == reports.Fail || r.Status == reports.Warn {
			judged[r.Side]++
		}
	}
	if judged["server"] == 0 || judged["client"] == 0 {
		t.Errorf("verdicts by side: %v, want both sides judged", judged)
	}
}

// TestProxyHTTPChangesNoByte: a raw driver speaks to the reference server over Streamable HTTP
// directly and through the proxy; every answer (status, headers, body) is the same, the
// session id and the date aside, which differ between any two sessions.
func TestProxyHTTPChangesNoByte(t *testing.T) {
	t.Parallel()
	d := newRunDir(t)
	upAddr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	up := startProc(t, d.mcpspec, "reference", "--http", upAddr)
	awaitListening(t, upAddr, up)
	proxyAddr := fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	out := t.TempDir()
	p := startProc(t, d.mcpspec, "proxy", "--out", out, "--listen", proxyAddr, "--upstream", "http://"+upAddr+"/mcp")
	awaitListening(t, proxyAddr, p)
	session := func(base string) []string {
		var seen []string
		id := ""
		c := &http.Client{Transport: &http.Transport{Proxy: nil}}
		for _, step := range []struct{ method, body string }{
			{"POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`},
			{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
			{"POST", `{"jsonrpc":"2.0","id":"two","method":"tools/list"}`},
			{"POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("é", 3000) + `"}}}`},
			{"POST", `not json {`},
			{"DELETE", ""},
		} {
			req, err := http.NewRequest(step.method, base+"/mcp", strings.NewReader(step.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if id != "" {
				req.Header.Set("Mcp-Session-Id", id)
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
				id = s
			}
			resp.Header.Del("Date")
			resp.Header.Del("Mcp-Session-Id")
			seen = append(seen, fmt.Sprintf("%s → %d %v\n%s", step.method, resp.StatusCode, resp.Header, strings.ReplaceAll(string(body), id, "SESSION")))
		}
		return seen
	}
	direct, proxied := session("http://"+upAddr), session("http://"+proxyAddr)
	for i := range direct {
		t.Logf("%.160s", strings.ReplaceAll(direct[i], "\n", " | "))
		if direct[i] != proxied[i] {
			t.Errorf("exchange %d differs through the proxy:\ndirect:  %.300s\nproxied: %.300s", i+1, direct[i], proxied[i])
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	count := map[string]int{}
	for _, r := range readRecording(t, out) {
		count[r.From+" "+r.Channel]++
	}
	if count["client request"] != 6 || count["server response"] != 6 {
		t.Errorf("recorded: %v, want the 6 requests and their 6 answers", count)
	}
	_ = up.cmd.Process.Signal(syscall.SIGTERM)
	up.wait(t)
	assertNoLeftovers(t, d)
}
