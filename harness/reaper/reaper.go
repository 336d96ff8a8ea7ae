// Package reaper ends every process a run started, including those that left its process
// group with setsid: mcpspec becomes a child subreaper, so orphaned descendants are
// re-parented to it instead of to init, and at exit it kills what is left of its children.
package reaper

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SettleTimeout bounds how long EndDescendants waits for killed descendants to disappear
// (and their own orphans, re-parented to us, to show up).
const SettleTimeout = 5 * time.Second

// Become makes the calling process a child subreaper where the system supports it (Linux);
// it reports whether it did. Elsewhere descendants that setsid can still escape.
func Become() bool { return becomeSubreaper() == nil }

// EndDescendants SIGKILLs every child of this process (and their process groups) other than
// those in keep, reaps them, and repeats while orphans keep arriving, up to SettleTimeout.
// Call it when a run is over: a child that is still wanted must be in keep.
func EndDescendants(keep ...int) (killed int) {
	deadline := time.Now().Add(SettleTimeout)
	self := os.Getpid()
	for {
		kids := children(self, keep)
		if len(kids) == 0 || time.Now().After(deadline) {
			return killed
		}
		for _, pid := range kids {
			// Its group too: a child that setsid'd leads a group of its own.
			if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed++
		}
		reap(kids)
		time.Sleep(20 * time.Millisecond) // let orphans of the killed re-parent before looking again
	}
}

// reap collects the exit status of pids, so that none stays a zombie. A pid already reaped by
// its exec.Cmd makes Wait4 fail, which is fine.
func reap(pids []int) {
	for _, pid := range pids {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// children lists the live (not zombie) processes whose parent is ppid, from /proc.
func children(ppid int, keep []int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == ppid || contains(keep, pid) {
			continue
		}
		parent, state, ok := stat(pid)
		if ok && parent == ppid {
			if state == "Z" {
				reap([]int{pid})
				continue
			}
			out = append(out, pid)
		}
	}
	return out
}

// stat reads the parent pid and state of pid from /proc/PID/stat.
func stat(pid int) (ppid int, state string, ok bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, "", false
	}
	// The command name is in parentheses and may hold spaces: the fields start after its ")".
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
