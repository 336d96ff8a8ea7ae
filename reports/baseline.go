package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// KnownRevisions and KnownTransports are the values a baseline entry may
// narrow to: the harness's revisions and the JSON-RPC profile's version, not a
// list of their own.
var (
	KnownRevisions  = append(slices.Clone(harness.Revisions), harness.RevJSONRPC)
	KnownTransports = []string{wire.Stdio, wire.HTTP, wire.SSE}
)

// staleMessage is the message of a result that passes although the baseline
// expects it to fail.
const staleMessage = "listed in the baseline but passes now: remove this entry"

// Baseline is a list of expected failures, loaded from YAML:
//
//	expected:
//	  - id: BATCH-EMPTY
//	    version: 2025-03-26   # optional
//	    transport: http       # optional
//	    scenario: initialize  # optional: a client check's probe scenario
//	    reason: "why this is accepted"
//	    intermittent: true    # optional: the failure comes and goes with timing

type Baseline struct {
	Expected []BaselineEntry `yaml:"expected"`
}

// BaselineEntry accepts failures of one requirement, optionally narrowed to
// one revision, one transport and (for a client check, which judges one
// requirement in several scenarios) one probe scenario.
type BaselineEntry struct {
	ID        string `yaml:"id"`
	Version   string `yaml:"version,omitempty"`
	Transport string `yaml:"transport,omitempty"`
	Scenario  string `yaml:"scenario,omitempty"`
	Reason    string `yaml:"reason"`
	// Intermittent: the failure depends on timing (a race inside the server), so a pass is
	// not stale. Use it only for a deviation seen to come and go between identical runs.
	Intermittent bool `yaml:"intermittent,omitempty"`
	line         int  // where the entry starts in its file, for messages
}

// UnmarshalYAML decodes one entry strictly: unknown or repeated keys and
// non-string values are errors that name the line.
func (e *BaselineEntry) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: an entry must be a mapping with id and reason", node.Line)
	}
	e.line = node.Line
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		if seen[k.Value] {
			return fmt.Errorf("line %d: key %q repeated", k.Line, k.Value)
		}
		seen[k.Value] = true
		if k.Value == "intermittent" {
			if v.Kind != yaml.ScalarNode || (v.Value != "true" && v.Value != "false") {
				return fmt.Errorf("line %d: intermittent must be true or false", v.Line)
			}
			e.Intermittent = v.Value == "true"
			continue
		}
		var field *string
		switch k.Value {
		case "id":
			field = &e.ID
		case "version":
			field = &e.Version
		case "transport":
			field = &e.Transport
		case "scenario":
			field = &e.Scenario
		case "reason":
			field = &e.Reason
		default:
			return fmt.Errorf("line %d: unknown key %q (allowed: id, version, transport, scenario, reason, intermittent)", k.Line, k.Value)
		}
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: %s must be a single value", v.Line, k.Value)
		}
		// The raw scalar keeps 2025-03-26 a string rather than a timestamp.
		*field = strings.TrimSpace(v.Value)
	}
	return nil
}

// LoadBaseline reads and validates a baseline file. known reports whether a
// requirement ID exists; an unknown ID, a missing reason, an unknown key, a
// revision or transport mcpspec does not know, or a duplicate entry is an
// error naming the file and line. An empty file is an empty baseline.
func LoadBaseline(path string, known func(id string) bool) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	var b Baseline
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&b); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}

	var problems []error
	seen := map[key]int{}
	for _, e := range b.Expected {
		fail := func(format string, args ...any) {
			problems = append(problems, fmt.Errorf("baseline %s: line %d: %s", path, e.line, fmt.Sprintf(format, args...)))
		}
		switch {
		case e.ID == "":
			fail("entry has no id")
		case known != nil && !known(e.ID):
			fail("unknown requirement ID %q", e.ID)
		}
		if e.Reason == "" {
			fail("entry %s has no reason: say why this failure is accepted", e.ID)
		}
		if e.Version != "" && !slices.Contains(KnownRevisions, e.Version) {
			fail("unknown version %q (known: %s)", e.Version, strings.Join(KnownRevisions, ", "))
		}
		if e.Transport != "" && !slices.Contains(KnownTransports, e.Transport) {
			fail("unknown transport %q (known: %s)", e.Transport, strings.Join(KnownTransports, ", "))
		}
		k := e.key()
		if first, dup := seen[k]; dup {
			fail("duplicate of the entry on line %d", first)
		} else {
			seen[k] = e.line
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return &b, nil
}

func (e BaselineEntry) key() key {
	return key{ID: e.ID, Version: e.Version, Transport: e.Transport, Scenario: e.Scenario}
}

// matches reports whether the entry covers the result.
func (e BaselineEntry) matches(r Result) bool {
	return e.ID == r.ID &&
		(e.Version == "" || e.Version == r.Version) &&
		(e.Transport == "" || e.Transport == r.Transport) &&
		(e.Scenario == "" || e.Scenario == r.Scenario)
}

func (e BaselineEntry) specificity() int {
	n := 0
	if e.Version != "" {
		n++
	}
	if e.Transport != "" {
		n++
	}
	if e.Scenario != "" {
		n++
	}
	return n
}

// match returns the index of the most specific entry covering the result (the
// first in the file among equals), or -1.
func (b *Baseline) match(r Result) int {
	best := -1
	for i, e := range b.Expected {
		if e.matches(r) && (best < 0 || e.specificity() > b.Expected[best].specificity()) {
			best = i
		}
	}
	return best
}

// Apply returns a copy of results with the baseline applied: a fail or warn
// covered by an entry becomes expected, a pass covered by an entry becomes
// stale unless the entry is intermittent or still accepts a failure among the
// results; every other result is unchanged. BaselineReason is set on all three.
//
// An entry stays in use while any result it covers fails: the client checks
// judge one requirement at one revision in several scenarios (the auth/*
// ones), so a check may fail in one scenario and pass in another, and the
// entry accepting the failure is not stale for the pass beside it.
func (b *Baseline) Apply(results []Result) []Result {
	out := slices.Clone(results)
	if b == nil {
		return out
	}
	inUse := make([]bool, len(b.Expected))
	for _, r := range results {
		if i := b.match(r); i >= 0 && (r.Status == Fail || r.Status == Warn) {
			inUse[i] = true
		}
	}
	for i, r := range out {
		ei := b.match(r)
		if ei < 0 {
			continue
		}
		e := b.Expected[ei]
		out[i].Intermittent = e.Intermittent
		switch r.Status {
		case Fail, Warn:
			out[i].Status = Expected
			out[i].BaselineReason = e.Reason
		case Pass:
			if e.Intermittent {
				out[i].BaselineReason = e.Reason
				continue
			}
			if inUse[ei] {
				continue
			}
			out[i].Status = Stale
			out[i].Message = staleMessage
			out[i].BaselineReason = e.Reason
		}
	}
	return out
}

// Unmatched returns the entries that cover none of the results, for example
// a requirement that was not run or has been renamed.
func (b *Baseline) Unmatched(results []Result) []BaselineEntry {
	var out []BaselineEntry
	for _, e := range b.Expected {
		if !slices.ContainsFunc(results, e.matches) {
			out = append(out, e)
		}
	}
	return out
}

// WriteBaseline writes a baseline that accepts every fail and warn in
// results, each narrowed to its revision, transport and (client checks) scenario. Results already
// expected keep their baseline reason, so rewriting a baseline is lossless.
func WriteBaseline(path string, results []Result) error {
	data, err := encodeBaseline(results, "recorded by --write-baseline on "+today())
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(path, data, 0o644); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

func encodeBaseline(results []Result, reason string) ([]byte, error) {
	b := Baseline{Expected: []BaselineEntry{}}
	seen := map[key]bool{}
	for _, r := range results {
		entry := BaselineEntry{ID: r.ID, Version: r.Version, Transport: r.Transport, Scenario: r.Scenario, Reason: reason, Intermittent: r.Intermittent}
		switch {
		case r.Status == Fail || r.Status == Warn:
		case r.Status == Expected || (r.Status == Pass && r.Intermittent):
			// Kept as it was, an intermittent entry even when it passed this time.
			if r.BaselineReason != "" {
				entry.Reason = r.BaselineReason
			}
		default:
			continue
		}
		if k := entry.key(); !seen[k] {
			seen[k] = true
			b.Expected = append(b.Expected, entry)
		}
	}
	slices.SortStableFunc(b.Expected, func(x, y BaselineEntry) int { return x.key().compare(y.key()) })

	var buf bytes.Buffer
	buf.WriteString("# mcpspec baseline: expected failures\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&b); err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	return buf.Bytes(), nil
}

// today is the UTC date stamped into recorded baselines.
func today() string { return time.Now().UTC().Format("2006-01-02") }
