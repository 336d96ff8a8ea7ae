package clientsuite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The checks read what the probe did from its typed events (record.Event) and what a request's
// credentials were from record.Credential: a check that parsed a note's words or a redaction
// label would break silently when the probe rewords them.
func TestChecksParseNoProse(t *testing.T) {
	forbidden := regexp.MustCompile(`strings\.\w+\([^)]*\.Body\b|<redacted:`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if forbidden.MatchString(line) {
				t.Errorf("%s:%d parses a record's words or a redaction label; read its Event or Creds instead: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
