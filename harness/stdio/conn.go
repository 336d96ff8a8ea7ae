package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Options tune a stdio connection.
type Options struct {
	WriteTimeout time.Duration // how long one write to stdin may block
	StopGrace    time.Duration // each step of Stop: EOF, then SIGTERM, then SIGKILL
	MaxLine      int
	Transcript   *transcript.Transcript // nil: a new one
}

// maxViolations bounds how many framing violations are kept; the count goes on.
const maxViolations = 200

// Conn is a wire.Conn over a launched process's stdin and stdout.
type Conn struct {
	proc  *Process
	opts  Options
	inbox *wire.Inbox
	tr    *transcript.Transcript

	writeMu       sync.Mutex
	mu            sync.Mutex
	viol          []wire.Violation
	nViol         int
	readErr       error
	closed        chan struct{}
	once          sync.Once
	killed        bool
	oversized     chan struct{} // closed at the first stdout line over the framing limit
	oversizedOnce sync.Once
}

// Launch starts the command and begins reading its stdout.
func Launch(c Command, opts Options) (*Conn, error) {
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 5 * time.Second
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = 2 * time.Second
	}
	if opts.Transcript == nil {
		opts.Transcript = transcript.New()
	}
	p, err := Start(c, true)
	if err != nil {
		return nil, err
	}
	cn := &Conn{proc: p, opts: opts, inbox: wire.NewInbox(), tr: opts.Transcript, closed: make(chan struct{}), oversized: make(chan struct{})}
	go cn.readLoop()
	return cn, nil
}

func (c *Conn) readLoop() {
	fr := NewFramer(c.proc.Stdout, c.opts.MaxLine)
	for {
		f, err := fr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.mu.Lock()
				c.readErr = err
				c.mu.Unlock()
			}
			break
		}
		if f.Violation != "" {
			c.addViolation(f)
			continue
		}
		c.tr.Add(record.Recv, "stdout", "", f.Message)
		c.inbox.Put("stdout", jsonrpc.Parse(f.Message))
		c.inbox.NoteBounds(c.tr, len(f.Message))
	}
	// stdout is closed: wait (bounded) for the exit status so the close cause says how it ended.
	t := time.NewTimer(c.opts.StopGrace)
	defer t.Stop()
	select {
	case <-c.proc.Done():
	case <-t.C:
	}
	c.inbox.Close(c.endCause())
}

func (c *Conn) addViolation(f Frame) {
	c.mu.Lock()
	c.nViol++
	keep := len(c.viol) < maxViolations
	if keep {
		c.viol = append(c.viol, wire.Violation{At: time.Now(), Kind: f.Violation, Detail: f.Detail, Sample: string(f.Raw)})
	}
	c.mu.Unlock()
	if keep {
		c.tr.Add(record.Recv, "stdout", "violation: "+f.Violation, f.Raw)
	}
	if f.Violation == OversizedLine {
		c.oversizedOnce.Do(func() { close(c.oversized) })
	}
}

// Oversized is closed once the server has written a stdout line over the framing limit (its
// violation is in Violations by then, unless maxViolations came first): a handshake waiting
// for an answer that line may have held stops at once, rather than at the startup timeout.
func (c *Conn) Oversized() <-chan struct{} { return c.oversized }

func (c *Conn) endCause() error {
	c.mu.Lock()
	rerr := c.readErr
	c.mu.Unlock()
	exit := c.proc.ExitErr()
	switch {
	case rerr != nil:
		return fmt.Errorf("reading stdout: %w", rerr)
	case exit != nil:
		return fmt.Errorf("server exited (%v)", exit)
	default:
		return errors.New("server closed stdout")
	}
}

// Transport implements wire.Conn.
func (c *Conn) Transport() string { return wire.Stdio }

// Send writes frame plus a newline to the server's stdin, bounded by the write timeout.
func (c *Conn) Send(ctx context.Context, frame []byte) (*wire.Delivery, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	deadline := time.Now().Add(c.opts.WriteTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := c.proc.Stdin.SetWriteDeadline(deadline); err != nil {
		return nil, fmt.Errorf("set write deadline: %w", err)
	}
	c.tr.Add(record.Send, "stdin", "", frame)
	line := append(append([]byte(nil), frame...), '\n')
	if _, err := c.proc.Stdin.Write(line); err != nil {
		if errors.Is(err, errDeadline) {
			return nil, fmt.Errorf("write to server stdin: blocked for %s (the server does not read its input)", c.opts.WriteTimeout)
		}
		// A broken pipe usually means the server died: wait (bounded) to say how.
		t := time.NewTimer(c.opts.StopGrace)
		defer t.Stop()
		select {
		case <-c.proc.Done():
			return nil, fmt.Errorf("write to server stdin: %w (server exited: %v)", err, c.proc.ExitErr())
		case <-t.C:
		}
		return nil, fmt.Errorf("write to server stdin: %w", err)
	}
	return wire.Completed(), nil
}

// Inbox implements wire.Conn.
func (c *Conn) Inbox() *wire.Inbox { return c.inbox }

// Transcript implements wire.Conn.
func (c *Conn) Transcript() *transcript.Transcript { return c.tr }

// Violations implements wire.Conn.
func (c *Conn) Violations() []wire.Violation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Violation(nil), c.viol...)
}

// ViolationCount is the number of violations seen, kept or not.
func (c *Conn) ViolationCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nViol
}

// Done implements wire.Conn: closed when the process has exited.
func (c *Conn) Done() <-chan struct{} { return c.proc.Done() }

// Err implements wire.Conn.
func (c *Conn) Err() error { return c.proc.ExitErr() }

// Diagnostics implements wire.Conn: the stderr tail.
func (c *Conn) Diagnostics() string { return c.proc.StderrTail() }

// Process exposes the launched process (for shutdown checks).
func (c *Conn) Process() *Process { return c.proc }

// CloseStdin closes the server's stdin without stopping it (shutdown checks).
func (c *Conn) CloseStdin() error { return c.proc.Stdin.Close() }

// Close stops the process group; it is safe to call more than once.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.killed = c.proc.Stop(c.opts.StopGrace)
		close(c.closed)
	})
	return nil
}

// Kill stops the process group with SIGKILL at once.
func (c *Conn) Kill() {
	c.once.Do(func() {
		c.proc.Kill(c.opts.StopGrace)
		c.killed = true
		close(c.closed)
	})
}

// NeededKill reports whether Close had to SIGKILL a server that ignored EOF and SIGTERM.
func (c *Conn) NeededKill() bool {
	<-c.closed
	return c.killed
}
