package sse

import (
	"bytes"
	"math"
	"strings"
	"time"
)

// blockState collects the fields of the event block being read.
type blockState struct {
	hasField  bool // at least one non-comment line, known field or not
	eventType string
	data      strings.Builder
	dataLines int
	id        string
	hasID     bool
	retry     time.Duration
	hasRetry  bool
	comments  []string
}

// addLine applies one non-empty line to the block. It reports whether the line was an accepted
// `id` field, which the reader also needs for the stream's last event ID.
func (b *blockState) addLine(line []byte) (acceptedID bool) {
	if line[0] == ':' {
		b.comments = append(b.comments, string(line[1:]))
		return false
	}
	b.hasField = true
	name, value, found := bytes.Cut(line, []byte(":"))
	if found {
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "event":
		b.eventType = string(value)
	case "data":
		if b.dataLines > 0 {
			b.data.WriteByte('\n')
		}
		b.data.Write(value)
		b.dataLines++
	case "id":
		if bytes.IndexByte(value, 0) >= 0 {
			return false
		}
		b.id, b.hasID = string(value), true
		return true
	case "retry":
		if ms, ok := parseRetry(value); ok {
			b.retry, b.hasRetry = ms, true
		}
	}
	return false
}

// event builds the Event for the finished block (without Raw, which the reader owns).
func (b *blockState) event() Event {
	return Event{
		ID:        b.id,
		HasID:     b.hasID,
		Type:      b.eventType,
		Data:      b.data.String(),
		DataLines: b.dataLines,
		Retry:     b.retry,
		HasRetry:  b.hasRetry,
		Comments:  b.comments,
	}
}

// parseRetry accepts a non-empty run of ASCII digits, in milliseconds. A value too large for a
// time.Duration is ignored like any other unusable value rather than silently wrapped.
func parseRetry(value []byte) (time.Duration, bool) {
	if len(value) == 0 {
		return 0, false
	}
	const maxMillis = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range value {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms > (maxMillis-int64(c-'0'))/10 {
			return 0, false
		}
		ms = ms*10 + int64(c-'0')
	}
	return time.Duration(ms) * time.Millisecond, true
}
