package probe

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestAwaitReleased: the wait for held requests ends once the last is released (here by the
// client's cancellation), and at its bound while one is still held.
func TestAwaitReleased(t *testing.T) {
	rec := NewRecorder(nil)
	s := newServer(Script{Scenario: ScenarioRequestTimeout, Revision: "2025-06-18", AnswerWait: time.Hour}, rec)
	if !s.awaitReleased(time.Hour) {
		t.Fatal("nothing held, yet the wait did not end at once")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.hold(context.Background(), json.RawMessage(`7`), func() []byte { return nil })
	}()
	select { // hold records EvHeld once the request is held
	case <-rec.Activity():
	case <-time.After(releaseTestBound):
		t.Fatal("the request was never held")
	}
	if s.awaitReleased(10 * time.Millisecond) {
		t.Error("a request is held, yet the wait reported none")
	}
	go s.cancelled(message{Params: json.RawMessage(`{"requestId":7}`)})
	if !s.awaitReleased(releaseTestBound) {
		t.Error("the held request was cancelled, yet the wait ran out")
	}
	<-done
}

// releaseTestBound bounds each wait of TestAwaitReleased: each ends as soon as its condition
// holds, and a minute leaves a loaded machine room.
const releaseTestBound = time.Minute
