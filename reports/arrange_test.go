package reports

import (
	"slices"
	"strings"
	"testing"
)

func TestArrangeLeadsWithFindingsAndFoldsNotServed(t *testing.T) {
	notServed, rows := arrange(unservedRun().Results)
	if len(notServed) != 2 {
		t.Fatalf("%d not-served lines, want one per refused revision (2): %+v", len(notServed), notServed)
	}
	for i, v := range []string{"2025-06-18", "2025-11-25"} {
		n := notServed[i]
		if n.Version != v || n.Transport != "stdio" || n.Checks != 40 {
			t.Errorf("not-served line %d = %s %s %d checks, want %s stdio 40", i, n.Version, n.Transport, n.Checks, v)
		}
		if !strings.HasPrefix(n.Answer, "initialize without a result: ") {
			t.Errorf("the answer should be what the server said, without the revision: %q", n.Answer)
		}
	}
	var order []string
	for _, r := range rows {
		order = append(order, string(r.Status)+" "+r.ID)
	}
	want := []string{"fail ZZ-FAIL", "fail ZZ-OWN-CONN", "error YY-ERROR", "stale YY-STALE", "warn ZZ-WARN",
		"untestable ZZ-SLOW", "na CAP-NONE"}
	if !slices.Equal(order[:len(want)], want) {
		t.Errorf("rows begin %q, want %q", order[:len(want)], want)
	}
	if len(rows) != len(want)+40 || rows[len(rows)-1].Status != Pass {
		t.Errorf("%d rows ending in %s, want the %d others then 40 passes", len(rows), rows[len(rows)-1].Status, len(want))
	}
}

func TestArrangeFoldsATransportWithoutHandshake(t *testing.T) {
	var results []Result
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		for _, id := range []string{"A", "B", "C"} {
			r := sampleResult(id, NA, v, "http")
			r.Message = "the server has no MCP handshake (LIFE-INIT-RESULT fails at 2025-11-25): 2025-06-18: -32601 Method not found"
			results = append(results, r)
		}
	}
	carrier := sampleResult("LIFE-INIT-RESULT", Fail, "2025-11-25", "http")
	notServed, rows := arrange(append(results, carrier))
	if len(notServed) != 1 || notServed[0].Version != "" || notServed[0].revisionLabel() != "every revision" || notServed[0].Checks != 6 {
		t.Errorf("want one line for the transport, every revision, 6 checks: %+v", notServed)
	}
	if len(rows) != 1 || rows[0].ID != "LIFE-INIT-RESULT" {
		t.Errorf("the carrier's failure must stay a row: %+v", rows)
	}
}
