// Package finding is the verdict of a check, server or client: one Finding type and one mapping
// from a finding to a report status, shared by package conform (server checks) and package
// clientsuite (client checks).
package finding

import (
	"fmt"

	"github.com/mcpspec/mcpspec/reports"
)

// Outcome is what a check found.
type Outcome int

const (
	Pass Outcome = iota
	Violation
	NotApplicable
	Untestable
	Broken // the harness or the target's infrastructure failed
)

// Finding is a check's verdict with its reason.
type Finding struct {
	Outcome Outcome
	Message string
	// Severe makes a violation a failure whatever the level: the server crashed or hung on input
	// it should merely have rejected.
	Severe bool
	// Rule is the requirement the evidence breaks when it is not the check's own (conform's
	// rules.go): the finding then takes that rule's level.
	Rule string
}

// Status is the report status of an outcome for a requirement of level (MUST or SHOULD): a
// violation fails a MUST and warns a SHOULD; a broken harness is an error.
func (o Outcome) Status(level string) reports.Status {
	switch o {
	case Pass:
		return reports.Pass
	case Violation:
		if level == "MUST" {
			return reports.Fail
		}
		return reports.Warn
	case NotApplicable:
		return reports.NA
	case Untestable:
		return reports.Untestable
	default:
		return reports.Error
	}
}

// With is a finding of the outcome, its message formatted as by fmt.Sprintf: every kind of check
// builds its findings with it.
func (o Outcome) With(format string, args ...any) Finding {
	return Finding{Outcome: o, Message: fmt.Sprintf(format, args...)}
}
