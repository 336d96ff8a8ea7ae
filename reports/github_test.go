package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGitHubAnnotations(t *testing.T) {
	run := sampleRun()
	run.Results[1].Message = "server said\n::error title=FORGED::pwned\r\n100% wrong"
	run.Results[1].ID = "FAIL-ONE:x,y"
	var buf bytes.Buffer
	if err := GitHubAnnotations(&buf, run, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		"::error title=FAIL-ONE%3Ax%2Cy::FAIL-ONE:x,y [MUST] 2025-03-26 stdio (fail): server said%0A::error title=FORGED::pwned%0D%0A100%25 wrong",
		"::error title=ERROR-ONE::ERROR-ONE [MUST] 2025-11-25 http (error): connection reset \"><img src=x onerror=alert(1)>",
		"::error title=STALE-ONE::STALE-ONE [MUST] 2025-03-26 sse (stale): " + staleMessage + " (baseline: old bug)",
		"::warning title=WARN-ONE::WARN-ONE [MUST] 2025-06-18 http (warn): warn message for WARN-ONE",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d annotations, want one per failure, error, stale entry and warning (%d):\n%s", len(lines), len(want), buf.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("annotation %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}

	buf.Reset()
	if err := GitHubAnnotations(&buf, run, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "::error title=WARN-ONE::") {
		t.Errorf("under --strict a warning fails the run, so it is an error annotation:\n%s", buf.String())
	}
}

func TestAppendStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "step_summary.md")
	if err := os.WriteFile(path, []byte("# an earlier step's summary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := sampleRun()
	if err := AppendStepSummary(path, run); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# an earlier step's summary\n\n" + string(SummaryMarkdown(run)); string(got) != want {
		t.Errorf("job summary:\n%s\nwant the earlier content, a blank line and summary.md", got)
	}
	if err := AppendStepSummary(filepath.Join(t.TempDir(), "missing", "x.md"), run); err == nil {
		t.Error("no error for a job summary that cannot be opened")
	}
}
