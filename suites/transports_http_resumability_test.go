package suites

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

func TestJudgeRetry(t *testing.T) {
	prime := wire.Event{ID: "1", HasID: true}
	progress := wire.Event{ID: "2", HasID: true, Data: `{"jsonrpc":"2.0","method":"notifications/progress"}`}
	bare := wire.Event{HasRetry: true}
	if f := judgeRetry([]wire.Event{prime, progress}, nil); f.Outcome != conform.Violation {
		t.Errorf("no retry field: %+v, want a violation", f)
	}
	if f := judgeRetry([]wire.Event{prime, progress, bare}, nil); f.Outcome != conform.Pass || !strings.Contains(f.Message, "event(s) 3") {
		t.Errorf("retry before the close: %+v, want a pass naming event 3", f)
	}
	withRetry := prime
	withRetry.HasRetry = true
	f := judgeRetry([]wire.Event{withRetry, progress}, errors.New("unexpected EOF"))
	if f.Outcome != conform.Pass || !strings.Contains(f.Message, "unexpected EOF") {
		t.Errorf("retry on the priming event, stream broken off: %+v, want a pass that names the error", f)
	}
}
