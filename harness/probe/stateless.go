package probe

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/record"
)

// The stateless revision (2026-07-28) has no initialize: a client asks server/discover (or
// goes straight to its requests), and every request names the revision and the client's
// capabilities in its _meta. The probe serves it as a stateless-only server: it answers
// server/discover, refuses initialize naming the versions it supports, and answers
// tools/list and tools/call without a session. Judging each request's _meta and headers is
// the checks' job; the probe answers whatever it gets.

// Stateless reports whether the script's revision is the stateless one.
func (s Script) Stateless() bool { return harness.IsStateless(s.Revision) }

// ToolInput (2026-07-28): called without the state of an earlier round, it answers with an
// InputRequiredResult carrying a requestState and, for each of elicitation and roots the
// request declared, an inputRequest; the client's retry (a new request) completes it.
const ToolInput = "probe_input"

// statelessTools are the tools the probe lists at the stateless revision: a server there sends
// the client no requests of its own (ping is gone), so the probe's other tools give way to
// probe_input, whose input travels in InputRequiredResult round trips. The official fixture
// add_numbers comes first, as in the official tools_call (fixtures.go).
func statelessTools() []map[string]any {
	return []map[string]any{addNumbersTool(), {"name": ToolEcho, "description": "Answers with its text argument.", "inputSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"text": map[string]any{"type": "string", "default": EchoDefault}},
	}}, {"name": ToolInput, "description": "Asks the client for input, then answers with what it got.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}, paramHeadersTool()}
}

// statelessToolsFor are the tools listed at the stateless revision in the script's scenario.
func (s *server) statelessToolsFor() []map[string]any {
	if ts, ok := s.scenarioTools(); ok {
		return ts
	}
	return statelessTools()
}

// serverMeta is the _meta every stateless result carries (META26-SERVERINFO).
func serverMeta() map[string]any {
	return map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "mcpspec-probe", "version": "0.1.0"}}
}

// handleStateless answers one request at the stateless revision.
func (s *server) handleStateless(m message) []byte {
	if s.script.Scenario == ScenarioSkills {
		if resp, ok := s.handleSkills(m); ok {
			return resp
		}
	}
	if IsSkillVerify(s.script.Scenario) {
		if resp, ok := s.handleSkillVerify(m); ok {
			return resp
		}
	}
	switch m.Method {
	case "server/discover":
		caps := map[string]any{"tools": map[string]any{}}
		if s.script.Scenario == ScenarioSkills || IsSkillVerify(s.script.Scenario) {
			caps["resources"] = map[string]any{}
			caps["extensions"] = map[string]any{SkillsExtension: map[string]any{}}
		}
		return result(m.ID, map[string]any{
			"resultType": "complete", "supportedVersions": []string{s.script.Revision},
			"capabilities": caps, "ttlMs": 0, "cacheScope": "public",
			"_meta": serverMeta(),
		})
	case "initialize":
		// VER26-LEGACY-INIT-ERROR: a stateless-only server names the versions it supports.
		return mustJSON(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{
			"code": -32601, "message": "method not found: initialize (this server speaks " + s.script.Revision + " only: ask server/discover)",
			"data": map[string]any{"supported": []string{s.script.Revision}},
		}})
	case "tools/list":
		return s.listStateless(m)
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return errorResponse(m.ID, -32602, "params: "+err.Error())
		}
		if p.Name == ToolInput {
			return s.inputRound(m)
		}
		text, ok := fixtureAnswer(p.Name, p.Arguments)
		mine := false
		if t, found := s.scenarioCall(p.Name, p.Arguments); found {
			text, mine = t, true
		}
		switch {
		case mine, ok && p.Name == ToolAddNumbers:
		case p.Name == ToolEcho || p.Name == ToolParamHeaders:
			text, _ = p.Arguments["text"].(string)
		default:
			return errorResponse(m.ID, -32602, "unknown tool: "+p.Name)
		}
		res := textResult(text)
		res["resultType"], res["_meta"] = "complete", serverMeta()
		return result(m.ID, res)
	}
	return errorResponse(m.ID, -32601, "method not found: "+m.Method)
}

// statelessStatus is the HTTP status of a stateless answer: 404 for an unknown method
// (HTTP26-METHOD-404), 400 for any other error, 200 for a result.
func statelessStatus(resp []byte) int {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(resp, &m) != nil || m.Error == nil {
		return 200
	}
	if m.Error.Code == -32601 {
		return 404
	}
	return 400
}

// inputRound answers a call of probe_input: the first round asks, a retry with a requestState
// completes (the probe is lenient: a wrong state is named in the answer, judged by the checks).
func (s *server) inputRound(m message) []byte {
	var p struct {
		RequestState   *string                    `json:"requestState"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		Meta           struct {
			Caps map[string]json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if p.RequestState != nil || p.InputResponses != nil {
		got := "no requestState"
		if p.RequestState != nil {
			got = "requestState " + strconv.Quote(*p.RequestState)
		}
		res := textResult(fmt.Sprintf("input received: %d responses, %s", len(p.InputResponses), got))
		res["resultType"], res["_meta"] = "complete", serverMeta()
		return result(m.ID, res)
	}
	state := newSessionID() // opaque to the client: it must echo it exactly
	s.rec.note(record.Event{Kind: record.EvInputRequired, RequestState: state}, "input required, requestState: "+state)
	requests := map[string]any{}
	// MRTR-CAP-GATED: ask only what the request declared.
	if p.Meta.Caps["elicitation"] != nil {
		requests["form"] = map[string]any{"method": "elicitation/create", "params": map[string]any{
			"mode": "form", "message": "Please fill in the form.", "requestedSchema": elicitSchema(s.script.Revision)}}
	}
	if p.Meta.Caps["roots"] != nil {
		// params may be absent from a ListRootsRequest, but the Go SDK's client (v1.8.0, pinned in fixtures/targets/gosdk)
		// fails to decode an inputRequest without them ("unexpected end of JSON input") and
		// gives up the call, which would hide its retry from the checks: send them empty.
		requests["roots"] = map[string]any{"method": "roots/list", "params": map[string]any{}}
	}
	res := map[string]any{"resultType": "input_required", "requestState": state, "_meta": serverMeta()}
	if len(requests) > 0 {
		res["inputRequests"] = requests
	}
	return result(m.ID, res)
}

// StatelessPageCursor is the nextCursor of the stateless revision's first tools/list page.
const StatelessPageCursor = "mcpspec-page-2"

// listStateless pages the tools at the stateless revision: the first page holds them all with
// nextCursor StatelessPageCursor; the page that names is empty with nextCursor "", a valid
// cursor a client must not take for the end (PAGE-EMPTY-STRING-CURSOR); the page "" names is
// empty and the last. A client that never follows the first cursor did not page, which shows
// nothing of how it reads "".
func (s *server) listStateless(m message) []byte {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p)
	res := map[string]any{"resultType": "complete", "tools": s.statelessToolsFor(), "ttlMs": 0, "cacheScope": "public", "_meta": serverMeta()}
	switch {
	case p.Cursor == nil:
		res["nextCursor"] = StatelessPageCursor
	case *p.Cursor == StatelessPageCursor:
		res["tools"] = []map[string]any{}
		res["nextCursor"] = ""
		s.rec.note(record.Event{Kind: record.EvEmptyCursor}, `nextCursor "" sent`)
	case *p.Cursor == "":
		res["tools"] = []map[string]any{}
	default:
		return errorResponse(m.ID, -32602, "invalid cursor: "+strconv.Quote(*p.Cursor))
	}
	return result(m.ID, res)
}
