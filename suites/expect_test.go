package suites

import (
	"testing"
	"time"
)

// A probe's grace follows its sentinel's round trip, within bounds.
func TestProbeGrace(t *testing.T) {
	for _, c := range []struct{ rtt, want time.Duration }{
		{time.Millisecond, lateReplyGraceMin},
		{100 * time.Millisecond, 500 * time.Millisecond},
		{time.Second, lateReplyGrace},
	} {
		if got := probeGrace(c.rtt); got != c.want {
			t.Errorf("probeGrace(%s) = %s, want %s", c.rtt, got, c.want)
		}
	}
}
