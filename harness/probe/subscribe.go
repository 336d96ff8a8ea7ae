package probe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpspec/mcpspec/harness/record"
)

// ScenarioSubscriptions (2026-07-28, stdio): the probe declares tools.listChanged, so a client
// that uses subscriptions opens one (subscriptions/listen with toolsListChanged). The probe sends
// a tools/list_changed tagged with a subscription id the client never opened, then the
// acknowledgment; once the client has called probe_echo after the acknowledgment, a
// tools/list_changed of the client's subscription; once the client has listed the tools again,
// it ends the connection (closes its stdout), once. Launched again, it acknowledges the
// subscription the client re-sends and holds it until the client cancels it.
const ScenarioSubscriptions = "subscriptions"

// ForeignSubscription is the subscription id of the notification the client never subscribed to.
const ForeignSubscription = "probe-other-subscription"

const metaSubscriptID = "io.modelcontextprotocol/subscriptionId"

// hangupMarker is the file in the script's state directory that says the probe ended the
// connection once, so that the relaunched probe does not end it again.
const hangupMarker = "hung-up"

// subState is what one probe process knows of the subscription scenario.
type subState struct {
	mu       sync.Mutex
	noted    bool            // the relaunch was noted
	listen   json.RawMessage // the client's listen id on this connection
	acked    bool            // the acknowledgment was sent
	changed  bool            // the own-subscription list_changed was sent
	hungUp   bool
	relaunch bool // this is the second launch
}

// NoteStart notes, before the first message of a probe launched again in ScenarioSubscriptions,
// that the client re-established the connection.
func NoteStart(script Script, rec *Recorder) {
	if script.Scenario == ScenarioSubscriptions && script.relaunched() {
		rec.note(record.Event{Kind: record.EvRelaunch}, "probe launched again: connection re-established")
	}
}

// relaunched reports whether an earlier probe of this run ended the connection.
func (s Script) relaunched() bool {
	if s.StateDir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(s.StateDir, hangupMarker))
	return err == nil
}

func notification(method string, params map[string]any) []byte {
	return mustJSON(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func tagged(id json.RawMessage) map[string]any {
	return map[string]any{"_meta": map[string]any{metaSubscriptID: id}}
}

// interceptSubscriptions serves ScenarioSubscriptions' differences from tools_call at 2026-07-28.
func (s *server) interceptSubscriptions(ctx context.Context, m message, emit func([]byte)) ([]byte, bool) {
	st := &s.sub
	st.mu.Lock()
	if !st.noted {
		st.noted, st.relaunch = true, s.script.relaunched()
	}
	st.mu.Unlock()
	if m.Method == "notifications/cancelled" {
		s.cancelled(m)
		return nil, true
	}
	if !m.isRequest() {
		return nil, false
	}
	switch m.Method {
	case "server/discover":
		res := map[string]any{
			"resultType": "complete", "supportedVersions": []string{s.script.Revision},
			"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}, "ttlMs": 0, "cacheScope": "public",
			"_meta": serverMeta(),
		}
		return result(m.ID, res), true
	case "tools/list":
		res := map[string]any{"resultType": "complete", "tools": statelessTools()[:1], "ttlMs": 0, "cacheScope": "public", "_meta": serverMeta()}
		st.mu.Lock()
		end := st.changed && !st.hungUp && !st.relaunch
		st.hungUp = st.hungUp || end
		st.mu.Unlock()
		if !end {
			return result(m.ID, res), true
		}
		// The client re-listed after its subscription's list_changed: answer, then end the
		// connection, once in the run.
		emit(result(m.ID, res))
		if s.script.StateDir != "" {
			_ = os.WriteFile(filepath.Join(s.script.StateDir, hangupMarker), nil, 0o600)
		}
		s.rec.note(record.Event{Kind: record.EvHangup}, "connection ended by the probe (stdout closed)")
		if s.hangup != nil {
			s.hangup()
		}
		return nil, true
	case "tools/call":
		st.mu.Lock()
		send := st.acked && !st.changed && !st.relaunch
		st.changed = st.changed || send
		listen := st.listen
		st.mu.Unlock()
		resp := s.handleStateless(m)
		if !send {
			return resp, true
		}
		emit(resp)
		s.rec.note(record.Event{Kind: record.EvOwnChange, SubscriptionID: canonicalID(listen)}, "sent tools/list_changed of the client's subscription "+canonicalID(listen))
		emit(notification("notifications/tools/list_changed", tagged(listen)))
		return nil, true
	case "subscriptions/listen":
		st.mu.Lock()
		st.listen = m.ID
		st.mu.Unlock()
		s.rec.note(record.Event{Kind: record.EvSubscribed, SubscriptionID: canonicalID(m.ID)}, "subscription opened: "+canonicalID(m.ID))
		if !s.script.relaunched() {
			// On stdio every subscription shares the channel: a notification of another one
			// may come before this one's acknowledgment.
			s.rec.note(record.Event{Kind: record.EvForeignChange, SubscriptionID: ForeignSubscription}, "sent tools/list_changed of subscription "+ForeignSubscription)
			foreign, _ := json.Marshal(ForeignSubscription)
			emit(notification("notifications/tools/list_changed", tagged(foreign)))
		}
		// Acknowledged before the acknowledgment is written: the client's probe_echo that answers
		// it is served on another goroutine and must find the subscription acknowledged.
		st.mu.Lock()
		st.acked = true
		st.mu.Unlock()
		ack := tagged(m.ID)
		ack["notifications"] = map[string]any{"toolsListChanged": true}
		emit(notification("notifications/subscriptions/acknowledged", ack))
		// The stream stays open (no result) until the client cancels it or leaves.
		return s.hold(ctx, m.ID, func() []byte { return nil }), true
	}
	return nil, false
}
