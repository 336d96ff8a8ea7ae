package probe

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Once the probe has ended a session (session-expiry), a request naming it gets 404 every
// time, not only the first; so does one naming a session the probe never assigned. An
// initialize starts a new session whatever it carries.
func TestEndedSessionIs404EveryTime(t *testing.T) {
	h, err := StartHTTP(Script{Scenario: ScenarioSessionExpiry, Revision: "2025-06-18", AnswerWait: 5 * time.Second}, NewRecorder(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	post := func(session, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, h.URL(), strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + ToolEcho + `","arguments":{}}}`
	_, old := post("", initialize)
	if old == "" {
		t.Fatal("initialize assigned no session")
	}
	if code, _ := post(old, call); code != http.StatusNotFound {
		t.Fatalf("the call that ends the session: HTTP %d, want 404", code)
	}
	for i := range 2 {
		if code, _ := post(old, call); code != http.StatusNotFound {
			t.Errorf("request %d naming the ended session: HTTP %d, want 404", i+1, code)
		}
	}
	if code, _ := post("probe-never-assigned", call); code != http.StatusNotFound {
		t.Errorf("a session never assigned: HTTP %d, want 404", code)
	}
	code, fresh := post(old, initialize)
	if code != http.StatusOK || fresh == "" || fresh == old {
		t.Errorf("a new initialize: HTTP %d, session %q (old %q)", code, fresh, old)
	}
}
