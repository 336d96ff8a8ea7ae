package conform

import (
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
)

func TestUnansweredRequestFailsAnyCheck(t *testing.T) {
	left := []harness.Unanswered{{ID: jsonrpc.NumberID(7), Method: "ping", Why: "nothing within 2s"}}
	for _, f := range []Finding{Violated("notification answered"), CannotTest("the slow tool got no response")} {
		got := withUnanswered(f, left)
		if got.Outcome != Violation || levelOf(got, "SHOULD") != "MUST" {
			t.Errorf("%q: outcome %v at level %s, want a MUST violation", f.Message, got.Outcome, levelOf(got, "SHOULD"))
		}
		if !strings.Contains(got.Message, "JRPC-REPLY-REQUIRED [MUST]: request 7 (ping) was never answered") || !strings.Contains(got.Message, f.Message) {
			t.Errorf("message does not name the rule and keep the check's own: %q", got.Message)
		}
	}
	for _, f := range []Finding{Passed(""), NA("not served"), Failed(harnessBroke())} {
		if got := withUnanswered(f, left); got.Outcome != f.Outcome || got.Message != f.Message {
			t.Errorf("%v changed to %v: %q", f.Outcome, got.Outcome, got.Message)
		}
	}
	if got := withUnanswered(Violated("x"), nil); got.Rule != "" || levelOf(got, "SHOULD") != "SHOULD" {
		t.Errorf("nothing unanswered, yet the level changed: %+v", got)
	}
}

func harnessBroke() error { return errString("the harness broke") }

type errString string

func (e errString) Error() string { return string(e) }
