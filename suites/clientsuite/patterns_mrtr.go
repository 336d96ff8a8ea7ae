package clientsuite

import (
	"bytes"
	"encoding/json"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The client half of multi-round-trip requests (2026-07-28): answered with an
// InputRequiredResult, the client retries the original request as a new one, with its own id,
// echoing the requestState exactly.

func init() {
	Register(
		Check{ID: "MRTR-CLIENT-NEW-ID", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio, wire.HTTP},
			Summary: "the retry after an InputRequiredResult is a new request, with an id other than the original's",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeMRTRNewID}},
		Check{ID: "MRTR-CLIENT-ECHO-STATE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio, wire.HTTP},
			Summary: "the retry after an InputRequiredResult echoes its requestState exactly",
			Side:    Client{Scenario: probe.ScenarioTools, Judge: judgeMRTREchoState}},
	)
}

// inputCall is a client's tools/call of probe_input.
type inputCall struct {
	Msg
	state *string // its requestState, nil when absent
}

// mrtrRound finds the probe's InputRequiredResult, its requestState, the call it answered and
// the client's retry; a Finding when there is nothing to judge.
func (v *View) mrtrRound() (state string, original, retry inputCall, f *Finding) {
	at := -1
	for i, r := range v.Records {
		if r.Is(record.EvInputRequired) {
			at, state = i, r.Event.RequestState
			break
		}
	}
	if at < 0 {
		u := untestable("the client never called %s, so the probe sent no InputRequiredResult (the contract: call every listed tool)", probe.ToolInput)
		return "", original, retry, &u
	}
	found := false
	for _, m := range v.Msgs {
		if m.Method != "tools/call" {
			continue
		}
		var p struct {
			Params struct {
				Name         string  `json:"name"`
				RequestState *string `json:"requestState"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Raw, &p) != nil || p.Params.Name != probe.ToolInput {
			continue
		}
		c := inputCall{m, p.Params.RequestState}
		if m.Rec < at {
			original = c
			continue
		}
		retry, found = c, true
		break
	}
	if !found {
		u := untestable("the client did not retry %s after the InputRequiredResult, so there is no retry to judge", probe.ToolInput)
		return state, original, retry, &u
	}
	return state, original, retry, nil
}

func judgeMRTRNewID(v *View) Finding {
	_, original, retry, f := v.mrtrRound()
	if f != nil {
		return *f
	}
	if bytes.Equal(bytes.TrimSpace(original.ID), bytes.TrimSpace(retry.ID)) {
		return violated("the retry of %s (record %d) reuses the original request's id %s", probe.ToolInput, v.Records[retry.Rec].Seq, retry.ID)
	}
	return passed("the retry of %s has id %s, the original had %s", probe.ToolInput, retry.ID, original.ID)
}

func judgeMRTREchoState(v *View) Finding {
	state, _, retry, f := v.mrtrRound()
	if f != nil {
		return *f
	}
	switch {
	case retry.state == nil:
		return violated("the retry of %s (record %d) carries no requestState; the InputRequiredResult's was %q", probe.ToolInput, v.Records[retry.Rec].Seq, state)
	case *retry.state != state:
		return violated("the retry of %s (record %d) carries requestState %q, not the exact %q it was given", probe.ToolInput, v.Records[retry.Rec].Seq, *retry.state, state)
	}
	return passed("the retry of %s echoes the requestState exactly", probe.ToolInput)
}
