package finding

import (
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// A probe's record and a harness's give evidence by the same rule: timed from the run's start,
// the probe's HTTP detail and the harness's words in Meta.
func TestEvidence(t *testing.T) {
	start := time.Now()
	recs := []record.Record{
		{Seq: 1, At: start.Add(5 * time.Millisecond), Dir: record.Recv, Channel: record.ChanPOST, Path: "/mcp", Header: map[string]string{"Mcp-Session-Id": "s"}, Body: "{}"},
		{Seq: 2, At: start.Add(7 * time.Millisecond), Dir: record.Recv, Channel: record.ChanHTTP, Meta: "HTTP 202 (answers #1)"},
	}
	ex := Evidence(recs, start, nil)
	if len(ex) != 2 || ex[0].AtMs != 5 || ex[0].Meta != "/mcp; Mcp-Session-Id: s" || ex[0].Direction != record.Recv || ex[0].Body != "{}" {
		t.Errorf("probe record as evidence: %+v", ex)
	}
	if ex[1].AtMs != 7 || ex[1].Meta != "HTTP 202 (answers #1)" || ex[1].Channel != record.ChanHTTP {
		t.Errorf("harness record as evidence: %+v", ex[1])
	}
}
