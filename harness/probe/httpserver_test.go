package probe

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
)

// waitBound bounds every request of these tests; each ends as soon as it is answered.
const waitBound = 30 * time.Second

func startProbe(t *testing.T, revision string) (*HTTPServer, *Recorder) {
	t.Helper()
	rec := NewRecorder(nil)
	h, err := StartHTTP(Script{Scenario: ScenarioTools, Revision: revision, AnswerWait: waitBound}, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, rec
}

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, method, url, body string, header http.Header) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// TestHTTPProbeAnswers pins the probe's Streamable HTTP surface at a handshake revision: the
// initialize result and session id, 202 for a notification, 400 for a body that is not JSON,
// and the status and Allow header of each method it does not serve.
func TestHTTPProbeAnswers(t *testing.T) {
	h, rec := startProbe(t, harness.Rev20250618)
	auth := http.Header{"Authorization": {"Bearer not-for-the-record"}}

	a := send(t, http.MethodPost, h.URL(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, auth)
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Fatalf("initialize: HTTP %d %q: %s", a.status, a.header.Get("Content-Type"), a.body)
	}
	if !strings.HasPrefix(a.header.Get("Mcp-Session-Id"), "probe-") {
		t.Errorf("initialize assigned the session id %q", a.header.Get("Mcp-Session-Id"))
	}
	var init struct {
		Result struct {
			ProtocolVersion string                     `json:"protocolVersion"`
			Capabilities    map[string]json.RawMessage `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(a.body), &init); err != nil || init.Result.ProtocolVersion != harness.Rev20250618 || init.Result.Capabilities["tools"] == nil {
		t.Errorf("initialize result %s (%v): want protocolVersion %s and the tools capability", a.body, err, harness.Rev20250618)
	}

	for _, tc := range []struct {
		method, path, body string
		status             int
		allow              string
	}{
		{http.MethodPost, Path, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusAccepted, ""},
		{http.MethodPost, Path, `not json`, http.StatusBadRequest, ""},
		{http.MethodGet, Path, "", http.StatusMethodNotAllowed, "POST, DELETE"},
		{http.MethodPut, Path, "", http.StatusMethodNotAllowed, "POST, GET, DELETE"},
		{http.MethodPost, "/elsewhere", `{}`, http.StatusNotFound, ""},
		{http.MethodDelete, Path, "", http.StatusOK, ""},
	} {
		url := strings.TrimSuffix(h.URL(), Path) + tc.path
		a := send(t, tc.method, url, tc.body, nil)
		if a.status != tc.status || a.header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: HTTP %d, Allow %q; want %d, %q", tc.method, tc.path, a.status, a.header.Get("Allow"), tc.status, tc.allow)
		}
		if tc.status == http.StatusBadRequest && !strings.Contains(a.body, "-32700") {
			t.Errorf("a body that is not JSON is answered %s, want a parse error", a.body)
		}
	}

	// Every request and answer is recorded, in order, the credential never.
	recs := rec.Records()
	var requests, answers int
	for i, r := range recs {
		if r.Seq != i+1 {
			t.Errorf("record %d has seq %d", i, r.Seq)
		}
		if strings.Contains(r.Body+r.Summary(), "not-for-the-record") {
			t.Errorf("record %d keeps the credential: %+v", r.Seq, r)
		}
		switch r.Dir {
		case record.Recv:
			requests++
		case record.Send:
			answers++
		}
	}
	if requests != 7 || answers != 7 {
		t.Errorf("recorded %d requests and %d answers, want 7 of each: %+v", requests, answers, recs)
	}
	if v, ok := recs[0].HasHeader("authorization"); !ok || v != "(redacted)" {
		t.Errorf("the initialize record's Authorization: %q, %v; want it present and redacted", v, ok)
	}
}

// TestHTTPProbeStateless: at 2026-07-28 there is no session, so DELETE is not served.
func TestHTTPProbeStateless(t *testing.T) {
	h, _ := startProbe(t, harness.Rev20260728)
	a := send(t, http.MethodDelete, h.URL(), "", nil)
	if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "POST" {
		t.Errorf("DELETE at %s: HTTP %d, Allow %q; want 405, POST", harness.Rev20260728, a.status, a.header.Get("Allow"))
	}
}

// TestHTTPProbeClose: after Close the port no longer answers.
func TestHTTPProbeClose(t *testing.T) {
	h, _ := startProbe(t, harness.Rev20250618)
	url := h.URL()
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("the probe still answers after Close: HTTP %d", resp.StatusCode)
	}
}

// TestRecorderBound: a flooding client cannot grow the recording past transcript.MaxEntries;
// what is dropped is counted in a closing note, and the sink still sees every record.
func TestRecorderBound(t *testing.T) {
	const extra = 5
	var sunk int
	rec := NewRecorder(func(record.Record) { sunk++ })
	for range transcript.MaxEntries + extra {
		rec.Add(record.Record{Dir: record.Recv, Channel: record.ChanPOST, Body: "{}"})
	}
	recs := rec.Records()
	if len(recs) != transcript.MaxEntries+1 {
		t.Fatalf("%d records kept, want %d and a note", len(recs), transcript.MaxEntries)
	}
	last := recs[len(recs)-1]
	if last.Dir != record.Note || !strings.HasPrefix(last.Body, "5 records not kept") || last.Seq != transcript.MaxEntries+extra+1 {
		t.Errorf("closing note %+v", last)
	}
	if sunk != transcript.MaxEntries+extra {
		t.Errorf("the sink got %d records, want all %d", sunk, transcript.MaxEntries+extra)
	}
	select {
	case <-rec.Activity():
	default:
		t.Error("no activity signalled after records were added")
	}
}

// TestScriptValidate: the probe refuses a script it cannot serve before it listens.
func TestScriptValidate(t *testing.T) {
	for _, s := range []Script{
		{Scenario: "no-such-scenario", Revision: harness.Rev20250618, AnswerWait: waitBound},
		{Scenario: ScenarioTools, AnswerWait: waitBound},
		{Scenario: ScenarioInitialize, Revision: harness.Rev20260728, AnswerWait: waitBound},
		{Scenario: ScenarioTools, Revision: harness.Rev20250618},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: accepted", s)
		}
		if h, err := StartHTTP(s, NewRecorder(nil)); err == nil {
			h.Close()
			t.Errorf("%+v: StartHTTP served it", s)
		}
	}
	if err := (Script{Scenario: ScenarioTools, Revision: harness.Rev20250618, AnswerWait: waitBound}).Validate(); err != nil {
		t.Error(err)
	}
}

// heldCall is a probe_slow call (id 7) the probe over Streamable HTTP at 2026-07-28 holds past the
// client's timeout, its POST still open.
type heldCall struct {
	t      *testing.T
	h      *HTTPServer
	rec    *Recorder
	cancel context.CancelFunc // closes the call's POST
	done   chan struct{}      // closed once the POST has ended
}

func startHeldCall(t *testing.T) *heldCall {
	t.Helper()
	c := &heldCall{t: t, rec: NewRecorder(nil), done: make(chan struct{})}
	h, err := StartHTTP(Script{Scenario: ScenarioRequestTimeout, Revision: harness.Rev20260728, AnswerWait: waitBound}, c.rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	c.h = h
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c.cancel = cancel
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.URL(),
		strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"probe_slow","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	go func() {
		defer close(c.done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	c.until("held note", func() bool { return c.noted(record.EvHeld) })
	return c
}

// noted says whether the recorder has a note of kind k about the call.
func (c *heldCall) noted(k record.EventKind) bool {
	for _, r := range c.rec.Records() {
		if r.Is(k) && r.Event.RequestID == "7" {
			return true
		}
	}
	return false
}

// until polls cond every few milliseconds, for waitBound at most.
func (c *heldCall) until(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(waitBound)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("no %s within %s", what, waitBound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// closeStream closes the call's POST as a client at its timeout does, and waits for the probe's
// note of it; the probe must not have answered the call.
func (c *heldCall) closeStream() {
	c.t.Helper()
	c.cancel()
	<-c.done
	c.until("stream-closed note", func() bool { return c.noted(record.EvStreamClosed) })
	if c.noted(record.EvAnsweredLate) {
		c.t.Error("the probe answered a request whose stream the client closed")
	}
}

// TestHTTPProbeStreamClosed: a client that closes a held request's POST before its answer
// leaves a stream-closed note naming the request, and the probe stops holding it.
func TestHTTPProbeStreamClosed(t *testing.T) {
	startHeldCall(t).closeStream()
}

// TestHTTPProbeStatelessNoticeHolds: at 2026-07-28 over Streamable HTTP a notifications/cancelled
// is noted but releases nothing, so that the client's close of the held stream, sent at the same
// moment, is still seen (read after the notification, it used to be lost: the probe had ended
// the stream itself).
func TestHTTPProbeStatelessNoticeHolds(t *testing.T) {
	c := startHeldCall(t)
	// The notification is handled before its 202 is written: once answered, a release would
	// have taken the request out of the held ones.
	if a := send(t, http.MethodPost, c.h.URL(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, nil); a.status != http.StatusAccepted {
		t.Fatalf("notification answered %d, want 202", a.status)
	}
	if !c.noted(record.EvCancelled) {
		t.Error("the notification was not noted")
	}
	c.h.srv.mu.Lock()
	_, stillHeld := c.h.srv.held["7"]
	c.h.srv.mu.Unlock()
	if !stillHeld {
		t.Fatal("the notification released the held request")
	}
	c.closeStream()
}
