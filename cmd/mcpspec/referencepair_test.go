package main

import (
	"testing"
	"time"
)

// referencePairTimeout bounds one whole session of the bundled client with the bundled server.
const referencePairTimeout = 90 * time.Second

// TestReferencePairTalks: the bundled reference client and server complete a whole session with
// each other over stdio, at the newest revision (stateless requests, input requests, the
// subscription), with no probe naming a scenario: each is usable against the other, as the proxy
// docs and tests use them.
func TestReferencePairTalks(t *testing.T) {
	t.Parallel()
	r := runBinary(t, referencePairTimeout, bins.mcpspec, "reference-client", bins.mcpspec, "reference")
	if r.code != 0 {
		t.Fatalf("reference-client against reference: exit %d\nstderr:\n%s", r.code, tail(r.stderr, 20))
	}
}
