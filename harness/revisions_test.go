package harness

import (
	"slices"
	"testing"

	"github.com/mcpspec/mcpspec/harness/wire"
)

func TestTransportRevisions(t *testing.T) {
	want := map[string][]string{
		wire.HTTP:  {Rev20250326, Rev20250618, Rev20251125, Rev20260728},
		wire.SSE:   {Rev20241105},
		wire.Stdio: Revisions,
	}
	for transport, revs := range want {
		if got := TransportRevisions(transport); !slices.Equal(got, revs) {
			t.Errorf("%s: %v, want %v", transport, got, revs)
		}
	}
	TransportRevisions(wire.Stdio)[0] = "changed"
	if Revisions[0] != Rev20241105 {
		t.Error("TransportRevisions returned the shared list itself")
	}
}
