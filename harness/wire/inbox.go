// Package wire holds what every transport shares: the inbox of received messages, the
// connection interface the checks drive, and the violations a transport observes.
package wire

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/transcript"
)

// Received is one message as it arrived.
type Received struct {
	Index   int // position in the inbox, from 0
	At      time.Time
	Channel string // where it came from: "stdout", "POST-JSON", "POST-SSE", "GET-SSE", "SSE"
	Msg     jsonrpc.Message
	// Via is the HTTP exchange whose response carried the message (nil on stdio).
	Via *Delivery
}

// ErrClosed is returned by waits once the connection has ended and nothing more can arrive.
var ErrClosed = errors.New("connection closed")

// Bounds of what an inbox keeps: a server that answers with tens of megabytes, or sends
// notifications without end, must not exhaust mcpspec's memory. Beyond either bound the inbox
// is trimmed to three quarters of both (in one pass, not a copy per message of a flood):
// notifications go first, oldest first, then the oldest of the rest; the newest message is
// always kept, however large. A check waits for a response to a request it sent (or a request
// of the server's): a flood of unsolicited notifications never pushes that out, only responses
// beyond the bounds on their own do. Readers wait for what comes after their position, so only
// a reader that fell that far behind misses anything, and Dropped says so.
const (
	MaxKeptBytes    = 4 << 20
	MaxKeptMessages = 2000
)

// Inbox is an append-only log of received messages. Readers keep their own position, so one
// check waiting for a response never steals a message another is waiting for. Positions are
// absolute: they stay valid when messages are dropped.
type Inbox struct {
	mu        sync.Mutex
	putMu     sync.Mutex // one Put at a time, so that the hook sees every message before waiters do
	msgs      []Received // the kept messages, by position (Index); dropped ones leave gaps
	next      int        // position of the next message
	dropped   int
	keptBytes int
	wake      chan struct{}
	closed    error
	onPut     func(Received)
	// Whether NoteBounds has said its piece, each once.
	notedHuge, notedDrop bool
}

// NewInbox returns an empty inbox.
func NewInbox() *Inbox { return &Inbox{wake: make(chan struct{})} }

// OnPut installs a hook called (outside the lock) for every message put afterwards, e.g. a
// schema validator.
func (b *Inbox) OnPut(f func(Received)) {
	b.mu.Lock()
	b.onPut = f
	b.mu.Unlock()
}

// Put appends a message and wakes every waiter.
func (b *Inbox) Put(channel string, msg jsonrpc.Message) { b.PutVia(channel, msg, nil) }

// PutVia appends a message that arrived in the response to an HTTP exchange. The hook runs
// before the message is visible: a check that has seen a reply can rely on its validation.
func (b *Inbox) PutVia(channel string, msg jsonrpc.Message, via *Delivery) {
	b.putMu.Lock()
	defer b.putMu.Unlock()
	b.mu.Lock()
	r := Received{Index: b.next, At: time.Now(), Channel: channel, Msg: msg, Via: via}
	hook := b.onPut
	b.mu.Unlock()
	if hook != nil {
		hook(r) // outside the lock: the hook may take its own
	}
	b.mu.Lock()
	b.msgs = append(b.msgs, r)
	b.next++
	b.keptBytes += len(msg.Raw)
	if len(b.msgs) > MaxKeptMessages || b.keptBytes > MaxKeptBytes {
		b.trim()
	}
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// trim drops messages until at most three quarters of either bound is kept: notifications
// first, oldest first, then the oldest of the rest, never the newest. Callers hold mu.
func (b *Inbox) trim() {
	const lowMessages, lowBytes = MaxKeptMessages * 3 / 4, MaxKeptBytes * 3 / 4
	n, size := len(b.msgs), b.keptBytes
	over := func() bool { return n > 1 && (n > lowMessages || size > lowBytes) }
	drop := make([]bool, len(b.msgs))
	last := len(b.msgs) - 1
	for pass := 0; pass < 2 && over(); pass++ {
		for i := 0; i < last && over(); i++ {
			if drop[i] || (pass == 0 && b.msgs[i].Msg.Kind != jsonrpc.Notification) {
				continue
			}
			drop[i] = true
			n--
			size -= len(b.msgs[i].Msg.Raw)
		}
	}
	// A fresh array: the dropped messages' memory goes back at once.
	kept := make([]Received, 0, min(2*n, MaxKeptMessages+1))
	for i, r := range b.msgs {
		if !drop[i] {
			kept = append(kept, r)
		}
	}
	b.dropped += len(b.msgs) - n
	b.msgs, b.keptBytes = kept, size
}

// first is the slice index of the first kept message at or after position from. Callers hold mu.
func (b *Inbox) first(from int) int {
	return sort.Search(len(b.msgs), func(i int) bool { return b.msgs[i].Index >= from })
}

// NoteBounds says in tr, once each, when a message alone exceeds what the inbox keeps and when
// the inbox began to drop messages: evidence, in the check that was running, that an answer a
// check looked for may be gone because the server sent too much, not because it never sent it.
// Every transport calls it after each Put, with the message's size.
func (b *Inbox) NoteBounds(tr *transcript.Transcript, size int) {
	b.mu.Lock()
	huge := size > MaxKeptBytes && !b.notedHuge
	drop := b.dropped > 0 && !b.notedDrop
	b.notedHuge = b.notedHuge || huge
	b.notedDrop = b.notedDrop || drop
	b.mu.Unlock()
	if huge {
		tr.Notef("a message of %d bytes, over the %d bytes a session keeps: it is kept only until the next one arrives", size, MaxKeptBytes)
	}
	if drop {
		tr.Notef("the server sent more than a session keeps (%d messages or %d bytes): messages are dropped from here on, unsolicited notifications first", MaxKeptMessages, MaxKeptBytes)
	}
}

// Dropped is how many messages the inbox no longer keeps (MaxKeptBytes, MaxKeptMessages).
func (b *Inbox) Dropped() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
}

// Close marks the end of input with its cause; waiters return once they have seen everything.
func (b *Inbox) Close(cause error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed != nil {
		return
	}
	if cause == nil {
		cause = ErrClosed
	}
	b.closed = cause
	close(b.wake)
	b.wake = make(chan struct{})
}

// Closed returns the cause of the end of input, or nil while the connection is open.
func (b *Inbox) Closed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// Len is the number of messages received so far, dropped ones included; use it as a starting
// position.
func (b *Inbox) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.next
}

// Since returns the messages received from position from on that are still kept.
func (b *Inbox) Since(from int) []Received {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.first(from)
	if i >= len(b.msgs) {
		return nil
	}
	return append([]Received(nil), b.msgs[i:]...)
}

// Wait returns the first message at or after position from that satisfies match. It ends with
// ctx's error, or with the close cause once the inbox is closed and nothing matched.
func (b *Inbox) Wait(ctx context.Context, from int, match func(Received) bool) (Received, error) {
	for {
		b.mu.Lock()
		for i := b.first(from); i < len(b.msgs); i++ {
			if match(b.msgs[i]) {
				r := b.msgs[i]
				b.mu.Unlock()
				return r, nil
			}
		}
		from = b.next
		closed, wake := b.closed, b.wake
		b.mu.Unlock()
		if closed != nil {
			return Received{}, fmt.Errorf("%w (%v)", ErrClosed, closed)
		}
		select {
		case <-ctx.Done():
			// A message may have arrived together with the cancellation: look once more, so
			// the outcome does not depend on which of the two select saw first.
			if r, ok := b.scan(from, match); ok {
				return r, nil
			}
			return Received{}, ctx.Err()
		case <-wake:
		}
	}
}

// scan looks for a match from position from without waiting.
func (b *Inbox) scan(from int, match func(Received) bool) (Received, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := b.first(from); i < len(b.msgs); i++ {
		if match(b.msgs[i]) {
			return b.msgs[i], true
		}
	}
	return Received{}, false
}

// RespondsTo matches a response with the given id, alone or inside a batch.
func RespondsTo(id jsonrpc.ID) func(Received) bool {
	return func(r Received) bool { return ContainsResponse(r.Msg, id) }
}

// ContainsResponse reports whether m is, or is a batch containing, a response with id.
func ContainsResponse(m jsonrpc.Message, id jsonrpc.ID) bool {
	switch m.Kind {
	case jsonrpc.Response:
		return m.ID == id
	case jsonrpc.Batch:
		for _, e := range m.Elems {
			if e.Kind == jsonrpc.Response && e.ID == id {
				return true
			}
		}
	}
	return false
}

// FindResponse returns the response with id from m, alone or inside a batch.
func FindResponse(m jsonrpc.Message, id jsonrpc.ID) (jsonrpc.Message, bool) {
	if m.Kind == jsonrpc.Response && m.ID == id {
		return m, true
	}
	if m.Kind == jsonrpc.Batch {
		for _, e := range m.Elems {
			if e.Kind == jsonrpc.Response && e.ID == id {
				return e, true
			}
		}
	}
	return jsonrpc.Message{}, false
}
