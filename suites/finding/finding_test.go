package finding

import (
	"testing"

	"github.com/mcpspec/mcpspec/reports"
)

func TestStatus(t *testing.T) {
	cases := []struct {
		o     Outcome
		level string
		want  reports.Status
	}{
		{Pass, "MUST", reports.Pass},
		{Violation, "MUST", reports.Fail},
		{Violation, "SHOULD", reports.Warn},
		{NotApplicable, "MUST", reports.NA},
		{Untestable, "SHOULD", reports.Untestable},
		{Broken, "SHOULD", reports.Error},
	}
	for _, c := range cases {
		if got := c.o.Status(c.level); got != c.want {
			t.Errorf("%d at %s: %s, want %s", c.o, c.level, got, c.want)
		}
	}
}

func TestWith(t *testing.T) {
	f := Violation.With("record %d: %s", 3, "no id")
	if f.Outcome != Violation || f.Message != "record 3: no id" {
		t.Errorf("%+v", f)
	}
}
