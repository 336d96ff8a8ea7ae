package reports

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// annotationMax bounds the message of one annotation: GitHub shows a few lines of it, and the
// whole finding is in the reports.
const annotationMax = 4 << 10

// GitHubAnnotations writes every failure, error, stale baseline entry and warning as a GitHub
// Actions workflow command ("::error title=ID::message"), in listOrder, so that each shows on
// the job's page. Warnings are errors under strict, as the exit code counts them. Server text is
// escaped so that it cannot end the command and start another.
func GitHubAnnotations(w io.Writer, r *Run, strict bool) error {
	strict = strict || r.Strict
	_, rows := arrange(r.Results)
	var b strings.Builder
	for _, res := range rows {
		level := ""
		switch res.Status {
		case Fail, Error, Stale:
			level = "error"
		case Warn:
			level = "warning"
			if strict {
				level = "error"
			}
		default:
			continue
		}
		msg := res.Message
		if res.Status == Stale && res.BaselineReason != "" {
			msg += " (baseline: " + res.BaselineReason + ")"
		}
		fmt.Fprintf(&b, "::%s title=%s::%s\n", level, annotationProperty(res.ID),
			annotationData(fmt.Sprintf("%s [%s] %s %s (%s): %s", res.ID, res.Level, res.Version, res.Transport, res.Status, msg)))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write GitHub annotations: %w", err)
	}
	return nil
}

// annotationData escapes a workflow command's message: a newline would end the command, and the
// next line could be a command of the server's making; "##[" is a command anywhere in a line.
func annotationData(s string) string {
	s = escapeControls(clip(s, annotationMax), true)
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", "##[", `#\u0023[`).Replace(s)
}

// annotationProperty escapes a workflow command's property value, which also ends at ":" or ",".
func annotationProperty(s string) string {
	return strings.NewReplacer(":", "%3A", ",", "%2C").Replace(annotationData(s))
}

// SummaryMarkdown is the content of summary.md.
func SummaryMarkdown(r *Run) []byte { return encodeSummaryMarkdown(r) }

// AppendStepSummary appends summary.md to the job summary file GitHub Actions names in
// $GITHUB_STEP_SUMMARY (path), after a blank line so that it starts a block of its own.
func AppendStepSummary(path string, r *Run) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open the job summary: %w", err)
	}
	_, werr := f.Write(append([]byte("\n"), encodeSummaryMarkdown(r)...))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("append to the job summary %s: %w", path, werr)
	}
	return nil
}
