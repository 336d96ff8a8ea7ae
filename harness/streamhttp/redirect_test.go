package streamhttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
)

// A server that redirects a request to another origin does not get it sent there, with the
// run's headers: its 307 is the answer. (Package redirect has the policy; this is its wiring.)
func TestNoRedirectToAnotherOrigin(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer front.Close()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	c := dial(t, Options{URL: front.URL + "/mcp", Header: http.Header{"X-Api-Key": {"secret"}}})
	d := c.Do(ctx, request(t, jsonrpc.NumberID(1), "ping", nil), Request{})
	if err := d.Finished(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Status != http.StatusTemporaryRedirect || elsewhere.Load() != 0 {
		t.Errorf("HTTP %d, %d requests at the other origin", d.Status, elsewhere.Load())
	}
}
