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
		!back.StartedAt.Equal(run.StartedAt) || back.SchemaVersion != SchemaVersion {
		t.Errorf("run metadata differs: %+v", back)
	}

	raw, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"evidence":[]`) {
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
		"v3.json":      `{"schemaVersion": 3, "results": []}`,
		"v0.json":      `{"schemaVersion": 0, "results": []}`,
		"no-exchange":  `{"schemaVersion": 2, "results": [{"id": "X", "status": "pass", "evidence": [0]}], "exchanges": [], "texts": []}`,
		"no-text":      `{"schemaVersion": 2, "results": [], "exchanges": [[1, 2, "send", "stdin", "", ["a", 0]]], "texts": []}`,
		"short-row":    `{"schemaVersion": 2, "results": [], "exchanges": [[1, 2, "send", "stdin", ""]], "texts": []}`,
		"bad-part":     `{"schemaVersion": 2, "results": [], "exchanges": [[1, 2, "send", "stdin", "", [true]]], "texts": []}`,
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

// results.json keeps each exchange once and each text many exchanges repeat once, and reads
// back every result's evidence byte for byte: messages that differ only in their ids, ids of
// every JSON type (an escaped quote in one), frames with no id, a meta many frames carry.
func TestResultsJSONSharesEvidence(t *testing.T) {
	big := strings.Repeat(`{"name":"echo","description":"Returns the given text unchanged."},`, 40)
	meta := "/mcp; Accept: application/json, text/event-stream; Mcp-Session-Id: 4fc1653d9b6f2ae8"
	var frames []Exchange
	for i, id := range []string{`"mcpspec:A:1"`, `7`, `-12`, `"a\"b"`, `null`, `"mcpspec:B:2"`} {
		frames = append(frames,
			Exchange{Seq: 2 * i, AtMs: int64(i), Direction: "send", Channel: "POST", Meta: meta,
				Body: `{"id":` + id + `,"jsonrpc":"2.0","method":"tools/list"}`},
			Exchange{Seq: 2*i + 1, AtMs: int64(i), Direction: "recv", Channel: "HTTP", Meta: "HTTP 200 application/json",
				Body: `{"jsonrpc":"2.0","id": ` + id + `,"result":{"tools":[` + big + `{}]}}`})
	}
	frames = append(frames, Exchange{Seq: 99, Direction: "note", Channel: "stderr", Body: `"id": unterminated`},
		Exchange{Seq: 100, Direction: "recv", Channel: "stdout", Body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`})

	run := sampleRun()
	copies := 0
	for i := range run.Results {
		if run.Results[i].Status == Pass || run.Results[i].Status == Fail {
			run.Results[i].Evidence = frames[i%3:] // overlapping slices of one session
			copies++
		}
	}
	dir := t.TempDir()
	if err := WriteAll(dir, run); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range run.Results {
		want := run.Results[i]
		want.Evidence = nonNil(want.Evidence)
		if !reflect.DeepEqual(back.Results[i], want) {
			t.Errorf("result %d differs after the round trip:\n got %+v\nwant %+v", i, back.Results[i].Evidence, want.Evidence)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	// Once after a string id, once after a number, once after null (a frame with no id to cut
	// at): however many results and ids show it.
	if n := strings.Count(string(raw), `Returns the given text unchanged.`); n != 3*40 {
		t.Errorf("the tools list appears %d times in results.json, want 3", n/40)
	}
	if n := strings.Count(string(raw), "Mcp-Session-Id: 4fc1653d9b6f2ae8"); n != 1 {
		t.Errorf("a meta %d frames carry is written %d times, want once", len(frames)-2, n)
	}
	if copies < 2 {
		t.Fatal("the sample run should hold two results with evidence")
	}
}

// A results.json of schema version 1, as stored from an earlier run (mcpspec diff's OLD), still
// reads, its evidence inline.
func TestReadResultsSchemaVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResultsFile)
	old := `{"schemaVersion": 1, "tool": {"name": "mcpspec", "version": "0.1.0"}, "target": {"description": "stdio: ./s", "transports": ["stdio"]},
	"results": [{"id": "PING-RESPOND", "version": "2025-06-18", "transport": "stdio", "status": "fail", "message": "no answer",
	  "evidence": [{"seq": 1, "atMs": 2, "dir": "send", "channel": "stdin", "body": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}]}]}`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Exchange{{Seq: 1, AtMs: 2, Direction: "send", Channel: "stdin", Body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`}}
	if len(run.Results) != 1 || !reflect.DeepEqual(run.Results[0].Evidence, want) || run.Summary[Fail] != 1 {
		t.Errorf("read %+v", run.Results)
	}
}
