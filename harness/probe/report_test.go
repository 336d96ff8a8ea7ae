package probe

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
)

// TestReporterSendReturnsOnceRecorded: a record a probe sent is in the recording when Send
// returns, so that records of probes on different connections (the subscriptions scenario's
// first probe and the one the client launches after it) are recorded in the order they
// happened, however the collector's readers are scheduled.
func TestReporterSendReturnsOnceRecorded(t *testing.T) {
	rec := NewRecorder(nil)
	const token = "test-token"
	col, err := NewCollector(rec, token)
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close(reportAckTimeout)
	var want []string
	var reps []*Reporter
	for probe := range 3 {
		rep, err := DialReporter(col.Addr(), token, reportAckTimeout)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			body := fmt.Sprintf("probe %d record %d", probe, i)
			rep.Send(record.Record{Dir: record.Note, Body: body})
			want = append(want, body)
			got := rec.Records()
			if len(got) != len(want) || got[len(got)-1].Body != body {
				t.Fatalf("after Send of %q the recording has %d records, the last %q", body, len(got), lastBody(got))
			}
		}
		// The next probe starts while this one is still connected, as a relaunch may.
		reps = append(reps, rep)
	}
	for _, rep := range reps {
		_ = rep.Close()
	}
	if !col.Close(reportAckTimeout) {
		t.Errorf("the collector's connections did not end within %s", reportAckTimeout)
	}
}

// TestReporterWithoutCollectorDoesNotWait: a collector that never acknowledges (gone, or not
// reading) costs the probe one bounded wait, not one per record.
func TestReporterWithoutCollectorDoesNotWait(t *testing.T) {
	rec := NewRecorder(nil)
	col, err := NewCollector(rec, "right")
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close(reportAckTimeout)
	rep, err := DialReporter(col.Addr(), "wrong", reportAckTimeout) // the collector hangs up
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	start := time.Now()
	for i := range 5 {
		rep.Send(record.Record{Dir: record.Note, Body: fmt.Sprint(i)})
	}
	if d := time.Since(start); d >= 2*reportAckTimeout {
		t.Errorf("5 records to a collector that refused the probe took %s", d)
	}
	if n := len(rec.Records()); n != 0 {
		t.Errorf("a probe with the wrong token got %d records in", n)
	}
}

func lastBody(recs []record.Record) string {
	if len(recs) == 0 {
		return ""
	}
	return recs[len(recs)-1].Body
}
