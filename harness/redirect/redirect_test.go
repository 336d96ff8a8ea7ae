package redirect

import (
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

// serve answers on a fresh loopback port with h and returns its base URL.
func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// A redirect within the origin is followed, headers and all; one to another origin (another
// port of the same host included) is not: its 307 is the answer, and the other server hears nothing.
func TestSameOrigin(t *testing.T) {
	var elsewhere atomic.Int64
	other := serve(t, func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) })
	var key atomic.Value
	front := ""
	front = serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp":
			http.Redirect(w, r, front+"/mcp/", http.StatusTemporaryRedirect)
		case "/mcp/":
			key.Store(r.Header.Get("X-Api-Key"))
		case "/away":
			http.Redirect(w, r, other+"/stolen", http.StatusTemporaryRedirect)
		}
	})
	client := &http.Client{CheckRedirect: SameOrigin}
	post := func(path string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, front+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Api-Key", "secret")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post("/mcp"); resp.StatusCode != http.StatusOK || key.Load() != "secret" {
		t.Errorf("within the origin: HTTP %d, key %v", resp.StatusCode, key.Load())
	}
	if resp := post("/away"); resp.StatusCode != http.StatusTemporaryRedirect || elsewhere.Load() != 0 {
		t.Errorf("to another origin: HTTP %d, %d requests there", resp.StatusCode, elsewhere.Load())
	}
}
