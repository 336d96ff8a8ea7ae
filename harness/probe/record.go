// Package probe is mcpspec's server side for testing clients: a small MCP server scripted per
// scenario, over Streamable HTTP (in process) or stdio (a child process the client launches),
// that answers at the revision a scenario needs and records every byte the client sends and
// every byte it answers. It judges nothing: the client checks read its records.
package probe

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/transcript"
)

// Directions of a record.
const (
	Recv = "recv" // from the client
	Send = "send" // from the probe
	Note = "note" // what the probe did or waited for, in words
)

// Channels of a record.
const (
	ChanStdin  = "stdin"  // a line the client wrote to the probe's stdin
	ChanStdout = "stdout" // a line the probe wrote to its stdout
	ChanPOST   = "POST"
	ChanGET    = "GET"
	ChanDELETE = "DELETE"
	ChanSSE    = "POST-SSE" // an event on the SSE stream answering a POST
	ChanGETSSE = "GET-SSE"  // an event on a GET's SSE stream (a resumed one)
	ChanHTTP   = "HTTP"     // any other HTTP method
)

// Record is one thing the probe saw or sent.
type Record struct {
	Seq     int    `json:"seq"`
	AtMs    int64  `json:"atMs"`
	Dir     string `json:"dir"`
	Channel string `json:"channel"`
	// Method is the HTTP method of a request to the authorization server's side (ChanOAuth).
	Method string `json:"method,omitempty"`
	// Path is the request path of an HTTP request the client made.
	Path string `json:"path,omitempty"`
	// Query is its query string, secrets replaced by labels.
	Query string `json:"query,omitempty"`
	// Header holds the HTTP request's headers as the client sent them (several values joined by
	// ", "); a header absent from the map was not sent. Credentials are never kept: in an
	// authorization scenario each is replaced by a label naming what it was. On an answer of
	// an authorization scenario it holds the headers that matter (WWW-Authenticate, Location).
	Header map[string]string `json:"header,omitempty"`
	// Arrived is, for an HTTP request, the Seq the next record had when the request arrived,
	// before its body was read: a record with a lower Seq existed by then, so the client could
	// have known what it said (an answer the probe records before writing it); one with this
	// Seq or higher did not exist yet.
	Arrived int `json:"arrived,omitempty"`
	// Status is the HTTP status of the probe's answer.
	Status int `json:"status,omitempty"`
	// Creds are the secrets an authorization scenario's request carried, each where it stood.
	Creds []Credential `json:"creds,omitempty"`
	// Event is what a note says, as data (Dir Note; nil on a note no check reads).
	Event *Event `json:"event,omitempty"`
	Body  string `json:"body"`
}

// Meta is the record's HTTP detail in one line, for evidence.
func (r Record) Meta() string {
	var parts []string
	if r.Method != "" {
		parts = append(parts, r.Method)
	}
	if r.Path != "" {
		p := r.Path
		if r.Query != "" {
			p += "?" + r.Query
		}
		parts = append(parts, p)
	}
	if r.Status != 0 {
		parts = append(parts, "HTTP "+http.StatusText(r.Status))
	}
	// Only the headers MCP (and its DPoP extension) gives a meaning to: the rest
	// (Content-Length, Connection, …) would bury them. Every header stays in Header.
	for _, k := range metaHeaders {
		if v, ok := r.Header[k]; ok {
			parts = append(parts, k+": "+v)
		}
	}
	// The Mcp-Param-* headers mirror tool arguments (2026-07-28): evidence of HTTP26-PARAM-HEADER-CLIENT.
	var params []string
	for k, v := range r.Header {
		if strings.HasPrefix(k, "Mcp-Param-") {
			params = append(params, k+": "+v)
		}
	}
	sort.Strings(params)
	return strings.Join(append(parts, params...), "; ")
}

var metaHeaders = []string{"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id", "Authorization", "Www-Authenticate", "Location", "Dpop", "Dpop-Nonce"}

// HasHeader returns the header's value and whether the client sent it.
func (r Record) HasHeader(name string) (string, bool) {
	v, ok := r.Header[http.CanonicalHeaderKey(name)]
	return v, ok
}

// Recorder keeps the records of one scenario run, in order, and signals each new one.
type Recorder struct {
	mu       sync.Mutex
	start    time.Time
	recs     []Record
	dropped  int // records beyond transcript.MaxEntries, counted but not kept
	activity chan struct{}
	sink     func(Record) // also gets every record (the stdio probe streams them to its parent)
}

// NewRecorder starts an empty recording; sink, when not nil, also gets every record.
func NewRecorder(sink func(Record)) *Recorder {
	return &Recorder{start: time.Now(), activity: make(chan struct{}, 1), sink: sink}
}

// Next is the Seq the next record will have.
func (r *Recorder) Next() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.recs) + 1
}

// Add numbers and timestamps rec, keeps it, and passes it on.
func (r *Recorder) Add(rec Record) {
	r.mu.Lock()
	rec.Seq = len(r.recs) + r.dropped + 1
	rec.AtMs = time.Since(r.start).Milliseconds()
	if len(r.recs) < transcript.MaxEntries {
		r.recs = append(r.recs, rec)
	} else {
		r.dropped++ // a flooding client must not exhaust memory; the sink still gets it
	}
	sink := r.sink
	r.mu.Unlock()
	if sink != nil {
		sink(rec)
	}
	select {
	case r.activity <- struct{}{}:
	default:
	}
}

// Started is when the recording began: each record's AtMs counts from it.
func (r *Recorder) Started() time.Time { return r.start }

// Records returns a copy of everything recorded so far.
func (r *Recorder) Records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]Record(nil), r.recs...)
	if r.dropped > 0 {
		out = append(out, Record{Seq: len(r.recs) + r.dropped + 1, AtMs: time.Since(r.start).Milliseconds(), Dir: Note, Channel: "probe",
			Event: &Event{Kind: EvDropped, Count: r.dropped},
			Body:  fmt.Sprintf("%d records not kept (recording limit %d)", r.dropped, transcript.MaxEntries)})
	}
	return out
}

// Activity receives a value after records were added (one value for any number of them).
func (r *Recorder) Activity() <-chan struct{} { return r.activity }

// secretHeaders are never recorded with their value.
var secretHeaders = map[string]bool{"Authorization": true, "Cookie": true, "Proxy-Authorization": true}

func headerMap(h http.Header) map[string]string {
	m := make(map[string]string, len(h))
	for k, vs := range h {
		if secretHeaders[k] {
			m[k] = "(redacted)"
			continue
		}
		m[k] = strings.Join(vs, ", ")
	}
	return m
}
