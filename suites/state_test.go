package suites

import (
	"testing"

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
