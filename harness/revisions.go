package harness

import "slices"

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

// HandshakeRevisions are those opened with initialize.
var HandshakeRevisions = []string{Rev20241105, Rev20250326, Rev20250618, Rev20251125}

// IsKnownRevision reports whether v is a revision mcpspec knows.
func IsKnownRevision(v string) bool { return slices.Contains(Revisions, v) }

// IsHandshake reports whether v opens sessions with initialize.
func IsHandshake(v string) bool { return slices.Contains(HandshakeRevisions, v) }

// AtLeast reports whether revision v is rev or newer (dates compare as strings).
func AtLeast(v, rev string) bool { return v >= rev }
