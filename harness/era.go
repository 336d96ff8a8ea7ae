package harness

import "slices"

// Era is a generation of the protocol. The code names the 2026-07-28 generation by this type
// alone: "stateless", as `mcpspec reference-server --era` and the docs do.
type Era string

const (
	// EraHandshake: a session opened with initialize (2024-11-05 to 2025-11-25).
	EraHandshake Era = "handshake"
	// EraStateless: no initialize and no session; every request carries the revision and the
	// client's capabilities in its _meta (2026-07-28 on).
	EraStateless Era = "stateless"
)

// Eras lists the eras, oldest first.
var Eras = []Era{EraHandshake, EraStateless}

// firstStateless is the revision the stateless era begins with.
const firstStateless = Rev20260728

// EraOf is the era of revision: stateless from 2026-07-28 on (a later date too), handshake
// before. The JSON-RPC profile's version is no date and belongs to neither: "".
func EraOf(revision string) Era {
	switch {
	case revision == RevJSONRPC:
		return ""
	case revision >= firstStateless:
		return EraStateless
	}
	return EraHandshake
}

// Revisions are the known revisions of the era, oldest first.
func (e Era) Revisions() []string {
	return slices.DeleteFunc(slices.Clone(Revisions), func(r string) bool { return EraOf(r) != e })
}
