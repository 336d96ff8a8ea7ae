package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// encodeResults renders the run as indented JSON. Empty lists are written as
// [] rather than null so consumers need no special case.
func encodeResults(r *Run) ([]byte, error) {
	out := *r
	if out.SchemaVersion == 0 {
		out.SchemaVersion = SchemaVersion
	}
	out.Summary = countStatuses(r.Results)
	out.Revisions = nonNil(out.Revisions)
	out.Target.Transports = nonNil(out.Target.Transports)
	out.Results = make([]Result, len(r.Results))
	for i, res := range r.Results {
		res.Evidence = nonNil(res.Evidence)
		out.Results[i] = res
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // evidence stays readable: "<" is not "\u003c"
	enc.SetIndent("", "  ")
	if err := enc.Encode(&out); err != nil {
		return nil, fmt.Errorf("encode results: %w", err)
	}
	return buf.Bytes(), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// MaxResultsBytes bounds the results.json ReadResults reads: reports keep their evidence
// bounded, so a larger file (or /dev/zero) is not one of ours, and reading it whole could
// exhaust memory.
const MaxResultsBytes = 256 << 20

// ReadResults reads a results.json written by WriteAll. It rejects files of
// another schema version, a matrix.json, files over MaxResultsBytes and results
// with an unknown status.
func ReadResults(path string) (*Run, error) {
	data, err := readBounded(path, MaxResultsBytes)
	if err != nil {
		return nil, err
	}
	var probe struct {
		SchemaVersion *int            `json:"schemaVersion"`
		Targets       json.RawMessage `json:"targets"`
		Results       json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %w", path, err)
	}
	switch {
	case probe.Targets != nil && probe.Results == nil:
		return nil, fmt.Errorf("%s: a matrix.json (it lists targets), not the results.json of one run", path)
	case probe.SchemaVersion == nil:
		return nil, fmt.Errorf("%s: no schemaVersion field; is this an mcpspec results.json?", path)
	case *probe.SchemaVersion != SchemaVersion:
		return nil, fmt.Errorf("%s: schemaVersion %d is not supported (this mcpspec reads schemaVersion %d)",
			path, *probe.SchemaVersion, SchemaVersion)
	}

	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, res := range run.Results {
		if !res.Status.Valid() {
			return nil, fmt.Errorf("%s: results[%d] (%s): unknown status %q", path, i, res.ID, res.Status)
		}
	}
	run.Summarize()
	return &run, nil
}

// readBounded reads path whole, refusing more than limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB: not an mcpspec results.json", path, limit>>20)
	}
	return data, nil
}
