package reports

import (
	"strings"
	"testing"
)

func matrixResult(id, version, transport string, status Status, message string) Result {
	return Result{ID: id, Title: id + " [MUST] does the thing", Level: "MUST", Area: "lifecycle", Version: version, Transport: transport, Status: status, Message: message}
}

func TestMatrixAddTargetColumnsAndVerdict(t *testing.T) {
	m := &Matrix{}
	m.AddTarget(MatrixTarget{Name: "a"}, &Run{
		Target: Target{Transports: []string{"stdio", "http"}},
		Results: []Result{
			matrixResult("PING-RESPOND", "2025-06-18", "stdio", Pass, "ok"),
			matrixResult("PING-RESPOND", "2025-06-18", "http", Fail, "no pong"),
			matrixResult("PING-RESPOND", "2024-11-05", "stdio", NA, "the server does not serve revision 2024-11-05: it answered initialize with protocolVersion \"2025-06-18\""),
			matrixResult("PING-RESPOND", "2024-11-05", "http", NA, "the server does not serve revision 2024-11-05: it answered initialize with protocolVersion \"2025-06-18\""),
			matrixResult("BATCH-REMOVED", "2025-06-18", "stdio", NA, "the server declares no tools"),
			// A check on a raw connection of its own ran at a revision the server does not serve:
			// the revision is still not served.
			matrixResult("LIFE-STDIO-EXIT-ON-EOF", "2024-11-05", "stdio", Pass, ""),
		},
	})
	m.AddTarget(MatrixTarget{Name: "b"}, &Run{
		Target:  Target{Transports: []string{"stdio"}},
		Results: []Result{matrixResult("PING-RESPOND", "2025-06-18", "stdio", Fail, "no pong")},
	})
	a := m.Targets[0]
	if a.Error != "" || strings.Join(a.Served, ",") != "2025-06-18 http,2025-06-18 stdio" || len(a.NotServed) != 2 {
		t.Errorf("target a: %+v", a)
	}
	var labels []string
	for _, c := range m.Columns {
		labels = append(labels, m.ColumnLabel(c))
	}
	// Transport shows only for the target reached over two.
	if got := strings.Join(labels, "|"); got != "a 2025-06-18 http|a 2025-06-18 stdio|b 2025-06-18" {
		t.Errorf("columns %q", got)
	}
	if c := m.Rows[1].Cells["a 2025-06-18 stdio"]; m.Rows[1].ID != "PING-RESPOND" || c.Status != Pass || c.Message != "" {
		t.Errorf("a pass keeps no message: %+v", m.Rows[1])
	}
	devs := m.Deviations()
	if len(devs) != 2 || devs[0].Target != "a" || devs[1].Target != "b" || devs[0].Message != "no pong" || devs[0].Summary != "does the thing" {
		t.Errorf("deviations %+v", devs)
	}
	if m.Failed() {
		t.Error("every target ran: the matrix has not failed")
	}
}

func TestMatrixTargetThatCouldNotRun(t *testing.T) {
	m := &Matrix{}
	m.AddTarget(MatrixTarget{Name: "gone", Error: "start: no such file"}, nil)
	m.AddTarget(MatrixTarget{Name: "half"}, &Run{
		Target: Target{Transports: []string{"stdio", "http"}},
		Results: []Result{
			matrixResult("PING-RESPOND", "2025-06-18", "stdio", Pass, ""),
			matrixResult("PING-RESPOND", "2025-06-18", "http", Error, "cannot start the server: address in use"),
		},
	})
	if !m.Failed() || m.Targets[0].Error != "start: no such file" {
		t.Errorf("a target without results is a failure: %+v", m.Targets[0])
	}
	if got := m.Targets[1].Error; got != "http: cannot start the server: address in use" {
		t.Errorf("a transport with nothing but errors did not run: %q", got)
	}
	md := m.Markdown()
	if !strings.Contains(md, "could not run: start: no such file") {
		t.Errorf("markdown lacks the reason:\n%s", md)
	}
}

func TestMatrixDeviationsMergeColumns(t *testing.T) {
	m := &Matrix{}
	m.AddTarget(MatrixTarget{Name: "a"}, &Run{
		Target: Target{Transports: []string{"stdio", "http"}},
		Results: []Result{
			matrixResult("JRPC-VERSION", "2025-03-26", "stdio", Fail, "accepted 1.0"),
			matrixResult("JRPC-VERSION", "2025-06-18", "stdio", Fail, "accepted 1.0"),
			matrixResult("JRPC-VERSION", "2025-06-18", "http", Fail, "accepted 2.0"),
			matrixResult("JRPC-VERSION", "2025-11-25", "stdio", Fail, "something else"),
		},
	})
	devs := m.Deviations()
	if len(devs) != 2 || strings.Join(devs[0].Where, ",") != "2025-03-26 stdio,2025-06-18 http,2025-06-18 stdio" {
		t.Errorf("deviations %+v", devs)
	}
}

func TestClipKeepsRunes(t *testing.T) {
	if got := clip("ééé", 3); got != "é…" {
		t.Errorf("clip = %q", got)
	}
	if got := clip("abc", 3); got != "abc" {
		t.Errorf("clip = %q", got)
	}
}

func TestServedSummaryGroupsRevisions(t *testing.T) {
	got := ServedSummary([]string{"2025-06-18 stdio", "2025-03-26 http", "2025-03-26 stdio", "2025-06-18 http", "2026-07-28 stdio"})
	if want := "2025-03-26, 2025-06-18 (http, stdio); 2026-07-28 (stdio)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A client check's cell stands for several scenarios: a failure in one is not hidden by a pass
// in the next, and a pass shows over a scenario that had nothing to judge.
func TestMatrixCellOfSeveralScenarios(t *testing.T) {
	scen := func(r Result, s string) Result { r.Scenario = s; return r }
	m := &Matrix{}
	m.AddTarget(MatrixTarget{Name: "c"}, &Run{
		Target: Target{Transports: []string{"http"}},
		Results: []Result{
			scen(matrixResult("A", "2025-06-18", "http", Fail, "no header"), "initialize"),
			scen(matrixResult("A", "2025-06-18", "http", Pass, ""), "tools_call"),
			scen(matrixResult("B", "2025-06-18", "http", Untestable, "did not page"), "initialize"),
			scen(matrixResult("B", "2025-06-18", "http", Pass, ""), "tools_call"),
		},
	})
	cells := map[string]MatrixCell{}
	for _, r := range m.Rows {
		cells[r.ID] = r.Cells["c 2025-06-18 http"]
	}
	if c := cells["A"]; c.Status != Fail || c.Message != "initialize: no header" {
		t.Errorf("A: %+v, want the initialize scenario's failure", c)
	}
	if c := cells["B"]; c.Status != Pass {
		t.Errorf("B: %+v, want pass", c)
	}
}
