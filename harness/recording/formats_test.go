package recording

import (
	"bufio"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/harness/transcript"
)

func TestDetect(t *testing.T) {
	cases := map[string]string{
		`{"seq":1,"from":"client","channel":"stdin","body":"{}"}` + "\n":                     FormatRecording,
		`{"at":"x","transport":"stdio","session":"s","seq":1,"dir":"send","body":""}` + "\n": FormatTranscript,
		`{"log":{"entries":[]}}`: FormatHAR,
		"{\n  \"log\": {\n":      FormatHAR,
		"# capture\n\n> {}\n":    FormatStdio,
	}
	for in, want := range cases {
		got, err := Detect(bufio.NewReader(strings.NewReader(in)))
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "\n \n", "hello\n", `{"x":1}` + "\n"} {
		if got, err := Detect(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q detected as %q", bad, got)
		}
	}
}

func TestReadStdioLines(t *testing.T) {
	in := "# c\n> {\"a\":1}\n< {\"b\":2}\r\n! log\n\n> {\"c\":3}\n"
	recs, skipped, err := ReadStdioLines(strings.NewReader(in), 3)
	if err != nil || len(recs) != 3 || skipped != 1 {
		t.Fatalf("%d records, %d skipped: %v", len(recs), skipped, err)
	}
	want := []struct{ from, ch, body string }{{FromClient, ChanStdin, `{"a":1}`}, {FromServer, ChanStdout, `{"b":2}`}, {FromServer, ChanStderr, "log"}}
	for i, w := range want {
		if r := recs[i]; r.From != w.from || r.Channel != w.ch || r.Body != w.body || r.Seq != i+1 || r.Transport != Stdio {
			t.Errorf("record %d: %+v, want %+v", i, r, w)
		}
	}
}

func TestReadHAR(t *testing.T) {
	sse := "id: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n: keep-alive\n\nid: 8\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n\n"
	doc := `{"log":{"entries":[
	 {"startedDateTime":"2026-01-01T00:00:02Z","request":{"method":"POST","url":"http://127.0.0.1:1/mcp?x=1","headers":[{"name":"mcp-session-id","value":"s1"},{"name":":authority","value":"h"}],"postData":{"text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}},
	  "response":{"status":200,"headers":[{"name":"content-type","value":"text/event-stream"}],"content":{"mimeType":"text/event-stream","text":"` + base64.StdEncoding.EncodeToString([]byte(sse)) + `","encoding":"base64"}}},
	 {"startedDateTime":"2026-01-01T00:00:01Z","request":{"method":"POST","url":"http://127.0.0.1:1/mcp","headers":[]},
	  "response":{"status":200,"headers":[{"name":"Content-Type","value":"application/json"}],"content":{"mimeType":"application/json","text":"{}"}}}]}}`
	recs, _, err := ReadHAR(strings.NewReader(doc), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d records, want 2 + 2 + 2 events: %+v", len(recs), recs)
	}
	if recs[0].Exchange != 1 || recs[0].Path != "/mcp" || recs[1].Body != "{}" {
		t.Errorf("the earlier entry comes first: %+v %+v", recs[0], recs[1])
	}
	req := recs[2]
	if req.Path != "/mcp?x=1" || req.Header["Mcp-Session-Id"] != "s1" || req.Header[":authority"] != "" {
		t.Errorf("request: %+v", req)
	}
	ev := recs[4]
	if ev.Channel != ChanEvent || ev.EventID != "7" || ev.Event != "" || !strings.Contains(ev.Body, `"id":1`) || ev.Exchange != 2 {
		t.Errorf("first event: %+v", ev)
	}
	if recs[5].EventID != "8" || recs[3].Body != "" {
		t.Errorf("second event %+v, stream head body %q", recs[5], recs[3].Body)
	}
	if _, _, err := ReadHAR(strings.NewReader(`{"log":{"entries":[{"startedDateTime":"yesterday"}]}}`), 0); err == nil {
		t.Error("a bad startedDateTime is refused")
	}
}

func TestReadTranscript(t *testing.T) {
	lines := []string{
		`{"at":"2026-01-01T00:00:00.1Z","transport":"stdio","session":"a","seq":1,"dir":"send","channel":"stdin","body":"{\"x\":1}"}`,
		`{"at":"2026-01-01T00:00:00.2Z","transport":"stdio","session":"a","seq":2,"dir":"recv","channel":"stdout","body":"{\"y\":2}"}`,
		`{"at":"2026-01-01T00:00:00.3Z","transport":"stdio","session":"a","seq":3,"dir":"note","channel":"harness","body":"schema: fine"}`,
		`{"at":"2026-01-01T00:00:01Z","transport":"http","session":"h1","seq":1,"dir":"send","channel":"POST","meta":"/mcp; Accept: application/json, text/event-stream; Mcp-Session-Id: S","body":"{}"}`,
		`{"at":"2026-01-01T00:00:03Z","transport":"http","session":"h1","seq":2,"dir":"recv","channel":"HTTP","meta":"HTTP 200 text/event-stream (stream) (answers #1)","body":""}`,
		`{"at":"2026-01-01T00:00:04Z","transport":"http","session":"h1","seq":3,"dir":"recv","channel":"POST-SSE","meta":"id: 1-1; retry: 1000","body":""}`,
		`{"at":"2026-01-01T00:00:02Z","transport":"http","session":"h2","seq":1,"dir":"send","channel":"POST","meta":"/mcp","body":"{}"}`,
		`{"at":"2026-01-01T00:00:02.5Z","transport":"http","session":"h2","seq":2,"dir":"recv","channel":"HTTP","meta":"HTTP 200 application/json; charset=utf-8; Mcp-Session-Id: T (answers #1)","body":"{}"}`,
		`{"at":"2026-01-01T00:00:05Z","transport":"http","session":"h2","seq":3,"dir":"note","channel":"harness","body":"12 entries not kept (transcript limit), up to #40"}`,
	}
	convs, skipped, err := ReadTranscript(strings.NewReader(strings.Join(lines, "\n")), 0)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 12 || len(convs) != 2 {
		t.Fatalf("%d conversations, %d skipped", len(convs), skipped)
	}
	if s := convs[0]; len(s) != 2 || s[0].From != FromClient || s[1].Channel != ChanStdout {
		t.Errorf("stdio: %+v", s)
	}
	web := convs[1]
	if len(web) != 5 {
		t.Fatalf("http: %d records", len(web))
	}
	// In time order: h1's POST, h2's POST and response, h1's stream head and event.
	if web[0].Header["Accept"] != "application/json, text/event-stream" || web[0].Header["Mcp-Session-Id"] != "S" || web[0].Path != "/mcp" {
		t.Errorf("request meta: %+v", web[0])
	}
	if r := web[2]; r.Status != 200 || r.Header["Content-Type"] != "application/json; charset=utf-8" || r.Header["Mcp-Session-Id"] != "T" || r.Exchange != web[1].Exchange {
		t.Errorf("response meta: %+v (request exchange %d)", r, web[1].Exchange)
	}
	if web[0].Exchange == web[1].Exchange {
		t.Error("two connections' first requests share an exchange")
	}
	if ev := web[4]; ev.Channel != ChanEvent || ev.EventID != "1-1" || ev.Exchange != web[0].Exchange {
		t.Errorf("event: %+v", ev)
	}
	for i, r := range web {
		if r.Seq != i+1 {
			t.Errorf("record %d numbered %d", i, r.Seq)
		}
	}
}

func TestLoadNamesTheFormat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.txt")
	if err := os.WriteFile(p, []byte("> {}\n< {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(p, "", 0)
	if err != nil || l.Format != FormatStdio || len(l.Conversations) != 1 || len(l.Conversations[0]) != 2 {
		t.Fatalf("%+v %v", l, err)
	}
	if _, err := Load(p, FormatRecording, 0); err == nil {
		t.Error("a stdio capture read as a recording is refused")
	}
}

// What transcript.Archive writes, ReadTranscript reads: the two share transcript.Line, and a
// record's HTTP detail reaches the file as its Summary.
func TestReadTranscriptOfArchive(t *testing.T) {
	dir := t.TempDir()
	a, err := transcript.NewArchive(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a.Write("stdio", "stdio/1", []record.Record{
		{Seq: 1, At: at, Dir: record.Send, Channel: record.ChanStdin, Body: `{"x":1}`},
		{Seq: 2, At: at.Add(time.Millisecond), Dir: record.Recv, Channel: record.ChanStdout, Body: `{"y":2}`},
	})
	a.Write("http", "http/1", []record.Record{
		{Seq: 1, At: at.Add(time.Second), Dir: record.Send, Channel: record.ChanPOST, Meta: "/mcp; Mcp-Session-Id: S", Body: "{}"},
		{Seq: 2, At: at.Add(2 * time.Second), Dir: record.Recv, Channel: record.ChanHTTP, Meta: "HTTP 202 (answers #1)"},
	})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Load(filepath.Join(dir, transcript.ArchiveFile), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Format != FormatTranscript || len(l.Conversations) != 2 {
		t.Fatalf("format %q, %d conversations", l.Format, len(l.Conversations))
	}
	if s := l.Conversations[0]; len(s) != 2 || s[0].From != FromClient || s[0].Body != `{"x":1}` || !s[1].At.Equal(at.Add(time.Millisecond)) {
		t.Errorf("stdio: %+v", s)
	}
	web := l.Conversations[1]
	if len(web) != 2 || web[0].Path != "/mcp" || web[0].Header["Mcp-Session-Id"] != "S" || web[1].Status != 202 || web[1].Exchange != web[0].Exchange {
		t.Errorf("http: %+v", web)
	}
}
