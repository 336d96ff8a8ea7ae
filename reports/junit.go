package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The JUnit XML vocabulary, as CI systems (Jenkins, GitLab, GitHub actions
// that read JUnit) understand it.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

// harnessClass is the classname of the synthetic testcases that carry
// harness errors, so a CI dashboard shows a run that broke outside any check.
const harnessClass = "mcpspec.harness"

// encodeJUnit renders the run as junit.xml: one testcase per result, plus one
// erroring testcase per harness error. Text in CDATA sections is cleaned of
// characters XML 1.0 forbids; attribute values are cleaned by encoding/xml.
func encodeJUnit(r *Run) ([]byte, error) {
	suite := junitSuite{
		Name:       "mcpspec",
		Time:       seconds(r.DurationMs),
		Properties: junitProperties(r),
	}
	if !r.StartedAt.IsZero() {
		suite.Timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	for _, res := range r.Results {
		c := junitCaseOf(res)
		switch {
		case c.Failure != nil:
			suite.Failures++
		case c.Error != nil:
			suite.Errors++
		case c.Skipped != nil:
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, c)
	}
	for i, msg := range r.Errors {
		suite.Errors++
		suite.Cases = append(suite.Cases, junitCase{
			Name:      fmt.Sprintf("harness error %d", i+1),
			Classname: harnessClass,
			Time:      seconds(0),
			Error:     &junitProblem{Message: oneLine(msg, messageWidth), Type: "harness", Text: xmlText(msg)},
		})
	}
	suite.Tests = len(suite.Cases)

	doc := junitSuites{
		Name: "mcpspec", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite},
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode junit: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func junitProperties(r *Run) []junitProperty {
	props := []junitProperty{
		{"target", r.Target.Description},
		{"serverInfo.name", r.serverField("name")},
		{"serverInfo.version", r.serverField("version")},
		{"revisions", strings.Join(r.Revisions, ",")},
		{"transports", strings.Join(r.Target.Transports, ",")},
		{"tool.name", r.Tool.Name},
		{"tool.version", r.Tool.Version},
	}
	if r.Strict {
		props = append(props, junitProperty{"strict", "true"})
	}
	return props
}

// junitCaseOf maps one result onto a testcase. Only non-passing outcomes
// carry evidence, to keep the file small.
func junitCaseOf(res Result) junitCase {
	c := junitCase{
		Name:      fmt.Sprintf("%s (%s, %s)", res.Title, res.Version, res.Transport),
		Classname: "mcpspec",
		Time:      seconds(res.DurationMs),
	}
	if res.Area != "" {
		c.Classname += "." + res.Area
	}
	details := func() string {
		text := res.Message
		if len(res.Evidence) > 0 {
			text += "\n\nEvidence:\n" + evidenceText(res.Evidence)
		}
		if res.Extension != "" {
			text += "\nExtension: " + res.Extension
		}
		if res.SpecURL != "" {
			text += "\nSpec: " + res.SpecURL + "\n"
		}
		return xmlText(text)
	}
	switch res.Status {
	case Fail:
		c.Failure = &junitProblem{Message: res.Message, Type: res.Level, Text: details()}
	case Stale:
		msg := staleMessage
		if res.BaselineReason != "" {
			msg += " (baseline reason: " + res.BaselineReason + ")"
		}
		c.Failure = &junitProblem{Message: msg, Type: "stale", Text: xmlText(msg)}
	case Error:
		c.Error = &junitProblem{Message: res.Message, Type: "error", Text: details()}
	case NA, Untestable:
		c.Skipped = &junitSkipped{Message: string(res.Status) + ": " + res.Message}
	case Warn:
		c.SystemOut = &junitText{xmlText("warning: " + details())}
	case Expected:
		c.SystemOut = &junitText{xmlText("expected failure (baseline: " + res.BaselineReason + "): " + res.Message)}
	case Pass:
		// a plain passing testcase
	default:
		c.Error = &junitProblem{Message: "unknown status " + string(res.Status), Type: "error"}
	}
	return c
}

// xmlText replaces characters that XML 1.0 forbids (most C0 controls,
// surrogates, U+FFFE/U+FFFF, invalid UTF-8) with U+FFFD, so server text
// cannot make the file unparsable and a reader still sees something was there.
func xmlText(s string) string {
	valid := func(r rune) bool {
		return r == '\t' || r == '\n' || r == '\r' ||
			(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && width == 1) || !valid(r) {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+width])
		}
		i += width
	}
	return b.String()
}
