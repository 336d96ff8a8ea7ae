//go:build linux

package reaper

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// roleEnv makes the test binary play a process that starts a setsid'd grandchild and exits.
const roleEnv = "REAPER_TEST_ROLE"

// escapeTimeout bounds each wait of the test; it ends as soon as its condition holds.
const escapeTimeout = 30 * time.Second

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "parent":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), roleEnv+"=escapee")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		os.Exit(0) // the escapee is orphaned
	case "escapee":
		signal := make(chan struct{})
		time.AfterFunc(5*time.Minute, func() { os.Exit(3) }) // never outlive a broken test for long
		<-signal
	}
	os.Exit(m.Run())
}

func TestEndDescendantsEndsASetsidEscapee(t *testing.T) {
	if !Become() {
		t.Skip("no child subreaper here")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=parent")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the escapee's pid: %v", err)
	}
	escapee, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(escapee, syscall.SIGKILL) })
	// Orphaned, the escapee is re-parented to this process, the subreaper.
	waitFor(t, "the escapee re-parented to the test", func() bool {
		ppid, _, ok := stat(escapee)
		return ok && ppid == os.Getpid()
	})
	if n := EndDescendants(); n == 0 {
		t.Error("EndDescendants killed nothing")
	}
	waitFor(t, "the escapee gone", func() bool {
		_, state, ok := stat(escapee)
		return !ok || state == "Z"
	})
}

func TestEndDescendantsSparesKept(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	EndDescendants(cmd.Process.Pid)
	if _, state, ok := stat(cmd.Process.Pid); !ok || state == "Z" {
		t.Error("a kept child was ended")
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(escapeTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", escapeTimeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
