package harness

import (
	"slices"

	"github.com/mcpspec/mcpspec/harness/wire"
)

// The protocol revisions mcpspec knows, oldest first.
const (
	Rev20241105 = "2024-11-05"
	Rev20250326 = "2025-03-26"
	Rev20250618 = "2025-06-18"
	Rev20251125 = "2025-11-25"
	Rev20260728 = "2026-07-28"
)

// Revisions lists every known revision, oldest first.
var Revisions = []string{Rev20241105, Rev20250326, Rev20250618, Rev20251125, Rev20260728}

// HandshakeRevisions are those opened with initialize: the handshake era's.
var HandshakeRevisions = EraHandshake.Revisions()

// RevJSONRPC is the version of the JSON-RPC profile (mcpspec run --jsonrpc): not an MCP revision
// but JSON-RPC 2.0 itself, with no handshake. A session at it is plain (Session.JSONRPCOnly):
// its sentinel is a request for an unknown method, and nothing is judged against an MCP schema.
// It is in none of the lists above, so no MCP run ever selects it.
const RevJSONRPC = "jsonrpc-2.0"

// IsKnownRevision reports whether v is a revision mcpspec knows.
func IsKnownRevision(v string) bool { return slices.Contains(Revisions, v) }

// IsHandshake reports whether v opens sessions with initialize.
func IsHandshake(v string) bool { return slices.Contains(HandshakeRevisions, v) }

// AtLeast reports whether revision v is rev or newer (dates compare as strings).
func AtLeast(v, rev string) bool { return v >= rev }

// TransportRevisions are the revisions a transport carries, oldest first: Streamable HTTP begins
// at 2025-03-26 (and carries the stateless 2026-07-28), the legacy HTTP+SSE transport is
// 2024-11-05's alone, and stdio carries every one.
func TransportRevisions(transport string) []string {
	switch transport {
	case wire.HTTP:
		return slices.DeleteFunc(slices.Clone(Revisions), func(r string) bool { return r < Rev20250326 })
	case wire.SSE:
		return []string{Rev20241105}
	}
	return slices.Clone(Revisions)
}
