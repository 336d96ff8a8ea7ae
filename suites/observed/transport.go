package observed

import (
	"mime"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

var httpOnly = []string{"http"}

// transportChecks: Streamable HTTP's headers, event ids and resumption.
func transportChecks() []Check {
	return []Check{
		{ID: "HTTP-SESSION-CLIENT", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "every request after the server assigned an Mcp-Session-Id carries it",
			Side:    Observed{Whose: Client, Judge: judgeSessionHeader}},
		{ID: "LIFE-HTTP-VERSION-HEADER", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "every HTTP request after initialization carries MCP-Protocol-Version",
			Side:    Observed{Whose: Client, Judge: func(v *View) Finding { return judgeVersionHeader(v, false) }}},
		{ID: "HTTP-PROTO-HEADER-NEGOTIATED", Level: "SHOULD", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "MCP-Protocol-Version names the negotiated revision",
			Side:    Observed{Whose: Client, Judge: func(v *View) Finding { return judgeVersionHeader(v, true) }}},
		{ID: "HTTP-POST-ACCEPT", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "every POST lists both application/json and text/event-stream in Accept",
			Side:    Observed{Whose: Client, Judge: func(v *View) Finding { return judgeAccept(v, "POST", "application/json", "text/event-stream") }}},
		{ID: "HTTP-GET-ACCEPT", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "every GET lists text/event-stream in Accept",
			Side:    Observed{Whose: Client, Judge: func(v *View) Finding { return judgeAccept(v, "GET", "text/event-stream") }}},
		{ID: "MSG-NOTIF-NO-RESPONSE", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "a POST of notifications and responses only gets no JSON-RPC response",
			Side:    Observed{Whose: Server, Judge: judgeNotificationsUnanswered}},
		{ID: "HTTP-202-ACCEPTED", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "a POST of notifications and responses only that the server accepts gets 202 Accepted with no body",
			Side:    Observed{Whose: Server, Judge: judgeAccepted202}},
		{ID: "JRPC-NOTIF-NO-REPLY", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "a well-formed notification gets no reply, not even an error",
			Side:    Observed{Whose: Server, Judge: judgeNotificationNoReply}},
		{ID: "HTTP-EVENT-ID-UNIQUE", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "no SSE event id is used for two different events in the session",
			Side:    Observed{Whose: Server, Judge: judgeEventIDs}},
		{ID: "HTTP-RESUME-OTHER-STREAM", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: httpOnly,
			Summary: "a stream resumed with Last-Event-ID replays no message of another stream",
			Side:    Observed{Whose: Server, Judge: judgeResumeStream}},
	}
}

// httpRequests lists the indices of the client's HTTP requests.
func (v *View) httpRequests() []int {
	var out []int
	for i, r := range v.Records {
		if r.From == Client && r.Channel == recording.ChanRequest {
			out = append(out, i)
		}
	}
	return out
}

func judgeSessionHeader(v *View) Finding {
	assigned, at := "", -1
	for i, r := range v.Records {
		if r.Channel == recording.ChanResponse {
			if id, ok := Header(r, "Mcp-Session-Id"); ok && id != "" {
				assigned, at = id, i
				break
			}
		}
	}
	if at < 0 {
		return notExercised("the server assigned no session")
	}
	n := 0
	for _, i := range v.httpRequests() {
		if i < at {
			continue
		}
		n++
		r := v.Records[i]
		if got, _ := Header(r, "Mcp-Session-Id"); got != assigned {
			return violated("record %d: the client's %s %s after the session was assigned (record %d) carries Mcp-Session-Id %q, not %q", r.Seq, r.Method, r.Path, v.Records[at].Seq, got, assigned)
		}
	}
	if n == 0 {
		return notExercised("the client sent no request after the session was assigned")
	}
	return passed("the %d requests after the session was assigned carry its id", n)
}

func judgeVersionHeader(v *View, value bool) Finding {
	if v.InitAnswer < 0 {
		return notExercised("no initialize was answered")
	}
	after := v.Msgs[v.InitAnswer].Rec
	n := 0
	for _, i := range v.httpRequests() {
		if i < after {
			continue
		}
		r := v.Records[i]
		n++
		got, ok := Header(r, "MCP-Protocol-Version")
		switch {
		case !ok && !value:
			return violated("record %d: the client's %s %s after initialization has no MCP-Protocol-Version", r.Seq, r.Method, r.Path)
		case ok && value && got != v.Revision:
			return violated("record %d: the client's %s %s says MCP-Protocol-Version %q, not the negotiated %s", r.Seq, r.Method, r.Path, got, v.Revision)
		}
	}
	if n == 0 {
		return notExercised("the client sent no request after initialization")
	}
	return passed("the %d requests after initialization carry the header", n)
}

func judgeAccept(v *View, method string, want ...string) Finding {
	n := 0
	for _, i := range v.httpRequests() {
		r := v.Records[i]
		if r.Method != method {
			continue
		}
		n++
		accept, _ := Header(r, "Accept")
		for _, w := range want {
			if !acceptsType(accept, w) {
				return violated("record %d: the client's %s %s has Accept %q, without %s", r.Seq, r.Method, r.Path, accept, w)
			}
		}
	}
	if n == 0 {
		return notExercised("the client sent no " + method)
	}
	return passed("the %d %s requests accept %s", n, method, strings.Join(want, " and "))
}

func acceptsType(accept, want string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && (mt == want || mt == "*/*" || mt == strings.Split(want, "/")[0]+"/*") {
			return true
		}
	}
	return false
}

// exchangeRecords lists the records of each HTTP exchange (built once a view).
func (v *View) exchangeRecords() map[int][]int {
	if v.byExchange == nil {
		v.byExchange = map[int][]int{}
		for i, r := range v.Records {
			if r.Exchange != 0 {
				v.byExchange[r.Exchange] = append(v.byExchange[r.Exchange], i)
			}
		}
	}
	return v.byExchange
}

func judgeNotificationsUnanswered(v *View) Finding {
	byRec := map[int][]Msg{}
	for _, m := range v.Msgs {
		byRec[m.Rec] = append(byRec[m.Rec], m)
	}
	ex := v.exchangeRecords()
	n := 0
	for _, i := range v.httpRequests() {
		r := v.Records[i]
		msgs := byRec[i]
		if r.Method != "POST" || len(msgs) == 0 {
			continue
		}
		onlyNotes := true
		for _, m := range msgs {
			// An ill-formed message may be answered with an error: only well-formed
			// notifications and responses must get nothing.
			if m.Kind == jsonrpc.Request || m.Kind == jsonrpc.Invalid || m.Problem != "" || !m.VersionOK() {
				onlyNotes = false
			}
		}
		if !onlyNotes {
			continue
		}
		n++
		for _, j := range ex[r.Exchange] {
			for _, m := range byRec[j] {
				// An error with no id rejects what could not be read (HTTP-NOTIF-REJECT); a
				// response with an id answers something no notification is.
				if m.From == Server && m.IsResponse() && m.HasID && !m.ID.IsNull() {
					return violated("record %d: the server answered the POST of notifications and responses only (record %d) with a JSON-RPC response", v.Records[j].Seq, r.Seq)
				}
			}
		}
	}
	if n == 0 {
		return notExercised("the client POSTed no notification or response alone")
	}
	return passed("none of the %d POSTs of notifications and responses only got a JSON-RPC response", n)
}

func judgeEventIDs(v *View) Finding {
	first := map[string]int{}
	n := 0
	for i, r := range v.Records {
		if r.Channel != recording.ChanEvent || r.EventID == "" {
			continue
		}
		n++
		j, dup := first[r.EventID]
		if !dup {
			first[r.EventID] = i
			continue
		}
		p := v.Records[j]
		// Redelivery on a resumption is the same event again, not a second use of its id.
		if p.Body == r.Body && p.Event == r.Event && v.resumption(r.Exchange) {
			continue
		}
		return violated("record %d and record %d: the server used the event id %q twice", p.Seq, r.Seq, r.EventID)
	}
	if n < 2 {
		return notExercised("the server sent fewer than two events with ids")
	}
	return passed("the %d event ids the server sent are distinct", n)
}

// resumption reports whether an exchange is a GET that resumes a stream (Last-Event-ID), and
// which event it names.
func (v *View) resumption(exchange int) bool {
	_, ok := v.lastEventID(exchange)
	return ok
}

func (v *View) lastEventID(exchange int) (string, bool) {
	for _, i := range v.exchangeRecords()[exchange] {
		if r := v.Records[i]; r.Channel == recording.ChanRequest {
			id, ok := Header(r, "Last-Event-ID")
			return id, ok && id != ""
		}
	}
	return "", false
}

func isResponse(body string) bool {
	m := jsonrpc.Parse([]byte(body))
	return m.Kind == jsonrpc.Response && !m.ID.IsNull()
}

// judgeResumeStream: the events of a resumption are messages of the stream its Last-Event-ID
// belongs to, or new ones; a message first sent on another stream is a replay across streams,
// and so is an event again under the id it had on another stream than the one resumed. (The
// stream resumed may have run on another connection, out of this view: its events' ids are then
// unknown here, while another stream's are not.)
func judgeResumeStream(v *View) Finding {
	streamOf := map[string]int{} // event id → exchange
	bodyOn := map[string]int{}   // event body → the exchange that first carried it
	n := 0
	for _, r := range v.Records {
		if r.Channel != recording.ChanEvent {
			continue
		}
		if last, ok := v.lastEventID(r.Exchange); ok {
			orig, known := streamOf[last]
			if ex, seen := streamOf[r.EventID]; r.EventID != "" && seen && ex != r.Exchange && (!known || ex != orig) {
				return violated("record %d: resuming after event %q replayed event %q of another stream", r.Seq, last, r.EventID)
			}
			if known {
				n++
				if ex, sent := bodyOn[r.Body]; sent && ex != orig && ex != r.Exchange {
					return violated("record %d: resuming after event %q replayed a message first sent on another stream", r.Seq, last)
				}
			}
		}
		if r.EventID != "" {
			if _, ok := streamOf[r.EventID]; !ok {
				streamOf[r.EventID] = r.Exchange
			}
		}
		// Only a response is certainly of one stream (its request's); two streams may carry
		// notifications that are byte for byte the same.
		if _, ok := bodyOn[r.Body]; !ok && isResponse(r.Body) {
			bodyOn[r.Body] = r.Exchange
		}
	}
	if n == 0 {
		return notExercised("no stream was resumed after an event the recording holds")
	}
	return passed("the %d events of resumed streams replay only their own stream", n)
}

// wellFormed reports whether a message is one no receiver can fail to read: JSON-RPC 2.0, a
// string method, structured params or none, and an id (if any) that is a string or an
// integer. An error with a null id can only answer something else.
func wellFormed(m Msg) bool {
	if m.Problem != "" || !m.VersionOK() || m.Kind == jsonrpc.Invalid {
		return false
	}
	if p := strings.TrimSpace(string(m.Params)); p != "" && p[0] != '{' && p[0] != '[' {
		return false
	}
	return !m.HasID || m.ID.IsString() || isInteger(m.ID)
}

// notificationPOSTs lists the client's POSTs whose body holds only well-formed notifications
// and responses, each with the messages the server sent in its exchange.
func (v *View) notificationPOSTs() (posts []int, answers map[int][]Msg) {
	byRec := map[int][]Msg{}
	for _, m := range v.Msgs {
		byRec[m.Rec] = append(byRec[m.Rec], m)
	}
	ex := v.exchangeRecords()
	answers = map[int][]Msg{}
	for _, i := range v.httpRequests() {
		r := v.Records[i]
		msgs := byRec[i]
		if r.Method != "POST" || len(msgs) == 0 {
			continue
		}
		only := true
		for _, m := range msgs {
			only = only && m.Kind != jsonrpc.Request && wellFormed(m)
		}
		if !only {
			continue
		}
		posts = append(posts, i)
		for _, j := range ex[r.Exchange] {
			for _, m := range byRec[j] {
				if m.From == Server {
					answers[i] = append(answers[i], m)
				}
			}
		}
	}
	return posts, answers
}

// response finds the response record of an exchange.
func (v *View) response(exchange int) (recording.Record, bool) {
	for _, i := range v.exchangeRecords()[exchange] {
		if r := v.Records[i]; r.Channel == recording.ChanResponse {
			return r, true
		}
	}
	return recording.Record{}, false
}

func judgeAccepted202(v *View) Finding {
	posts, _ := v.notificationPOSTs()
	n := 0
	for _, i := range posts {
		req := v.Records[i]
		resp, ok := v.response(req.Exchange)
		if !ok || resp.Status < 200 || resp.Status > 299 {
			continue // refused (4xx), or no answer recorded: HTTP-NOTIF-REJECT's matter
		}
		n++
		if resp.Status != 202 || strings.TrimSpace(resp.Body) != "" {
			return violated("record %d: the server accepted the POST of notifications and responses only (record %d) with HTTP %d and %d bytes of body, not 202 and none", resp.Seq, req.Seq, resp.Status, len(resp.Body))
		}
	}
	if n == 0 {
		return notExercised("the server accepted no POST of notifications and responses only")
	}
	return passed("the %d accepted POSTs of notifications and responses only got 202 and no body", n)
}

// judgeNotificationNoReply: over HTTP, the exchange of a POST of well-formed notifications
// holds no JSON-RPC response. Over stdio a reply names no notification, so it is certain only
// where nothing else can explain it: every frame the client wrote was well-formed, so an error
// with a null id (the only reply a notification can get) answers none of them.
func judgeNotificationNoReply(v *View) Finding {
	if v.Transport == "http" {
		posts, answers := v.notificationPOSTs()
		for _, i := range posts {
			if resp, ok := v.response(v.Records[i].Exchange); ok && resp.Status >= 400 {
				continue // refused at HTTP, an error body allowed (HTTP-NOTIF-REJECT): no reply
			}
			for _, m := range answers[i] {
				if m.IsResponse() {
					return violated("record %d: the server replied to the POST of well-formed notifications and responses only (record %d)", v.seq(m), v.Records[i].Seq)
				}
			}
		}
		if len(posts) == 0 {
			return notExercised("the client POSTed no notification alone")
		}
		return passed("none of the %d POSTs of notifications only got a reply", len(posts))
	}
	if v.Transport != "stdio" {
		return notExercised("a legacy SSE reply cannot be tied to what it answers")
	}
	notes := 0
	for _, r := range v.Records {
		if r.From != Client || r.Channel != recording.ChanStdin {
			continue
		}
		if p := jsonrpc.Parse([]byte(r.Body)); p.Kind == jsonrpc.Batch || p.Kind == jsonrpc.Invalid {
			return notExercised("the client wrote a frame that is not one well-formed message: a reply with a null id may answer it")
		}
	}
	for _, m := range v.Msgs {
		if m.From == Client && !wellFormed(m) {
			return notExercised("the client sent an ill-formed message: a reply with a null id may answer it")
		}
		if m.From == Client && m.IsNotification() {
			notes++
		}
	}
	if notes == 0 {
		return notExercised("the client sent no notification")
	}
	for _, m := range v.Msgs {
		if m.From == Server && m.IsResponse() && (!m.HasID || m.ID.IsNull()) {
			return violated("record %d: the server sent a reply with a null id, though every message of the client was well-formed: it answers a notification", v.seq(m))
		}
	}
	return passed("the client's %d notifications got no reply", notes)
}
