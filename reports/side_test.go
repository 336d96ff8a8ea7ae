package reports

import (
	"strings"
	"testing"
)

// An observed requirement may have a verdict for each side: both are kept apart across runs,
// and a baseline written from them has one entry covering both.
func TestSidesKeptApart(t *testing.T) {
	server := Result{ID: "MSG-REQ-ID-UNIQUE", Version: "2025-11-25", Transport: "stdio", Side: "server", Status: Pass}
	client := server
	client.Side, client.Status = "client", Fail
	old := &Run{Results: []Result{server, client}}
	fixed := client
	fixed.Status = Pass
	d := Diff(old, &Run{Results: []Result{server, fixed}})
	if len(d.Fixes) != 1 || len(d.Regressions) != 0 {
		t.Errorf("the client side's fix is one fix: %+v", d)
	}
	b, err := encodeBaseline([]Result{{ID: "X", Version: "v", Transport: "stdio", Side: "server", Status: Fail}, {ID: "X", Version: "v", Transport: "stdio", Side: "client", Status: Fail}}, "known")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "id: X"); n != 1 {
		t.Errorf("%d baseline entries for one requirement's two sides:\n%s", n, b)
	}
}
