package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The profile is of this process alone: the servers a run starts must not inherit the variable
// and write their profiles over it.
func TestCPUProfileIsNotInherited(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	t.Setenv(cpuProfileEnv, path)
	stop := startCPUProfile(io.Discard)
	if v, set := os.LookupEnv(cpuProfileEnv); set {
		t.Errorf("%s=%q still set while profiling: the processes this one starts would profile into it", cpuProfileEnv, v)
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("profile %s: %v, want it written", path, err)
	}
}
