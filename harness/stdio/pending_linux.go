package stdio

import (
	"io"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// countedPipe copies mcpspec's end of a pipe to a writer and can tell how far the copy is: bytes
// leave the pipe and are counted under one lock, so that state never sees bytes that have left
// the pipe but are not counted yet (a copier preempted between its read and its count on a busy
// machine).
type countedPipe struct {
	f    *os.File
	mu   sync.Mutex
	took int64
}

// copyTo copies the pipe to w until EOF.
func (c *countedPipe) copyTo(w io.Writer) error {
	rc, err := c.f.SyscallConn()
	if err != nil {
		return err
	}
	buf := make([]byte, 32<<10)
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			for {
				n, rerr = syscall.Read(int(fd), buf)
				if rerr != syscall.EINTR {
					break
				}
			}
			if rerr == syscall.EAGAIN {
				return false // wait until the pipe is readable
			}
			if n > 0 {
				c.took += int64(n)
			}
			return true
		})
		switch {
		case err != nil:
			return err
		case rerr != nil:
			return rerr
		case n <= 0:
			return nil
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
	}
}

// state is how many bytes sit in the pipe unread (TIOCINQ, FIONREAD's Linux name; 0 when the
// pipe is closed or cannot tell) and how many the copy has taken, read together.
func (c *countedPipe) state() (unread int, took int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rc, err := c.f.SyscallConn()
	if err != nil {
		return 0, c.took
	}
	var n int32
	_ = rc.Control(func(fd uintptr) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n), c.took
}
