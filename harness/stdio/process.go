package stdio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Command is what to launch.
type Command struct {
	Argv []string
	Env  []string // extra K=V pairs, added to the harness's own environment
	Dir  string
	// Stderr, when set, also receives everything the process writes to stderr, as it comes
	// (a proxy passes the server's log on); the kept tail is the same either way.
	Stderr io.Writer
}

func (c Command) String() string { return strings.Join(c.Argv, " ") }

// Process is a launched command in its own process group, with its three standard streams
// connected to pipes. It is the part shared by stdio targets and launched HTTP servers.
type Process struct {
	cmd    *exec.Cmd
	Stdin  *os.File // nil when not requested
	Stdout *os.File // nil when not requested
	stderr *ring
	// errPipe is mcpspec's end of the stderr pipe, copied into stderr: the tail catches up
	// with it before it is read (StderrTail).
	errPipe *countedPipe
	done    chan struct{}
	mu      sync.Mutex
	exit    error
}

// StderrLimit is how much of the target's stderr is kept.
const StderrLimit = 16 << 10

// stderrDrainTimeout bounds how long, after the process exits, Done waits for its stderr to be
// read to the end (a surviving child may hold the pipe open).
const stderrDrainTimeout = 250 * time.Millisecond

// stderrCatchUpTimeout bounds how long StderrTail waits for what the server already wrote to
// stderr to be copied from the pipe: on a busy machine the copy can lag behind an error that
// the server's last words explain.
const stderrCatchUpTimeout = 500 * time.Millisecond

// Start launches cmd. With pipes, stdin and stdout are connected to the harness; otherwise they
// are /dev/null (a launched HTTP server). Stderr is always kept in a ring buffer.
func Start(c Command, pipes bool) (*Process, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Process{cmd: cmd, stderr: newRing(StderrLimit), done: make(chan struct{})}

	var childEnds []*os.File
	closeAll := func(files ...*os.File) {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}
	if pipes {
		inR, inW, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("stdin pipe: %w", err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			closeAll(inR, inW)
			return nil, fmt.Errorf("stdout pipe: %w", err)
		}
		cmd.Stdin, cmd.Stdout = inR, outW
		p.Stdin, p.Stdout = inW, outR
		childEnds = append(childEnds, inR, outW)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(append(childEnds, p.Stdin, p.Stdout)...)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stderr = errW
	childEnds = append(childEnds, errW)

	if err := cmd.Start(); err != nil {
		closeAll(append(childEnds, p.Stdin, p.Stdout, errR)...)
		return nil, fmt.Errorf("start %q: %w", c.Argv[0], err)
	}
	// The child has its copies; closing ours lets reads see EOF when the child's side closes.
	closeAll(childEnds...)
	p.errPipe = &countedPipe{f: errR}
	stderrDrained := make(chan struct{})
	var sink io.Writer = p.stderr
	if c.Stderr != nil {
		sink = teeWriter{p.stderr, c.Stderr}
	}
	go func() {
		_ = p.errPipe.copyTo(sink) // a failed read ends the copy as EOF would
		errR.Close()
		close(stderrDrained)
	}()
	go func() {
		err := cmd.Wait()
		// The last words of a crashing server may still sit in the pipe: let the copy catch up
		// so Done implies a complete stderr tail, but do not wait on a child that keeps it open.
		drain := time.NewTimer(stderrDrainTimeout)
		select {
		case <-stderrDrained:
		case <-drain.C:
		}
		drain.Stop()
		p.mu.Lock()
		p.exit = err
		if err == nil {
			p.exit = errExitedZero
		}
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

var errExitedZero = errors.New("exit status 0")

// Pid is the process id, which is also its process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr describes how the process ended, or nil while it runs.
func (p *Process) ExitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// AwaitStderr waits until the process has written something to stderr, it has exited, or d has
// passed: an error about a server should carry what the server said, which may still be on its
// way through the pipe when the error happens.
func (p *Process) AwaitStderr(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.stderr.first:
	case <-p.done:
	case <-t.C:
	}
}

// StderrTail returns the last bytes the process wrote to stderr, once what sat in the pipe
// when it was called has been copied (bounded by stderrCatchUpTimeout).
func (p *Process) StderrTail() string {
	p.catchUpStderr()
	return p.stderr.String()
}

// catchUpStderr waits until the pipe holds nothing unread and the copy has written all it read.
func (p *Process) catchUpStderr() {
	var deadline <-chan time.Time
	for {
		if p.errPipe == nil {
			return
		}
		written, next := p.stderr.written()
		if unread, took := p.errPipe.state(); unread == 0 && written == took {
			return
		}
		if deadline == nil {
			t := time.NewTimer(stderrCatchUpTimeout)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-next:
		case <-p.done:
			return
		case <-deadline:
			return
		}
	}
}

// teeWriter writes to the kept tail, then to a further sink whose errors do not stop the copy:
// a reader of the log that went away must not leave the server blocked on a full stderr pipe.
type teeWriter struct {
	tail io.Writer
	also io.Writer
}

func (t teeWriter) Write(b []byte) (int, error) {
	n, err := t.tail.Write(b)
	_, _ = t.also.Write(b)
	return n, err
}

// Stop ends the process group: close stdin and give the server the grace period to exit on its
// own, then SIGTERM the group, then SIGKILL it. Every step ends as soon as the process is gone.
// The group is killed at the end in any case, so children the server started do not outlive it.
// It reports whether the server ignored both EOF and SIGTERM and had to be killed.
func (p *Process) Stop(grace time.Duration) (killed bool) {
	if p.Stdin != nil {
		p.Stdin.Close()
	}
	pgid := p.Pid()
	// Without a stdin pipe (a launched HTTP server) there is no EOF to wait for.
	if p.Stdin == nil || !p.waitExit(grace) {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		if !p.waitExit(grace) {
			killed = true
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			p.waitExit(grace)
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if p.Stdout != nil {
		p.Stdout.Close()
	}
	return killed
}

// Kill ends the process group at once, for a server already known to ignore EOF and SIGTERM.
func (p *Process) Kill(grace time.Duration) {
	if p.Stdin != nil {
		p.Stdin.Close()
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	p.waitExit(grace)
	if p.Stdout != nil {
		p.Stdout.Close()
	}
}

func (p *Process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}
