package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
)

// dialTimeout bounds connecting to the upstream: a loopback port answers at once or refuses.
const dialTimeout = 10 * time.Second

// HTTPOptions say where the upstream is.
type HTTPOptions struct {
	// Upstream is the server's URL; only its scheme and host are used: the relay keeps every
	// request's path and query, so the host uses the proxy's origin with the server's paths.
	Upstream *url.URL
	Rec      *Recorder
	Log      io.Writer // the proxy's stderr: one line per upstream the relay could not reach
}

// HTTP is the relay for Streamable HTTP and legacy HTTP+SSE: a reverse proxy that passes every
// method, header (the hop-by-hop ones of RFC 9110 aside) and body both ways, streams a
// text/event-stream response read by read with a flush after each, and records each request,
// response head (with its body unless it is a stream) and SSE event under one exchange number.
type HTTP struct {
	o        HTTPOptions
	origin   string
	rp       *httputil.ReverseProxy
	exchange atomic.Int64
	// legacy holds the paths legacy SSE streams named as their endpoint: the POSTs to them are
	// of the HTTP+SSE transport, recorded as such.
	legacy sync.Map
}

type exchangeKey struct{}

// exchange is one request and its response, numbered for the recording.
type exchange struct {
	n         int
	transport string
	rec       *Recorder
	reqOnce   sync.Once
	request   recording.Record
	body      *capture
	origin    string // the proxy's origin as the host named it (for legacy SSE endpoints)
	answered  atomic.Bool
}

// NewHTTP returns the relay to o.Upstream.
func NewHTTP(o HTTPOptions) *HTTP {
	h := &HTTP{o: o, origin: o.Upstream.Scheme + "://" + o.Upstream.Host}
	transport := &http.Transport{
		Proxy:               nil, // never through an HTTP_PROXY of the environment: the upstream is named
		DialContext:         (&net.Dialer{Timeout: dialTimeout}).DialContext,
		DisableCompression:  true, // the host's Accept-Encoding, and the server's encoding, pass unchanged
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	h.rp = &httputil.ReverseProxy{
		Rewrite:        h.rewrite,
		Transport:      transport,
		FlushInterval:  -1, // every read of a body is passed on and flushed at once
		ModifyResponse: h.response,
		ErrorHandler:   h.failed,
		ErrorLog:       nil,
	}
	return h
}

func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ex := &exchange{n: int(h.exchange.Add(1)), rec: h.o.Rec, origin: "http://" + r.Host}
	h.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
}

func exchangeOf(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	return ex
}

// rewrite points the request at the upstream's origin (the Host header becomes the upstream's)
// and keeps its path, query, method, headers and body.
func (h *HTTP) rewrite(pr *httputil.ProxyRequest) {
	pr.Out.URL.Scheme, pr.Out.URL.Host = h.o.Upstream.Scheme, h.o.Upstream.Host
	pr.Out.Host = ""
	ex := exchangeOf(pr.Out.Context())
	ex.transport = recording.HTTP
	if _, ok := h.legacy.Load(pr.Out.URL.Path); ok {
		ex.transport = recording.LegacySSE
	}
	ex.request = recording.Record{At: time.Now(), From: recording.FromClient, Transport: ex.transport, Exchange: ex.n, Channel: recording.ChanRequest,
		Method: pr.Out.Method, Path: pr.Out.URL.RequestURI(), Header: flatten(pr.Out.Header)}
	if pr.Out.Body == nil || pr.Out.Body == http.NoBody {
		// Recorded with its answer (stamped now): a GET's answer may show it opened a legacy
		// SSE stream, and the request is then of that transport too.
		return
	}
	// A body of known length is recorded at the read that takes its last bytes; one of unknown
	// length ends only at EOF, so a JSON one passes a read behind, recorded before the server
	// has all of it (see capture).
	sized := pr.Out.ContentLength > 0
	ex.body = &capture{src: pr.Out.Body, done: ex.recordRequest, sized: sized, remain: pr.Out.ContentLength,
		behind: !sized && isJSON(pr.Out.Header)}
	pr.Out.Body = ex.body
}

// recordRequest records the request once: when its body has been read to the end, or when the
// answer comes first.
func (ex *exchange) recordRequest() {
	ex.reqOnce.Do(func() {
		if ex.body != nil {
			ex.request.Body, ex.request.Truncated = ex.body.text()
		}
		ex.rec.Add(ex.request)
	})
}

// response records the head and passes the body on through a recorder of its own kind.
func (h *HTTP) response(resp *http.Response) error {
	ex := exchangeOf(resp.Request.Context())
	legacyCandidate := resp.Request.Method == http.MethodGet && isEventStream(resp.Header)
	if !legacyCandidate {
		ex.recordRequest()
	}
	head := recording.Record{At: time.Now(), From: recording.FromServer, Transport: ex.transport, Exchange: ex.n, Channel: recording.ChanResponse,
		Status: resp.StatusCode, Header: flatten(resp.Header)}
	cut := func(err error) {
		ex.rec.Add(recording.Record{From: recording.FromProxy, Transport: ex.transport, Exchange: ex.n, Channel: recording.ChanNote,
			Note: "the upstream's response broke off: " + err.Error()})
	}
	if isEventStream(resp.Header) {
		s := &sseRelay{src: resp.Body, onCut: cut}
		if resp.Request.Method != http.MethodGet {
			ex.rec.Add(head)
			s.ev.emitRecord = func(rec recording.Record) {
				rec.From, rec.Transport, rec.Exchange = recording.FromServer, ex.transport, ex.n
				ex.rec.Add(rec)
			}
			resp.Body = s
			return nil
		}
		// A GET stream is legacy SSE when its first event names the endpoint: its head is
		// recorded (stamped when it came) with the first event, once the transport is known.
		s.from, s.to = h.origin, ex.origin
		var once sync.Once
		headFirst := func(first *recording.Record) {
			once.Do(func() {
				if first != nil && first.Event == "endpoint" {
					ex.transport = recording.LegacySSE
					if u, err := url.Parse(first.Body); err == nil {
						h.legacy.Store(u.Path, true)
					}
				}
				ex.request.Transport, head.Transport = ex.transport, ex.transport
				ex.recordRequest()
				ex.rec.Add(head)
			})
		}
		s.ev.emitRecord = func(rec recording.Record) {
			headFirst(&rec)
			rec.From, rec.Transport, rec.Exchange = recording.FromServer, ex.transport, ex.n
			ex.rec.Add(rec)
		}
		s.onClose = func() { headFirst(nil) }
		resp.Body = s
		return nil
	}
	// A JSON body is of use to the host only whole, so holding its last read costs it nothing;
	// any other body (a stream under another type, say) passes read by read as before.
	body := &capture{src: resp.Body, onErr: cut, behind: isJSON(resp.Header)}
	head.At = time.Time{} // stamped with the body's end, when the record is complete
	body.done = func() {
		head.Body, head.Truncated = body.text()
		ex.rec.Add(head)
	}
	resp.Body = body
	return nil
}

// failed answers 502 for an upstream the relay could not reach, with a one-line reason, and
// records it as the proxy's answer.
func (h *HTTP) failed(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeOf(r.Context())
	ex.recordRequest()
	if r.Context().Err() != nil {
		ex.rec.Add(recording.Record{From: recording.FromProxy, Transport: ex.transport, Exchange: ex.n, Channel: recording.ChanNote,
			Note: "the host went away before the answer: " + err.Error()})
		return
	}
	reason := fmt.Sprintf("mcpspec proxy: upstream %s unreachable: %s", h.origin, oneLine(err))
	fmt.Fprintln(h.o.Log, reason)
	ex.rec.Add(recording.Record{From: recording.FromProxy, Transport: ex.transport, Exchange: ex.n, Channel: recording.ChanResponse,
		Status: http.StatusBadGateway, Header: map[string]string{"Content-Type": "text/plain; charset=utf-8"}, Body: reason})
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintln(w, reason)
}

func oneLine(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

func isEventStream(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && mt == "text/event-stream"
}

func isJSON(h http.Header) bool {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// flatten gives each header its values joined by ", ", as the recording keeps them.
func flatten(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, vs := range h {
		out[k] = strings.Join(vs, ", ")
	}
	return out
}

// capture passes a body through, keeping its first recording.MaxBody bytes for the record,
// and calls done once: at the body's end, or when it is closed before. A request body is read
// by the transport while the answer may already be recorded: kept is shared under mu.
//
// A request body of known length ends at that length without another read of the host's body:
// having copied it, the transport reads once more to check there is nothing past it, and once
// the answer's head has gone back to the host, the server has closed that body; the read fails,
// and the transport drops the connection with the answer's stream on it (golang/go#40747: a
// POST answered with an SSE stream was cut a few times in a hundred).
type capture struct {
	src    io.ReadCloser
	sized  bool  // a request body of known length,
	remain int64 // of which this much is still to come
	mu     sync.Mutex
	kept   []byte
	cut    bool
	once   sync.Once
	done   func()
	onErr  func(error)
	// behind passes a (JSON) response body on one upstream read behind: a read's bytes go to
	// the host only once the next read has come back, so the body's end, and its record (done),
	// come before its last bytes reach the host. Else an upstream that ends a body with a read
	// of its own (a chunked body's terminating chunk) let the host answer the response, and that
	// answer be recorded, before the response was.
	behind bool
	buf    []byte
	ready  []byte // for the host
	held   []byte // the last read's, until the next read comes back
	end    error
}

func (c *capture) Read(p []byte) (int, error) {
	if c.behind {
		return c.readBehind(p)
	}
	if c.sized {
		if c.remain <= 0 {
			c.once.Do(c.done)
			return 0, io.EOF // the whole body: no read past it (see the type's comment)
		}
		if int64(len(p)) > c.remain {
			p = p[:c.remain]
		}
	}
	n, err := c.src.Read(p)
	if c.sized {
		if c.remain -= int64(n); c.remain == 0 && err == nil {
			err = io.EOF
		}
	}
	c.keep(p[:n])
	if err != nil {
		c.finish(err)
	}
	return n, err
}

func (c *capture) readBehind(p []byte) (int, error) {
	if c.buf == nil {
		c.buf = make([]byte, chunk)
	}
	for len(c.ready) == 0 && c.end == nil {
		n, err := c.src.Read(c.buf)
		c.keep(c.buf[:n])
		if err != nil {
			c.ready, c.held, c.end = append(c.held, c.buf[:n]...), nil, err
			c.finish(err)
		} else if n > 0 {
			c.ready, c.held = c.held, append([]byte(nil), c.buf[:n]...)
		}
	}
	if len(c.ready) == 0 {
		return 0, c.end
	}
	n := copy(p, c.ready)
	c.ready = c.ready[n:]
	return n, nil
}

// keep adds b to the bytes kept for the record, up to MaxBody.
func (c *capture) keep(b []byte) {
	if len(b) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	room := recording.MaxBody - len(c.kept)
	if room < len(b) {
		c.cut = true
	}
	c.kept = append(c.kept, b[:min(len(b), max(room, 0))]...)
}

// finish ends the body at err: a break is noted, and the record made.
func (c *capture) finish(err error) {
	if err != io.EOF && c.onErr != nil {
		c.onErr(err)
	}
	c.once.Do(c.done)
}

func (c *capture) Close() error {
	c.once.Do(c.done)
	return c.src.Close()
}

func (c *capture) text() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.kept), c.cut
}
