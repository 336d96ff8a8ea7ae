package observed

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/recording"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// View is one conversation as the checks read it: its records, and every message either side
// sent, parsed, in the order the recorder saw them.
type View struct {
	Revision  string
	Transport string // results name: stdio, http, sse
	Records   []recording.Record
	Msgs      []Msg
	// Init and InitAnswer index Msgs: the client's first initialize and the server's answer to
	// it; -1 when there is none.
	Init, InitAnswer int
	ClientCaps       map[string]json.RawMessage // as the client declared them in initialize
	ServerCaps       map[string]json.RawMessage // as the server declared them in its answer
	ServerInfo       map[string]any
	ClientInfo       map[string]any

	opts        Options
	bySeq       map[int]int // record Seq → index in Records, when Records are not in Seq order
	start       time.Time
	truncated   int
	redelivered int // events a resumed stream delivered again

	// firstNamed indexes Msgs: with no initialize answered at a known revision, the client's
	// first request that names its revision, which Revision is taken from; -1 when none does.
	firstNamed int

	paired     *exchanges    // pair's result, once computed
	byExchange map[int][]int // exchangeRecords' result, once computed
}

// Msg is one JSON-RPC message (an element of a batch counts on its own).
type Msg struct {
	jsonrpc.Message
	Rec   int    // index in View.Records of the record that carried it
	From  string // Client or Server
	Batch bool   // it came in an array
}

// IsRequest, IsNotification and IsResponse classify the message.
func (m Msg) IsRequest() bool      { return m.Kind == jsonrpc.Request }
func (m Msg) IsNotification() bool { return m.Kind == jsonrpc.Notification }
func (m Msg) IsResponse() bool     { return m.Kind == jsonrpc.Response }

// other is the side that did not send m.
func other(side string) string {
	if side == Server {
		return Client
	}
	return Server
}

// resultsTransport names a recording's transport as results.json does.
func resultsTransport(t string) string {
	switch t {
	case recording.HTTP:
		return wire.HTTP
	case recording.LegacySSE:
		return wire.SSE
	default:
		return wire.Stdio
	}
}

// Header returns a header of a record, whatever case the recorder kept its name in.
func Header(r recording.Record, name string) (string, bool) {
	if v, ok := r.Header[name]; ok {
		return v, true
	}
	for k, v := range r.Header {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Split tells the conversations of a recording apart: over HTTP one per Mcp-Session-Id (the
// session a request names, or the one its response assigns), otherwise the whole recording.
func Split(recs []recording.Record) [][]recording.Record {
	if len(recs) == 0 {
		return nil
	}
	session := map[int]string{} // exchange → session id
	for _, r := range recs {
		if r.Transport != recording.HTTP || r.Exchange == 0 {
			continue
		}
		if id, ok := Header(r, "Mcp-Session-Id"); ok && id != "" && session[r.Exchange] == "" {
			session[r.Exchange] = id
		}
	}
	if oneSession(recs, session) {
		// The common case, and every stdio recording: one conversation, the records as they
		// are. Copying them into a group would double what a long recording holds.
		return [][]recording.Record{recs}
	}
	groups := map[string][]recording.Record{}
	var order []string
	for _, r := range recs {
		k := session[r.Exchange]
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	// Frames outside any session: a sessionless server's (the only group), or requests that
	// named no session though one was assigned. With one session they are its client's, and
	// judged with it (a missing header is HTTP-SESSION-CLIENT's matter); among several,
	// nothing says whose, and they stay a conversation apart.
	if len(order) == 2 && groups[""] != nil {
		first := order[0]
		if first == "" {
			first = order[1]
		}
		merged := append(groups[""], groups[first]...)
		sortBySeq(merged)
		groups[first] = merged
		delete(groups, "")
		order = removeKey(order, "")
	}
	out := make([][]recording.Record, 0, len(order))
	for _, k := range order {
		out = append(out, groups[k])
	}
	return out
}

// oneSession reports whether every record falls in the same group of Split.
func oneSession(recs []recording.Record, session map[int]string) bool {
	if len(session) == 0 {
		return true
	}
	k := session[recs[0].Exchange]
	for _, r := range recs[1:] {
		if session[r.Exchange] != k {
			return false
		}
	}
	return true
}

func removeKey(list []string, k string) []string {
	out := list[:0:0]
	for _, s := range list {
		if s != k {
			out = append(out, s)
		}
	}
	return out
}

func sortBySeq(recs []recording.Record) {
	for i := 1; i < len(recs); i++ {
		for j := i; j > 0 && recs[j].Seq < recs[j-1].Seq; j-- {
			recs[j], recs[j-1] = recs[j-1], recs[j]
		}
	}
}

// carriesMessages reports whether a record's body is JSON-RPC traffic, and whose.
func carriesMessages(r recording.Record) bool {
	switch r.Channel {
	case recording.ChanStdin, recording.ChanStdout:
		return true
	case recording.ChanRequest:
		return r.Method == "POST" && strings.TrimSpace(r.Body) != ""
	case recording.ChanResponse:
		ct, _ := Header(r, "Content-Type")
		return strings.TrimSpace(r.Body) != "" && strings.Contains(strings.ToLower(ct), "json")
	case recording.ChanEvent:
		return (r.Event == "" || r.Event == "message") && strings.TrimSpace(r.Body) != ""
	}
	return false
}

func newView(recs []recording.Record, opts Options) *View {
	v := &View{Records: recs, Init: -1, InitAnswer: -1, firstNamed: -1, opts: opts}
	if !seqIncreasing(recs) {
		v.bySeq = make(map[int]int, len(recs))
	}
	if len(recs) > 0 {
		v.Transport = resultsTransport(recs[0].Transport)
		v.start = recs[0].At
	}
	// One message a carrying record, batches aside: sized once, since growing a slice of a
	// long recording's messages by doubling holds the old array and the new at once.
	carrying := 0
	for _, r := range recs {
		if carriesMessages(r) {
			carrying++
		}
	}
	v.Msgs = make([]Msg, 0, carrying)
	delivered := map[string]bool{}
	for i, r := range recs {
		if v.bySeq != nil {
			v.bySeq[r.Seq] = i
		}
		if r.Truncated {
			v.truncated++
		}
		if !carriesMessages(r) {
			continue
		}
		if r.Channel == recording.ChanEvent && r.EventID != "" {
			// An event delivered again on a resumed stream, same id and data, is the same
			// message once more, not a second one.
			k := r.EventID + "\x00" + r.Body
			if delivered[k] {
				v.redelivered++
				continue
			}
			delivered[k] = true
		}
		p := jsonrpc.Parse(bytes.TrimSpace([]byte(r.Body)))
		if p.Kind == jsonrpc.Batch {
			for _, e := range p.Elems {
				v.Msgs = append(v.Msgs, Msg{Message: e, Rec: i, From: r.From, Batch: true})
			}
			continue
		}
		v.Msgs = append(v.Msgs, Msg{Message: p, Rec: i, From: r.From})
	}
	inits := map[jsonrpc.ID]bool{} // every initialize the client sent
	for i, m := range v.Msgs {
		if m.From == Client && m.IsRequest() && m.Method == "initialize" {
			inits[m.ID] = true
		}
		if v.Revision == "" && v.Init >= 0 && m.From == Server && m.IsResponse() && m.ID != v.Msgs[v.Init].ID && inits[m.ID] {
			// The first initialize went unanswered (a server that honoured its cancellation,
			// CANCEL-NO-INIT-CANCEL) and a later one was answered: the conversation speaks the
			// revision of that answer, not that of a stateless request.
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if m.HasResult && json.Unmarshal(m.Result, &res) == nil && harness.IsKnownRevision(res.ProtocolVersion) && v.InitAnswer < 0 {
				v.Revision = res.ProtocolVersion
			}
		}
		if v.Init < 0 && m.From == Client && m.IsRequest() && m.Method == "initialize" {
			v.Init = i
			var p struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
				ClientInfo   map[string]any             `json:"clientInfo"`
			}
			_ = json.Unmarshal(m.Params, &p)
			v.ClientCaps, v.ClientInfo = p.Capabilities, p.ClientInfo
			continue
		}
		if v.Init >= 0 && v.InitAnswer < 0 && m.From == Server && m.IsResponse() && m.ID == v.Msgs[v.Init].ID {
			v.InitAnswer = i
			var res struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    map[string]json.RawMessage `json:"capabilities"`
				ServerInfo      map[string]any             `json:"serverInfo"`
			}
			if m.HasResult && json.Unmarshal(m.Result, &res) == nil {
				v.ServerCaps, v.ServerInfo = res.Capabilities, res.ServerInfo
				if harness.IsKnownRevision(res.ProtocolVersion) {
					v.Revision = res.ProtocolVersion
				}
			}
		}
	}
	if v.Revision == "" {
		// No initialize answered at a known revision: the revision the first request names.
		if v.firstNamed = v.firstNamingRequest(); v.firstNamed >= 0 {
			v.Revision = v.namedRevision(v.Msgs[v.firstNamed])
		}
	}
	if opts.Revision != "" {
		v.Revision = opts.Revision
	}
	return v
}

// metaRevisionKey is where a 2026-07-28 request names its revision.
const metaRevisionKey = "io.modelcontextprotocol/protocolVersion"

// firstNamingRequest is the index in Msgs of the client's first request that names its
// revision (namedRevision): in a conversation without initialize, the revision it speaks.
func (v *View) firstNamingRequest() int {
	for i, m := range v.Msgs {
		if m.From == Client && m.IsRequest() && v.namedRevision(m) != "" {
			return i
		}
	}
	return -1
}

// namedRevision is the revision a client's request names: in _meta, or over HTTP in
// MCP-Protocol-Version (a stateless revision: at the handshake revisions the header follows
// the initialize); "" when it names none.
func (v *View) namedRevision(m Msg) string {
	if rev := metaRevision(m.Params); harness.IsKnownRevision(rev) {
		return rev
	}
	if h, ok := Header(v.Records[m.Rec], "MCP-Protocol-Version"); ok && harness.IsKnownRevision(h) && !harness.IsHandshake(h) {
		return h
	}
	return ""
}

func metaRevision(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var rev string
	if json.Unmarshal(params, &p) == nil {
		_ = json.Unmarshal(p.Meta[metaRevisionKey], &rev)
	}
	return rev
}

// record finds the record numbered seq: in Records by binary search when they are in Seq
// order (a long recording's map would cost as much as its records' heads), else by bySeq.
func (v *View) record(seq int) (recording.Record, bool) {
	if v.bySeq != nil {
		i, ok := v.bySeq[seq]
		if !ok {
			return recording.Record{}, false
		}
		return v.Records[i], true
	}
	i := sort.Search(len(v.Records), func(i int) bool { return v.Records[i].Seq >= seq })
	if i == len(v.Records) || v.Records[i].Seq != seq {
		return recording.Record{}, false
	}
	return v.Records[i], true
}

// seqIncreasing reports whether every record's Seq is above the one before it.
func seqIncreasing(recs []recording.Record) bool {
	for i := 1; i < len(recs); i++ {
		if recs[i].Seq <= recs[i-1].Seq {
			return false
		}
	}
	return true
}

// end is when the conversation's last timed frame crossed the wire (zero when none is timed:
// a stdio capture, a HAR's events).
func (v *View) end() time.Time {
	var end time.Time
	for _, r := range v.Records {
		if r.At.After(end) {
			end = r.At
		}
	}
	return end
}

// elapsed is the time from a to b when the recording timed both, else false: a rule about
// time judges only frames with times.
func elapsed(a, b time.Time) (time.Duration, bool) {
	if a.IsZero() || b.IsZero() {
		return 0, false
	}
	return b.Sub(a), true
}

// seq is the Seq of the record that carried m, for citing it as "record N".
func (v *View) seq(m Msg) int { return v.Records[m.Rec].Seq }

// complete reports whether the view holds every frame: nothing skipped by the reader.
func (v *View) complete() bool { return v.opts.Skipped == 0 }

// describe names a message for a verdict: its method, or what it answers.
func describe(m Msg) string {
	switch {
	case m.IsRequest():
		return "request " + m.Method + " (id " + string(m.ID) + ")"
	case m.IsNotification():
		return "notification " + m.Method
	case m.IsResponse():
		return "response (id " + string(m.ID) + ")"
	}
	return "message"
}
