package probe

import (
	"testing"

	"github.com/mcpspec/mcpspec/harness/record"
)

// TestRecorderWaiting: Waiting closes at the first record of a wait on the client's own timer,
// not before, and a second such record leaves it closed.
func TestRecorderWaiting(t *testing.T) {
	rec := NewRecorder(nil)
	rec.Add(record.Record{Dir: record.Recv, Channel: record.ChanPOST, Body: `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`})
	rec.note(record.Event{Kind: record.EvSessionAssigned}, "session id assigned")
	select {
	case <-rec.Waiting():
		t.Fatal("Waiting closed before any wait")
	default:
	}
	for _, k := range []record.EventKind{record.EvHeld, record.EvStreamCut} {
		rec.note(record.Event{Kind: k}, string(k))
		select {
		case <-rec.Waiting():
		default:
			t.Fatalf("Waiting open after %s", k)
		}
	}
}
