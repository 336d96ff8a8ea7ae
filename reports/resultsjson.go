package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Layout of results.json (docs/results-format.md). Schema version 2 keeps each exchange of
// evidence once, in a top-level table the results point into, and each text many exchanges
// repeat (a tools/list answer, the headers of a session's POSTs) once in a table of texts:
// most of a run's evidence is the same few answers under different request ids, which
// copied into every result made the file many megabytes.
//
// A text value (an exchange's meta or body) is a JSON string, or an array of parts, each a
// string or an index into texts; its value is the parts joined.

// minSharedText is the shortest text worth sharing: below it, a reference saves nothing.
const minSharedText = 8

// resultsFile is results.json in schema version 2. Results (depth 0) shadows Run.Results.
type resultsFile struct {
	*Run
	Results   []resultRow       `json:"results"`
	Exchanges []json.RawMessage `json:"exchanges"`
	Texts     []string          `json:"texts"`
}

// resultRow is a result whose evidence is a list of indices into the exchanges table.
type resultRow struct {
	Result
	Evidence []int `json:"evidence"`
}

// encodeResults renders the run as results.json: the run's own fields indented, then a
// line per result, per exchange and per shared text. Empty lists are written as [] rather
// than null so consumers need no special case.
func encodeResults(r *Run) ([]byte, error) {
	head := struct {
		*Run
		Results *struct{} `json:"results,omitempty"` // written below, a line each
	}{Run: new(Run)}
	*head.Run = *r
	head.SchemaVersion = SchemaVersion
	head.Summary = countStatuses(r.Results)
	head.Revisions = nonNil(r.Revisions)
	head.Target.Transports = nonNil(r.Target.Transports)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // evidence stays readable: "<" is not "\u003c"
	enc.SetIndent("", "  ")
	if err := enc.Encode(&head); err != nil {
		return nil, fmt.Errorf("encode results: %w", err)
	}
	// The head ends "\n}\n": the tables follow its last field.
	buf.Truncate(len(bytes.TrimRight(buf.Bytes(), "\n")) - 1)
	buf.Truncate(len(bytes.TrimRight(buf.Bytes(), "\n")))

	s := shareEvidence(r.Results)
	enc.SetIndent("", "")
	line := func(v any) error {
		buf.WriteString("    ")
		if err := enc.Encode(v); err != nil { // Encode ends the line
			return fmt.Errorf("encode results: %w", err)
		}
		return nil
	}
	table := func(name string, n int, item func(i int) any) error {
		fmt.Fprintf(&buf, ",\n  %q: [", name)
		for i := range n {
			if i > 0 {
				buf.Truncate(buf.Len() - 1)
				buf.WriteString(",")
			}
			buf.WriteString("\n")
			if err := line(item(i)); err != nil {
				return err
			}
		}
		if n > 0 {
			buf.Truncate(buf.Len() - 1)
			buf.WriteString("\n  ")
		}
		buf.WriteString("]")
		return nil
	}
	if err := table("results", len(r.Results), func(i int) any {
		return resultRow{Result: r.Results[i], Evidence: s.refs[i]}
	}); err != nil {
		return nil, err
	}
	if err := table("exchanges", len(s.exchanges), func(i int) any { return s.row(i) }); err != nil {
		return nil, err
	}
	if err := table("texts", len(s.texts), func(i int) any { return s.texts[i] }); err != nil {
		return nil, err
	}
	buf.WriteString("\n}\n")
	return buf.Bytes(), nil
}

// sharedEvidence is the evidence of a run with each exchange and each repeated text kept once.
type sharedEvidence struct {
	exchanges []Exchange
	refs      [][]int // per result, its exchanges' indices
	texts     []string
	textIndex map[string]int
	uses      map[string]int // how many distinct exchanges hold a candidate text
}

func shareEvidence(results []Result) *sharedEvidence {
	s := &sharedEvidence{refs: make([][]int, len(results)), textIndex: map[string]int{}, uses: map[string]int{}}
	index := map[Exchange]int{}
	for i, res := range results {
		refs := make([]int, 0, len(res.Evidence))
		for _, e := range res.Evidence {
			n, ok := index[e]
			if !ok {
				n = len(s.exchanges)
				index[e] = n
				s.exchanges = append(s.exchanges, e)
			}
			refs = append(refs, n)
		}
		s.refs[i] = refs
	}
	for _, e := range s.exchanges {
		for _, p := range splitAtID(e.Body) {
			s.uses[p]++
		}
		s.uses[e.Meta]++
	}
	return s
}

// row is exchange i as written: [seq, atMs, dir, channel, meta, body].
func (s *sharedEvidence) row(i int) []any {
	e := s.exchanges[i]
	return []any{e.Seq, e.AtMs, e.Direction, e.Channel, s.text(e.Meta), s.text(e.Body)}
}

// text is the value written for t: itself, or its parts with the repeated ones as indices
// into the texts table (numbered in order of first use, so the file reads top to bottom).
func (s *sharedEvidence) text(t string) any {
	var parts []any
	shared := false
	for _, p := range splitAtID(t) {
		if p == "" {
			continue
		}
		if len(p) < minSharedText || s.uses[p] < 2 {
			parts = append(parts, p)
			continue
		}
		n, ok := s.textIndex[p]
		if !ok {
			n = len(s.texts)
			s.textIndex[p] = n
			s.texts = append(s.texts, p)
		}
		parts = append(parts, n)
		shared = true
	}
	if !shared {
		return t
	}
	return parts
}

// splitAtID cuts a JSON-RPC message around the value of its first "id" member, so that the
// messages that differ only in their ids share what comes before and after it: {"id":" |
// mcpspec:PING-RESPOND:12 | ","jsonrpc":"2.0","result":{…}}. Any other text is one part. The
// cut only decides what is shared: the parts joined are t, whatever t is.
func splitAtID(t string) []string {
	const key = `"id":`
	at := strings.Index(t, key)
	if at < 0 {
		return []string{t}
	}
	start := at + len(key)
	for start < len(t) && (t[start] == ' ' || t[start] == '\t') {
		start++
	}
	end := start
	switch {
	case start < len(t) && t[start] == '"':
		start++
		for end = start; end < len(t) && t[end] != '"'; end++ {
			if t[end] == '\\' {
				end++
			}
		}
		if end >= len(t) {
			return []string{t}
		}
	case start < len(t) && (t[start] == '-' || t[start] >= '0' && t[start] <= '9'):
		for end = start + 1; end < len(t) && t[end] >= '0' && t[end] <= '9'; end++ {
		}
	default:
		return []string{t}
	}
	return []string{t[:start], t[start:end], t[end:]}
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

// ReadResults reads a results.json written by WriteAll, in the current layout or in schema
// version 1 (each result's evidence inline), which stored results of earlier runs still have:
// the OLD file of mcpspec diff, a job's artifact for matrix --merge. It rejects files of
// another schema version, a matrix.json, files over MaxResultsBytes, results with an unknown
// status and references outside the shared tables.
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
	case *probe.SchemaVersion != SchemaVersion && *probe.SchemaVersion != SchemaVersionInline:
		return nil, fmt.Errorf("%s: schemaVersion %d is not supported (this mcpspec reads schemaVersion %d and %d)",
			path, *probe.SchemaVersion, SchemaVersionInline, SchemaVersion)
	}

	var run Run
	if *probe.SchemaVersion == SchemaVersionInline {
		if err := json.Unmarshal(data, &run); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else if err := decodeShared(data, &run); err != nil {
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

// decodeShared reads schema version 2 into run, each result with its evidence inline again.
func decodeShared(data []byte, run *Run) error {
	f := resultsFile{Run: run}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	exchanges := make([]Exchange, len(f.Exchanges))
	for i, raw := range f.Exchanges {
		e, err := decodeExchange(raw, f.Texts)
		if err != nil {
			return fmt.Errorf("exchanges[%d]: %w", i, err)
		}
		exchanges[i] = e
	}
	run.Results = make([]Result, len(f.Results))
	for i, row := range f.Results {
		res := row.Result
		res.Evidence = make([]Exchange, len(row.Evidence))
		for j, n := range row.Evidence {
			if n < 0 || n >= len(exchanges) {
				return fmt.Errorf("results[%d] (%s): evidence %d: no such exchange (%d in the table)", i, res.ID, n, len(exchanges))
			}
			res.Evidence[j] = exchanges[n]
		}
		run.Results[i] = res
	}
	return nil
}

// decodeExchange reads a row [seq, atMs, dir, channel, meta, body].
func decodeExchange(raw json.RawMessage, texts []string) (Exchange, error) {
	var row []json.RawMessage
	if err := json.Unmarshal(raw, &row); err != nil {
		return Exchange{}, err
	}
	if len(row) != 6 {
		return Exchange{}, fmt.Errorf("%d fields, want 6 (seq, atMs, dir, channel, meta, body)", len(row))
	}
	var e Exchange
	fields := []struct {
		name string
		into any
	}{{"seq", &e.Seq}, {"atMs", &e.AtMs}, {"dir", &e.Direction}, {"channel", &e.Channel}}
	for i, f := range fields {
		if err := json.Unmarshal(row[i], f.into); err != nil {
			return Exchange{}, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	var err error
	if e.Meta, err = decodeText(row[4], texts); err != nil {
		return Exchange{}, fmt.Errorf("meta: %w", err)
	}
	if e.Body, err = decodeText(row[5], texts); err != nil {
		return Exchange{}, fmt.Errorf("body: %w", err)
	}
	return e, nil
}

// decodeText reads a text value: a string, or parts (strings and indices into texts) joined.
func decodeText(raw json.RawMessage, texts []string) (string, error) {
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("neither a string nor a list of parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		if len(p) > 0 && p[0] == '"' {
			if err := json.Unmarshal(p, &s); err != nil {
				return "", err
			}
			b.WriteString(s)
			continue
		}
		var n int
		if err := json.Unmarshal(p, &n); err != nil {
			return "", fmt.Errorf("a part is neither a string nor an index: %s", p)
		}
		if n < 0 || n >= len(texts) {
			return "", fmt.Errorf("text %d: no such text (%d in the table)", n, len(texts))
		}
		b.WriteString(texts[n])
	}
	return b.String(), nil
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
