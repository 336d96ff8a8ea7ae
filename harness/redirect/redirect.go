// Package redirect is where mcpspec's HTTP clients of a server under test may be redirected: only
// within the origin of their first request. A server that sends them to another origin gets its
// 3xx taken as the answer, so that it cannot make mcpspec carry the run's headers (tokens, API
// keys) to another host, or send anything off the loopback interface it was pointed at.
package redirect

import (
	"fmt"
	"net/http"
	"net/url"
)

// maxRedirects bounds a chain of redirects within one origin, as Go's default client does.
const maxRedirects = 10

// SameOrigin is an http.Client's CheckRedirect that follows a redirect only to the scheme, host
// and port of the first request (a server's /mcp to /mcp/, say).
func SameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if !Within(via[0].URL, req.URL) {
		return http.ErrUseLastResponse
	}
	return nil
}

// Within says whether u is of origin's scheme, host and port.
func Within(origin, u *url.URL) bool {
	return u.Scheme == origin.Scheme && u.Host == origin.Host
}
