// Package record is the one type in which mcpspec keeps what it exchanged with a target: the
// harness's transcript of a session with a server under test and the probe's recording of a
// client under test are both lists of Record, which the checks read, results carry as evidence
// and --transcript writes out.
package record

import (
	"net/http"
	"sort"
	"strings"
	"time"
)

// Directions of a record, from mcpspec's side of the wire: what the harness or the probe sent,
// what the target sent, and what mcpspec itself did or waited for.
const (
	Send = "send"
	Recv = "recv"
	Note = "note"
)

// Channels of a record: where on the transport it travelled.
const (
	ChanStdin  = "stdin"    // a line written to the server's stdin
	ChanStdout = "stdout"   // a line the server wrote to its stdout
	ChanStderr = "stderr"   // the target's log
	ChanPOST   = "POST"     // an HTTP POST (and the other methods by their names)
	ChanGET    = "GET"      //
	ChanDELETE = "DELETE"   //
	ChanSSE    = "POST-SSE" // an event on the SSE stream answering a POST
	ChanGETSSE = "GET-SSE"  // an event on a GET's SSE stream
	ChanHTTP   = "HTTP"     // an HTTP response's head (the harness), any other method (the probe)
)

// Record is one frame exchanged with a target, or one note of mcpspec's. Only the fields that
// apply are set: the harness describes HTTP in Meta, the probe in Method, Path, Header, Status.
type Record struct {
	Seq     int       `json:"seq"`
	At      time.Time `json:"at"`
	Dir     string    `json:"dir"`
	Channel string    `json:"channel"`
	// Method is the HTTP method of a request to the probe's authorization server (ChanOAuth).
	Method string `json:"method,omitempty"`
	// Path is the request path of an HTTP request a client made.
	Path string `json:"path,omitempty"`
	// Query is its query string, secrets replaced by labels.
	Query string `json:"query,omitempty"`
	// Header holds an HTTP request's headers as the client sent them (several values joined by
	// ", "); a header absent from the map was not sent. Credentials are never kept: in an
	// authorization scenario each is replaced by a label naming what it was. On an answer of
	// an authorization scenario it holds the headers that matter (WWW-Authenticate, Location).
	Header map[string]string `json:"header,omitempty"`
	// Arrived is, for an HTTP request to the probe, the Seq the next record had when the
	// request arrived, before its body was read: a record with a lower Seq existed by then, so
	// the client could have known what it said (an answer the probe records before writing it);
	// one with this Seq or higher did not exist yet.
	Arrived int `json:"arrived,omitempty"`
	// Status is the HTTP status of the probe's answer.
	Status int `json:"status,omitempty"`
	// Creds are the secrets an authorization scenario's request carried, each where it stood.
	Creds []Credential `json:"creds,omitempty"`
	// Event is what a note says, as data (Dir Note; nil on a note no check reads).
	Event *Event `json:"event,omitempty"`
	// Meta is the harness's word on the frame for a person ("HTTP 202 (answers #3)", an SSE
	// event's id): evidence text, which no check parses.
	Meta string `json:"meta,omitempty"`
	Body string `json:"body"`
}

// Summary is the record's detail in one line, for evidence: the HTTP detail the probe keeps,
// then Meta.
func (r Record) Summary() string {
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
	parts = append(parts, params...)
	if r.Meta != "" {
		parts = append(parts, r.Meta)
	}
	return strings.Join(parts, "; ")
}

var metaHeaders = []string{"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id", "Authorization", "Www-Authenticate", "Location", "Dpop", "Dpop-Nonce"}

// HasHeader returns the header's value and whether the client sent it.
func (r Record) HasHeader(name string) (string, bool) {
	v, ok := r.Header[http.CanonicalHeaderKey(name)]
	return v, ok
}
