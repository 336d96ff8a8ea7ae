package clientsuite

import (
	"fmt"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"slices"
	"strings"
	"time"
)

// The client checks of basic/transports (Streamable HTTP, resumability and redelivery).

func init() {
	Register(
		Check{ID: "HTTP-RESUME-CLIENT-LAST-EVENT-ID", Revisions: catalog.AllCatalogued, Level: "SHOULD", Transports: httpOnly,
			Summary: "after a request's SSE stream breaks, the client resumes it with GET and the last event id in Last-Event-ID",
			Side:    Client{Scenario: probe.ScenarioSSERetry, Judge: judgeResume}},
		Check{ID: "HTTP-RETRY-CLIENT-WAIT", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: httpOnly,
			Summary: "the client waits the retry field's milliseconds before it reconnects to a stream the server closed",
			Side:    Client{Scenario: probe.ScenarioSSERetry, Judge: judgeRetryWait}},
	)
}

// cut finds the probe's note of the stream it closed before the response (ScenarioSSERetry).
func (v *View) cut() (at int, id string, retryMs int, f *Finding) {
	for i, r := range v.Records {
		if r.Is(record.EvStreamCut) {
			return i, r.Event.EventID, r.Event.RetryMs, nil
		}
	}
	nf := untestable("the client called no tool, so the probe never closed a stream before its response (the contract: call every listed tool)")
	if len(v.After()) == 0 {
		nf = v.notProceeded()
	}
	return -1, "", 0, &nf
}

func judgeResume(v *View) Finding {
	at, id, _, f := v.cut()
	if f != nil {
		return *f
	}
	// What the client did instead: the first request with Last-Event-ID, or the first
	// tools/call it sent after the cut (the same one again, most likely).
	var other []string
	for _, r := range v.Records[at+1:] {
		if r.Dir != record.Recv {
			continue
		}
		last, has := r.HasHeader("Last-Event-ID")
		switch {
		case r.Channel == record.ChanGET && has && last == id:
			return passed("the client resumed the stream cut after event id %s with GET and Last-Event-ID %s (record %d)", id, last, r.Seq)
		case has && !slices.ContainsFunc(other, func(s string) bool { return strings.Contains(s, "Last-Event-ID") }):
			other = append(other, fmt.Sprintf("a %s with Last-Event-ID %q (record %d)", r.Channel, last, r.Seq))
		case r.Channel == record.ChanPOST && !slices.ContainsFunc(other, func(s string) bool { return strings.Contains(s, "tools/call") }):
			for _, m := range parseMsgs([]byte(r.Body)) {
				if m.Method == "tools/call" {
					other = append(other, fmt.Sprintf("a tools/call by POST (record %d)", r.Seq))
					break
				}
			}
		}
	}
	if len(other) == 0 {
		return violated("the stream of the client's tools/call closed after event id %s before the response, and the client never resumed it with GET and Last-Event-ID", id)
	}
	return violated("the stream of the client's tools/call closed after event id %s before the response; instead of a GET with Last-Event-ID %s the client sent %s", id, id, strings.Join(other, " and "))
}

func judgeRetryWait(v *View) Finding {
	at, id, retry, f := v.cut()
	if f != nil {
		return *f
	}
	if retry <= 0 {
		return na("the probe sent no retry field at %s", v.Revision)
	}
	closed := v.Records[at]
	for _, r := range v.Records[at+1:] {
		if r.Dir != record.Recv || r.Channel != record.ChanGET {
			continue
		}
		// The records are stamped as the probe recorded them, not as the bytes crossed the
		// wire: a millisecond's grace, as the wait is said in whole ones.
		waited := r.At.Sub(closed.At)
		if waited+time.Millisecond < time.Duration(retry)*time.Millisecond {
			return violated("the client reconnected (GET, record %d) %d ms after the stream closed after event id %s with retry %d ms", r.Seq, waited.Milliseconds(), id, retry)
		}
		return passed("the client reconnected (GET, record %d) %d ms after the stream closed with retry %d ms", r.Seq, waited.Milliseconds(), retry)
	}
	return na("the client did not reconnect after the stream closed, so it had no reconnection to delay")
}
