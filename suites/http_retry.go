package suites

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// HTTP-SSE-RETRY (2025-11-25): a server may close the connection of a request's SSE stream
// before the response (HTTP-SSE-POLL-CLOSE, a permission), and the client then resumes the
// stream with GET and Last-Event-ID; before such a close the server should send a retry field.

func init() {
	conform.Register(conform.Check{ID: "HTTP-SSE-RETRY", Level: "SHOULD", Transports: httpOnly, Revisions: conform.AllCatalogued,
		Connection: conform.Fresh, Waits: true,
		Summary:     "a server that closes the connection of a request's SSE stream before the response sends a retry field on that stream first",
		LevelReason: "Judged only when the slow call's SSE stream ends before carrying the response; a server that keeps it open is n/a. A retry field on any event of the stream before the end counts, the priming event's included. The resumption that follows only tidies up: its outcome is reported, not judged.",
		Ready:       slowToolReady,
		Run:         checkSSERetry})
}

func checkSSERetry(t *conform.T) conform.Finding {
	token := jsonrpc.ID(fmt.Sprintf("%q", "mcpspec-retry-"+randomHex(4)))
	c, err := startSlow(t, t.S.NextID(), token)
	if err != nil {
		return conform.CannotTest("starting the slow call: %v", err)
	}
	if err := waitReady(t, c.d); err != nil {
		return conform.CannotTest("the slow call: %v", err)
	}
	if !isEventStream(c.d) {
		return conform.NA("the slow call was answered as %q, not as an SSE stream", c.d.ContentType)
	}
	r, err := t.S.WaitFor(t.Ctx, c.d, c.from, wire.RespondsTo(c.id))
	if resumes := c.d.Resumes(); len(resumes) > 0 {
		// The connection resumed the stream itself: judge the events before the first close.
		f := judgeRetry(c.d.EventsSoFar()[:resumes[0].AfterEvents], nil)
		f.Message = strings.TrimPrefix(f.Message+"; "+describeResumes(resumes, err == nil), "; ")
		return f
	}
	switch {
	case err == nil && r.Via == c.d:
		return conform.NA("the server kept the connection open until the response")
	case !c.d.IsFinished():
		if err == nil {
			return conform.NA("the response came on another stream while the slow call's stream stayed open")
		}
		return conform.CannotTest("the slow tool %q got no response while its stream stayed open: %v", t.Options().SlowTool, err)
	}
	events := c.d.EventsSoFar()
	f := judgeRetry(events, c.d.Err)
	if err != nil { // the response is still to come: resume the stream for it
		f.Message = strings.TrimPrefix(f.Message+"; "+resumeForResponse(t, c, events), "; ")
	}
	return f
}

// judgeRetry judges the events of a stream whose connection ended before the response.
func judgeRetry(events []wire.Event, streamErr error) conform.Finding {
	ended := fmt.Sprintf("the slow call's SSE stream ended before its response, after %d event(s) [%s]", len(events), describeEvents(events))
	if streamErr != nil {
		ended += fmt.Sprintf(" (%v)", streamErr)
	}
	var with []string
	for i, e := range events {
		if e.HasRetry {
			with = append(with, fmt.Sprint(i+1))
		}
	}
	if len(with) == 0 {
		return conform.Violated("%s, and none of them carried a retry field", ended)
	}
	return conform.Passed("%s; a retry field came in event(s) %s", ended, strings.Join(with, ", "))
}

// describeResumes says how the connection's own resumption of the stream went (reported, not
// judged).
func describeResumes(resumes []wire.Resume, answered bool) string {
	var parts []string
	for _, r := range resumes {
		p := fmt.Sprintf("resumed with Last-Event-ID %s after %d event(s): HTTP %d", r.LastEventID, r.AfterEvents, r.Status)
		if r.Err != nil {
			p += fmt.Sprintf(" (%v)", r.Err)
		}
		parts = append(parts, p)
	}
	if answered {
		parts = append(parts, "the response came after resuming")
	} else {
		parts = append(parts, "the resumed stream brought no response")
	}
	return strings.Join(parts, "; ")
}

// describeEvents lists a stream's events briefly: id, retry, whether data came.
func describeEvents(events []wire.Event) string {
	const most = 8
	var parts []string
	for i, e := range events {
		if i == most {
			parts = append(parts, fmt.Sprintf("… %d more", len(events)-most))
			break
		}
		var p []string
		if e.HasID {
			p = append(p, "id "+clip(e.ID, 40))
		}
		if e.HasRetry {
			p = append(p, "retry")
		}
		if strings.TrimSpace(e.Data) != "" {
			p = append(p, "data "+clip(e.Data, 60))
		} else {
			p = append(p, "no data")
		}
		parts = append(parts, strings.Join(p, ", "))
	}
	return strings.Join(parts, "; ")
}

// resumeForResponse resumes the call's stream with GET and Last-Event-ID, so that the server
// can deliver the response rather than hold it, and waits for it within the request timeout.
// It says what came of it; the verdict does not depend on it.
func resumeForResponse(t *conform.T, c slowCall, events []wire.Event) string {
	last := ""
	for _, e := range events {
		if e.HasID && e.ID != "" {
			last = e.ID
		}
	}
	if last == "" {
		return "the stream carried no event id to resume it from"
	}
	ctx, cancel := context.WithCancel(t.Ctx)
	defer cancel() // ends the GET stream
	from := t.S.Mark()
	g := httpConn(t).Do(ctx, nil, streamhttp.Request{Method: http.MethodGet, Header: http.Header{"Last-Event-ID": {last}}})
	if err := waitReady(t, g); err != nil {
		return fmt.Sprintf("resuming with Last-Event-ID %s: %v", last, err)
	}
	if g.Status != http.StatusOK || !isEventStream(g) {
		return fmt.Sprintf("resuming with Last-Event-ID %s got HTTP %d %q", last, g.Status, g.ContentType)
	}
	if _, err := t.S.WaitFor(ctx, g, from, wire.RespondsTo(c.id)); err != nil {
		return fmt.Sprintf("resuming with Last-Event-ID %s brought no response: %v", last, err)
	}
	return fmt.Sprintf("resuming with Last-Event-ID %s brought the response", last)
}
