package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Names of the files WriteAll produces.
const (
	JUnitFile   = "junit.xml"
	ResultsFile = "results.json"
	SummaryFile = "summary.md"
	HTMLFile    = "report.html"
)

// WriteAll creates dir and writes junit.xml, results.json, summary.md and
// report.html into it. It first completes r (Summary recomputed,
// SchemaVersion set when zero), then writes every file it can: one failure
// does not stop the others, and all failures come back joined.
func WriteAll(dir string, r *Run) error {
	if r.SchemaVersion == 0 {
		r.SchemaVersion = SchemaVersion
	}
	r.Summarize()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create report directory: %w", err)
	}

	encoders := []struct {
		name   string
		encode func(*Run) ([]byte, error)
	}{
		{JUnitFile, encodeJUnit},
		{ResultsFile, encodeResults},
		{SummaryFile, func(r *Run) ([]byte, error) { return encodeSummaryMarkdown(r), nil }},
		{HTMLFile, encodeHTML},
	}
	var errs []error
	for _, e := range encoders {
		data, err := e.encode(r)
		if err == nil {
			err = WriteFileAtomic(filepath.Join(dir, e.name), data, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", e.name, err))
		}
	}
	return errors.Join(errs...)
}
