package conform

import (
	"context"

	"github.com/mcpspec/mcpspec/harness"
)

// The JSON-RPC profile (mcpspec run --jsonrpc) tests the JSON-RPC 2.0 layer alone: its one
// "revision" is harness.RevJSONRPC, at which only checks marked JSONRPC apply (Check.AppliesTo),
// and every session is plain: attached without any handshake (openPlain).

// ProfileChecks are the checks of the JSON-RPC profile, sorted by ID.
func ProfileChecks() ([]*Check, error) {
	all, err := Checks()
	var out []*Check
	for _, c := range all {
		if c.Side.JSONRPC {
			out = append(out, c)
		}
	}
	return out, err
}

// openPlain attaches a plain session to a new connection and makes sure the server answers a
// JSON-RPC request at all (the sentinel, an unknown method; an error answer is enough), so a
// target that cannot serve is an infrastructure failure once, as an unanswered initialize is.
func (r *Runner) openPlain(ctx context.Context, transport string) Negotiation {
	neg := Negotiation{Requested: harness.RevJSONRPC}
	l := r.launcher(transport)
	conn, err := l.Connect(ctx)
	if err != nil {
		neg.Err, neg.Infra = err, true
		return neg
	}
	s := harness.Attach(conn, r.env, harness.RevJSONRPC)
	s.SetOwner("session")
	neg.Session = s
	from := s.Mark()
	id, d, err := s.Sentinel(ctx)
	if err == nil {
		_, err = s.AwaitReply(ctx, d, from, id)
	}
	if err != nil {
		neg.Err = &harness.InfraError{What: "the server did not answer a JSON-RPC request (" + harness.SentinelMethod + ")", Err: err, Stderr: conn.Diagnostics(), StderrNow: conn.Diagnostics}
		neg.Infra = true
		l.Broken(neg.Err)
		return neg
	}
	neg.Answered = harness.RevJSONRPC
	return neg
}
