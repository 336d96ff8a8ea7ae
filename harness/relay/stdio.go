package relay

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/harness/stdio"
)

// chunk is how much one read takes from a pipe: whatever is there is passed on at once.
const chunk = 32 << 10

// StdioOptions say what to launch and where the host's pipes are.
type StdioOptions struct {
	Command stdio.Command
	HostIn  io.Reader      // what the host writes (the proxy's stdin)
	HostOut io.WriteCloser // where the server's stdout goes (the proxy's stdout), closed at the end
	Log     io.Writer      // the proxy's stderr: the server's stderr goes there unchanged
	Rec     *Recorder
	// Grace bounds each step of stopping the server: stdin closed, then SIGTERM, then SIGKILL.
	Grace time.Duration
	// For ends the session after this long (0: no bound).
	For time.Duration
	// Stop ends the session when it delivers the reason (a signal's name).
	Stop <-chan string
}

// Ending says how a session ended.
type Ending struct {
	Why string // what ended it, in words
	// ServerExited: the server ended the session by exiting (or closing its stdout) while the
	// host was still there.
	ServerExited bool
	Exit         string // how the server process ended ("exit status 0", "signal: killed")
	Killed       bool   // the server ignored EOF and SIGTERM and was killed
}

// Stdio launches the server and relays until the host closes stdin (or stops reading), the
// server exits, Stop delivers, or For passes; then it stops the server with the ladder of
// Grace and closes HostOut. Every byte is passed on as it comes; the recording gets one record
// per newline-delimited frame of each stream. An error means the server could not be started.
func Stdio(o StdioOptions) (Ending, error) {
	errFrames := &lockedFrames{}
	errFrames.f = newFrames(func(b []byte, cut bool) {
		o.Rec.Add(recording.Record{From: recording.FromServer, Transport: recording.Stdio, Channel: recording.ChanStderr, Body: string(b), Truncated: cut})
	})
	cmd := o.Command
	cmd.Stderr = io.MultiWriter(errFrames, o.Log)
	p, err := stdio.Start(cmd, true)
	if err != nil {
		o.Rec.Note(recording.Stdio, recording.ChanNote, "the server could not be started: "+err.Error())
		_ = o.HostOut.Close()
		return Ending{}, err
	}

	// The relay closes the server's stdout itself, once read to the end: Stop would close it at
	// once, losing the last answers still in the pipe when the server exited.
	serverOut := p.Stdout
	p.Stdout = nil
	hostEOF := make(chan struct{})
	go func() {
		defer close(hostEOF)
		up := newFrames(func(b []byte, cut bool) {
			o.Rec.Add(recording.Record{From: recording.FromClient, Transport: recording.Stdio, Channel: recording.ChanStdin, Body: string(b), Truncated: cut})
		})
		// A host that closes stdin has said all it will: whatever it wrote is recorded, even
		// a last line without its newline. A server that stops reading makes the write fail;
		// its exit ends the session.
		_ = pump(o.HostIn, p.Stdin, up)
		up.end()
	}()
	serverEOF := make(chan struct{})
	hostGone := make(chan struct{})
	go func() {
		defer close(serverEOF)
		down := newFrames(func(b []byte, cut bool) {
			o.Rec.Add(recording.Record{From: recording.FromServer, Transport: recording.Stdio, Channel: recording.ChanStdout, Body: string(b), Truncated: cut})
		})
		if err := pump(serverOut, o.HostOut, down); errors.Is(err, errWrite) {
			close(hostGone)
			// The host no longer reads: drain the server so that it is not blocked on a full
			// pipe while it is stopped, recording what it still says.
			_ = pump(serverOut, io.Discard, down)
		}
		down.end()
	}()

	var limit <-chan time.Time
	if o.For > 0 {
		t := time.NewTimer(o.For)
		defer t.Stop()
		limit = t.C
	}
	var end Ending
	select {
	case <-hostEOF:
		end.Why = "the host closed stdin"
	case <-hostGone:
		end.Why = "the host stopped reading its stdin (its end of the pipe is closed)"
	case <-serverEOF:
		end.Why, end.ServerExited = "the server closed its stdout", true
		// Most often because it is exiting: say so when it has within the bound.
		select {
		case <-p.Done():
			end.Why = "the server exited"
		case <-time.After(o.Grace):
		}
	case <-p.Done():
		end.Why, end.ServerExited = "the server exited", true
	case why := <-o.Stop:
		end.Why = "the proxy got " + why
	case <-limit:
		end.Why = fmt.Sprintf("--for %s passed", o.For)
	}
	// The server may still answer what it was asked before the end: its stdout is relayed
	// until it exits, and the ladder bounds how long that takes.
	end.Killed = p.Stop(o.Grace)
	// The group is gone: its stdout is at its end once read. A descendant that left the group
	// may still hold the pipe; it is closed after a bound then (and the reaper ends that one).
	select {
	case <-serverEOF:
	case <-time.After(o.Grace):
		serverOut.Close()
		<-serverEOF
	}
	serverOut.Close()
	_ = o.HostOut.Close()
	// Stop saw it exit, and its stderr was copied to the end (or a bound passed): its last
	// line is recorded. A process SIGKILL has not ended within Grace is left to the reaper.
	select {
	case <-p.Done():
	case <-time.After(o.Grace):
	}
	errFrames.end()
	if e := p.ExitErr(); e != nil {
		end.Exit = e.Error()
	}
	o.Rec.Note(recording.Stdio, recording.ChanNote, fmt.Sprintf("session ended: %s; server: %s", end.Why, orUnknown(end.Exit)))
	return end, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "still running when stopped"
	}
	return s
}

// errWrite marks a failed write to the far side, as opposed to the end of the source.
var errWrite = errors.New("write")

// pump copies src to dst chunk by chunk, each chunk written before the next read, and frames
// what it passes on for the recording; it returns nil at the source's end. The caller ends the last
// frame.
func pump(src io.Reader, dst io.Writer, f *frames) error {
	buf := make([]byte, chunk)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			// Recorded before it is passed on: the answer to a frame, relayed the other way,
			// must never be recorded before the frame itself.
			f.write(buf[:n])
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return fmt.Errorf("%w: %w", errWrite, werr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lockedFrames frames the server's stderr, written by the copy of harness/stdio while it runs
// and ended by the relay once the process is gone.
type lockedFrames struct {
	mu sync.Mutex
	f  *frames
}

func (l *lockedFrames) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.write(b)
	return len(b), nil
}

func (l *lockedFrames) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.end()
}
