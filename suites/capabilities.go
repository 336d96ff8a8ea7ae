package suites

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: capability gates (Ready functions) and the list-changed probe of tools,
// resources and prompts.

// needCapability says the check does not apply when the server declares no such capability.
func needCapability(t *conform.T, name string) (conform.Finding, bool) {
	if t.S.HasCapability(name) {
		return conform.Finding{}, true
	}
	return conform.NA("the server declares no %s capability", name), false
}

// capabilityCheck judges that a server which serves a feature's list declares the feature.
func capabilityCheck(name, method, key string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		resp, err := askedFirstPage(t, method)
		if err != nil {
			return conform.CannotTest("%s got no reply: %v", method, err)
		}
		if t.S.HasCapability(name) {
			if methodNotFound(resp) {
				return conform.Violated("%s is declared, but %s is answered as an unknown method: %s", name, method, show(resp))
			}
			return conform.Passed("%s declared", name)
		}
		obj, ok := resp.ResultObject()
		if !ok {
			return conform.NA("the server declares no %s capability and refuses %s: it does not serve them", name, method)
		}
		var items []json.RawMessage
		if json.Unmarshal(obj[key], &items) == nil && len(items) == 0 {
			return conform.NA("the server declares no %s capability and lists none", name)
		}
		return conform.Violated("%s is served, but the capabilities lack %s: %s", method, name, show(resp))
	}
}

// methodNotFound reports whether resp refuses its method as unknown (-32601): a declared
// capability whose method is not there is a declaration the server does not keep.
func methodNotFound(resp jsonrpc.Message) bool {
	code, ok := errorCode(resp)
	return ok && code == codeMethodNotFound
}

// declaresListChanged reports whether the server's capability for feature has listChanged true.
func declaresListChanged(t *conform.T, feature string) bool {
	var caps map[string]struct {
		ListChanged bool `json:"listChanged"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	return caps[feature].ListChanged
}

// ackTakes reports whether a listen acknowledgment took the notification type member on.
func ackTakes(ack jsonrpc.Message, member string) bool {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	return json.Unmarshal(ack.Params, &p) == nil && string(p.Notifications[member]) == "true"
}

// callListTool calls the target's list-changed tool once.
func callListTool(t *conform.T) error {
	args := t.Options().ListToolArgs
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	resp, err := t.S.Request(t.Ctx, "tools/call", map[string]any{"name": t.Options().ListTool, "arguments": args})
	switch {
	case err != nil:
		return fmt.Errorf("calling the list-changed tool %q: %w", t.Options().ListTool, err)
	case !resp.HasResult:
		return fmt.Errorf("the list-changed tool %q failed: %s", t.Options().ListTool, show(resp))
	}
	return nil
}

// listChangedReady ends a list-change check before it starts when the server does not declare
// feature.listChanged or no list-changed tool was named.
func listChangedReady(feature string) func(t *conform.T) (conform.Finding, bool) {
	return func(t *conform.T) (conform.Finding, bool) {
		if !declaresListChanged(t, feature) {
			return conform.NA("the server does not declare %s.listChanged", feature), true
		}
		if t.Options().ListTool == "" {
			return conform.CannotTest("no list change was triggered: name a tool whose call changes the %s list with --list-changed-tool", feature), true
		}
		return conform.Finding{}, false
	}
}

// listChangedCheck judges that a change of a feature's list, made by calling the list-changed
// tool, is announced with notif: at 2026-07-28 on a listen stream that asked for it (filter
// member), before on any stream of the session (over HTTP a GET stream is opened if offered).
func listChangedCheck(feature, method, key, notif, member string) func(t *conform.T) conform.Finding {
	return func(t *conform.T) conform.Finding {
		before, f := walkValidated(t, method, key, "")
		if f != nil {
			return *f
		}
		var l *listen
		switch {
		case t.S.Stateless():
			var ack jsonrpc.Message
			if l, ack, f = acknowledged(t, t.S, t.S.NextID(), map[string]any{member: true}); f != nil {
				return *f
			}
			if !ackTakes(ack, member) {
				return conform.Violated("the server declares %s.listChanged, but its listen acknowledgment does not take %s on: %s", feature, member, show(ack))
			}
		case t.Transport == wire.HTTP:
			_, _ = withGetStream(t) // where the server offers one, it may announce changes there
		}
		from := t.S.Mark()
		if err := callListTool(t); err != nil {
			return conform.CannotTest("%v", err)
		}
		// The tool is called again at the end, so that the server's lists are as they were.
		defer func() { _ = callListTool(t) }()
		_, err := t.S.WaitFor(t.Ctx, nil, from, func(r wire.Received) bool {
			return r.Msg.Kind == jsonrpc.Notification && r.Msg.Method == notif && (l == nil || l.owns(r))
		})
		if err == nil {
			return conform.Passed("")
		}
		// No notification: it was owed only if the list did change.
		after, f := walkValidated(t, method, key, "")
		if f != nil {
			return *f
		}
		if slices.Equal(itemSet(before), itemSet(after)) {
			return conform.CannotTest("no %s arrived, but calling the list-changed tool %q did not change the %s list either", notif, t.Options().ListTool, feature)
		}
		return conform.Violated("the %s list changed (%s), but no %s arrived: %v", feature, firstDifference(itemSet(before), itemSet(after)), notif, err)
	}
}

// declaresSubscribe reports whether the server's resources capability has subscribe true.
func declaresSubscribe(t *conform.T) bool {
	var caps struct {
		Resources struct {
			Subscribe bool `json:"subscribe"`
		} `json:"resources"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	return caps.Resources.Subscribe
}

// capabilityReady ends a check before it runs (and before a server of its own is started)
// when the server does not declare the capability name: needCapability as a Ready gate.
func capabilityReady(name string) func(t *conform.T) (conform.Finding, bool) {
	return func(t *conform.T) (conform.Finding, bool) {
		f, ok := needCapability(t, name)
		return f, !ok
	}
}
