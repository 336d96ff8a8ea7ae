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

// TestEras: every known revision is of one era, the eras' revisions partition the known ones in
// order, and the JSON-RPC profile belongs to none.
func TestEras(t *testing.T) {
	var all []string
	for _, e := range Eras {
		all = append(all, e.Revisions()...)
	}
	if !slices.Equal(all, Revisions) {
		t.Errorf("the eras' revisions %v, want every known one in order %v", all, Revisions)
	}
	if !slices.Equal(EraStateless.Revisions(), []string{Rev20260728}) {
		t.Errorf("stateless revisions %v", EraStateless.Revisions())
	}
	if !slices.Equal(HandshakeRevisions, []string{Rev20241105, Rev20250326, Rev20250618, Rev20251125}) {
		t.Errorf("HandshakeRevisions %v", HandshakeRevisions)
	}
	for rev, want := range map[string]Era{Rev20241105: EraHandshake, Rev20251125: EraHandshake, Rev20260728: EraStateless,
		"2027-01-01": EraStateless, RevJSONRPC: ""} {
		if got := EraOf(rev); got != want {
			t.Errorf("EraOf(%q) = %q, want %q", rev, got, want)
		}
		if IsStateless(rev) != (want == EraStateless) {
			t.Errorf("IsStateless(%q) disagrees with EraOf", rev)
		}
	}
}
