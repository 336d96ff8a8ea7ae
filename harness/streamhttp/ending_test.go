package streamhttp

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
)

// A connection's Endings are every session the server issued to it, the one it adopted and one
// an initialize it only read gave, except a session its own DELETE ended; each Ending ends its
// session on the server.
func TestEndingsEndWhatTheServerIssued(t *testing.T) {
	url := startReference(t, reference.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	c := dial(t, Options{URL: url})
	initialize(t, ctx, c, "2025-06-18")
	adopted := c.Session()

	// An initialize whose answer nobody adopts, and one that a DELETE of the connection's then ends.
	other := func(id string) string {
		params := map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}}
		d := c.Do(ctx, request(t, jsonrpc.StringID(id), "initialize", params), Request{NoSession: true})
		if err := d.Finished(ctx); err != nil {
			t.Fatal(err)
		}
		return d.Header.Get(HeaderSession)
	}
	unadopted, deleted := other("a"), other("b")
	d := c.Do(ctx, nil, Request{Method: http.MethodDelete, Header: http.Header{HeaderSession: {deleted}}})
	if err := d.Finished(ctx); err != nil || d.Status != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d, %v", d.Status, err)
	}

	endings := c.Endings()
	var got []string
	for _, e := range endings {
		got = append(got, e.Session)
	}
	if len(got) != 2 || got[0] != adopted || got[1] != unadopted {
		t.Fatalf("Endings: %v, want [%s %s]", got, adopted, unadopted)
	}
	for _, e := range endings {
		if status, err := e.End(ctx, http.DefaultClient); err != nil || status != http.StatusOK {
			t.Errorf("ending %s: HTTP %d, %v", e.Session, status, err)
		}
	}
	// Ended: the server no longer knows it.
	d = c.Do(ctx, request(t, jsonrpc.NumberID(9), "ping", nil), Request{})
	if err := d.Finished(ctx); err != nil || d.Status != http.StatusNotFound {
		t.Errorf("a request in the ended session: HTTP %d, %v", d.Status, err)
	}

	stateless := dial(t, Options{URL: url})
	stateless.SetStateless(true)
	stateless.SetSession("whatever")
	if e := stateless.Endings(); len(e) != 0 {
		t.Errorf("a stateless connection has endings: %v", e)
	}
}
