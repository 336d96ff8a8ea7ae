package observed

import (
	"mime"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/recording"
)

var httpOnly = []string{"http"}

// transportChecks: Streamable HTTP's headers, event ids and resumption.
func transportChecks() []Check {
	return []Check{
		{ID: "HTTP-SESSION-CLIENT", Side: Client, Level: "MUST", Transports: httpOnly,
			Summary: "every request after the server assigned an Mcp-Session-Id carries it",
			Judge:   judgeSessionHeader},
		{ID: "LIFE-HTTP-VERSION-HEADER", Side: Client, Level: "MUST", Transports: httpOnly,
			Summary: "every HTTP request after initialization carries MCP-Protocol-Version",
			Judge:   func(v *View) Finding { return judgeVersionHeader(v, false) }},
		{ID: "HTTP-PROTO-HEADER-NEGOTIATED", Side: Client, Level: "SHOULD", Transports: httpOnly,
			Summary: "MCP-Protocol-Version names the negotiated revision",
			Judge:   func(v *View) Finding { return judgeVersionHeader(v, true) }},
		{ID: "HTTP-POST-ACCEPT", Side: Client, Level: "MUST", Transports: httpOnly,
			Summary: "every POST lists both application/json and text/event-stream in Accept",
			Judge:   func(v *View) Finding { return judgeAccept(v, "POST", "application/json", "text/event-stream") }},
		{ID: "HTTP-GET-ACCEPT", Side: Client, Level: "MUST", Transports: httpOnly,
			Summary: "every GET lists text/event-stream in Accept",
			Judge:   func(v *View) Finding { return judgeAccept(v, "GET", "text/event-stream") }},
		{ID: "MSG-NOTIF-NO-RESPONSE", Side: Server, Level: "MUST", Transports: httpOnly,
			Summary: "a POST of notifications and responses only gets no JSON-RPC response",
			Judge:   judgeNotificationsUnanswered},
		{ID: "HTTP-EVENT-ID-UNIQUE", Side: Server, Level: "MUST", Transports: httpOnly,
			Summary: "no SSE event id is used for two different events in the session",
			Judge:   judgeEventIDs},
		{ID: "HTTP-RESUME-OTHER-STREAM", Side: Server, Level: "MUST", Transports: httpOnly,
			Summary: "a stream resumed with Last-Event-ID replays no message of another stream",
			Judge:   judgeResumeStream},
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

// exchangeRecords lists the records of each HTTP exchange.
func (v *View) exchangeRecords() map[int][]int {
	out := map[int][]int{}
	for i, r := range v.Records {
		if r.Exchange != 0 {
			out[r.Exchange] = append(out[r.Exchange], i)
		}
	}
	return out
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
	for _, r := range v.Records {
		if r.Exchange == exchange && r.Channel == recording.ChanRequest {
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
// belongs to, or new ones; a message first sent on another stream is a replay across streams.
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
