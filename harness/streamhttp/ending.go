package streamhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// Ending is what ends one MCP session: an HTTP DELETE to the endpoint naming the session, which
// a client that no longer needs a session SHOULD send (Streamable HTTP, "Session Management").
type Ending struct {
	URL, Session, Protocol string
	Header                 http.Header // the caller's own headers (secrets)
}

// Endings are what end the sessions the server issued to c (an initialize's answer may carry
// one that c never adopts: a check that only reads the answer), but those c's own DELETE ended;
// none for a stateless connection.
func (c *Conn) Endings() []*Ending {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stateless {
		return nil
	}
	var out []*Ending
	for _, id := range c.issued {
		if !c.ended[id] {
			out = append(out, &Ending{URL: c.opts.URL, Session: id, Protocol: c.protocol, Header: c.opts.Header})
		}
	}
	return out
}

// noteSession remembers a session id the server issued in resp, and a session that req, a
// DELETE, ended.
func (c *Conn) noteSession(req *http.Request, resp *http.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id := resp.Header.Get(HeaderSession); id != "" && !slices.Contains(c.issued, id) {
		c.issued = append(c.issued, id)
	}
	if req.Method == http.MethodDelete && resp.StatusCode/100 == 2 {
		if c.ended == nil {
			c.ended = map[string]bool{}
		}
		c.ended[req.Header.Get(HeaderSession)] = true
	}
}

// endingBodyMax bounds what is read of a DELETE's answer: nothing in it is used.
const endingBodyMax = 64 << 10

// End sends the DELETE with client and returns the answer's status.
func (e *Ending) End(ctx context.Context, client *http.Client) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, e.URL, nil)
	if err != nil {
		return 0, fmt.Errorf("build DELETE request: %w", err)
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set(HeaderSession, e.Session)
	if e.Protocol != "" {
		req.Header.Set(HeaderProtocol, e.Protocol)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("DELETE %s: %w", e.URL, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, endingBodyMax))
	return resp.StatusCode, nil
}
