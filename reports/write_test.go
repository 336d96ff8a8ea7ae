package reports

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWriteAllWritesEveryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "out")
	run := sampleRun()
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	for _, name := range []string{JUnitFile, ResultsFile, SummaryFile, HTMLFile} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.Size() == 0 {
			t.Errorf("%s is empty", name)
		}
	}
}

func TestResultsJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	run := sampleRun()
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	back, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatalf("ReadResults: %v", err)
	}
	if len(back.Results) != len(run.Results) {
		t.Fatalf("read back %d results, want %d", len(back.Results), len(run.Results))
	}
	for i := range run.Results {
		want := run.Results[i]
		want.Evidence = nonNil(want.Evidence) // written as [], read back as empty
		if !reflect.DeepEqual(back.Results[i], want) {
			t.Errorf("result %d differs after the round trip:\n got %+v\nwant %+v", i, back.Results[i], want)
		}
	}
	for _, s := range AllStatuses() {
		if got, ok := back.Summary[s]; !ok || got != 1 {
			t.Errorf("summary[%s] = %d (present %v), want 1", s, got, ok)
		}
	}
	if back.Target.ServerInfo["name"] != run.Target.ServerInfo["name"] || back.Tool != run.Tool ||
		!back.StartedAt.Equal(run.StartedAt) || back.SchemaVersion != 1 {
		t.Errorf("run metadata differs: %+v", back)
	}

	raw, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"evidence": []`) {
		t.Error("a result without evidence should carry an empty list, not null")
	}
	if !strings.Contains(string(raw), `<script>`) {
		t.Error("evidence should be stored verbatim, not HTML-escaped")
	}
}

func TestWriteAllOnEmptyRun(t *testing.T) {
	dir := t.TempDir()
	run := &Run{Errors: []string{"server did not start: exit status 1"}}
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	back, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatalf("ReadResults: %v", err)
	}
	if back.Results == nil || len(back.Results) != 0 || len(back.Errors) != 1 {
		t.Errorf("got results %#v errors %#v", back.Results, back.Errors)
	}
}

func TestWriteAllReportsUnwritableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(filepath.Join(file, "out"), sampleRun()); err == nil {
		t.Error("writing below a regular file should fail")
	}
}

func TestReadResultsRejectsOtherSchemas(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"v2.json":      `{"schemaVersion": 2, "results": []}`,
		"none.json":    `{"results": []}`,
		"broken.json":  `{"schemaVersion": 1,`,
		"unknown.json": `{"schemaVersion": 1, "results": [{"id": "X", "status": "great"}]}`,
	}
	for name, content := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadResults(path); err == nil {
			t.Errorf("%s: accepted, want an error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := ReadResults(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file should be an error")
	}
}
