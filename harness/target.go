package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpspec/mcpspec/harness/legacysse"
	"github.com/mcpspec/mcpspec/harness/stdio"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Target is a server under test reached over one transport.
type Target struct {
	Transport string        // wire.Stdio, wire.HTTP or wire.SSE
	Command   stdio.Command // stdio: the server; http, sse: the server to launch first (optional)
	URL       string        // http: the endpoint; sse: the SSE stream's URL
	Header    http.Header   // http, sse: extra headers on every request (secrets)
	// Revisions narrows the run's revisions for this target (nil: all of them).
	Revisions []string
}

// Describe is a one-line description for reports.
func (t Target) Describe() string {
	switch t.Transport {
	case wire.Stdio:
		return "stdio: " + t.Command.String()
	default:
		if len(t.Command.Argv) > 0 {
			return fmt.Sprintf("%s: %s (launched: %s)", t.Transport, t.URL, t.Command.String())
		}
		return t.Transport + ": " + t.URL
	}
}

// Validator judges messages against the official schema of a revision (package schema).
type Validator interface {
	// MessageOfShape validates one wire message; shape is what it has in common with the
	// messages that validate alike (Session's messageShape), "" for none.
	MessageOfShape(revision string, raw []byte, shape string) error
	Definition(revision, name string, raw []byte) error
}

// Env is what every connection of a run shares.
type Env struct {
	Timeouts  Timeouts
	IDs       *IDs
	Validator Validator
	Stats     Stats
	// Archive receives each connection's whole transcript when it ends (--transcript); nil: none.
	Archive *transcript.Archive
}

// Stats count what the harness spent, for benchmarks.
type Stats struct {
	ServersSpawned atomic.Int64 // processes launched: stdio servers and HTTP servers
	Connections    atomic.Int64 // connections opened (a stdio connection is a process)
	QuietNanos     atomic.Int64 // time spent in quiet windows proving silence
}

// Snapshot returns the counters by name.
func (s *Stats) Snapshot() map[string]int64 {
	return map[string]int64{
		"serversSpawned": s.ServersSpawned.Load(),
		"connections":    s.Connections.Load(),
		"quietMs":        s.QuietNanos.Load() / int64(time.Millisecond),
	}
}

// NewEnv returns an environment with fresh ids; v should compile each schema once for the run.
func NewEnv(t Timeouts, v Validator) *Env {
	return &Env{Timeouts: t, IDs: NewIDs(), Validator: v}
}

// InfraError is a failure of the target's infrastructure, not of a protocol rule: the server
// could not be started, its URL never answered, it died before initialize.
type InfraError struct {
	What   string
	Err    error
	Stderr string // the tail of the server's stderr, when there is one
	// StderrNow reads the tail when the error is shown rather than when it happened: a server's
	// last words may still be on their way through the pipe at that moment.
	StderrNow func() string
}

func (e *InfraError) Error() string {
	msg := e.What
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	tail := e.Stderr
	if e.StderrNow != nil {
		if now := e.StderrNow(); len(now) >= len(tail) {
			tail = now
		}
	}
	if tail := strings.TrimSpace(tail); tail != "" {
		msg += "\nserver stderr (last lines):\n" + lastLines(tail, 12)
	}
	return msg
}

func (e *InfraError) Unwrap() error { return e.Err }

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tailOf reads a launched server's stderr tail later, or nothing when there is no server.
func tailOf(p *stdio.Process) func() string {
	if p == nil {
		return nil
	}
	return p.StderrTail
}

// Launcher makes connections to one target. Over stdio each connection is a new process; over
// HTTP every connection shares the one server process it launched, if any.
type Launcher struct {
	target Target
	env    *Env

	mu      sync.Mutex
	server  *stdio.Process
	started bool
	broken  error
	conns   []wire.Conn
	names   map[wire.Conn]string // each connection's session name in the archive
	// killOnly: the server ignored EOF and SIGTERM once, so later connections are killed at once
	// instead of paying the shutdown grace twice each.
	killOnly bool
	// closed: Close ran (at the run's end, or on an interrupt); nothing new may start after it.
	closed bool
	// endings end the sessions of released connections at Close (sessionend.go).
	endings []*streamhttp.Ending
}

// NewLauncher prepares a launcher; nothing starts until Connect.
func NewLauncher(t Target, env *Env) *Launcher { return &Launcher{target: t, env: env} }

// Target returns what the launcher connects to.
func (l *Launcher) Target() Target { return l.target }

// Connect returns a new, unused connection. The first failure to reach the target is remembered,
// so a server that cannot start costs the startup timeout once, not once per check.
func (l *Launcher) Connect(ctx context.Context) (wire.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("the run is stopping: no new connections")
	}
	if l.broken != nil {
		return nil, l.broken
	}
	conn, err := l.connect(ctx)
	if err == nil {
		l.env.Stats.Connections.Add(1)
	}
	if err != nil {
		var infra *InfraError
		if errors.As(err, &infra) {
			l.broken = err
		}
		return nil, err
	}
	l.conns = append(l.conns, conn)
	if l.env.Archive != nil {
		if l.names == nil {
			l.names = map[wire.Conn]string{}
		}
		l.names[conn] = fmt.Sprintf("%s/%d", l.target.Transport, l.env.Stats.Connections.Load())
	}
	return conn, nil
}

// archive hands an ended connection's transcript to the run's archive, if it keeps one.
func (l *Launcher) archive(c wire.Conn) {
	if l.env.Archive == nil {
		return
	}
	l.mu.Lock()
	name := l.names[c]
	delete(l.names, c)
	l.mu.Unlock()
	l.env.Archive.Write(l.target.Transport, name, c.Transcript().Since(0))
}

// Broken marks the target unusable for the rest of the run (e.g. it never answered initialize).
func (l *Launcher) Broken(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.server != nil {
		l.server.AwaitStderr(stderrSettle)
	}
	if l.broken == nil {
		l.broken = err
	}
}

// BrokenErr returns why the target is unusable, or nil.
func (l *Launcher) BrokenErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.broken
}

func (l *Launcher) connect(ctx context.Context) (wire.Conn, error) {
	t := l.env.Timeouts
	switch l.target.Transport {
	case wire.Stdio:
		l.env.Stats.ServersSpawned.Add(1)
		conn, err := stdio.Launch(l.target.Command, stdio.Options{WriteTimeout: t.Request, StopGrace: t.Shutdown, Transcript: transcript.New()})
		if err != nil {
			return nil, &InfraError{What: "cannot start the server " + l.target.Command.String(), Err: err}
		}
		return conn, nil
	case wire.HTTP:
		if err := l.ensureServer(ctx); err != nil {
			return nil, err
		}
		var server interface {
			Done() <-chan struct{}
			ExitErr() error
			StderrTail() string
		}
		if l.server != nil {
			server = l.server
		}
		return streamhttp.Dial(streamhttp.Options{URL: l.target.URL, Header: l.target.Header, HeaderTimeout: t.Request, Transcript: transcript.New(), Server: server}), nil
	case wire.SSE:
		if err := l.ensureServer(ctx); err != nil {
			return nil, err
		}
		opts := legacysse.Options{URL: l.target.URL, Header: l.target.Header, HeaderTimeout: t.Request, Transcript: transcript.New()}
		if l.server != nil {
			opts.Server = l.server
		}
		conn, err := legacysse.Dial(ctx, opts)
		if err != nil {
			var stderr string
			if l.server != nil {
				stderr = l.server.StderrTail()
			}
			return nil, &InfraError{What: "cannot open the legacy SSE stream " + l.target.URL, Err: err, Stderr: stderr}
		}
		return conn, nil
	default:
		return nil, fmt.Errorf("unknown transport %q", l.target.Transport)
	}
}

// ensureServer launches the HTTP server command once and waits until its port accepts
// connections, the process dies, or the startup timeout passes.
func (l *Launcher) ensureServer(ctx context.Context) error {
	if l.started {
		return nil
	}
	l.started = true
	if len(l.target.Command.Argv) > 0 {
		l.env.Stats.ServersSpawned.Add(1)
		p, err := stdio.Start(l.target.Command, false)
		if err != nil {
			return &InfraError{What: "cannot start the HTTP server " + l.target.Command.String(), Err: err}
		}
		l.server = p
	}
	return l.awaitListening(ctx)
}

// stderrSettle bounds the wait for a broken server's first stderr line, so the error that
// every later check repeats can quote it.
const stderrSettle = 200 * time.Millisecond

// readinessPoll is how often a launched server's port is tried while it starts: nothing tells a
// client when a port opens, so this is the one place the harness polls, always under a deadline.
const readinessPoll = 20 * time.Millisecond

// refusedGrace is how long a target mcpspec did not launch may refuse connections before the run
// gives up on it: nothing is starting that could make it answer later, so waiting the whole
// startup timeout only delays the error; the grace covers a server being restarted.
const refusedGrace = time.Second

func (l *Launcher) awaitListening(ctx context.Context) error {
	u, err := url.Parse(l.target.URL)
	if err != nil || u.Host == "" {
		return &InfraError{What: "bad URL " + l.target.URL, Err: err}
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"https": "443"}[u.Scheme]+map[bool]string{true: "80"}[u.Scheme != "https"])
	}
	ctx, cancel := context.WithTimeout(ctx, l.env.Timeouts.Startup)
	defer cancel()
	tick := time.NewTicker(readinessPoll)
	defer tick.Stop()
	var lastErr error
	var firstRefused time.Time
	for {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", host)
		if err == nil {
			c.Close()
			return nil
		}
		lastErr = err
		if l.server == nil && errors.Is(err, syscall.ECONNREFUSED) {
			if firstRefused.IsZero() {
				firstRefused = time.Now()
			}
			if time.Since(firstRefused) >= refusedGrace {
				return &InfraError{What: fmt.Sprintf("nothing listens at %s (%s): connection refused for %s, with no --http-cmd server to wait for", host, l.target.URL, refusedGrace), Err: err}
			}
		}
		var stderr string
		var died <-chan struct{}
		if l.server != nil {
			stderr, died = l.server.StderrTail(), l.server.Done()
		}
		select {
		case <-died:
			return &InfraError{What: "the HTTP server exited before " + l.target.URL + " answered", Err: l.server.ExitErr(), Stderr: l.server.StderrTail(), StderrNow: l.server.StderrTail}
		case <-ctx.Done():
			return &InfraError{What: fmt.Sprintf("%s did not accept connections within the startup timeout (%s)", l.target.URL, l.env.Timeouts.Startup), Err: lastErr, Stderr: stderr, StderrNow: tailOf(l.server)}
		case <-tick.C:
		}
	}
}

// Close closes every connection and stops every process the launcher started.
func (l *Launcher) Close() {
	l.mu.Lock()
	conns, server := l.conns, l.server
	for _, c := range conns {
		l.noteEnding(c)
	}
	endings := l.endings
	if l.broken != nil {
		endings = nil // a target the run could not use would only hold the DELETEs up
	}
	l.conns, l.server, l.closed, l.endings = nil, nil, true, nil
	l.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); c.Close(); l.archive(c) }()
	}
	wg.Wait()
	l.endSessions(endings)
	if server != nil {
		server.Stop(l.env.Timeouts.Shutdown)
	}
}

// Release closes one connection early and forgets it.
func (l *Launcher) Release(c wire.Conn) {
	l.mu.Lock()
	for i, x := range l.conns {
		if x == c {
			l.conns = append(l.conns[:i], l.conns[i+1:]...)
			l.noteEnding(c)
			break
		}
	}
	killOnly := l.killOnly
	l.mu.Unlock()
	defer l.archive(c) // once it is closed: its last words included
	sc, ok := c.(*stdio.Conn)
	if !ok {
		c.Close()
		return
	}
	if killOnly {
		sc.Kill()
		return
	}
	sc.Close()
	if sc.NeededKill() {
		l.mu.Lock()
		l.killOnly = true
		l.mu.Unlock()
	}
}

// ServerPID is the process id of the server this launcher started (HTTP and SSE targets with a
// command), or 0 when it started none or the server has not started yet. The process leads its
// own process group, so its id is also the group's.
func (l *Launcher) ServerPID() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.server == nil {
		return 0
	}
	return l.server.Pid()
}
