package relay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpspec/mcpspec/harness/recording"
)

// httpRelay puts the relay in front of upstream and returns its URL and recording.
func httpRelay(t *testing.T, upstream string) (string, *Recorder, *bytes.Buffer) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec := NewRecorder(recording.NewWriter(&buf, nil))
	srv := httptest.NewServer(NewHTTP(HTTPOptions{Upstream: u, Rec: rec, Log: io.Discard}))
	t.Cleanup(srv.Close)
	return srv.URL, rec, &buf
}

func closeAndRead(t *testing.T, rec *Recorder, buf *bytes.Buffer) []recording.Record {
	t.Helper()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _, err := recording.Read(buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestHTTPRelaysRequestAndResponseUnchanged(t *testing.T) {
	var upstreamHost, gotConnHeader, gotCustom string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upstreamHost, gotConnHeader, gotCustom = r.Host, r.Header.Get("X-Hop"), r.Header.Get("Mcp-Session-Id")
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s-1")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"echo":%q}}`, body)
	}))
	defer up.Close()
	proxy, rec, buf := httpRelay(t, up.URL+"/mcp")
	req, _ := http.NewRequest(http.MethodPost, proxy+"/mcp?x=1", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", "s-1")
	req.Header.Set("Authorization", "Bearer s3cret-token")
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "dropped")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"jsonrpc":"2.0","id":1,"result":{"echo":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}}`; string(got) != want {
		t.Errorf("body = %s", got)
	}
	if resp.Header.Get("Mcp-Session-Id") != "s-1" || resp.StatusCode != 200 {
		t.Errorf("response head = %d %v", resp.StatusCode, resp.Header)
	}
	if upstreamHost != strings.TrimPrefix(up.URL, "http://") {
		t.Errorf("Host at the upstream = %q, want its own", upstreamHost)
	}
	if gotConnHeader != "" || gotCustom != "s-1" {
		t.Errorf("a header named by Connection is hop-by-hop (got %q); others pass (got %q)", gotConnHeader, gotCustom)
	}
	recs := closeAndRead(t, rec, buf)
	if len(recs) != 2 {
		t.Fatalf("%d records, want the request and the response: %+v", len(recs), recs)
	}
	q, a := recs[0], recs[1]
	if q.Channel != recording.ChanRequest || q.Method != "POST" || q.Path != "/mcp?x=1" || q.Body != `{"jsonrpc":"2.0","id":1,"method":"ping"}` || q.Exchange != 1 {
		t.Errorf("request record = %+v", q)
	}
	if q.Header["Authorization"] != "Bearer [REDACTED]" {
		t.Errorf("a credential is not kept in the recording: %q", q.Header["Authorization"])
	}
	if a.Channel != recording.ChanResponse || a.Status != 200 || a.Body != string(got) || a.Exchange != 1 || a.Header["Mcp-Session-Id"] != "s-1" {
		t.Errorf("response record = %+v", a)
	}
}

// TestHTTPStreamsEventByEvent: each event reaches the host before the upstream writes the next.
func TestHTTPStreamsEventByEvent(t *testing.T) {
	next := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(w, "id: e%d\r\ndata: {\"n\":%d}\r\n\r\n", i, i)
			w.(http.Flusher).Flush()
			select {
			case <-next:
			case <-time.After(relayTimeout):
				return
			}
		}
	}))
	defer up.Close()
	proxy, rec, buf := httpRelay(t, up.URL)
	req, _ := http.NewRequest(http.MethodPost, proxy+"/mcp", strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	var raw strings.Builder
	for i := 1; i <= 3; i++ {
		for {
			line, err := br.ReadString('\n')
			raw.WriteString(line)
			if err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
			if line == "\r\n" {
				break
			}
		}
		next <- struct{}{} // only now may the upstream write the next one
	}
	rest, _ := io.ReadAll(br)
	resp.Body.Close()
	raw.Write(rest)
	want := "id: e1\r\ndata: {\"n\":1}\r\n\r\nid: e2\r\ndata: {\"n\":2}\r\n\r\nid: e3\r\ndata: {\"n\":3}\r\n\r\n"
	if raw.String() != want {
		t.Errorf("stream = %q", raw.String())
	}
	recs := closeAndRead(t, rec, buf)
	var events []string
	for _, r := range recs {
		if r.Channel == recording.ChanEvent {
			events = append(events, r.EventID+"="+r.Body)
		}
	}
	if got := strings.Join(events, " "); got != `e1={"n":1} e2={"n":2} e3={"n":3}` {
		t.Errorf("events recorded: %s", got)
	}
}

func TestHTTPLegacySSEEndpointGetsTheProxyOrigin(t *testing.T) {
	var up *httptest.Server
	posted := make(chan string, 1)
	up = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s/message?sessionId=7\n\n", up.URL)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			posted <- string(b)
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer up.Close()
	proxy, rec, buf := httpRelay(t, up.URL+"/sse")
	resp, err := http.Get(proxy + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	ev, _ := br.ReadString('\n')
	data, _ := br.ReadString('\n')
	if ev != "event: endpoint\n" || data != "data: "+proxy+"/message?sessionId=7\n" {
		t.Fatalf("the host got %q %q, want the endpoint on the proxy's origin", ev, data)
	}
	endpoint := strings.TrimSpace(strings.TrimPrefix(data, "data: "))
	pr, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	pr.Body.Close()
	if got := <-posted; got != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("upstream got %q", got)
	}
	resp.Body.Close()
	recs := closeAndRead(t, rec, buf)
	var sawEndpoint, sawPost bool
	for _, r := range recs {
		if r.Channel == recording.ChanEvent && r.Event == "endpoint" {
			sawEndpoint = true
			if r.Body != up.URL+"/message?sessionId=7" || !strings.Contains(r.Note, proxy) || r.Transport != recording.LegacySSE {
				t.Errorf("endpoint record = %+v: the server's URL, noted as rewritten", r)
			}
		}
		if r.Channel == recording.ChanRequest && r.Method == "POST" {
			sawPost = true
			if r.Transport != recording.LegacySSE {
				t.Errorf("the POST to the legacy endpoint is recorded as %q", r.Transport)
			}
		}
	}
	if !sawEndpoint || !sawPost {
		t.Errorf("recording lacks the endpoint event or the POST: %+v", recs)
	}
}

func TestHTTPRefusedUpstreamIs502(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close() // nobody listens there now: connections are refused
	proxy, rec, buf := httpRelay(t, refused+"/mcp")
	resp, err := http.Post(proxy+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || strings.Count(string(body), "\n") != 1 || !strings.Contains(string(body), "refused") {
		t.Errorf("got %d %q, want 502 with one line saying why", resp.StatusCode, body)
	}
	recs := closeAndRead(t, rec, buf)
	if len(recs) != 2 || recs[1].From != recording.FromProxy || recs[1].Status != 502 {
		t.Errorf("recording = %+v, want the request and the proxy's 502", recs)
	}
}

// TestHTTPLongSSELinesPassWhole: a data line longer than the relay holds, and an event of many
// lines past the recording's bound, reach the host byte for byte; the record is cut and marked.
func TestHTTPLongSSELinesPassWhole(t *testing.T) {
	long := strings.Repeat("y", holdLine*3+17)
	many := strings.Repeat("data: "+strings.Repeat("z", 1000)+"\n", recording.MaxBody/1000+50)
	stream := "id: 1\ndata: " + long + "\n\n" + many + "\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	defer up.Close()
	proxy, rec, buf := httpRelay(t, up.URL)
	resp, err := http.Post(proxy+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != stream {
		t.Fatalf("the host got %d bytes, want the %d the upstream sent, unchanged", len(got), len(stream))
	}
	var events []recording.Record
	for _, r := range closeAndRead(t, rec, buf) {
		if r.Channel == recording.ChanEvent {
			events = append(events, r)
		}
	}
	if len(events) != 2 {
		t.Fatalf("%d events recorded, want 2", len(events))
	}
	if events[0].Body != long || events[0].Truncated || len(events[1].Body) != recording.MaxBody || !events[1].Truncated {
		t.Errorf("events: %d; first %d bytes (cut %v), second %d bytes (cut %v)", len(events), len(events[0].Body), events[0].Truncated, len(events[1].Body), events[1].Truncated)
	}
}

// closedAfter is a request body as the HTTP server hands it over once the answer's head is
// written: its bytes, then an error for any further read.
type closedAfter struct{ r io.Reader }

func (c *closedAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		return n, errors.New("http: invalid Read on closed Body")
	}
	return n, err
}

func (c *closedAfter) Close() error { return nil }

// TestCaptureEndsASizedBodyWithoutReadingPastIt: the transport's check read after a body of
// known length must not reach the host's body (golang/go#40747).
func TestCaptureEndsASizedBodyWithoutReadingPastIt(t *testing.T) {
	recorded := false
	c := &capture{src: &closedAfter{strings.NewReader(`{"id":1}`)}, sized: true, remain: 8, done: func() { recorded = true }}
	got, err := io.ReadAll(c)
	if err != nil || string(got) != `{"id":1}` {
		t.Fatalf("read %q, %v: want the body and a clean end", got, err)
	}
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("a read past the body gave %d, %v; want 0, EOF", n, err)
	}
	if text, cut := c.text(); !recorded || text != `{"id":1}` || cut {
		t.Errorf("recorded %v: %q (cut %v)", recorded, text, cut)
	}
}

// TestCaptureRecordsAResponseBeforeItsLastBytePasses: the host may answer a response as soon as
// it has the whole body, so the body's record comes first, however the upstream's reads end it
// (with its last bytes, or with a read of their own after them, as a chunked body's does).
func TestCaptureRecordsAResponseBeforeItsLastBytePasses(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":1,"result":{}}`
	sources := map[string]func() io.Reader{
		"eof-after":  func() io.Reader { return strings.NewReader(body) },
		"eof-with":   func() io.Reader { return iotest.DataErrReader(strings.NewReader(body)) },
		"byte":       func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
		"halves-eof": func() io.Reader { return iotest.HalfReader(strings.NewReader(body)) },
	}
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			recorded := ""
			c := &capture{src: io.NopCloser(src()), behind: true}
			c.done = func() { recorded, _ = c.text() }
			var passed []byte
			p := make([]byte, 5)
			for {
				n, err := c.Read(p)
				passed = append(passed, p[:n]...)
				if len(passed) == len(body) && recorded != body {
					t.Fatalf("the whole body passed on, recorded %q", recorded)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if string(passed) != body {
				t.Errorf("passed on %q", passed)
			}
		})
	}
}

// TestHTTPChunkedJSONPassesWhole: JSON bodies of unknown length, held a read behind (see
// capture), still pass both ways unchanged and are recorded whole.
func TestHTTPChunkedJSONPassesWhole(t *testing.T) {
	const ask, answer = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`
	var got []byte
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer[:10])
		w.(http.Flusher).Flush() // a chunked body, its end in a read of its own
		io.WriteString(w, answer[10:])
	}))
	defer up.Close()
	proxy, rec, buf := httpRelay(t, up.URL)
	req, _ := http.NewRequest(http.MethodPost, proxy+"/mcp", iotest.HalfReader(strings.NewReader(ask)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != ask || string(body) != answer {
		t.Errorf("upstream got %q, host got %q", got, body)
	}
	recs := closeAndRead(t, rec, buf)
	if len(recs) != 2 || recs[0].Body != ask || recs[1].Body != answer {
		t.Errorf("records: %+v", recs)
	}
}
