package suites

import (
	"encoding/json"
	"net/http"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: requests that mean the same at every revision (ping or server/discover, the
// stateless revision's _meta), and the revisions a server serves.

// unsupportedRevision is a protocol version no server supports.
const unsupportedRevision = "1999-01-01"

// Checks of the stateless revision, 2026-07-28: no initialize, _meta on every request.
// streamTransport: the stateless revision has no legacy HTTP+SSE transport.
var streamTransport = []string{wire.Stdio, wire.HTTP}

// statelessRequest sends method with params (required _meta added unless meta overrides it) and
// the HTTP headers given, and returns the reply and its delivery.
func statelessRequest(t *conform.T, method string, params map[string]any, header http.Header) (jsonrpc.Message, *wire.Delivery, error) {
	id := t.S.NextID()
	frame := rawRequest(id, method, t.S.StatelessParams(params))
	from := t.S.Mark()
	var d *wire.Delivery
	if hc, ok := t.S.Conn.(*streamhttp.Conn); ok {
		d = hc.Do(t.Ctx, frame, streamhttp.Request{Header: header})
	} else {
		var err error
		if d, err = t.S.Send(t.Ctx, frame); err != nil {
			return jsonrpc.Message{}, d, err
		}
	}
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	return resp, d, err
}

// listMethodStateless is a list method the discovered capabilities promise, or server/discover.
func listMethodStateless(t *conform.T) string {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	for _, c := range []struct{ cap, method string }{{"tools", "tools/list"}, {"resources", "resources/list"}, {"prompts", "prompts/list"}} {
		if _, ok := caps[c.cap]; ok {
			return c.method
		}
	}
	return "server/discover"
}

// statelessResults gathers the results of discover and of a list method.
func statelessResults(t *conform.T) (map[string]jsonrpc.Message, *conform.Finding) {
	out := map[string]jsonrpc.Message{"server/discover": t.S.InitResponse()}
	if m := listMethodStateless(t); m != "server/discover" {
		resp, err := t.S.Request(t.Ctx, m, nil)
		if err != nil {
			f := conform.Violated("%s: %v", m, err)
			return nil, &f
		}
		out[m] = resp
	}
	return out, nil
}

// probeMethod is a request every server of the session's revision serves with a result: ping
// in the handshake revisions, server/discover in the stateless one (which has no ping).
func probeMethod(s *harness.Session) string {
	if s.Stateless() {
		return "server/discover"
	}
	return "ping"
}

// probeRequest is a request frame of probeMethod with id, carrying _meta in a stateless session.
func probeRequest(s *harness.Session, id jsonrpc.ID) []byte {
	return rawRequest(id, probeMethod(s), s.StatelessParams(nil))
}
