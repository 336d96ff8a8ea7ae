// Package sse parses a text/event-stream body the way the WHATWG HTML "server-sent events"
// interpretation rules describe, with two differences that a conformance harness needs:
//
//   - every event block that contained at least one field line is reported, even one a browser
//     would drop because its data buffer is empty (MCP's priming event is `id:` plus an empty
//     `data:`, and a block with only `id:` or `retry:` is still something the server sent);
//   - field values keep the bytes the server sent: invalid UTF-8 is not replaced by U+FFFD, so a
//     check can notice it (utf8.ValidString).
//
// As the rules require, bytes after the last blank line are never dispatched when the stream
// ends; Reader.Discarded returns them as evidence.
package sse

import "time"

// Event is one dispatched event block.
type Event struct {
	// ID is the value of the last accepted `id` field of this block; HasID reports whether the
	// block had one. An `id` value containing NUL is ignored, as the rules say.
	ID    string
	HasID bool

	// Type is the last `event` field of the block, "" when absent (browsers then use "message").
	Type string

	// Data is the values of the block's `data` fields joined with "\n".
	Data string
	// DataLines counts the `data` fields; 0 means the block had none at all.
	DataLines int

	// Retry is the last valid `retry` field (ASCII digits only, in milliseconds); HasRetry
	// reports whether there was one.
	Retry    time.Duration
	HasRetry bool

	// Comments are the comment lines seen since the previous event, without the leading ':'.
	Comments []string

	// Raw is every byte consumed since the previous event, up to and including the blank line
	// that dispatched this one (so it also holds comments and stray blank lines before it).
	// Its length never exceeds the reader's maximum event size. When that blank line ends in
	// CRLF and the LF had not arrived yet, the LF opens the next event's Raw instead: the
	// reader never waits for more bytes once an event is complete.
	Raw []byte
}
