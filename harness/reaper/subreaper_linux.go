package reaper

import "syscall"

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of <linux/prctl.h>.
const prSetChildSubreaper = 36

func becomeSubreaper() error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
