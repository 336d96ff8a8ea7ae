package main

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestGoalVerdict(t *testing.T) {
	cases := []struct {
		g    goal
		s    sample
		want string
	}{
		{goal{}, sample{wall: time.Hour}, ""},
		{goal{wall: 3 * time.Second}, sample{wall: 2900 * time.Millisecond}, "target ≤ 3 s wall: met"},
		{goal{wall: 3 * time.Second}, sample{wall: 3100 * time.Millisecond}, "target ≤ 3 s wall: MISSED"},
		{goal{wall: 3 * time.Second, cpu: 4 * time.Second, reportBytes: 2 << 20}, sample{wall: time.Second, cpu: time.Second, largestBytes: 3 << 20},
			"target ≤ 3 s wall, ≤ 4 s CPU, reports ≤ 2 MB: MISSED"},
		{goal{wall: 1500 * time.Millisecond}, sample{wall: time.Second}, "target ≤ 1.5 s wall: met"},
	}
	for _, c := range cases {
		if got := c.g.verdict(c.s); got != c.want {
			t.Errorf("%+v on %+v: %q, want %q", c.g, c.s, got, c.want)
		}
	}
}

func TestOfficialChecks(t *testing.T) {
	out := "✓ ping: 2 passed, 0 failed\n✗ tools-call-image: 1 passed, 1 failed\n\nTotal: 45 passed, 20 failed\n"
	if got := officialChecks(out); got != 65 {
		t.Errorf("officialChecks = %d, want 65", got)
	}
	if got := officialChecks("nothing ran"); got != 0 {
		t.Errorf("officialChecks without a total = %d, want 0", got)
	}
}

func TestProcessCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if got := processCPU(os.Getpid()); got < 0 {
		t.Errorf("processCPU of this process = %s, want a time", got)
	}
	if got := cpuSince(-1, 0); got != -1 {
		t.Errorf("cpuSince of no process = %s, want -1", got)
	}
}
