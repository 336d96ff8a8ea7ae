package suites

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// answeredOrWorking tells a racing attempt early: on the call's answer, or on the second
// progress notification of its own after the cancellation was read, each message counted once.
func TestAnsweredOrWorking(t *testing.T) {
	id, token := jsonrpc.StringID("call"), jsonrpc.StringID("tok")
	progress := func(index int, tok string) wire.Received {
		return wire.Received{Index: index, Msg: jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + tok + `","progress":1}}`))}
	}
	answer := wire.Received{Index: 9, Msg: jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","id":"call","result":{}}`))}

	if !answeredOrWorking(id, token, 5)(answer) {
		t.Error("the call's answer does not tell")
	}
	match := answeredOrWorking(id, token, 5)
	for _, r := range []wire.Received{progress(3, "tok"), progress(4, "tok"), progress(5, "other"), progress(6, "tok"), progress(6, "tok")} {
		if match(r) {
			t.Errorf("progress #%d tells: before the cancellation was read, another call's, or the first after it (seen twice)", r.Index)
		}
	}
	if !match(progress(7, "tok")) {
		t.Error("the second progress of the call's own after the cancellation was read does not tell")
	}
}

// The attempts made beside each other decide as made one after another: the first that did not
// race, else the last.
func TestDeciding(t *testing.T) {
	raced := func(msg string) attempt { return attempt{f: conform.Violated("%s", msg), raced: true} }
	passed := attempt{ok: true}
	broken := attempt{f: conform.Violated("stream still open")}
	for _, c := range []struct {
		outcomes []attempt
		want     attempt
	}{
		{[]attempt{passed, raced("b"), raced("c")}, passed},
		{[]attempt{raced("a"), broken, passed}, broken},
		{[]attempt{raced("a"), raced("b"), passed}, passed},
		{[]attempt{raced("a"), raced("b"), raced("c")}, raced("c")},
	} {
		if got := deciding(c.outcomes); got.ok != c.want.ok || got.f.Message != c.want.f.Message {
			t.Errorf("deciding(%v) = %v, want %v", c.outcomes, got, c.want)
		}
	}
}

// inTurn starts a further attempt at the first sign of a race of the one before, and stops the
// ones started after an attempt that ends without racing: that attempt decides.
func TestInTurn(t *testing.T) {
	passed := attempt{ok: true}
	raced := attempt{f: conform.Violated("kept working"), raced: true}
	type script struct {
		hint bool    // tell the hint, and end only once the next attempt has started
		end  attempt // what the attempt ends with, unless it holds
		hold bool    // end only when stopped
	}
	for _, c := range []struct {
		name    string
		scripts []script
		want    attempt
		stopped []bool // per attempt started
	}{
		{"a pass without a sign decides alone", []script{{end: passed}}, passed, []bool{false}},
		{"a sign, then a pass: the next attempt is stopped", []script{{hint: true, end: passed}, {hold: true}}, passed, []bool{false, true}},
		{"a race, then a pass: the third is stopped", []script{{hint: true, end: raced}, {hint: true, end: passed}, {hold: true}}, passed, []bool{false, false, true}},
		{"three races: the last decides", []script{{hint: true, end: raced}, {hint: true, end: raced}, {end: raced}}, raced, []bool{false, false, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			const bound = 10 * time.Second // a test's bound on a loaded machine, never reached when it passes
			began := make([]chan struct{}, cancelAttemptsMax)
			for i := range began {
				began[i] = make(chan struct{})
			}
			stopped := make([]bool, cancelAttemptsMax)
			got := inTurn(context.Background(), func(ctx context.Context, i int, _ []chan struct{}, sig *raceSignals) attempt {
				close(began[i])
				s := c.scripts[i]
				if s.hold {
					select {
					case <-ctx.Done():
						stopped[i] = true
					case <-time.After(bound):
					}
					return attempt{}
				}
				if s.hint {
					sig.hinted()
					select {
					case <-began[i+1]:
					case <-time.After(bound):
						t.Errorf("attempt %d: no attempt started on its hint", i)
					}
				}
				return s.end
			})
			if got.ok != c.want.ok || got.f.Message != c.want.f.Message {
				t.Errorf("decided %+v, want %+v", got, c.want)
			}
			for i := range cancelAttemptsMax {
				select {
				case <-began[i]:
					if i >= len(c.stopped) {
						t.Errorf("attempt %d started, want %d attempts", i, len(c.stopped))
					} else if stopped[i] != c.stopped[i] {
						t.Errorf("attempt %d stopped: %v, want %v", i, stopped[i], c.stopped[i])
					}
				default:
					if i < len(c.stopped) {
						t.Errorf("attempt %d never started, want %d attempts", i, len(c.stopped))
					}
				}
			}
		})
	}
}

// Each further attempt's session is opened when the attempt before it starts (issue 28): by the
// time an attempt tells its sign of a race, the next one's session is already under way, and it
// is opened once however often it is asked for.
func TestSessionsAhead(t *testing.T) {
	var opened []int
	var mu sync.Mutex
	ahead := &sessionsAhead{open: func() chan *harness.Session {
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, len(opened)+1)
		return make(chan *harness.Session, 1)
	}}
	openedSoFar := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(opened)
	}
	hintedWith := make([]int, cancelAttemptsMax) // sessions opened when attempt i told its hint
	raced := attempt{f: conform.Violated("kept working"), raced: true}
	inTurn(context.Background(), func(ctx context.Context, i int, _ []chan struct{}, sig *raceSignals) attempt {
		ahead.session(i + 1) // as decide does over HTTP and legacy SSE
		if i > 0 {
			ahead.session(i) // the attempt's own session: opened already
		}
		hintedWith[i] = openedSoFar()
		sig.hinted()
		return raced
	})
	for i, n := range hintedWith[:cancelAttemptsMax-1] {
		if n < i+1 {
			t.Errorf("attempt %d told its hint with %d sessions opened, want attempt %d's among them", i, n, i+1)
		}
	}
	if n := openedSoFar(); n != cancelAttemptsMax-1 {
		t.Errorf("%d sessions opened for %d further attempts", n, cancelAttemptsMax-1)
	}
	if ahead.session(cancelAttemptsMax) != nil {
		t.Error("a session past the last attempt")
	}
}

// When every attempt raced, the last decides, and its message says which attempts showed what
// it did and what the others showed (issue 28: a late read's open stream, then calls that kept
// working).
func TestDecidingSaysWhatEachAttemptShowed(t *testing.T) {
	kept := racedAs(conform.Violated, "kept working", func(times string) string { return "kept working, " + times })
	open := racedAs(conform.Violated, "its stream was open", func(times string) string { return "open, " + times })
	for _, c := range []struct {
		outcomes []attempt
		want     string
	}{
		{[]attempt{kept, kept, kept}, "kept working, in each of 3 attempts"},
		{[]attempt{open, kept, kept}, "kept working, in attempts 2 and 3 of 3 (attempt 1: its stream was open)"},
		{[]attempt{open, open, kept}, "kept working, in attempt 3 of 3 (attempt 1: its stream was open; attempt 2: its stream was open)"},
		{[]attempt{open, {ok: true}, kept}, ""}, // the pass decides
	} {
		got := deciding(c.outcomes)
		if got.f.Message != c.want || got.raced == (c.want == "") {
			t.Errorf("deciding(%v): %+v, want %q", c.outcomes, got, c.want)
		}
	}
}
