package suites

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// The harness's reply to a sampling request is a CreateMessageResult of every revision.
func TestSamplingAnswerValidates(t *testing.T) {
	raw, _ := json.Marshal(samplingAnswer())
	v := schema.New()
	validated := 0
	for _, rev := range harness.Revisions {
		if !v.HasDefinition(rev, "CreateMessageResult") {
			continue
		}
		validated++
		if err := v.Definition(rev, "CreateMessageResult", raw); err != nil {
			t.Errorf("%s: %v", rev, err)
		}
	}
	if validated < 4 {
		t.Errorf("validated against %d revisions' CreateMessageResult, want every revision that has it", validated)
	}
}

// A sampling request is answered only on a session that declared sampling.
func TestAnswerServerRequestOnlyWhatWasDeclared(t *testing.T) {
	m := jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":8}}`))
	if got := string(answerServerRequest(m, samplingGathering.caps(harness.Rev20251125))); !strings.Contains(got, `"model":"mcpspec"`) || !strings.Contains(got, `"id":"s1"`) {
		t.Errorf("declared: %s", got)
	}
	if got := string(answerServerRequest(m, elicitGathering.caps(harness.Rev20251125))); !strings.Contains(got, `-32601`) {
		t.Errorf("undeclared: %s", got)
	}
}

func TestSamplingToolsPicked(t *testing.T) {
	for name, want := range map[string]bool{"test_sampling": true, "trigger-sampling-request": true, "sample_summary": true, "echo": false, "elicit_preferences": false} {
		if got := samplingGathering.pick(name); got != want {
			t.Errorf("%s: picked %v, want %v", name, got, want)
		}
	}
}
