package main

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
	"sort"
	"strings"
	"syscall"
	"time"
)

// What the proxy rows measure: pingPongs round trips of a ping (after warmUp) directly and
// through `mcpspec proxy`, over stdio and Streamable HTTP, for the latency the relay adds; and
// the proxy's peak RSS over a long session compressed in time.
const (
	pingPongs = 2000
	warmUp    = 200
	// httpSessionRequests is the long HTTP session: requests one after another on one
	// connection, each recorded.
	httpSessionRequests = 10_000
	// proxyReady bounds how long a server or relay takes to accept connections.
	proxyReady = 30 * time.Second
)

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpspec-bench","version":"1"}}}`

// measureProxy prints the proxy rows: latency added at the median, and peak memory.
func measureProxy(bin string, messages int, w io.Writer) error {
	tmp, err := os.MkdirTemp("", "mcpspec-bench-proxy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintln(w, "\nproxy (mcpspec proxy between a host and the reference server, loopback):")
	fmt.Fprintln(w, "transport\tround trips\tdirect median\tproxied median\tadded per round trip\tadded per message")
	direct, err := stdioPingPong([]string{bin, "reference"})
	if err != nil {
		return fmt.Errorf("stdio direct: %w", err)
	}
	proxied, err := stdioPingPong([]string{bin, "proxy", "--out", filepath.Join(tmp, "stdio"), "--", bin, "reference"})
	if err != nil {
		return fmt.Errorf("stdio proxied: %w", err)
	}
	latencyRow(w, "stdio", direct, proxied)
	direct, proxied, err = httpPingPong(bin, tmp)
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	latencyRow(w, "http", direct, proxied)

	fmt.Fprintln(w, "\nlong session\tmessages\twall\tproxy peak RSS: relaying (judging)\trecording")
	if err := stdioFlood(bin, tmp, messages, w); err != nil {
		return fmt.Errorf("stdio flood: %w", err)
	}
	if err := httpSession(bin, tmp, w); err != nil {
		return fmt.Errorf("http session: %w", err)
	}
	return nil
}

func latencyRow(w io.Writer, transport string, direct, proxied time.Duration) {
	added := proxied - direct
	fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\n", transport, pingPongs, us(direct), us(proxied), us(added), us(added/2))
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// stdioPingPong initializes the server argv launches and times pings one after another.
func stdioPingPong(argv []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	out := bufio.NewReader(outPipe)
	roundTrip := func(line string) (time.Duration, error) {
		start := time.Now()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			return 0, err
		}
		_, err := out.ReadString('\n')
		return time.Since(start), err
	}
	if _, err := roundTrip(initialize); err != nil {
		return 0, err
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return 0, err
	}
	var ds []time.Duration
	for i := range warmUp + pingPongs {
		d, err := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1))
		if err != nil {
			return 0, err
		}
		if i >= warmUp {
			ds = append(ds, d)
		}
	}
	return median(ds), nil
}

// start launches argv in its own process group; stop ends it.
func start(argv ...string) (stop func(), pid int, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	return func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	}, cmd.Process.Pid, nil
}

func awaitListening(addr string) error {
	deadline := time.Now().Add(proxyReady)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond) // nothing tells when another process starts listening
	}
	return fmt.Errorf("nothing listens on %s after %s", addr, proxyReady)
}

// httpServers starts the reference server over HTTP and a proxy in front of it; it returns
// both URLs, the proxy's pid and the function that stops both.
func httpServers(bin, out string) (direct, proxied string, proxyPid int, stop func(), err error) {
	upPort, err := freePort()
	if err != nil {
		return "", "", 0, nil, err
	}
	prPort, err := freePort()
	if err != nil {
		return "", "", 0, nil, err
	}
	up := fmt.Sprintf("127.0.0.1:%d", upPort)
	pr := fmt.Sprintf("127.0.0.1:%d", prPort)
	stopUp, _, err := start(bin, "reference", "--http", up)
	if err != nil {
		return "", "", 0, nil, err
	}
	stopPr, pid, err := start(bin, "proxy", "--out", out, "--listen", pr, "--upstream", "http://"+up+"/mcp")
	if err != nil {
		stopUp()
		return "", "", 0, nil, err
	}
	stop = func() { stopPr(); stopUp() }
	for _, a := range []string{up, pr} {
		if err := awaitListening(a); err != nil {
			stop()
			return "", "", 0, nil, err
		}
	}
	return "http://" + up + "/mcp", "http://" + pr + "/mcp", pid, stop, nil
}

// httpClient posts JSON-RPC to one MCP endpoint within one session.
type httpClient struct {
	url, session string
	c            *http.Client
}

func (h *httpClient) post(body string) error {
	req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := h.c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST %s: %s", h.url, resp.Status)
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		h.session = s
	}
	return nil
}

func newSession(url string) (*httpClient, error) {
	h := &httpClient{url: url, c: &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4}}}
	if err := h.post(initialize); err != nil {
		return nil, err
	}
	return h, h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func httpPingPong(bin, tmp string) (direct, proxied time.Duration, err error) {
	dURL, pURL, _, stop, err := httpServers(bin, filepath.Join(tmp, "http-latency"))
	if err != nil {
		return 0, 0, err
	}
	defer stop()
	measure := func(url string) (time.Duration, error) {
		h, err := newSession(url)
		if err != nil {
			return 0, err
		}
		var ds []time.Duration
		for i := range warmUp + pingPongs {
			start := time.Now()
			if err := h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)); err != nil {
				return 0, err
			}
			if i >= warmUp {
				ds = append(ds, time.Since(start))
			}
		}
		return median(ds), nil
	}
	if direct, err = measure(dURL); err != nil {
		return 0, 0, err
	}
	proxied, err = measure(pURL)
	return direct, proxied, err
}

// peakWatch polls pid's VmHWM until stop is called, which returns the peak in KiB.
func peakWatch(pid int) (stop func() int64) {
	done := make(chan int64)
	quit := make(chan struct{})
	go func() {
		var peak int64
		tick := time.NewTicker(rssPoll)
		defer tick.Stop()
		for {
			peak = max(peak, vmHWM(pid))
			select {
			case <-quit:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { close(quit); return <-done }
}

// stdioFlood is a long session compressed in time: after the handshake the host sends the
// reference server messages pings without waiting, reading the answers as they come, through
// the proxy; it reports the proxy's peak RSS, the judging of the recording at the end included.
func stdioFlood(bin, tmp string, messages int, w io.Writer) error {
	out := filepath.Join(tmp, "flood")
	cmd := exec.Command(bin, "proxy", "--out", out, "--", bin, "reference")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	stopWatch := peakWatch(cmd.Process.Pid)
	answers := bufio.NewReader(outPipe)
	if _, err := io.WriteString(in, initialize+"\n"); err != nil {
		return err
	}
	if _, err := answers.ReadString('\n'); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	read := make(chan int, 1)
	go func() {
		n := 0
		for {
			if _, err := answers.ReadString('\n'); err != nil {
				break
			}
			n++
		}
		read <- n
	}()
	bw := bufio.NewWriterSize(in, 64<<10)
	fmt.Fprintln(bw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range messages {
		if _, err := fmt.Fprintf(bw, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+1); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	in.Close()
	got := <-read
	// The host saw the end: the session is over and the judging begins. VmHWM never falls, so
	// read now it is the relay's peak alone.
	relayPeak := vmHWM(cmd.Process.Pid)
	relayed := time.Since(begin)
	err = cmd.Wait()
	peak := stopWatch()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return err
	}
	if code := cmd.ProcessState.ExitCode(); code > 1 {
		return fmt.Errorf("the proxy exited %d", code)
	}
	if got != messages {
		return fmt.Errorf("the host got %d answers to %d pings", got, messages)
	}
	st, _ := os.Stat(filepath.Join(out, "recording.jsonl"))
	fmt.Fprintf(w, "stdio\t%d pings and answers\t%.1f s (+%.1f s judging)\t%.1f MB (%.1f MB judging)\t%.0f MB\n", messages, relayed.Seconds(), (time.Since(begin) - relayed).Seconds(), float64(relayPeak)/1024, float64(peak)/1024, float64(size(st))/(1<<20))
	return nil
}

func size(st os.FileInfo) int64 {
	if st == nil {
		return 0
	}
	return st.Size()
}

// httpSession sends httpSessionRequests pings through the HTTP relay, one after another.
func httpSession(bin, tmp string, w io.Writer) error {
	out := filepath.Join(tmp, "http-session")
	_, pURL, pid, stop, err := httpServers(bin, out)
	if err != nil {
		return err
	}
	defer stop()
	begin := time.Now()
	stopWatch := peakWatch(pid)
	h, err := newSession(pURL)
	if err != nil {
		return err
	}
	for i := range httpSessionRequests {
		if err := h.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":%q}}}`, i+1, bytes.Repeat([]byte("x"), 200))); err != nil {
			return err
		}
	}
	peak := stopWatch()
	stop()
	st, _ := os.Stat(filepath.Join(out, "recording.jsonl"))
	fmt.Fprintf(w, "http\t%d requests\t%.1f s\t%.1f MB\t%.0f MB\n", httpSessionRequests, time.Since(begin).Seconds(), float64(peak)/1024, float64(size(st))/(1<<20))
	return nil
}
