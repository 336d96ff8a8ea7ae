package streamhttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/sse"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Resuming a POST's SSE stream that the server ended early. From 2025-11-25 a server may close
// the connection of a request's SSE stream before the response, once it has sent an event with
// an id (polling; it should send a retry field first), and the client continues the same stream
// with GET and Last-Event-ID. The harness does so itself, into the POST's own delivery, so that
// every check waiting on that delivery sees the response.
//
// Only at 2025-11-25 and later handshake revisions: resumption exists since 2025-03-26, but
// before 2025-11-25 the server should keep the stream open until the response, and checks
// judge an early close there (HTTP-SSE-NO-EARLY-CLOSE): resuming would hide it. The stateless
// revision (2026-07-28) has no resumption at all, a closed stream means cancellation.

// firstResumingRevision is the first revision at which a client resumes a stream cut short.
const firstResumingRevision = "2025-11-25"

// Resumption bounds: the longest wait before reconnecting, whatever retry the server asked
// for, and how many GETs one stream gets before the harness gives up on its responses.
const (
	maxResumeDelay = time.Second
	maxResumes     = 3
)

// streamState is what resuming a stream needs to know of what it carried so far.
type streamState struct {
	lastID  string        // the SSE last event id: the last id field's value
	hasID   bool          // whether any event had an id field
	retry   time.Duration // the last retry field's value, 0 when none came
	pending map[jsonrpc.ID]bool
}

// saw notes an event's id and retry fields.
func (st *streamState) saw(ev sse.Event) {
	if ev.HasID {
		st.lastID, st.hasID = ev.ID, true
	}
	if ev.HasRetry {
		st.retry = ev.Retry
	}
}

// answered strikes off the requests that msg answers.
func (st *streamState) answered(msg jsonrpc.Message) {
	for id := range st.pending {
		if wire.ContainsResponse(msg, id) {
			delete(st.pending, id)
		}
	}
}

// requestIDs returns the ids of the requests in a POST body (one request or a batch).
func requestIDs(body []byte) map[jsonrpc.ID]bool {
	ids := map[jsonrpc.ID]bool{}
	m := jsonrpc.Parse(body)
	elems := []jsonrpc.Message{m}
	if m.Kind == jsonrpc.Batch {
		elems = m.Elems
	}
	for _, e := range elems {
		if e.Kind == jsonrpc.Request {
			ids[e.ID] = true
		}
	}
	return ids
}

// resumable reports whether a POST stream that ended cleanly is to be resumed: requests are
// still unanswered, the stream gave an id to resume from, the session's revision resumes, and
// the harness has not closed the connection itself.
func (c *Conn) resumable(st *streamState) bool {
	if st.lastID == "" || c.base.Err() != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.stateless && c.protocol >= firstResumingRevision && c.wantedLocked(st)
}

// wantedLocked strikes off the pending requests the harness has cancelled (a server ends the
// stream of a cancelled request without its response) and reports whether any is left.
func (c *Conn) wantedLocked(st *streamState) bool {
	for id := range st.pending {
		if c.cancelled[id] {
			delete(st.pending, id)
		}
	}
	return len(st.pending) > 0
}

// noteCancels remembers the requests that a frame (a notification or a batch) cancels.
func (c *Conn) noteCancels(body []byte) {
	m := jsonrpc.Parse(body)
	elems := []jsonrpc.Message{m}
	if m.Kind == jsonrpc.Batch {
		elems = m.Elems
	}
	for _, e := range elems {
		if e.Kind != jsonrpc.Notification || e.Method != "notifications/cancelled" {
			continue
		}
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(e.Params, &p) != nil {
			continue
		}
		if id, err := jsonrpc.CanonicalID(p.RequestID); err == nil {
			c.mu.Lock()
			if c.cancelled == nil {
				c.cancelled = map[jsonrpc.ID]bool{}
			}
			c.cancelled[id] = true
			c.mu.Unlock()
		}
	}
}

// resumeStream continues the stream of delivery d with GET and Last-Event-ID until its
// requests are answered, the server refuses, or maxResumes GETs have ended without them. The
// resumed events join d's; d.Err says why the responses did not come. seq is the POST's
// transcript number.
func (c *Conn) resumeStream(d *wire.Delivery, st *streamState, channel, seq string) {
	for range maxResumes {
		if !c.waitRetry(st.retry) {
			return // the harness closed the connection: as for any stream it ends
		}
		r := wire.Resume{AfterEvents: len(d.EventsSoFar()), LastEventID: st.lastID}
		resp, err := c.resumeGET(st.lastID, seq)
		if err != nil {
			r.Err = err
			d.AddResume(r)
			d.Err = err
			return
		}
		r.Status, r.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
		if media, _, _ := mime.ParseMediaType(r.ContentType); resp.StatusCode != http.StatusOK || media != "text/event-stream" {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			_ = resp.Body.Close()
			r.Err = fmt.Errorf("resuming the SSE stream with GET and Last-Event-ID %s got HTTP %d %q: %s", st.lastID, r.Status, r.ContentType, clip(body))
			d.AddResume(r)
			d.Err = r.Err
			return
		}
		d.AddResume(r)
		n, err := c.readStream(resp.Body, channel, d, st)
		_ = resp.Body.Close()
		d.Events += n
		if err != nil {
			d.Err = fmt.Errorf("the SSE stream resumed with Last-Event-ID %s: %w", r.LastEventID, err)
			return
		}
		c.mu.Lock()
		wanted := c.wantedLocked(st)
		c.mu.Unlock()
		if !wanted || c.base.Err() != nil {
			return
		}
		if st.lastID == "" {
			d.Err = errors.New("the resumed SSE stream ended without the response and reset its event id: nothing to resume from")
			return
		}
	}
	d.Err = fmt.Errorf("the SSE stream ended without the response %d times after being resumed with Last-Event-ID", maxResumes)
}

// waitRetry waits the reconnection delay the server asked for, at most maxResumeDelay; it
// reports false when the connection was closed meanwhile.
func (c *Conn) waitRetry(retry time.Duration) bool {
	timer := time.NewTimer(min(retry, maxResumeDelay))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-c.base.Done():
		return false
	}
}

// resumeGET sends the GET that resumes a stream, with the session's headers, and records its
// answer in the transcript.
func (c *Conn) resumeGET(last, seq string) (*http.Response, error) {
	req, err := c.newRequest(nil, Request{Method: http.MethodGet, Header: http.Header{"Last-Event-ID": {last}}})
	if err != nil {
		return nil, err
	}
	resumes := " (resumes the stream of #" + seq + ")"
	req.Header.Del(seqHeader)
	resp, err := c.client.Do(req)
	if err != nil {
		c.tr.Add(record.Recv, "HTTP", "no response"+resumes, []byte(err.Error()))
		return nil, fmt.Errorf("resuming the SSE stream with GET and Last-Event-ID %s: %w", last, err)
	}
	meta := fmt.Sprintf("HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	c.tr.Add(record.Recv, "HTTP", meta+resumes, nil)
	return resp, nil
}

// clip shortens a body for an error message.
func clip(b []byte) string {
	const most = 200
	if len(b) > most {
		return string(b[:most]) + "…"
	}
	return string(b)
}
