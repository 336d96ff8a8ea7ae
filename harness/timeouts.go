// Package harness opens connections and sessions to a target at a given protocol revision and
// gives checks the few primitives they need: send, await a response by id, prove silence.
// It knows nothing of Ginkgo or of reports.
package harness

import (
	"fmt"
	"time"
)

// Timeouts bound every wait the harness makes. Each documents the most a conformant server may
// reasonably need on a loaded 2-core machine; each can be set from the command line.
type Timeouts struct {
	// Startup: launching a server (and, over HTTP, until its URL answers) plus the initialize
	// exchange. Node and Python servers need most of it on a cold start.
	Startup time.Duration
	// Request: one request to its response. Pings are answered in milliseconds; tools may work.
	Request time.Duration
	// Quiet: after a sentinel ping's answer, how long to keep listening for anything that should
	// not come. The sentinel's answer already shows that everything sent before it was read; the
	// window only catches a server that answers concurrently and wrote its (wrong) reply a moment
	// after the ping's, which on one machine takes milliseconds. Raise it for remote servers.
	Quiet time.Duration
	// Shutdown: each step of stopping a server (stdin EOF, SIGTERM, SIGKILL).
	Shutdown time.Duration
}

// DefaultTimeouts are used unless overridden.
func DefaultTimeouts() Timeouts {
	return Timeouts{Startup: 20 * time.Second, Request: 10 * time.Second, Quiet: 50 * time.Millisecond, Shutdown: 2 * time.Second}
}

// Validate rejects values that cannot work.
func (t Timeouts) Validate() error {
	for name, d := range map[string]time.Duration{"startup": t.Startup, "request": t.Request, "quiet": t.Quiet, "shutdown": t.Shutdown} {
		if d <= 0 {
			return fmt.Errorf("timeout %s must be positive, got %s", name, d)
		}
	}
	return nil
}
