package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The per-request _meta keys of the stateless revision (2026-07-28).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// IsStateless reports whether revision is of the stateless era (EraOf): no initialize, _meta on
// every request. The name is the old one of EraStateless, kept until its callers in suites/
// read EraOf instead.
func IsStateless(revision string) bool { return EraOf(revision) == EraStateless }

// NotStatelessError is a server's answer to server/discover that shows it does not serve the
// stateless revision (it is a handshake-era server, or it does not list the revision).
type NotStatelessError struct {
	Answer string
}

func (e *NotStatelessError) Error() string {
	return "server/discover was answered " + e.Answer
}

// OpenStateless attaches to conn and discovers the server at the stateless revision: there is no
// handshake, every request carries the revision and the client's capabilities in its _meta.
func OpenStateless(ctx context.Context, conn wire.Conn, env *Env, revision, owner string) (*Session, error) {
	s := Attach(conn, env, revision)
	s.SetOwner(owner)
	s.mu.Lock()
	s.stateless = true
	s.mu.Unlock()
	if hc, ok := conn.(*streamhttp.Conn); ok {
		hc.SetProtocolVersion(revision)
		hc.SetStateless(true)
	}
	id := s.NextID()
	frame, err := jsonrpc.NewRequest(id, "server/discover", s.withMeta(nil))
	if err != nil {
		return s, err
	}
	s.Sent(id, "server/discover")
	from := conn.Inbox().Len()
	d, err := conn.Send(ctx, frame)
	if err != nil {
		return s, &InfraError{What: "sending server/discover", Err: err, Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
	}
	r, err := s.waitFor(ctx, d, from, wire.RespondsTo(id), env.Timeouts.Startup)
	if err != nil {
		if d.CarriesReplies && d.Ready(ctx) == nil && d.Status >= 500 {
			return s, &InfraError{What: fmt.Sprintf("server/discover was answered with HTTP %d", d.Status), Err: fmt.Errorf("%s", clip(string(d.Body), 300)), Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
		}
		if d.CarriesReplies && d.Ready(ctx) == nil && refusesAccess(d.Status) {
			return s, accessRefused("server/discover", d)
		}
		// An HTTP answer without a JSON-RPC response (an error status, or a body the harness
		// cannot read as one) is the server's answer, not a failure of its infrastructure.
		if d.CarriesReplies && d.Ready(ctx) == nil && d.Status != 0 {
			return s, &NotStatelessError{Answer: fmt.Sprintf("with HTTP %d %s and no JSON-RPC response: %s", d.Status, d.ContentType, clip(string(d.Body), 200))}
		}
		return s, &InfraError{What: "the server did not answer server/discover", Err: err, Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
	}
	resp, _ := wire.FindResponse(r.Msg, id)
	obj, ok := resp.ResultObject()
	if !ok {
		return s, &NotStatelessError{Answer: "without a result: " + clip(string(resp.Raw), 300)}
	}
	// A result is the mark of a server of the stateless revision; one that lists its versions
	// without this one does not serve it. (A result without the list is judged by VER26-DISCOVER.)
	var versions []string
	if raw, listed := obj["supportedVersions"]; listed && json.Unmarshal(raw, &versions) == nil && !slices.Contains(versions, revision) {
		return s, &NotStatelessError{Answer: fmt.Sprintf("with supportedVersions %v, without %s", versions, revision)}
	}
	s.mu.Lock()
	s.init, s.negotiated, s.initialized = resp, revision, true
	s.mu.Unlock()
	return s, nil
}

// Stateless reports whether the session speaks the stateless revision.
func (s *Session) Stateless() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateless
}

// withMeta adds the stateless revision's required _meta to request params that have none (a
// stateless session's every request carries it); for handshake sessions params are unchanged.
func (s *Session) withMeta(params any) any {
	if !s.Stateless() {
		return params
	}
	obj := map[string]any{}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil || json.Unmarshal(raw, &obj) != nil {
			return params // not an object: sent as is, for the server to refuse
		}
		if obj == nil { // a nil map inside the interface
			obj = map[string]any{}
		}
	}
	// A caller that brings its own _meta (a check leaving a key out on purpose) keeps it as is.
	if _, own := obj["_meta"]; own {
		return obj
	}
	obj["_meta"] = map[string]any{
		MetaProtocolVersion:    s.Requested,
		MetaClientCapabilities: map[string]any{},
		MetaClientInfo:         ClientInfo,
	}
	return obj
}

// StatelessParams returns params with the required _meta, for checks that build frames themselves.
func (s *Session) StatelessParams(params any) any { return s.withMeta(params) }
