package stdio

import (
	"os"
	"syscall"
	"unsafe"
)

// unread is how many bytes sit in pipe f unread (TIOCINQ, FIONREAD's Linux name); 0 when f is
// closed or cannot tell.
func unread(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	_ = rc.Control(func(fd uintptr) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			n = 0
		}
	})
	return int(n)
}
