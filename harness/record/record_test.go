package record

import "testing"

// Summary says in one line what evidence shows beside the body: a probe record's HTTP detail,
// the harness's own word (Meta), or both.
func TestSummary(t *testing.T) {
	cases := []struct {
		r    Record
		want string
	}{
		{Record{Dir: Recv, Channel: ChanStdout, Meta: "HTTP 202 (answers #3)"}, "HTTP 202 (answers #3)"},
		{Record{Dir: Recv, Channel: ChanPOST, Path: "/mcp", Query: "a=1",
			Header: map[string]string{"Mcp-Session-Id": "s1", "Content-Length": "2", "Mcp-Param-B": "2", "Mcp-Param-A": "1"}},
			"/mcp?a=1; Mcp-Session-Id: s1; Mcp-Param-A: 1; Mcp-Param-B: 2"},
		{Record{Dir: Send, Channel: ChanHTTP, Status: 404, Meta: "session ended"}, "HTTP Not Found; session ended"},
		{Record{Dir: Note, Channel: "harness"}, ""},
	}
	for _, c := range cases {
		if got := c.r.Summary(); got != c.want {
			t.Errorf("%+v: Summary() = %q, want %q", c.r, got, c.want)
		}
	}
}
