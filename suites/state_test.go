package suites

import (
	"testing"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// answeredOrWorking ends an early cancellation attempt on the call's answer, or on the second
// progress notification of its own after the cancellation was read, each message counted once.
func TestAnsweredOrWorking(t *testing.T) {
	id, token := jsonrpc.StringID("call"), jsonrpc.StringID("tok")
	progress := func(index int, tok string) wire.Received {
		return wire.Received{Index: index, Msg: jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + tok + `","progress":1}}`))}
	}
	answer := wire.Received{Index: 9, Msg: jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","id":"call","result":{}}`))}

	if !answeredOrWorking(id, token, 5)(answer) {
		t.Error("the call's answer does not end the wait")
	}
	match := answeredOrWorking(id, token, 5)
	for _, r := range []wire.Received{progress(3, "tok"), progress(4, "tok"), progress(5, "other"), progress(6, "tok"), progress(6, "tok")} {
		if match(r) {
			t.Errorf("progress #%d ends the wait: before the cancellation was read, another call's, or the first after it (seen twice)", r.Index)
		}
	}
	if !match(progress(7, "tok")) {
		t.Error("the second progress of the call's own after the cancellation was read does not end the wait")
	}
}
