package suites

import (
	"bytes"
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// This file runs the generic checks (JSON-RPC, cancellation, progress, stdio, parts of HTTP) at
// the stateless revision too, and holds the checks of 2026-07-28 about what the server must not
// send (requests, traffic after a cancellation) and how a stdio server ends.

// modernToo gives each check every revision its catalogue row names, the stateless one
// included: by default a check gets only the handshake revisions (see conform.Check.validate).
func modernToo(cs ...conform.Check) []conform.Check {
	for i := range cs {
		if e, ok := catalog.Lookup(cs[i].ID); ok && cs[i].Versions == nil {
			cs[i].Versions = append([]string(nil), e.Versions...)
		}
	}
	return cs
}

// probeMethod is a request every server of the session's revision serves with a result: ping
// in the handshake revisions, server/discover in the stateless one (which has no ping).
func probeMethod(s *harness.Session) string {
	if s.Modern() {
		return "server/discover"
	}
	return "ping"
}

// modernFrame adds the stateless revision's required _meta to a raw frame a check built itself,
// in a modern session and when the frame is a request-like object (a method, or params) whose
// params are absent or an object:
// without it a modern server would refuse the frame for its _meta, not for what the check
// probes. Other frames, and every frame of a handshake session, are sent as written.
func modernFrame(s *harness.Session, frame []byte) []byte {
	if !s.Modern() {
		return frame
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil {
		return frame
	}
	_, hasMethod := obj["method"]
	p, has := obj["params"]
	if !hasMethod && !has {
		return frame // not a request: a response, or an object the check keeps bare on purpose
	}
	if _, isObj := p.(map[string]any); has && !isObj {
		return frame
	}
	obj["params"] = s.ModernParams(p)
	out, err := json.Marshal(obj)
	if err != nil {
		return frame
	}
	return out
}

// probeRequest is a request frame of probeMethod with id, carrying _meta in a modern session.
func probeRequest(s *harness.Session, id jsonrpc.ID) []byte {
	return rawRequest(id, probeMethod(s), s.ModernParams(nil))
}

// withProgressToken returns request params carrying token (unless "") in their _meta, beside
// the required _meta keys of a modern session.
func withProgressToken(s *harness.Session, params map[string]any, token jsonrpc.ID) any {
	p := s.ModernParams(params)
	obj, ok := p.(map[string]any)
	if token == "" || !ok {
		return p
	}
	if obj == nil {
		obj = map[string]any{}
	}
	meta, _ := obj["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["progressToken"] = token.JSON()
	obj["_meta"] = meta
	return obj
}
