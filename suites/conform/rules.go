package conform

import (
	"fmt"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// A finding carries the level of the rule its evidence breaks, not only the level of the check
// that saw it: a SHOULD check whose exchange shows a MUST broken fails, and names that MUST.
// The rules that any check can witness are decided here, once, for every check.

// RuleReplyRequired is the rule a request left unanswered breaks: JSON-RPC 2.0 §5 obliges a
// server to answer every request but notifications.
const RuleReplyRequired = "JRPC-REPLY-REQUIRED"

// Broke is a violation of rule, another requirement than the check's own, seen in the check's
// exchange: it takes the rule's level (a MUST rule fails even a SHOULD check) and names it.
func Broke(rule, format string, args ...any) Finding {
	return Finding{Outcome: Violation, Rule: rule, Message: ruleLine(rule, fmt.Sprintf(format, args...))}
}

// ruleLine prefixes msg with the rule it breaks and the rule's level.
func ruleLine(rule, msg string) string {
	return fmt.Sprintf("%s [%s]: %s", rule, ruleLevel(rule), msg)
}

// ruleLevel is the level mcpspec judges rule at: its check's, or the catalogue's wording.
func ruleLevel(rule string) string {
	if c, ok := Lookup(rule); ok {
		return c.Level
	}
	if e, ok := catalog.Lookup(rule); ok && strings.HasPrefix(e.Level, "MUST") {
		return "MUST"
	}
	return "SHOULD"
}

// levelOf is the level a finding is judged at: the check's, raised to MUST when the finding is
// severe (the server crashed or hung) or names a MUST rule it breaks.
func levelOf(f Finding, checkLevel string) string {
	if f.Severe || (f.Rule != "" && ruleLevel(f.Rule) == "MUST") {
		return "MUST"
	}
	return checkLevel
}

// withUnanswered applies RuleReplyRequired to a finding: a check that found something wrong,
// or could not test because the server did not answer, while a request of its own was left
// unanswered, fails on that request, whatever its own level. A pass stands (the check did not
// need the answer), and so does a harness failure or a ruling-out.
func withUnanswered(f Finding, unanswered []harness.Unanswered) Finding {
	if len(unanswered) == 0 || (f.Outcome != Violation && f.Outcome != Untestable) {
		return f
	}
	u := unanswered[0]
	what := "request " + u.ID.Text()
	if u.Method != "" {
		what += " (" + u.Method + ")"
	}
	line := ruleLine(RuleReplyRequired, fmt.Sprintf("%s was never answered: %s", what, u.Why))
	if n := len(unanswered) - 1; n > 0 {
		line += fmt.Sprintf(" (and %d more)", n)
	}
	// The rule goes first: it is why a SHOULD check fails, and listings show a first line only.
	msg := line
	if f.Message != "" {
		msg = line + "\n" + f.Message
	}
	return Finding{Outcome: Violation, Message: msg, Rule: RuleReplyRequired, Severe: f.Severe}
}
