package observed

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/reports"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// stdio builds a stdio recording from frames "c:{…}" (client) and "s:{…}" (server), one
// second apart.
func stdio(frames ...string) []recording.Record {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]recording.Record, 0, len(frames))
	for i, f := range frames {
		r := recording.Record{Seq: i + 1, At: t0.Add(time.Duration(i) * time.Second), Transport: recording.Stdio, Body: f[2:]}
		if f[0] == 'c' {
			r.From, r.Channel = recording.FromClient, recording.ChanStdin
		} else {
			r.From, r.Channel = recording.FromServer, recording.ChanStdout
		}
		out = append(out, r)
	}
	return out
}

const (
	initReq    = `c:{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initResp   = `s:{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	initedNote = `c:{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// verdict finds one result.
func verdict(t *testing.T, res []reports.Result, id, side string) reports.Result {
	t.Helper()
	for _, r := range res {
		if r.ID == id && r.Side == side {
			return r
		}
	}
	t.Fatalf("no result for %s (%s) among %d", id, side, len(res))
	return reports.Result{}
}

func TestCleanConversation(t *testing.T) {
	res, info := Judge(stdio(initReq, initResp, initedNote,
		`c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`s:{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`), Options{})
	if info.Conversations != 1 || len(info.Revisions) != 1 || info.Revisions[0] != "2025-06-18" {
		t.Fatalf("info: %+v", info)
	}
	for _, r := range res {
		if r.Status != reports.Pass && r.Status != reports.NA {
			t.Errorf("%s (%s): %s: %s", r.ID, r.Side, r.Status, r.Message)
		}
		if r.Status == reports.NA && !strings.HasPrefix(r.Message, NotExercised) {
			t.Errorf("%s (%s): na must say %q: %s", r.ID, r.Side, NotExercised, r.Message)
		}
		if r.Mode != reports.ModeObserved || r.Version != "2025-06-18" || r.Transport != "stdio" {
			t.Errorf("%s: row fields %+v", r.ID, r)
		}
	}
	if r := verdict(t, res, "JRPC-REPLY-REQUIRED", Server); r.Status != reports.Pass {
		t.Errorf("server answered both requests: %s %s", r.Status, r.Message)
	}
	if r := verdict(t, res, "JRPC-REPLY-REQUIRED", Client); r.Status != reports.NA {
		t.Errorf("the server asked nothing, so the client's replies are not exercised: %s", r.Status)
	}
}

func TestFaultsSeen(t *testing.T) {
	cases := []struct {
		name   string
		frames []string
		id     string
		side   string
		opts   Options
	}{
		{"reused id", []string{initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `s:{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, `c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `s:{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`}, "MSG-REQ-ID-UNIQUE", Client, Options{}},
		{"null id", []string{initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","id":null,"method":"ping"}`}, "MSG-REQ-ID-NOT-NULL", Client, Options{}},
		{"fractional id", []string{initReq, initResp, initedNote, `s:{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `c:{"jsonrpc":"2.0","id":1.5,"result":{}}`}, "MSG-REQ-ID-TYPE", Server, Options{}},
		{"wrong echo", []string{initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","id":2,"method":"ping"}`, `s:{"jsonrpc":"2.0","id":"2","result":{}}`}, "MSG-RESP-SAME-ID", Server, Options{}},
		{"answered twice", []string{initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","id":2,"method":"ping"}`, `s:{"jsonrpc":"2.0","id":2,"result":{}}`, `s:{"jsonrpc":"2.0","id":2,"result":{}}`}, "JRPC-REPLY-REQUIRED", Server, Options{}},
		{"never answered", []string{initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","id":2,"method":"ping"}`, `c:{"jsonrpc":"2.0","id":3,"method":"ping"}`, `s:{"jsonrpc":"2.0","id":3,"result":{}}`}, "JRPC-REPLY-REQUIRED", Server, Options{ReplyBound: time.Second}},
		{"no initialized", []string{initReq, initResp, `c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`}, "LIFE-INITIALIZED-NOTIF", Client, Options{}},
		{"request before the answer", []string{initReq, `c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, initResp}, "LIFE-PRE-INIT-REQUEST", Client, Options{}},
		{"request instead of initialize", []string{`c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`}, "LIFE-PRE-INIT-REQUEST", Client, Options{Revision: "2025-11-25"}},
		{"server request before initialized", []string{`c:{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`, initResp, `s:{"jsonrpc":"2.0","id":"r1","method":"roots/list"}`, initedNote}, "LIFE-SERVER-WAIT-INITIALIZED", Server, Options{}},
		{"undeclared capability", []string{initReq, initResp, initedNote, `s:{"jsonrpc":"2.0","id":"r1","method":"sampling/createMessage","params":{}}`}, "SRVREQ-CAP-GATED", Server, Options{}},
		{"notification answered", []string{initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","method":"notifications/x","params":{}}`, `s:{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}`}, "JRPC-NOTIF-NO-REPLY", Server, Options{}},
		{"cancelled initialize", []string{initReq, `c:{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, initResp}, "CANCEL-NO-INIT-CANCEL", Client, Options{}},
	}
	for _, c := range cases {
		res, _ := Judge(stdio(c.frames...), c.opts)
		r := verdict(t, res, c.id, c.side)
		if r.Status != reports.Fail && r.Status != reports.Warn {
			t.Errorf("%s: %s (%s) is %s: %s", c.name, c.id, c.side, r.Status, r.Message)
		} else if len(r.Evidence) == 0 {
			t.Errorf("%s: %s fails without evidence: %s", c.name, c.id, r.Message)
		}
	}
}

// TestPreInitLevels: a request before initialize itself breaks "initialization MUST be the first
// interaction" and fails, as in a client run; one while initialize is unanswered warns (the
// SHOULD NOT); a dual-era client's server/discover before initialize is no breach.
func TestPreInitLevels(t *testing.T) {
	list := `c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	discover := `c:{"jsonrpc":"2.0","id":0,"method":"server/discover"}`
	refused := `s:{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`
	cases := []struct {
		name   string
		frames []string
		want   reports.Status
	}{
		{"request before initialize", []string{list, initReq, initResp, initedNote}, reports.Fail},
		{"request before the answer", []string{initReq, list, initResp, initedNote}, reports.Warn},
		{"discovery first", []string{discover, refused, initReq, initResp, initedNote}, reports.Pass},
	}
	for _, c := range cases {
		res, _ := Judge(stdio(c.frames...), Options{})
		if r := verdict(t, res, "LIFE-PRE-INIT-REQUEST", Client); r.Status != c.want {
			t.Errorf("%s: %s, want %s: %s", c.name, r.Status, c.want, r.Message)
		}
	}
}

func TestNeverAnsweredNeedsTheBound(t *testing.T) {
	frames := stdio(initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	res, _ := Judge(frames, Options{ReplyBound: time.Hour})
	if r := verdict(t, res, "JRPC-REPLY-REQUIRED", Server); r.Status == reports.Fail {
		t.Errorf("a recording that ends within the bound cannot tell silence from slowness: %s", r.Message)
	}
}

func TestChecksAreCatalogued(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		if _, ok := catalog.Lookup(c.ID); !ok {
			t.Errorf("%s: not in the catalogue", c.ID)
		}
		if c.Level != "MUST" && c.Level != "SHOULD" {
			t.Errorf("%s: level %q", c.ID, c.Level)
		}
		if c.Side.Whose != Server && c.Side.Whose != Client {
			t.Errorf("%s: side %q", c.ID, c.Side.Whose)
		}
		k := c.ID + c.Side.Whose
		if seen[k] {
			t.Errorf("%s (%s) twice", c.ID, c.Side.Whose)
		}
		seen[k] = true
	}
}

func TestCursorsAsGiven(t *testing.T) {
	list := `c:{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	page := `s:{"jsonrpc":"2.0","id":2,"result":{"tools":[],"nextCursor":"abc"}}`
	res, _ := Judge(stdio(initReq, initResp, initedNote, list, page, `c:{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"abc"}}`), Options{})
	if r := verdict(t, res, "PAGE-CLIENT-OPAQUE", Client); r.Status != reports.Pass {
		t.Errorf("the cursor as given: %s %s", r.Status, r.Message)
	}
	res, _ = Judge(stdio(initReq, initResp, initedNote, list, page, `c:{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"abd"}}`), Options{})
	if r := verdict(t, res, "PAGE-CLIENT-OPAQUE", Client); r.Status != reports.Fail {
		t.Errorf("a cursor the server never gave: %s %s", r.Status, r.Message)
	}
}

func TestNullIDReplyAfterAnIllFormedFrameIsNoVerdict(t *testing.T) {
	res, _ := Judge(stdio(initReq, initResp, initedNote, `c:{"jsonrpc":"2.0","method":"notifications/x","params":{}}`, `c:not json`, `s:{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`), Options{})
	if r := verdict(t, res, "JRPC-NOTIF-NO-REPLY", Server); r.Status != reports.NA {
		t.Errorf("a null-id error may answer the frame that was not JSON: %s %s", r.Status, r.Message)
	}
}

// web builds a Streamable HTTP recording: each exchange a POST and its JSON answer.
type web struct {
	recs []recording.Record
	ex   int
}

func (w *web) add(r recording.Record) {
	r.Seq, r.Transport = len(w.recs)+1, recording.HTTP
	r.At = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Seq) * time.Millisecond)
	w.recs = append(w.recs, r)
}

func (w *web) post(reqHeader map[string]string, body string, status int, respHeader map[string]string, answer string) {
	w.ex++
	w.add(recording.Record{From: recording.FromClient, Channel: recording.ChanRequest, Exchange: w.ex, Method: "POST", Path: "/mcp", Header: reqHeader, Body: body})
	w.add(recording.Record{From: recording.FromServer, Channel: recording.ChanResponse, Exchange: w.ex, Status: status, Header: respHeader, Body: answer})
}

func headers(kv ...string) map[string]string {
	h := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

func session(w *web, id string) {
	w.post(headers(), initReq[2:], 200, map[string]string{"Content-Type": "application/json", "Mcp-Session-Id": id}, initResp[2:])
	w.post(headers("Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18"), initedNote[2:], 202, nil, "")
}

func TestHTTPSessionsSplitAndHeaders(t *testing.T) {
	var w web
	session(&w, "A")
	session(&w, "B")
	w.post(headers("Mcp-Session-Id", "A", "Mcp-Protocol-Version", "2025-06-18"), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 200, map[string]string{"Content-Type": "application/json"}, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
	if convs := Split(w.recs); len(convs) != 2 {
		t.Fatalf("two sessions, %d conversations", len(convs))
	}
	res, info := Judge(w.recs, Options{})
	if info.Conversations != 2 {
		t.Errorf("info: %+v", info)
	}
	for _, r := range res {
		if r.Status == reports.Fail || r.Status == reports.Warn {
			t.Errorf("%s (%s): %s", r.ID, r.Side, r.Message)
		}
	}
	// One session, and a request after it without its id nor the version header.
	var one web
	session(&one, "A")
	one.post(headers(), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 400, map[string]string{"Content-Type": "application/json"}, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"no session"}}`)
	res, _ = Judge(one.recs, Options{})
	for _, id := range []string{"HTTP-SESSION-CLIENT", "LIFE-HTTP-VERSION-HEADER"} {
		if r := verdict(t, res, id, Client); r.Status != reports.Fail {
			t.Errorf("%s: %s %s", id, r.Status, r.Message)
		}
	}
	// A refused request is no unanswered one, and its id-less error answers nothing.
	for _, id := range []string{"JRPC-REPLY-REQUIRED", "MSG-RESP-SAME-ID"} {
		if r := verdict(t, res, id, Server); r.Status == reports.Fail {
			t.Errorf("%s: %s", id, r.Message)
		}
	}
}

func TestEventIDs(t *testing.T) {
	build := func(resumedBody string) []recording.Record {
		var w web
		session(&w, "A")
		getStream(&w, "", sseEvent{"e1", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`}, sseEvent{"e2", `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`})
		getStream(&w, "e1", sseEvent{"e2", resumedBody})
		return w.recs
	}
	res, _ := Judge(build(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`), Options{})
	if r := verdict(t, res, "HTTP-EVENT-ID-UNIQUE", Server); r.Status == reports.Fail {
		t.Errorf("a redelivery on resumption is the same event: %s", r.Message)
	}
	res, _ = Judge(build(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`), Options{})
	if r := verdict(t, res, "HTTP-EVENT-ID-UNIQUE", Server); r.Status != reports.Fail {
		t.Errorf("one id for two events: %s %s", r.Status, r.Message)
	}
}

// The extensions' methods are held to the core unions only where they are core (tasks at
// 2025-11-25), not at 2026-07-28, where they are an extension's.
func TestExtensionMethods(t *testing.T) {
	for _, c := range []struct {
		rev, method string
		want        bool
	}{
		{"2026-07-28", "notifications/tasks", true}, {"2026-07-28", "tasks/get", true},
		{"2026-07-28", "resources/directory/read", true}, {"2026-07-28", "tools/call", false},
		{"2025-11-25", "tasks/get", false},
	} {
		if got := extensionMethod(c.rev, c.method); got != c.want {
			t.Errorf("%s at %s: %v, want %v", c.method, c.rev, got, c.want)
		}
	}
}

// A record cited by a verdict is found whether the records come in Seq order (binary search)
// or not (the map), and a one-session recording is judged as it is, not copied.
func TestRecordLookupAndSplitOfOneSession(t *testing.T) {
	recs := stdio(initReq, initResp, initedNote)
	if got := Split(recs); len(got) != 1 || &got[0][0] != &recs[0] {
		t.Fatalf("Split of one stdio conversation: want the records themselves, got %d groups", len(got))
	}
	shuffled := []recording.Record{recs[2], recs[0], recs[1]}
	for name, rs := range map[string][]recording.Record{"in order": recs, "out of order": shuffled} {
		v := newView(rs, Options{})
		for _, seq := range []int{1, 2, 3} {
			if r, ok := v.record(seq); !ok || r.Seq != seq {
				t.Errorf("%s: record %d: got %d, %v", name, seq, r.Seq, ok)
			}
		}
		if _, ok := v.record(4); ok {
			t.Errorf("%s: record 4 found in a recording of 3", name)
		}
	}
}

// TestMixedRevisionsWithoutInitialize: mcpspec run's observation before initialize, over stdio,
// sends a server a bare ping and then a 2026-07-28 server/discover. Each request and its answer
// are judged at the revision the request names; the ping, naming none before any request named
// one, at the handshake era's rules (its empty result has no resultType), not at 2026-07-28's.
// A bare ping after a request named 2026-07-28 is still held to that revision.
func TestMixedRevisionsWithoutInitialize(t *testing.T) {
	const (
		ping     = `c:{"jsonrpc":"2.0","id":"p","method":"ping"}`
		pong     = `s:{"jsonrpc":"2.0","id":"p","result":{}}`
		discover = `c:{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		found    = `s:{"jsonrpc":"2.0","id":"d","result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{}}}`
	)
	res, info := Judge(stdio(ping, pong, discover, found), Options{})
	if len(info.Revisions) != 1 || info.Revisions[0] != "2026-07-28" {
		t.Fatalf("the conversation speaks 2026-07-28, the revision its first naming request names: %+v", info)
	}
	for _, side := range []string{Server, Client} {
		r := verdict(t, res, "MSG-JSONRPC", side)
		if r.Status != reports.Pass || r.Version != "2026-07-28" || !strings.Contains(r.Message, "1 of them, before initialize") {
			t.Errorf("%s: the ping and its answer at the handshake rules, the discover at 2026-07-28: %s %s", side, r.Status, r.Message)
		}
	}

	// The ping's answer valid at no handshake revision fails, and says so.
	res, _ = Judge(stdio(ping, `s:{"jsonrpc":"2.0","id":"p","result":[]}`, discover, found), Options{})
	if r := verdict(t, res, "MSG-JSONRPC", Server); r.Status != reports.Fail || !strings.Contains(r.Message, "any handshake revision") {
		t.Errorf("a ping answered with an array: %s %s", r.Status, r.Message)
	}

	// After the client named 2026-07-28, a bare ping is that revision's, and breaks its rules.
	res, _ = Judge(stdio(discover, found, `c:{"jsonrpc":"2.0","id":"q","method":"ping"}`, `s:{"jsonrpc":"2.0","id":"q","result":{}}`), Options{})
	for _, side := range []string{Server, Client} {
		if r := verdict(t, res, "MSG-JSONRPC", side); r.Status != reports.Fail || !strings.Contains(r.Message, "at 2026-07-28") {
			t.Errorf("%s: a bare ping after 2026-07-28 was named: %s %s", side, r.Status, r.Message)
		}
	}
}

// TestRevisionOfASecondInitialize: mcpspec's shared start of a session (the request before
// initialize, initialize cancelled at once) sends a plain initialize when the cancelled one went
// unanswered; the conversation is judged at the revision that one was answered with, and the
// cancellation of the first is still the client's.
func TestRevisionOfASecondInitialize(t *testing.T) {
	res, info := Judge(stdio(`c:{"jsonrpc":"2.0","id":0,"method":"tools/list"}`,
		`s:{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"not initialized"}}`,
		initReq,
		`c:{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`c:{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`s:{"jsonrpc":"2.0","id":2,"result":{}}`,
		`c:{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`s:{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
	), Options{})
	if len(info.Revisions) != 1 || info.Revisions[0] != "2025-06-18" {
		t.Fatalf("revisions %v, want the second initialize's 2025-06-18", info.Revisions)
	}
	if r := verdict(t, res, "CANCEL-NO-INIT-CANCEL", Client); r.Status != reports.Fail {
		t.Errorf("the client cancelled its first initialize: %s %s", r.Status, r.Message)
	}
}

// A stream resumed after an event this view never saw (its stream ran on another connection)
// still shows a replay across streams when it carries an event under the id it had on a stream
// the view did see.
func TestResumeOfAStreamFromAnotherConnection(t *testing.T) {
	build := func(replayedID string) []recording.Record {
		var w web
		session(&w, "A")
		getStream(&w, "", sseEvent{"b1", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`})
		getStream(&w, "a1", sseEvent{replayedID, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`})
		return w.recs
	}
	res, _ := Judge(build("b1"), Options{})
	if r := verdict(t, res, "HTTP-RESUME-OTHER-STREAM", Server); r.Status != reports.Fail {
		t.Errorf("an event of stream b replayed on the resumption of stream a: %s %s", r.Status, r.Message)
	}
	res, _ = Judge(build("a2"), Options{})
	if r := verdict(t, res, "HTTP-RESUME-OTHER-STREAM", Server); r.Status == reports.Fail {
		t.Errorf("an event of the stream resumed: %s", r.Message)
	}
}

// sseEvent is one event of a recorded SSE stream: its id and data.
type sseEvent struct{ id, body string }

// getStream records a GET of session A's event stream at 2025-06-18, resuming after lastID
// unless it is empty, and the events it carried.
func getStream(w *web, lastID string, events ...sseEvent) {
	w.ex++
	header := map[string]string{"Accept": "text/event-stream", "Mcp-Session-Id": "A", "Mcp-Protocol-Version": "2025-06-18"}
	if lastID != "" {
		header["Last-Event-ID"] = lastID
	}
	w.add(recording.Record{From: recording.FromClient, Channel: recording.ChanRequest, Exchange: w.ex, Method: "GET", Path: "/mcp", Header: header})
	w.add(recording.Record{From: recording.FromServer, Channel: recording.ChanResponse, Exchange: w.ex, Status: 200, Header: map[string]string{"Content-Type": "text/event-stream"}})
	for _, e := range events {
		w.add(recording.Record{From: recording.FromServer, Channel: recording.ChanEvent, Exchange: w.ex, EventID: e.id, Body: e.body})
	}
}
