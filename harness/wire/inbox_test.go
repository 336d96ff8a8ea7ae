package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/transcript"
)

// waitTimeout bounds every wait that is expected to succeed; shortTimeout every wait that is
// expected to time out.
const (
	waitTimeout  = 5 * time.Second
	shortTimeout = 20 * time.Millisecond
)

func parse(s string) jsonrpc.Message { return jsonrpc.Parse([]byte(s)) }

func response(id string) jsonrpc.Message {
	return parse(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
}

func anything(Received) bool { return true }

func TestInboxWaitFromPositions(t *testing.T) {
	b := NewInbox()
	b.Put("stdout", response(`1`))
	b.Put("stdout", response(`"1"`))
	b.Put("POST-SSE", response(`1`))
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()

	tests := []struct {
		from    int
		id      jsonrpc.ID
		wantIdx int
	}{
		{0, jsonrpc.NumberID(1), 0},
		{1, jsonrpc.NumberID(1), 2}, // a position past the first match finds the later one
		{0, jsonrpc.StringID("1"), 1},
		{2, jsonrpc.NumberID(1), 2},
	}
	for _, tt := range tests {
		r, err := b.Wait(ctx, tt.from, RespondsTo(tt.id))
		if err != nil {
			t.Fatalf("Wait(from %d, %s): %v", tt.from, tt.id.Text(), err)
		}
		if r.Index != tt.wantIdx {
			t.Errorf("Wait(from %d, %s) = index %d, want %d", tt.from, tt.id.Text(), r.Index, tt.wantIdx)
		}
	}
	if r, _ := b.Wait(ctx, 2, anything); r.Channel != "POST-SSE" {
		t.Errorf("channel = %q, want POST-SSE", r.Channel)
	}
	if b.Len() != 3 {
		t.Errorf("Len = %d, want 3", b.Len())
	}
	if got := b.Since(1); len(got) != 2 || got[0].Index != 1 {
		t.Errorf("Since(1) = %+v", got)
	}
	if got := b.Since(3); got != nil {
		t.Errorf("Since(Len) = %+v, want nil", got)
	}
}

func TestInboxWaitForLaterMessage(t *testing.T) {
	b := NewInbox()
	b.Put("stdout", response(`1`))
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	from := b.Len()
	got := make(chan Received, 1)
	errs := make(chan error, 1)
	go func() {
		r, err := b.Wait(ctx, from, RespondsTo(jsonrpc.NumberID(2)))
		if err != nil {
			errs <- err
			return
		}
		got <- r
	}()
	b.Put("stdout", response(`3`)) // wakes the waiter, which must keep waiting
	b.Put("stdout", response(`2`))
	select {
	case r := <-got:
		if r.Index != 2 {
			t.Errorf("matched index %d, want 2", r.Index)
		}
	case err := <-errs:
		t.Fatalf("Wait: %v", err)
	}
}

func TestInboxWaitEndsOnClose(t *testing.T) {
	b := NewInbox()
	b.Put("stdout", response(`1`))
	cause := errors.New("server exited (exit status 3)")
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()

	errs := make(chan error, 1)
	go func() {
		_, err := b.Wait(ctx, 0, RespondsTo(jsonrpc.NumberID(9)))
		errs <- err
	}()
	b.Close(cause)
	err := <-errs
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("Wait after Close = %v, want ErrClosed", err)
	}
	if want := cause.Error(); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not carry the cause %q", err, want)
	}
	if !errors.Is(b.Closed(), cause) {
		t.Errorf("Closed() = %v, want %v", b.Closed(), cause)
	}

	// What arrived before the close is still found.
	if r, err := b.Wait(ctx, 0, RespondsTo(jsonrpc.NumberID(1))); err != nil || r.Index != 0 {
		t.Errorf("Wait for an earlier message after Close = %+v, %v", r, err)
	}
	// A second Close keeps the first cause.
	b.Close(errors.New("other"))
	if !errors.Is(b.Closed(), cause) {
		t.Errorf("second Close replaced the cause with %v", b.Closed())
	}
}

func TestInboxCloseWithoutCause(t *testing.T) {
	b := NewInbox()
	if b.Closed() != nil {
		t.Fatal("a new inbox is closed")
	}
	b.Close(nil)
	if !errors.Is(b.Closed(), ErrClosed) {
		t.Errorf("Closed() = %v, want ErrClosed", b.Closed())
	}
}

func TestInboxWaitContextTimeout(t *testing.T) {
	b := NewInbox()
	ctx, cancel := context.WithTimeout(context.Background(), shortTimeout)
	defer cancel()
	start := time.Now()
	_, err := b.Wait(ctx, 0, anything)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want the context's deadline", err)
	}
	if took := time.Since(start); took > waitTimeout {
		t.Errorf("Wait returned after %s", took)
	}

	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if _, err := b.Wait(cancelled, 0, anything); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on a cancelled context = %v", err)
	}
}

func TestRespondsToInsideBatch(t *testing.T) {
	batch := parse(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"2","error":{"code":-32601,"message":"x"}},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	tests := []struct {
		id   jsonrpc.ID
		want bool
	}{
		{jsonrpc.NumberID(1), true},
		{jsonrpc.StringID("2"), true},
		{jsonrpc.NumberID(2), false}, // the batch holds "2", not 2
		{jsonrpc.NumberID(3), false}, // a request with that id is not a response
	}
	for _, tt := range tests {
		if got := RespondsTo(tt.id)(Received{Msg: batch}); got != tt.want {
			t.Errorf("RespondsTo(%s) on the batch = %v, want %v", tt.id.Text(), got, tt.want)
		}
		m, ok := FindResponse(batch, tt.id)
		if ok != tt.want || (ok && m.ID != tt.id) {
			t.Errorf("FindResponse(%s) = %s, %v", tt.id.Text(), m.Raw, ok)
		}
	}

	b := NewInbox()
	b.Put("POST-JSON", batch)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if _, err := b.Wait(ctx, 0, RespondsTo(jsonrpc.StringID("2"))); err != nil {
		t.Errorf("Wait for a response inside a batch: %v", err)
	}

	single := response(`7`)
	if m, ok := FindResponse(single, jsonrpc.NumberID(7)); !ok || string(m.Raw) != string(single.Raw) {
		t.Errorf("FindResponse on a lone response = %s, %v", m.Raw, ok)
	}
	if ContainsResponse(parse(`{"jsonrpc":"2.0","id":7,"method":"x"}`), jsonrpc.NumberID(7)) {
		t.Error("a request counts as a response")
	}
}

func TestInboxOnPut(t *testing.T) {
	b := NewInbox()
	b.Put("stdout", response(`0`)) // before the hook: not seen
	var seen []int
	b.OnPut(func(r Received) {
		seen = append(seen, r.Index)
		// The hook runs outside the lock, so it may read the inbox.
		_ = b.Len()
	})
	b.Put("stdout", response(`1`))
	b.Put("stdout", response(`2`))
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 2 {
		t.Errorf("hook saw %v, want [1 2]", seen)
	}
}

func TestInboxConcurrentPutAndWait(t *testing.T) {
	const (
		producers = 4
		perProd   = 200
	)
	b := NewInbox()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()

	var waiters sync.WaitGroup
	errs := make(chan error, producers*perProd)
	// Each waiter looks for one id from position 0 while producers put them all.
	for p := 0; p < producers; p++ {
		for i := 0; i < perProd; i += 20 {
			id := jsonrpc.StringID(fmt.Sprintf("%d-%d", p, i))
			waiters.Add(1)
			go func() {
				defer waiters.Done()
				r, err := b.Wait(ctx, 0, RespondsTo(id))
				if err != nil {
					errs <- fmt.Errorf("waiting for %s: %w", id.Text(), err)
					return
				}
				if r.Msg.ID != id {
					errs <- fmt.Errorf("waiting for %s got %s", id.Text(), r.Msg.ID.Text())
				}
			}()
		}
	}
	var producersWG sync.WaitGroup
	for p := 0; p < producers; p++ {
		producersWG.Add(1)
		go func() {
			defer producersWG.Done()
			for i := 0; i < perProd; i++ {
				b.Put("stdout", response(fmt.Sprintf(`"%d-%d"`, p, i)))
				_ = b.Since(b.Len() / 2)
			}
		}()
	}
	producersWG.Wait()
	waiters.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := b.Since(0)
	if len(all) != producers*perProd {
		t.Fatalf("inbox holds %d messages, want %d", len(all), producers*perProd)
	}
	for i, r := range all {
		if r.Index != i {
			t.Fatalf("message %d has index %d", i, r.Index)
		}
	}
}

func TestInboxKeepsBoundedMessages(t *testing.T) {
	b := NewInbox()
	note := parse(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	for range MaxKeptMessages + 100 {
		b.Put("stdout", note)
	}
	b.Put("stdout", response("7"))
	if got := len(b.Since(0)); got > MaxKeptMessages {
		t.Errorf("%d messages kept, want at most %d", got, MaxKeptMessages)
	}
	if b.Len() != MaxKeptMessages+101 {
		t.Errorf("Len %d: positions must count dropped messages", b.Len())
	}
	if b.Dropped() == 0 {
		t.Error("Dropped says nothing was dropped")
	}
	// A reader whose position fell behind the dropped ones still finds what came later.
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	r, err := b.Wait(ctx, 0, RespondsTo(jsonrpc.NumberID(7)))
	if err != nil || r.Index != MaxKeptMessages+100 {
		t.Errorf("Wait from 0: %v at %d, want the response at %d", err, r.Index, MaxKeptMessages+100)
	}
}

func TestInboxKeepsBoundedBytesAndTheNewest(t *testing.T) {
	b := NewInbox()
	huge := parse(`{"jsonrpc":"2.0","id":1,"result":{"pad":"` + strings.Repeat("x", MaxKeptBytes) + `"}}`)
	for range 5 {
		b.Put("stdout", huge)
	}
	kept := b.Since(0)
	if len(kept) != 1 || kept[0].Index != 4 {
		t.Fatalf("kept %d messages; want only the newest (index 4), over the byte bound alone", len(kept))
	}
	if got := b.Since(3); len(got) != 1 || got[0].Index != 4 {
		t.Errorf("Since(3) after dropping: %d messages", len(got))
	}
}

// A flood of notifications while a request is outstanding: its response, which came before
// the flood, is kept and found by a reader that comes late; the notifications are what goes.
func TestInboxFloodKeepsTheResponse(t *testing.T) {
	b := NewInbox()
	b.Put("stdout", parse(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"before"}}`))
	b.Put("stdout", response(`7`))
	b.Put("stdout", parse(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`))
	note := parse(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	for range 3 * MaxKeptMessages {
		b.Put("stdout", note)
	}
	kept := b.Since(0)
	if len(kept) > MaxKeptMessages {
		t.Errorf("%d messages kept, want at most %d", len(kept), MaxKeptMessages)
	}
	if b.Dropped() != b.Len()-len(kept) {
		t.Errorf("Dropped %d, but %d of %d are gone", b.Dropped(), b.Len()-len(kept), b.Len())
	}
	for i := 1; i < len(kept); i++ {
		if kept[i].Index <= kept[i-1].Index {
			t.Fatalf("kept messages out of order: %d after %d", kept[i].Index, kept[i-1].Index)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	r, err := b.Wait(ctx, 0, RespondsTo(jsonrpc.NumberID(7)))
	if err != nil || r.Index != 1 {
		t.Fatalf("the response to the outstanding request: %v at %d, want it at 1", err, r.Index)
	}
	if r, err := b.Wait(ctx, 2, func(r Received) bool { return r.Msg.Kind == jsonrpc.Request }); err != nil || r.Index != 2 {
		t.Errorf("the server's request: %v at %d, want it at 2", err, r.Index)
	}
	if got := b.Since(1); len(got) == 0 || got[0].Index != 1 {
		t.Errorf("Since(1) does not start with the response")
	}
	// The first notification went first, the newest stays.
	if kept[0].Index == 0 {
		t.Error("the oldest notification was kept while newer ones were dropped")
	}
	if last := kept[len(kept)-1].Index; last != b.Len()-1 {
		t.Errorf("the newest message (%d) was dropped; kept up to %d", b.Len()-1, last)
	}
}

// Beyond the bounds responses go too, oldest first, when they alone exceed them.
func TestInboxDropsOldResponsesBeyondTheBounds(t *testing.T) {
	b := NewInbox()
	for i := range MaxKeptMessages + 1 {
		b.Put("stdout", response(fmt.Sprint(i)))
	}
	if b.Dropped() == 0 {
		t.Fatal("nothing dropped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), shortTimeout)
	defer cancel()
	if _, err := b.Wait(ctx, 0, RespondsTo(jsonrpc.NumberID(0))); err == nil {
		t.Error("the oldest response is still kept beyond the bounds")
	}
	if got := b.Since(0); got[len(got)-1].Index != MaxKeptMessages {
		t.Errorf("the newest response was dropped")
	}
}

// NoteBounds says each of its two things once, when it first holds.
func TestInboxNoteBoundsOnce(t *testing.T) {
	b := NewInbox()
	tr := transcript.New()
	note := parse(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	for range MaxKeptMessages {
		b.Put("GET-SSE", note)
		b.NoteBounds(tr, len(note.Raw))
	}
	if n := len(tr.Since(0)); n != 0 {
		t.Fatalf("%d notes before anything was dropped", n)
	}
	for range 2 * MaxKeptMessages {
		b.Put("GET-SSE", note)
		b.NoteBounds(tr, len(note.Raw))
	}
	b.NoteBounds(tr, MaxKeptBytes+1)
	b.NoteBounds(tr, MaxKeptBytes+1)
	var drops, huge int
	for _, e := range tr.Since(0) {
		drops += strings.Count(e.Body, "messages are dropped")
		huge += strings.Count(e.Body, "over the 4194304 bytes a session keeps")
	}
	if drops != 1 || huge != 1 {
		t.Errorf("%d notes of dropped messages and %d of a huge one, want 1 each", drops, huge)
	}
}
