package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/record"
)

// Scenario names. A client under test is launched once per scenario and revision, with the
// scenario's name in MCP_CONFORMANCE_SCENARIO.
const (
	// ScenarioTools: initialize at the scenario's revision, list the probe's tools, call each
	// one; calling probe_ping makes the probe ping the client before it answers.
	ScenarioTools = "tools_call"
	// ScenarioVersionUnsupported: the probe answers initialize with a revision no client
	// supports; the client should disconnect.
	ScenarioVersionUnsupported = "version-unsupported"
	// ScenarioSessionExpiry (Streamable HTTP): as ScenarioTools, but the probe expires the
	// session at the first tools/call and answers it 404; the client must initialize anew.
	ScenarioSessionExpiry = "session-expiry"
	// ScenarioSSERetry (Streamable HTTP; named after the official suite's client scenario): as
	// ScenarioTools, but the probe answers the first tools/call with an SSE stream that carries
	// one event with an id (and, from 2025-11-25, a retry field) and closes before the
	// response; the client should resume with GET and Last-Event-ID, and gets the response on
	// the resumed stream.
	ScenarioSSERetry = "sse-retry"
	// ScenarioInitialize (the official suite's client scenario of that name): the handshake
	// alone. The probe declares no capabilities and lists no tools, so a client initializes,
	// may list the tools, and leaves. It exists at the handshake revisions only.
	ScenarioInitialize = "initialize"
)

// Scenarios lists the scenarios a client run serves unless told otherwise.
var Scenarios = []string{ScenarioTools, ScenarioVersionUnsupported, ScenarioSessionExpiry, ScenarioSSERetry, ScenarioRequestTimeout}

// OnRequest lists the scenarios served only when asked for by name: the exchange of the first
// ones is a part of ScenarioTools', judged by the same checks, so running them too would only
// repeat results; the others exercise what few clients have, or a step of the official
// suite's scenario (docs/client.md says why each is here).
var OnRequest = []string{ScenarioInitialize, ScenarioElicitDefaults, ScenarioTaskCancel, ScenarioSubscriptions, ScenarioSkills,
	ScenarioInvalidToolHeaders, ScenarioRefNoDeref, ScenarioSchemaPreservation,
	ScenarioSkillVerifyDigest, ScenarioSkillVerifySize, ScenarioSkillVerifyFrontmatter,
	ScenarioTasksExtension, ScenarioTasksUndeclared}

// Known lists every scenario the probe serves, the authorization scenarios last.
func Known() []string {
	return append(append(slices.Clone(Scenarios), OnRequest...), AuthScenarios()...)
}

// ServesAt reports whether the probe serves scenario at revision: the handshake alone has no
// place at the stateless 2026-07-28, which has none; an authorization scenario is served at
// the revisions its plan names.
func ServesAt(scenario, revision string) bool {
	if a, ok := PlanFor(scenario); ok {
		return a.ServesAt(revision)
	}
	if serves, known := scenarioServes(scenario, revision); known {
		return serves
	}
	switch scenario {
	case ScenarioInitialize:
		return !harness.IsStateless(revision)
	case ScenarioElicitDefaults:
		return revision == elicitDefaultsRevision
	case ScenarioTaskCancel: // tasks exist at 2025-11-25 only
		return revision == harness.Rev20251125
	case ScenarioSubscriptions, ScenarioSkills: // subscriptions/listen and extensions are 2026-07-28's
		return harness.IsStateless(revision)
	}
	return true
}

// UnsupportedRevision is the revision the probe offers in ScenarioVersionUnsupported: a date
// older than any MCP revision, so no client can support it.
const UnsupportedRevision = "1999-01-01"

// The probe's tools: their input schemas give every argument a default, which the contract
// asks the client to send.
const (
	ToolEcho = "probe_echo" // answers with its text argument
	ToolPing = "probe_ping" // pings the client, then answers whether the ping was answered
	// The tools that make the probe send the client a request of a client capability, whether
	// or not the client declared it: a client that did not must answer with an error.
	ToolRoots       = "probe_roots"       // roots/list
	ToolSampling    = "probe_sampling"    // sampling/createMessage
	ToolElicitation = "probe_elicitation" // elicitation/create (2025-06-18 on)
	// EchoDefault is the default of probe_echo's text argument.
	EchoDefault = "mcpspec"
)

// Ids of the probe's own requests to the client: strings, so they never collide with the
// client's ids.
const (
	PingID        = "probe-ping-1"
	RootsID       = "probe-roots-1"
	SamplingID    = "probe-sampling-1"
	ElicitationID = "probe-elicitation-1"
)

// ElicitationDefaults are the defaults the probe's elicitation/create gives its fields at
// 2025-11-25, where every primitive may have one (SEP-1034); before, only booleans may.
func ElicitationDefaults(revision string) map[string]any {
	if revision < "2025-11-25" {
		return map[string]any{"confirm": true}
	}
	return map[string]any{"name": EchoDefault, "count": 3, "colour": "green", "confirm": true}
}

// HasElicitation reports whether a revision defines elicitation.
func HasElicitation(revision string) bool { return revision >= "2025-06-18" }

// Script is what the probe does in one run.
type Script struct {
	Scenario string
	Revision string // the revision the probe answers initialize with (ScenarioTools)
	// AnswerWait bounds the probe's wait for the client's answer to a request the probe sent.
	AnswerWait time.Duration
	// StateDir (stdio) is a directory every probe launched in the run shares: the relaunched
	// probe of ScenarioSubscriptions learns there that the connection was ended once.
	StateDir string
}

// Offered is the protocol version the probe answers initialize with.
func (s Script) Offered() string {
	if s.Scenario == ScenarioVersionUnsupported {
		return UnsupportedRevision
	}
	return s.Revision
}

// Validate rejects a script the probe cannot serve.
func (s Script) Validate() error {
	if !slices.Contains(Known(), s.Scenario) {
		return fmt.Errorf("unknown scenario %q (known: %v)", s.Scenario, Known())
	}
	if s.Revision == "" {
		return fmt.Errorf("scenario %s: no revision", s.Scenario)
	}
	if !ServesAt(s.Scenario, s.Revision) {
		return fmt.Errorf("scenario %s: not served at %s", s.Scenario, s.Revision)
	}
	if s.AnswerWait <= 0 {
		return fmt.Errorf("scenario %s: the answer wait must be positive", s.Scenario)
	}
	return nil
}

// server is the transport-independent part: it answers one client message at a time and
// matches the client's responses to the probe's own requests.
type server struct {
	script  Script
	rec     *Recorder
	mu      sync.Mutex
	pending map[string]chan json.RawMessage
	pager   *pager                   // the handshake era's tools/list pages (paging.go), made at the first list
	held    map[string]chan struct{} // requests held past the client's timeout (cancel.go)
	holding int                      // holds under way (cancel.go)
	settled chan struct{}            // closed when holding drops to 0 (awaitReleased); nil if none waits
	theTask *probeTask               // ScenarioTaskCancel's task, once created
	sub     subState                 // ScenarioSubscriptions (subscribe.go)
	hangup  func()                   // ends the connection (stdio: closes stdout); nil over HTTP
	canary  *canary                  // ScenarioRefNoDeref's listener (schemas.go)
	xTasks  map[string]*xTask        // ScenarioTasksExtension's tasks by id (taskx.go)

	// streamCancels: closing a request's stream cancels it, and notifications/cancelled
	// releases no held request (Streamable HTTP at 2026-07-28; cancel.go).
	streamCancels bool
}

func newServer(script Script, rec *Recorder) *server {
	return &server{script: script, rec: rec, pending: map[string]chan json.RawMessage{}}
}

// message is a JSON-RPC message as the probe reads it: loosely, since judging is not its job.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (m message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// handle answers one message from the client. emit sends a message to the client before the
// answer (the probe's ping, on the stream of the request being answered). It returns the
// response to a request, or nil for a notification or a response.
func (s *server) handle(ctx context.Context, m message, emit func([]byte)) []byte {
	if resp, ok := s.intercept(ctx, m, emit); ok {
		return resp
	}
	switch {
	case m.Method == "" && len(m.ID) > 0:
		s.deliver(m)
		return nil
	case !m.isRequest():
		return nil
	case s.script.Stateless():
		return s.handleStateless(m)
	}
	switch m.Method {
	case "initialize":
		caps := map[string]any{"tools": map[string]any{}}
		switch s.script.Scenario {
		case ScenarioInitialize:
			caps = map[string]any{}
		case ScenarioTaskCancel:
			caps["tasks"] = taskCapabilities()
		}
		return result(m.ID, map[string]any{
			"protocolVersion": s.script.Offered(),
			"capabilities":    caps,
			"serverInfo":      map[string]any{"name": "mcpspec-probe", "version": "0.1.0"},
		})
	case "ping":
		return result(m.ID, map[string]any{})
	case "tools/list":
		// Leniently answered in ScenarioInitialize too, where no tools were declared: a client
		// that lists them anyway gets none, as from the official suite's server.
		return s.listTools(m)
	case "tools/call":
		return s.callTool(ctx, m, emit)
	}
	return errorResponse(m.ID, -32601, "method not found: "+m.Method)
}

func (s *server) tools() []map[string]any {
	switch s.script.Scenario {
	case ScenarioInitialize:
		return []map[string]any{}
	case ScenarioElicitDefaults:
		return elicitDefaultsTools()
	}
	if ts, ok := s.scenarioTools(); ok {
		return ts
	}
	noArgs := map[string]any{"type": "object", "properties": map[string]any{}}
	echo := map[string]any{"name": ToolEcho, "description": "Answers with its text argument.", "inputSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"text": map[string]any{"type": "string", "default": EchoDefault}},
	}}
	if IsAuth(s.script.Scenario) {
		// Authorization is the point: one tool call is enough to need a token.
		return []map[string]any{echo}
	}
	ts := []map[string]any{
		officialTool(s.script.Scenario),
		echo,
		{"name": ToolPing, "description": "Pings the client, then answers whether the ping was answered.", "inputSchema": noArgs},
		{"name": ToolRoots, "description": "Asks the client for its roots.", "inputSchema": noArgs},
		{"name": ToolSampling, "description": "Asks the client to sample a message.", "inputSchema": noArgs},
	}
	if HasElicitation(s.script.Revision) {
		ts = append(ts, map[string]any{"name": ToolElicitation, "description": "Asks the client to elicit a form.", "inputSchema": noArgs})
	}
	return append(ts, map[string]any{"name": ToolLastPage, "description": "Answers with its text argument; listed on the last page alone.", "inputSchema": map[string]any{
		"type":       "object",
		"properties": map[string]any{"text": map[string]any{"type": "string", "default": EchoDefault}},
	}})
}

// ToolNames are the names of the tools the probe lists in tools_call at a revision, in order.
func ToolNames(revision string) []string {
	return Script{Scenario: ScenarioTools, Revision: revision}.toolNames()
}

// toolNames are the names of the tools the probe lists in the script's scenario, in order.
func (s Script) toolNames() []string {
	srv := &server{script: s}
	ts := srv.tools()
	if s.Stateless() {
		ts = srv.statelessToolsFor()
	}
	var out []string
	for _, t := range ts {
		out = append(out, t["name"].(string))
	}
	return out
}

// elicitSchema is the form the probe elicits: every field optional, each with its default
// where the revision allows one.
func elicitSchema(revision string) map[string]any {
	defs := ElicitationDefaults(revision)
	props := map[string]any{
		"name":    map[string]any{"type": "string", "description": "A name"},
		"count":   map[string]any{"type": "integer", "description": "A count"},
		"colour":  map[string]any{"type": "string", "description": "A colour", "enum": []string{"red", "green", "blue"}},
		"confirm": map[string]any{"type": "boolean", "description": "Whether to go on"},
	}
	for k, d := range defs {
		props[k].(map[string]any)["default"] = d
	}
	return map[string]any{"type": "object", "properties": props}
}

func (s *server) callTool(ctx context.Context, m message, emit func([]byte)) []byte {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return errorResponse(m.ID, -32602, "params: "+err.Error())
	}
	if text, ok := fixtureAnswer(p.Name, p.Arguments); ok {
		return result(m.ID, textResult(text))
	}
	if text, ok := s.scenarioCall(p.Name, p.Arguments); ok {
		return result(m.ID, textResult(text))
	}
	switch p.Name {
	case ToolEcho, ToolLastPage:
		text, _ := p.Arguments["text"].(string)
		return result(m.ID, textResult(text))
	case ToolPing:
		return s.relay(ctx, m.ID, PingID, "ping", nil, emit)
	case ToolRoots:
		return s.relay(ctx, m.ID, RootsID, "roots/list", nil, emit)
	case ToolSampling:
		return s.relay(ctx, m.ID, SamplingID, "sampling/createMessage", map[string]any{
			"messages":  []map[string]any{{"role": "user", "content": map[string]any{"type": "text", "text": "Say hello."}}},
			"maxTokens": 16,
		}, emit)
	case ToolElicitDefaults:
		if s.script.Scenario == ScenarioElicitDefaults {
			return s.relay(ctx, m.ID, ElicitationID, "elicitation/create", map[string]any{
				"message": "Please accept the form as its defaults give it.", "requestedSchema": elicitDefaultsSchema(),
			}, emit)
		}
	case ToolElicitation:
		if HasElicitation(s.script.Revision) {
			return s.relay(ctx, m.ID, ElicitationID, "elicitation/create", map[string]any{
				"message": "Please fill in the form.", "requestedSchema": elicitSchema(s.script.Revision),
			}, emit)
		}
	}
	return errorResponse(m.ID, -32602, "unknown tool: "+p.Name)
}

// relay asks the client and answers the tool call with whether, and how, it answered.
func (s *server) relay(ctx context.Context, callID json.RawMessage, id, method string, params any, emit func([]byte)) []byte {
	answer := s.ask(ctx, id, method, params, emit)
	if answer == nil {
		return result(callID, textResult("the "+method+" request was not answered"))
	}
	return result(callID, textResult("the "+method+" request was answered: "+string(answer)))
}

// ask sends the client a request and waits, at most AnswerWait, for its response.
func (s *server) ask(ctx context.Context, id, method string, params any, emit func([]byte)) json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	idJSON, _ := json.Marshal(id)
	req := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(idJSON), "method": method}
	if params != nil {
		req["params"] = params
	}
	emit(mustJSON(req))
	t := time.NewTimer(s.script.AnswerWait)
	defer t.Stop()
	select {
	case raw := <-ch:
		return raw
	case <-t.C:
		s.rec.note(record.Event{Kind: record.EvUnanswered, Method: method, RequestID: string(idJSON)}, fmt.Sprintf("no answer to the probe's %s (id %s) within %s", method, id, s.script.AnswerWait))
	case <-ctx.Done():
	}
	return nil
}

// deliver hands a client's response to the probe request waiting for it.
func (s *server) deliver(m message) {
	var id string
	if json.Unmarshal(m.ID, &id) != nil {
		return
	}
	s.mu.Lock()
	ch := s.pending[id]
	s.mu.Unlock()
	if ch != nil {
		raw, _ := json.Marshal(m)
		select {
		case ch <- raw:
		default:
		}
	}
}

func textResult(text string) map[string]any {
	return map[string]any{"content": []map[string]any{{"type": "text", "text": text}}, "isError": false}
}

func result(id json.RawMessage, v any) []byte {
	return mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "result": v})
}

func errorResponse(id json.RawMessage, code int, msg string) []byte {
	return mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("probe: encode %T: %v", v, err))
	}
	return b
}
