package main

import (
	"os/exec"
	"sync"
	"syscall"

	"github.com/mcpspec/mcpspec/harness/reaper"
)

// The matrix is a child subreaper (main): the servers a target's run started, should that run
// be killed, are re-parented to it. tracked holds the runs still going, so that ending the
// orphans of one run spares the others.
var tracked struct {
	sync.Mutex
	pids []int
}

// startTracked starts cmd and records it as a run still going.
func startTracked(cmd *exec.Cmd) error {
	tracked.Lock()
	defer tracked.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	tracked.pids = append(tracked.pids, cmd.Process.Pid)
	return nil
}

// endTracked ends what is left of a finished run: its process group, and every orphan
// re-parented to the matrix that is not another run still going. It reports whether the run
// itself had to be killed (it did not stop on SIGTERM within the grace).
func endTracked(cmd *exec.Cmd) (killed bool) {
	if cmd.Process == nil {
		return false
	}
	pid := cmd.Process.Pid
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	tracked.Lock()
	defer tracked.Unlock()
	for i, p := range tracked.pids {
		if p == pid {
			tracked.pids = append(tracked.pids[:i], tracked.pids[i+1:]...)
			break
		}
	}
	reaper.EndDescendants(tracked.pids...)
	return killed
}
