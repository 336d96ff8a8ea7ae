package reports

import (
	"strings"
	"testing"
)

func TestCompareIsolated(t *testing.T) {
	res := func(id string, s Status, msg string) Result {
		return Result{ID: id, Version: "2025-03-26", Transport: "http", Status: s, Message: msg}
	}
	flaky := res("D", Expected, "comes and goes")
	flaky.Intermittent = true
	once := res("F", Pass, "")
	once.Version = "2025-11-25" // run once, at the newest revision selected
	full := &Run{Results: []Result{res("A", Pass, ""), res("B", Pass, ""), res("C", NA, "no tools"), flaky, once}}
	alone := &Run{Results: []Result{res("B", Fail, "a response that answers\nnothing"), res("A", Pass, ""), res("E", Pass, ""), res("D", Pass, ""), res("F", Pass, "")}}
	diffs := CompareIsolated("--focus '^B-'", full, alone)
	if len(diffs) != 2 || diffs[0].Alone.ID != "B" || diffs[1].Alone.ID != "E" {
		t.Fatalf("want the changed B and the absent E, got %v", diffs)
	}
	want := "B 2025-03-26 http: full run pass (no message); alone (--focus '^B-') fail (a response that answers nothing)"
	if got := diffs[0].String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := diffs[1].String(); !strings.Contains(got, "full run absent") {
		t.Errorf("a result the full run lacks: %s", got)
	}
}
