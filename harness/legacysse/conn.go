// Package legacysse is a client of the HTTP+SSE transport of 2024-11-05: one long-lived SSE
// stream (GET) whose first event names the endpoint to POST messages to, and on which every
// message from the server arrives as an event.
package legacysse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/redirect"
	"github.com/mcpspec/mcpspec/harness/sse"
	"github.com/mcpspec/mcpspec/harness/transcript"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// Options configure a connection.
type Options struct {
	URL           string      // the SSE endpoint, e.g. http://127.0.0.1:3001/sse
	Header        http.Header // added to every request; secrets, never transcribed
	HeaderTimeout time.Duration
	MaxEvent      int
	Transcript    *transcript.Transcript
	Server        interface {
		Done() <-chan struct{}
		ExitErr() error
		StderrTail() string
	}
}

// maxEventsBeforeEndpoint bounds how many events are read while waiting for the endpoint event.
const maxEventsBeforeEndpoint = 16

// Conn is a wire.Conn over one SSE stream and its POST endpoint.
type Conn struct {
	opts   Options
	client *http.Client
	inbox  *wire.Inbox
	tr     *transcript.Transcript
	cancel context.CancelFunc
	base   context.Context
	done   chan struct{}

	// Stream is the GET response; FirstEvent is the first event it carried.
	Stream     *wire.Delivery
	FirstEvent wire.Event
	// Endpoint is where messages are POSTed, resolved against the SSE URL.
	Endpoint string

	mu      sync.Mutex
	viol    []wire.Violation
	closing sync.Once
	posts   sync.WaitGroup
}

// Dial opens the SSE stream and waits, bounded by the header timeout, for the endpoint event.
func Dial(ctx context.Context, opts Options) (*Conn, error) {
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = 10 * time.Second
	}
	if opts.MaxEvent <= 0 {
		opts.MaxEvent = 16 << 20
	}
	if opts.Transcript == nil {
		opts.Transcript = transcript.New()
	}
	base, cancel := context.WithCancel(context.Background())
	c := &Conn{
		opts:   opts,
		client: &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: opts.HeaderTimeout, DisableCompression: true}, CheckRedirect: redirect.SameOrigin},
		inbox:  wire.NewInbox(), tr: opts.Transcript, base: base, cancel: cancel, done: make(chan struct{}),
		Stream: wire.NewDelivery(),
	}
	req, err := http.NewRequestWithContext(base, http.MethodGet, opts.URL, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("build GET %s: %w", opts.URL, err)
	}
	c.addHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	c.tr.Add(record.Send, "GET", req.URL.Path+"; Accept: text/event-stream", nil)
	endpoint := make(chan error, 1)
	go c.readStream(req, endpoint)
	wait, stop := context.WithTimeout(ctx, opts.HeaderTimeout)
	defer stop()
	select {
	case err := <-endpoint:
		if err != nil {
			c.Close()
			return nil, err
		}
	case <-wait.Done():
		c.Close()
		return nil, fmt.Errorf("no endpoint event on %s within %s", opts.URL, opts.HeaderTimeout)
	}
	if opts.Server != nil {
		go func() {
			select {
			case <-opts.Server.Done():
				c.inbox.Close(fmt.Errorf("server exited (%v)", opts.Server.ExitErr()))
			case <-base.Done():
			}
		}()
	}
	return c, nil
}

func (c *Conn) addHeaders(req *http.Request) {
	for k, vs := range c.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}

// readStream reads the SSE stream: the endpoint event first, then messages.
func (c *Conn) readStream(req *http.Request, endpoint chan<- error) {
	d := c.Stream
	defer d.MarkFinished()
	report := func(err error) {
		select {
		case endpoint <- err:
		default:
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		d.Err = fmt.Errorf("GET %s: %w", req.URL, err)
		d.MarkReady()
		report(d.Err)
		return
	}
	defer resp.Body.Close()
	d.Status, d.Header, d.ContentType = resp.StatusCode, resp.Header, resp.Header.Get("Content-Type")
	c.tr.Add(record.Recv, "HTTP", fmt.Sprintf("HTTP %d %s (stream)", resp.StatusCode, d.ContentType), nil)
	d.MarkReady()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(d.ContentType, "text/event-stream") {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		report(fmt.Errorf("GET %s answered HTTP %d %q, not an event stream: %s", req.URL, resp.StatusCode, d.ContentType, strings.TrimSpace(string(body))))
		return
	}
	rd := sse.NewReader(resp.Body, sse.WithMaxEventSize(c.opts.MaxEvent))
	haveEndpoint := false
	for n := 0; ; n++ {
		ev, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
				d.Err = err
			}
			if !haveEndpoint {
				report(fmt.Errorf("the SSE stream of %s ended before an endpoint event (%v)", req.URL, err))
			}
			c.inbox.Close(fmt.Errorf("the SSE stream ended (%v)", err))
			return
		}
		we := wire.Event{ID: ev.ID, HasID: ev.HasID, Type: ev.Type, Data: ev.Data, HasRetry: ev.HasRetry, At: time.Now()}
		d.AddEvent(we)
		if n == 0 {
			c.FirstEvent = we
		}
		c.tr.Add(record.Recv, "SSE", "event: "+ev.Type, []byte(ev.Data))
		if !haveEndpoint {
			if ev.Type == "endpoint" {
				u, err := req.URL.Parse(strings.TrimSpace(ev.Data))
				if err != nil {
					report(fmt.Errorf("endpoint event %q is not a URI: %w", ev.Data, err))
					return
				}
				if !redirect.Within(req.URL, u) {
					// As for a redirect: the run's headers and messages go nowhere else.
					report(fmt.Errorf("the endpoint event names %q, not of the origin of %s: mcpspec posts only within the origin it was given", u, req.URL))
					return
				}
				c.Endpoint, haveEndpoint = u.String(), true
				report(nil)
			} else if n >= maxEventsBeforeEndpoint {
				report(fmt.Errorf("no endpoint event among the first %d events of %s", maxEventsBeforeEndpoint, req.URL))
				return
			}
			continue
		}
		if strings.TrimSpace(ev.Data) == "" {
			continue
		}
		msg := jsonrpc.Parse([]byte(ev.Data))
		if msg.Kind == jsonrpc.Invalid {
			c.violate("invalid-sse-data", msg.Problem, ev.Data)
		}
		if ev.Type != "" && ev.Type != "message" {
			c.violate("unexpected-event-type", "a message arrived as event "+ev.Type, ev.Data)
		}
		c.inbox.Put("SSE", msg)
		c.inbox.NoteBounds(c.tr, len(ev.Data))
	}
}

func (c *Conn) violate(kind, detail, sample string) {
	if len(sample) > 512 {
		sample = sample[:512]
	}
	c.mu.Lock()
	if len(c.viol) < 200 {
		c.viol = append(c.viol, wire.Violation{At: time.Now(), Kind: kind, Detail: detail, Sample: sample})
	}
	c.mu.Unlock()
}

// Request adjusts one POST.
type Request struct {
	Header http.Header // added after the defaults, replacing them
	URL    string      // default: the endpoint
	Method string      // default POST
}

// Send implements wire.Conn: POST frame to the endpoint. The reply comes on the stream, so the
// delivery only tells the POST's status.
func (c *Conn) Send(ctx context.Context, frame []byte) (*wire.Delivery, error) {
	return c.Do(ctx, frame, Request{}), nil
}

// Do POSTs (or sends r.Method) and returns at once; the delivery becomes ready with the status.
func (c *Conn) Do(ctx context.Context, body []byte, r Request) *wire.Delivery {
	d := wire.NewDelivery()
	target, method := r.URL, r.Method
	if target == "" {
		target = c.Endpoint
	}
	if method == "" {
		method = http.MethodPost
	}
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(c.base, method, target, rd)
	if err != nil {
		d.Err = err
		d.MarkFinished()
		return d
	}
	c.addHeaders(req)
	if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range r.Header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	meta := req.URL.RequestURI()
	if o := req.Header.Get("Origin"); o != "" {
		meta += "; Origin: " + o
	}
	seq := c.tr.Add(record.Send, method, meta, body)
	c.posts.Add(1)
	go func() {
		defer c.posts.Done()
		defer d.MarkFinished()
		resp, err := c.client.Do(req)
		if err != nil {
			d.Err = fmt.Errorf("%s %s: %w", method, target, err)
			c.tr.Add(record.Recv, "HTTP", fmt.Sprintf("no response (answers #%d)", seq), []byte(err.Error()))
			return
		}
		defer resp.Body.Close()
		d.Status, d.Header, d.ContentType = resp.StatusCode, resp.Header, resp.Header.Get("Content-Type")
		if strings.HasPrefix(d.ContentType, "text/event-stream") {
			// A second stream (a check probing GET): its status is all that is wanted.
			c.tr.Add(record.Recv, "HTTP", fmt.Sprintf("HTTP %d %s (stream, not read; answers #%d)", resp.StatusCode, d.ContentType, seq), nil)
			return
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, int64(c.opts.MaxEvent)))
		d.Body = b
		c.tr.Add(record.Recv, "HTTP", fmt.Sprintf("HTTP %d %s (answers #%d)", resp.StatusCode, d.ContentType, seq), b)
	}()
	return d
}

// SSEURL is the stream's URL.
func (c *Conn) SSEURL() string { return c.opts.URL }

// Transport implements wire.Conn.
func (c *Conn) Transport() string { return wire.SSE }

// Inbox implements wire.Conn.
func (c *Conn) Inbox() *wire.Inbox { return c.inbox }

// Transcript implements wire.Conn.
func (c *Conn) Transcript() *transcript.Transcript { return c.tr }

// Violations implements wire.Conn.
func (c *Conn) Violations() []wire.Violation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]wire.Violation(nil), c.viol...)
}

// Done implements wire.Conn.
func (c *Conn) Done() <-chan struct{} {
	if c.opts.Server != nil {
		select {
		case <-c.opts.Server.Done():
			return c.opts.Server.Done()
		default:
		}
	}
	return c.done
}

// Err implements wire.Conn.
func (c *Conn) Err() error {
	if c.opts.Server != nil {
		return c.opts.Server.ExitErr()
	}
	return nil
}

// Diagnostics implements wire.Conn.
func (c *Conn) Diagnostics() string {
	if c.opts.Server != nil {
		return c.opts.Server.StderrTail()
	}
	return ""
}

// Close ends the stream (and with it the session) and every pending POST.
func (c *Conn) Close() error {
	c.closing.Do(func() {
		close(c.done)
		c.cancel()
		c.posts.Wait()
		c.inbox.Close(errors.New("connection closed by the harness"))
		c.client.CloseIdleConnections()
	})
	return nil
}
