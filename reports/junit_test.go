package reports

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"
)

// ingestJUnit writes the run and parses junit.xml with a real JUnit consumer.
func ingestJUnit(t *testing.T, run *Run) junit.Suite {
	t.Helper()
	dir := t.TempDir()
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	suites, err := junit.IngestFile(filepath.Join(dir, JUnitFile))
	if err != nil {
		t.Fatalf("go-junit cannot parse junit.xml: %v", err)
	}
	if len(suites) != 1 {
		t.Fatalf("got %d suites, want 1", len(suites))
	}
	return suites[0]
}

func TestJUnitStatusesAndCounts(t *testing.T) {
	run := sampleRun()
	suite := ingestJUnit(t, run)

	if suite.Name != "mcpspec" {
		t.Errorf("suite name %q", suite.Name)
	}
	want := junit.Totals{Tests: 8, Passed: 3, Skipped: 2, Failed: 2, Error: 1}
	got := suite.Totals
	got.Duration = 0
	if got != want {
		t.Errorf("totals %+v, want %+v", got, want)
	}

	byID := map[string]junit.Test{}
	for _, tc := range suite.Tests {
		byID[strings.Fields(tc.Name)[0]] = tc
	}
	expect := map[string]junit.Status{
		"PASS-ONE": junit.StatusPassed, "FAIL-ONE": junit.StatusFailed, "WARN-ONE": junit.StatusPassed,
		"NA-ONE": junit.StatusSkipped, "UNTESTABLE-ONE": junit.StatusSkipped, "ERROR-ONE": junit.StatusError,
		"EXPECTED-ONE": junit.StatusPassed, "STALE-ONE": junit.StatusFailed,
	}
	for id, status := range expect {
		tc, ok := byID[id]
		if !ok {
			t.Errorf("%s: no testcase", id)
			continue
		}
		if tc.Status != status {
			t.Errorf("%s: status %s, want %s", id, tc.Status, status)
		}
	}

	fail := byID["FAIL-ONE"]
	if fail.Name != "FAIL-ONE [MUST] the FAIL-ONE check (2025-03-26, stdio)" || fail.Classname != "mcpspec.batch" {
		t.Errorf("FAIL-ONE name %q classname %q", fail.Name, fail.Classname)
	}
	if fail.Duration != 12*time.Millisecond {
		t.Errorf("FAIL-ONE duration %v, want 12ms", fail.Duration)
	}
	if !strings.Contains(fail.Message, xssScript) {
		t.Errorf("failure message lost its text: %q", fail.Message)
	}
	body := fail.Error.Error()
	for _, want := range []string{`{"jsonrpc":"2.0","id":null`, "#2 +9ms recv stdout [line 1]", "\ufffd[31m"} {
		if !strings.Contains(body, want) {
			t.Errorf("failure body lacks %q:\n%s", want, body)
		}
	}
	if strings.ContainsRune(body, 0) || strings.ContainsRune(body, 0x1b) {
		t.Error("characters invalid in XML 1.0 reached the file")
	}
	if byID["NA-ONE"].Message != "na: na message for NA-ONE" || byID["NA-ONE"].Classname != "mcpspec.lifecycle" {
		t.Errorf("NA-ONE skipped message %q", byID["NA-ONE"].Message)
	}
	if !strings.HasPrefix(byID["WARN-ONE"].SystemOut, "warning: warn message") {
		t.Errorf("WARN-ONE system-out %q", byID["WARN-ONE"].SystemOut)
	}
	if !strings.Contains(byID["EXPECTED-ONE"].SystemOut, "known bug #12") {
		t.Errorf("EXPECTED-ONE system-out %q", byID["EXPECTED-ONE"].SystemOut)
	}
	if !strings.Contains(byID["STALE-ONE"].Message, "remove this entry") {
		t.Errorf("STALE-ONE message %q", byID["STALE-ONE"].Message)
	}
	if pass := byID["PASS-ONE"]; pass.SystemOut != "" || pass.Error != nil {
		t.Errorf("a passing testcase should carry nothing: %+v", pass)
	}

	props := suite.Properties
	for name, want := range map[string]string{
		"target": "stdio: ./server --flag", "serverInfo.version": "1.2.3", "tool.version": "0.1.0",
		"revisions": "2024-11-05,2025-03-26,2025-06-18,2025-11-25", "transports": "stdio,http,sse",
		"serverInfo.name": run.Target.ServerInfo["name"].(string),
	} {
		if props[name] != want {
			t.Errorf("property %s = %q, want %q", name, props[name], want)
		}
	}
}

func TestJUnitNamesAreUnique(t *testing.T) {
	run := sampleRun()
	same := sampleResult("FAIL-ONE", Fail, "2025-06-18", "http")
	run.Results = append(run.Results, same)
	suite := ingestJUnit(t, run)
	seen := map[string]bool{}
	for _, tc := range suite.Tests {
		if seen[tc.Name] {
			t.Errorf("duplicate testcase name %q", tc.Name)
		}
		seen[tc.Name] = true
	}
}

func TestJUnitCarriesHarnessErrors(t *testing.T) {
	run := &Run{Errors: []string{"server did not start: exec: \"nope\": not found"}}
	suite := ingestJUnit(t, run)
	if suite.Totals.Tests != 1 || suite.Totals.Error != 1 {
		t.Fatalf("totals %+v, want one erroring testcase", suite.Totals)
	}
	if tc := suite.Tests[0]; tc.Classname != harnessClass || !strings.Contains(tc.Error.Error(), "did not start") {
		t.Errorf("harness testcase %+v", tc)
	}
}
