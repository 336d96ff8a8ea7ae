package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: the form-mode elicitations and the sampling requests a server makes
// during tool calls, at every revision that has them. At the handshake revisions they are
// requests of the server's own, sent while a tools/call runs on a session that declared the
// capability, which the harness answers as a willing user (or model) would; at 2026-07-28 they
// are input requests (inputtool.go). The tools called are the input tool and those whose name
// says they elicit (the official suite's test_elicitation_* fixtures, server-everything's
// trigger-elicitation-request) or sample (test_sampling, trigger-sampling-request).

var (
	// elicitingToolName picks the tools worth calling to see an elicitation.
	elicitingToolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)elicit`) })
	// urlElicitationTool: a tool that elicits in URL mode, which a form-only client is not asked.
	urlElicitationTool = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)url`) })
	// samplingToolName picks the tools worth calling to see a sampling request.
	samplingToolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)sampl`) })
)

// Bounds of gathering: how many tools are called, and how many requests of the server's own
// one call may make before it answers.
const (
	elicitingTools   = 3
	serverRequestCap = 8
)

// elicitCall is a tool to call and its arguments.
type elicitCall struct {
	name string
	args map[string]any
}

// gathering says what to gather: which tools to call, what to declare, which requests to keep.
type gathering struct {
	key      string                          // the observation's, at the handshake revisions
	what     string                          // the requests kept, for findings: "form-mode elicitation"
	declared string                          // the capability declared, for findings
	toolKind string                          // how the tools are picked, for the na finding
	caps     func(rev string) map[string]any // declared at the handshake revisions
	pick     func(name string) bool
	keep     func(inputRequest) bool
}

var elicitGathering = gathering{
	key:  "form-elicitations",
	what: "form-mode elicitation", declared: "form-mode elicitation",
	toolKind: "elicits: none is named for elicitation (*elicit*)",
	caps: func(rev string) map[string]any {
		if rev >= harness.Rev20251125 {
			return map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
		}
		return map[string]any{"elicitation": map[string]any{}}
	},
	pick: func(name string) bool {
		return elicitingToolName().MatchString(name) && !urlElicitationTool().MatchString(name)
	},
	keep: isFormElicitation,
}

// samplingGathering declares sampling without tools or context, which the sampling checks
// judge the requests against.
var samplingGathering = gathering{
	key:  "samplings",
	what: "sampling/createMessage", declared: "sampling (neither tools nor context)",
	toolKind: "samples: none is named for sampling (*sampl*)",
	caps:     func(string) map[string]any { return map[string]any{"sampling": map[string]any{}} },
	pick:     func(name string) bool { return samplingToolName().MatchString(name) },
	keep:     isSampling,
}

// toolCalls are the calls worth making among the tools defs lists: the input tool when
// listed (or, at 2026-07-28, given at all), then tools g picks.
func (g gathering) toolCalls(t *conform.T, defs []toolDef, stateless bool) []elicitCall {
	var out []elicitCall
	input := t.Options().InputTool
	listed := slices.ContainsFunc(defs, func(d toolDef) bool { return d.name == input })
	if input != "" && (listed || stateless) {
		out = append(out, elicitCall{input, inputArgs(t)})
	}
	for _, d := range defs {
		if len(out) == elicitingTools || d.name == input || !g.pick(d.name) {
			continue
		}
		if args, ok := sampleArgs(d.obj["inputSchema"]); ok {
			out = append(out, elicitCall{d.name, args})
		}
	}
	return out
}

func elicitCallNames(calls []elicitCall) string {
	var names []string
	for _, c := range calls {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// noTool is the finding when the server has no tool to call.
func (g gathering) noTool() *conform.Finding {
	f := conform.NA("the server has no tool that %s, and no --input-tool was given", g.toolKind)
	return &f
}

// gatherElicitations calls the eliciting tools and returns the form-mode elicitations they
// made, or why there are none: na without such a tool, untestable when none of them elicited.
func gatherElicitations(t *conform.T) ([]inputRequest, *conform.Finding) {
	return elicitGathering.gather(t)
}

// gatherSamplings is gatherElicitations for the sampling requests of the tools that sample.
func gatherSamplings(t *conform.T) ([]inputRequest, *conform.Finding) {
	return samplingGathering.gather(t)
}

// gathered is what one observation of g gathered: the requests kept, or why there are none.
type gathered struct {
	kept []inputRequest
	why  *conform.Finding
}

// gather calls the tools g picks on a session declaring g's capability and returns the requests
// g keeps among those the calls made, or why there are none. Every check of g's requests judges
// the same calls, so at a handshake revision one session per revision and transport (over
// stdio, one server process) makes them for all of them (T.ObserveDeclaring): the calls are
// made on a server no other check touches, with nothing of the judging check's in them.
func (g gathering) gather(t *conform.T) ([]inputRequest, *conform.Finding) {
	if harness.IsStateless(t.Revision) {
		return g.gatherStateless(t)
	}
	v, f := t.ObserveDeclaring(g.key, g.caps(t.Revision), func(o *conform.T) any {
		kept, why := g.gatherOn(o, o.S)
		return gathered{kept, why}
	})
	if f != nil {
		f := conform.CannotTest("a session declaring %s could not be opened: %s", g.declared, f.Message)
		return nil, &f
	}
	got := v.(gathered)
	return got.kept, got.why
}

// gatherOn makes g's calls on s, a session that declared g's capability.
func (g gathering) gatherOn(t *conform.T, s *harness.Session) ([]inputRequest, *conform.Finding) {
	if !s.HasCapability("tools") {
		return nil, g.noTool()
	}
	defs, _, err := listToolsOn(t, s)
	if err != nil {
		f := conform.CannotTest("the tools list of a session declaring %s could not be read: %v", g.declared, err)
		return nil, &f
	}
	calls := g.toolCalls(t, defs, false)
	if len(calls) == 0 {
		return nil, g.noTool()
	}
	var kept []inputRequest
	for _, c := range calls {
		reqs, err := callAnswering(t, s, c, g.caps(t.Revision))
		if err != nil {
			f := conform.Crashed("%v", err)
			return nil, &f
		}
		kept = append(kept, filterRequests(reqs, g.keep)...)
	}
	if len(kept) == 0 {
		f := conform.CannotTest("called %s on a session declaring %s: no %s request came", elicitCallNames(calls), g.declared, g.what)
		return nil, &f
	}
	return kept, nil
}

// gatherStateless is gather at 2026-07-28: the input requests of each tool, answered round
// after round.
func (g gathering) gatherStateless(t *conform.T) ([]inputRequest, *conform.Finding) {
	var defs []toolDef
	if t.S.HasCapability("tools") {
		defs, _ = listTools(t) // a list that cannot be read leaves the input tool alone
	}
	calls := g.toolCalls(t, defs, true)
	if len(calls) == 0 || !t.S.HasCapability("tools") {
		return nil, g.noTool()
	}
	var kept []inputRequest
	for _, c := range calls {
		reqs, f := gatherInputRequestsOf(t, c.name, c.args)
		if f != nil {
			return nil, f
		}
		kept = append(kept, filterRequests(reqs, g.keep)...)
	}
	if len(kept) == 0 {
		f := conform.CannotTest("called %s declaring form-mode elicitation, sampling and roots (answering up to %d rounds): no %s was among the input requests", elicitCallNames(calls), inputRounds, g.what)
		return nil, &f
	}
	return kept, nil
}

func filterRequests(reqs []inputRequest, keep func(inputRequest) bool) []inputRequest {
	var out []inputRequest
	for _, r := range reqs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// callAnswering calls a tool on s and answers every request the server sends until the call's
// response comes: the kinds caps declares as a willing user (or model) would, pings, and
// anything else with -32601. It returns the requests the server sent.
func callAnswering(t *conform.T, s *harness.Session, c elicitCall, caps map[string]any) ([]inputRequest, error) {
	id := s.NextID()
	s.Sent(id, "tools/call")
	from := s.Mark()
	d, err := s.Send(t.Ctx, rawRequest(id, "tools/call", map[string]any{"name": c.name, "arguments": c.args}))
	if err != nil {
		return nil, fmt.Errorf("sending the call of %s: %w", c.name, err)
	}
	var out []inputRequest
	for n := 1; n <= serverRequestCap+1; n++ {
		r, err := s.WaitFor(t.Ctx, d, from, func(r wire.Received) bool {
			return slices.ContainsFunc(flatten(r.Msg), func(m jsonrpc.Message) bool {
				return m.Kind == jsonrpc.Request || (m.Kind == jsonrpc.Response && m.ID == id)
			})
		})
		if err != nil {
			s.NoteUnanswered(id, err.Error())
			return out, fmt.Errorf("the call of %s got no response: %v", c.name, err)
		}
		from = r.Index + 1
		done := false
		for _, m := range flatten(r.Msg) {
			switch {
			case m.Kind == jsonrpc.Response && m.ID == id:
				done = true
			case m.Kind == jsonrpc.Request:
				var params map[string]json.RawMessage
				_ = json.Unmarshal(m.Params, &params)
				out = append(out, inputRequest{method: m.Method, params: params, raw: m.Raw, round: n, tool: c.name, serverRequest: true})
				if _, err := s.Send(t.Ctx, answerServerRequest(m, caps)); err != nil {
					return out, fmt.Errorf("answering the server's %s: %w", m.Method, err)
				}
			}
		}
		if done {
			return out, nil
		}
	}
	return out, fmt.Errorf("the call of %s sent more than %d requests of its own without answering", c.name, serverRequestCap)
}

// answerServerRequest is the harness's answer to a request of the server's: an accepted
// form for an elicitation, a model's text reply for a sampling request, an empty result for
// ping, -32601 for what caps does not declare.
func answerServerRequest(m jsonrpc.Message, caps map[string]any) []byte {
	var result any
	_, declared := caps[inputMethodCapability[m.Method]]
	switch {
	case m.Method == "ping":
		result = map[string]any{}
	case m.Method == "elicitation/create" && declared:
		result = elicitAnswer(m.Params)
	case m.Method == "sampling/createMessage" && declared:
		result = samplingAnswer()
	default:
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID.JSON(), "error": map[string]any{"code": codeMethodNotFound, "message": "Method not found"}})
		return b
	}
	b, _ := jsonrpc.NewResult(m.ID, result)
	return b
}
