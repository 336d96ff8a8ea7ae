package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/harness/relay"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/reports"
)

// RecordingFile is the recording `mcpspec proxy` writes into --out.
const RecordingFile = "recording.jsonl"

// proxyReadHeaderTimeout bounds how long the HTTP relay waits for a request's head from the
// host: a connection that sends nothing is not held open for ever.
const proxyReadHeaderTimeout = 30 * time.Second

const proxyUsage = "mcpspec proxy [--out DIR] [--for DURATION] -- SERVER [ARGS…]   (stdio)\n" +
	"       mcpspec proxy --listen 127.0.0.1:PORT --upstream URL [--out DIR] [--for DURATION]   (Streamable HTTP, legacy HTTP+SSE)"

// proxyConfig is what `mcpspec proxy` was asked to do.
type proxyConfig struct {
	argv     []string // the stdio server's command
	listen   string
	upstream *neturl.URL
	out      string
	dur      time.Duration
	grace    time.Duration
}

func cmdProxy(args []string, stdout, stderr io.Writer) (int, error) {
	cfg, err := parseProxy(args, stdout)
	if err != nil {
		if errors.Is(err, errHelp) {
			return reports.ExitOK, err
		}
		return reports.ExitUsage, err
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return reports.ExitUsage, usageErrorf("proxy: --out %q: %v", cfg.out, err)
	}
	path := filepath.Join(cfg.out, RecordingFile)
	w, err := recording.Create(path, nil)
	if err != nil {
		return reports.ExitUsage, usageErrorf("proxy: --out %q: %v", cfg.out, err)
	}
	rec := relay.NewRecorder(w)
	// A host that closes its end of stdout must not kill the proxy with SIGPIPE before it has
	// stopped the server and written the recording: the write fails instead, and ends the session.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	stop := make(chan string, 1)
	_, stopWatch := watchSignals(func(why string) { stop <- why })
	defer stopWatch()

	code, runErr := reports.ExitOK, error(nil)
	if cfg.listen != "" {
		runErr = proxyHTTP(cfg, rec, stop, stderr)
	} else {
		code, runErr = proxyStdio(cfg, rec, stop, stdout, stderr)
	}
	closeErr := rec.Close()
	// The reports are written whatever ended the session, even a server that never started.
	jcode, judgeErr := judgeRecording(cfg.out, path, stderr)
	switch {
	case runErr != nil:
		return reports.ExitHarness, fmt.Errorf("proxy: %w (recording: %s)", runErr, path)
	case closeErr != nil:
		return reports.ExitHarness, fmt.Errorf("proxy: %w", closeErr)
	case judgeErr != nil:
		return reports.ExitHarness, fmt.Errorf("proxy: judging %s: %w", path, judgeErr)
	case code != reports.ExitOK:
		return code, nil
	}
	return jcode, nil
}

// judgeRecording judges both sides of the recording with the observed checks, as `mcpspec
// judge` does, and writes the four reports beside it. Its console goes to stderr: stdout is the
// host's MCP channel.
func judgeRecording(out, path string, stderr io.Writer) (int, error) {
	code, err := cmdJudge([]string{"--out", out, "--no-color", path}, stderr, stderr)
	if err != nil {
		return reports.ExitHarness, errors.New(oneLineErr(err))
	}
	fmt.Fprintf(stderr, "mcpspec proxy: recording: %s\n", path)
	return code, nil
}

func parseProxy(args []string, stdout io.Writer) (*proxyConfig, error) {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "mcpspec-report", "write recording.jsonl (every frame of the session) and, judged, junit.xml, results.json, summary.md and report.html into `DIR`")
	dur := fs.Duration("for", 0, "end the session after `DURATION` (default: when the host ends it, or on SIGINT/SIGTERM)")
	listen := fs.String("listen", "", "relay HTTP: listen on `ADDR` (loopback unless --allow-remote; a bare :PORT is 127.0.0.1:PORT)")
	upstream := fs.String("upstream", "", "with --listen: the server's `URL` (its path is the one the host uses on the proxy; loopback unless --allow-remote)")
	allowRemote := fs.Bool("allow-remote", false, "let --listen serve other machines and --upstream name a server that is not on loopback")
	grace := fs.Duration("timeout-shutdown", harness.DefaultTimeouts().Shutdown, "stdio: bound on each step of stopping the server (stdin closed, SIGTERM, SIGKILL)")
	onlyOnce(fs, "out", "listen", "upstream")
	if err := parseFlags(fs, args, proxyUsage, stdout); err != nil {
		return nil, err
	}
	if err := checkGiven(fs); err != nil {
		return nil, err
	}
	if *dur < 0 {
		return nil, usageErrorf("proxy: --for %s: want a positive duration", *dur)
	}
	if *grace <= 0 {
		return nil, usageErrorf("proxy: --timeout-shutdown must be positive, got %s", *grace)
	}
	if st, err := os.Stat(*out); err == nil && !st.IsDir() {
		return nil, usageErrorf("proxy: --out %q is a file: give a directory", *out)
	}
	cfg := &proxyConfig{out: *out, dur: *dur, grace: *grace}
	if (*listen == "") != (*upstream == "") {
		return nil, usageErrorf("proxy: --listen and --upstream go together: the proxy's address and the server's URL")
	}
	if *listen == "" {
		if fs.NArg() == 0 {
			return nil, usageErrorf("proxy: want the server's command after --, or --listen and --upstream")
		}
		cfg.argv = fs.Args()
		return cfg, nil
	}
	if fs.NArg() > 0 {
		return nil, usageErrorf("proxy: unexpected argument %q: an HTTP relay launches no server", fs.Arg(0))
	}
	addr, err := loopbackAddr("proxy", *listen, *allowRemote)
	if err != nil {
		return nil, err
	}
	cfg.listen = addr
	u, err := neturl.Parse(*upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageErrorf("proxy: --upstream %q: want an http:// or https:// URL", *upstream)
	}
	if !*allowRemote && !isLoopbackHost(u.Hostname()) {
		return nil, usageErrorf("proxy: --upstream %q is not on loopback: add --allow-remote to relay to another machine", *upstream)
	}
	cfg.upstream = u
	return cfg, nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// proxyStdio launches the server and relays the proxy's own stdin and stdout to it. The
// session's end is said on stderr; a server that exits while the host is still there ends the
// proxy with exit 3, as a run ends on a crashed target.
func proxyStdio(cfg *proxyConfig, rec *relay.Recorder, stop <-chan string, stdout, stderr io.Writer) (int, error) {
	hostOut, ok := stdout.(io.WriteCloser)
	if !ok {
		hostOut = nopWriteCloser{stdout}
	}
	end, err := relay.Stdio(relay.StdioOptions{Command: stdio.Command{Argv: cfg.argv}, HostIn: os.Stdin, HostOut: hostOut, Log: stderr,
		Rec: rec, Grace: cfg.grace, For: cfg.dur, Stop: stop})
	if err != nil {
		return reports.ExitHarness, fmt.Errorf("the server could not be started: %w", err)
	}
	exit := end.Exit
	if end.Killed {
		exit += ", killed: it ignored EOF and SIGTERM"
	}
	if end.ServerExited {
		fmt.Fprintf(stderr, "mcpspec proxy: %s (%s) while the host was connected; the host's stdout is closed\n", end.Why, exit)
		return reports.ExitHarness, nil
	}
	fmt.Fprintf(stderr, "mcpspec proxy: session ended: %s; the server stopped (%s)\n", end.Why, exit)
	return reports.ExitOK, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// proxyHTTP relays from cfg.listen to cfg.upstream until a signal or --for ends it.
func proxyHTTP(cfg *proxyConfig, rec *relay.Recorder, stop <-chan string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.listen, err)
	}
	srv := &http.Server{Handler: relay.NewHTTP(relay.HTTPOptions{Upstream: cfg.upstream, Rec: rec, Log: stderr}),
		ReadHeaderTimeout: proxyReadHeaderTimeout}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "mcpspec proxy: relaying http://%s → %s://%s (the host uses http://%s%s)\n",
		ln.Addr(), cfg.upstream.Scheme, cfg.upstream.Host, ln.Addr(), cfg.upstream.RequestURI())
	var limit <-chan time.Time
	if cfg.dur > 0 {
		t := time.NewTimer(cfg.dur)
		defer t.Stop()
		limit = t.C
	}
	var why string
	select {
	case s := <-stop:
		why = "the proxy got " + s
	case <-limit:
		why = fmt.Sprintf("--for %s passed", cfg.dur)
	case err := <-served:
		return fmt.Errorf("serve %s: %w", cfg.listen, err)
	}
	// Requests under way get the shutdown bound to finish; open streams are then cut.
	ctx, cancel := context.WithTimeout(context.Background(), cfg.grace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	rec.Note(recording.HTTP, recording.ChanNote, "session ended: "+why)
	fmt.Fprintf(stderr, "mcpspec proxy: session ended: %s\n", why)
	return nil
}
