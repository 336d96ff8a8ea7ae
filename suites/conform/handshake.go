package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// A server that answers neither initialize nor server/discover with a result at any revision
// has no MCP handshake: a JSON-RPC server that is not an MCP server, or one broken before MCP
// begins. That is one fact, reported as one failure per transport (carried by LIFE-INIT-RESULT
// at the newest handshake revision tested, or VER26-DISCOVER where only 2026-07-28 is), while
// every other check is na with the same reason, instead of a scatter of failures of checks
// that probe the handshake on connections of their own.

// Carriers of the one failure.
const (
	handshakeCarrier = "LIFE-INIT-RESULT"
	discoverCarrier  = "VER26-DISCOVER"
)

// handshakeVerdict is what one transport's server answered to the handshake.
type handshakeVerdict struct {
	none     bool   // no revision answered with a result
	answers  string // what it answered, revision by revision
	carrier  string // the check that carries the failure
	revision string // and its revision
}

// reason is the na message of every other check.
func (v handshakeVerdict) reason() string {
	return fmt.Sprintf("the server has no MCP handshake (%s fails at %s): %s", v.carrier, v.revision, v.answers)
}

// failure is the carrier's finding.
func (v handshakeVerdict) failure() Finding {
	return Finding{Outcome: Violation, Severe: true,
		Message: "the server has no MCP handshake: no revision was answered with a result, so no check of MCP can run. " + v.answers}
}

// noResult reports whether a negotiation ended without any result: not a revision refused with
// another protocolVersion, nor an infrastructure failure, but no handshake at that revision.
func noResult(neg Negotiation) bool {
	return neg.Err != nil && !neg.Infra && neg.Answered == ""
}

// handshakeGate ends a check whose revision got no handshake result when the server has none
// at any revision: the carrier fails, every other check is na. It tries the target's other
// revisions only then, so a server that speaks MCP pays nothing for it.
func (r *Runner) handshakeGate(t *T, neg Negotiation) (Finding, bool) {
	// Only a JSON-RPC refusal starts the question: an HTTP error without a JSON-RPC body is the
	// transport's failure, judged by the transport's checks.
	if !noResult(neg) || rpcError(neg) == nil {
		return Finding{}, false
	}
	v, _ := t.once("handshake/"+t.Transport, func() any { return r.handshake(t, neg) })
	verdict, ok := v.(handshakeVerdict)
	if !ok || !verdict.none {
		return Finding{}, false
	}
	if t.Check.ID == verdict.carrier && t.Revision == verdict.revision {
		return verdict.failure(), true
	}
	return NA("%s", verdict.reason()), true
}

// handshake asks the server for a handshake at every revision of the target, on the
// connection whose handshake just failed (nothing was initialized on it, so it may be asked
// again: no server is started for the question), and stops at the first result.
func (r *Runner) handshake(t *T, failed Negotiation) handshakeVerdict {
	// A revision of the run served on its own session settles it, without asking again here: a
	// server that opens one session in its life refuses every revision on this connection
	// (refused.go), and had "no MCP handshake" while it served one.
	if r.anyHandshake(t.Ctx, t.Transport) {
		return handshakeVerdict{}
	}
	var target harness.Target
	for _, tg := range r.cfg.Targets {
		if tg.Transport == t.Transport {
			target = tg
		}
	}
	tested := targetRevisions(target, r.cfg.Revisions)
	order := slices.Clone(tested)
	for _, rev := range targetRevisions(target, harness.Revisions) {
		if !slices.Contains(order, rev) {
			order = append(order, rev)
		}
	}
	var answers []string // "method: what it answered", in order, each once
	revs := map[string][]string{}
	for _, rev := range order {
		neg := failed
		if rev != failed.Requested {
			neg = r.askAgain(t, failed, rev)
		}
		if !noResult(neg) {
			return handshakeVerdict{}
		}
		method := "initialize"
		if harness.IsStateless(rev) {
			method = "server/discover"
		}
		a := method + " was answered " + answerOf(neg)
		if revs[a] == nil {
			answers = append(answers, a)
		}
		revs[a] = append(revs[a], rev)
	}
	for i, a := range answers {
		answers[i] = fmt.Sprintf("%s (at %s)", a, strings.Join(revs[a], ", "))
	}
	if len(answers) == 0 {
		return handshakeVerdict{}
	}
	v := handshakeVerdict{none: true, answers: strings.Join(answers, "; ")}
	v.carrier, v.revision = discoverCarrier, harness.Rev20260728
	for _, rev := range tested {
		if harness.IsHandshake(rev) {
			v.carrier, v.revision = handshakeCarrier, rev // the newest: tested is oldest first
		}
	}
	r.mu.Lock()
	if r.handshakes == nil {
		r.handshakes = map[string]handshakeVerdict{}
	}
	r.handshakes[t.Transport] = v
	r.mu.Unlock()
	return v
}

// askAgain opens revision on the connection of the failed negotiation when it still lives,
// else on the revision's own shared session.
func (r *Runner) askAgain(t *T, failed Negotiation, revision string) Negotiation {
	if failed.Session == nil || isDead(failed.Session) {
		return r.recorded(t.Ctx, t.Transport, revision)
	}
	open := harness.Open
	if harness.IsStateless(revision) {
		open = harness.OpenStateless
	}
	s, err := open(t.Ctx, failed.Session.Conn, r.env, revision, "handshake")
	neg := Negotiation{Requested: revision, Session: s, Answered: s.Negotiated(), Response: s.InitResponse().Raw, Err: err}
	var infra *harness.InfraError
	neg.Infra = errors.As(err, &infra)
	return neg
}

// handshakeResults are the carriers' failures that no selected spec reported (a --focus that
// left the carrier out): the fact is reported whatever the selection. Called with r.mu held.
func (r *Runner) handshakeResults(have []reports.Result) []reports.Result {
	var out []reports.Result
	for transport, v := range r.handshakes {
		if slices.ContainsFunc(have, func(x reports.Result) bool {
			return x.ID == v.carrier && x.Version == v.revision && x.Transport == transport
		}) {
			continue
		}
		c, _ := Lookup(v.carrier)
		e, _ := catalog.Lookup(v.carrier)
		f := v.failure()
		out = append(out, reports.Result{ID: v.carrier, Title: c.Title(), Area: e.Area, Level: c.Level, Version: v.revision, Transport: transport,
			SpecURL: e.SpecURL(v.revision), Status: statusOf(f.Outcome, levelOf(f, c.Level)), Message: f.Message})
	}
	slices.SortFunc(out, func(a, b reports.Result) int { return strings.Compare(a.Transport, b.Transport) })
	return out
}

// answerOf says in a few words what a negotiation without a result got: the error's code and
// message, or why there was nothing.
func answerOf(neg Negotiation) string {
	var ie *harness.InitError
	if errors.As(neg.Err, &ie) && len(ie.Response.Raw) == 0 && ie.Status != 0 {
		return fmt.Sprintf("with HTTP %d: %s", ie.Status, clipLine(string(ie.Body), 120))
	}
	if e := rpcError(neg); e != nil {
		return fmt.Sprintf("with error %s %q", e.Code, clipLine(e.Message, 120))
	}
	return "without a result: " + clipLine(neg.Err.Error(), 200)
}

// jsonrpcError is the error member of a JSON-RPC response.
type jsonrpcError struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// rpcError is the JSON-RPC error a negotiation without a result was answered with (nil when it
// got none: no answer, or an HTTP error without a JSON-RPC body).
func rpcError(neg Negotiation) *jsonrpcError {
	raw := neg.Response
	var ie *harness.InitError
	if errors.As(neg.Err, &ie) {
		raw = ie.Response.Raw
	} else if neg.Err != nil {
		// Other openings quote the answer in their error: its first JSON object.
		if i := strings.Index(neg.Err.Error(), "{"); i >= 0 {
			var obj json.RawMessage
			if json.NewDecoder(strings.NewReader(neg.Err.Error()[i:])).Decode(&obj) == nil {
				raw = obj
			}
		}
	}
	var resp struct {
		Error *jsonrpcError `json:"error"`
	}
	if json.Unmarshal(raw, &resp) != nil {
		return nil
	}
	return resp.Error
}

func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// unservedRefusal turns a raw check's violation or untestable finding into na when it rests on
// an initialize the server refused at a revision it does not serve: the shared session's
// handshake at the revision got a JSON-RPC error, and so did an initialize of the check's own.
// Such a check speaks before any handshake (so the gate lets it run), but what it asks of
// initialize is asked of a revision the server never claimed; a server serving only
// 2026-07-28 answers -32601 to initialize at every older revision, and that is no finding.
// Only for a server with no initialize handshake at any revision of the run: one that serves an
// older revision and refuses a newer one with an error breaks version negotiation
// (LIFE-VERSION-FALLBACK), and that stands. So does a finding that names another rule broken
// (an unanswered request, say).
// entries are what the check's own connections exchanged (an observed check's: its raw
// observations').
func (r *Runner) unservedRefusal(ctx context.Context, t *T, f Finding, entries []record.Record) (Finding, bool) {
	if f.Outcome != Violation && f.Outcome != Untestable || f.Rule != "" || f.Severe || len(entries) == 0 {
		return Finding{}, false
	}
	neg := r.recorded(ctx, t.Transport, t.Revision)
	if !noResult(neg) || rpcError(neg) == nil || r.anyHandshake(ctx, t.Transport) {
		return Finding{}, false
	}
	if !refusedInitialize(entries) {
		return Finding{}, false
	}
	return NA("the server does not serve revision %s: %v", neg.Requested, neg.Err), true
}

// refusedInitialize reports whether entries hold an initialize request answered with an error.
func refusedInitialize(entries []record.Record) bool {
	asked := map[jsonrpc.ID]bool{}
	for _, e := range entries {
		for _, m := range messagesOf(e.Body) {
			switch {
			case e.Dir == record.Send && m.Kind == jsonrpc.Request && m.Method == "initialize":
				asked[m.ID] = true
			case e.Dir == record.Recv && m.Kind == jsonrpc.Response && asked[m.ID]:
				if m.HasError {
					return true
				}
			}
		}
	}
	return false
}

// messagesOf parses a transcript body: one message, or the members of a batch.
func messagesOf(body string) []jsonrpc.Message {
	m := jsonrpc.Parse([]byte(body))
	if m.Kind != jsonrpc.Batch {
		return []jsonrpc.Message{m}
	}
	return m.Elems
}

// anyHandshake reports whether initialize got a result at some handshake revision of the run
// over transport (read from the shared sessions' records, opened where none is yet).
func (r *Runner) anyHandshake(ctx context.Context, transport string) bool {
	var target harness.Target
	for _, tg := range r.cfg.Targets {
		if tg.Transport == transport {
			target = tg
		}
	}
	for _, rev := range targetRevisions(target, r.cfg.Revisions) {
		if harness.IsHandshake(rev) && r.recorded(ctx, transport, rev).Err == nil {
			return true
		}
	}
	return false
}
