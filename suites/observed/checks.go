package observed

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/check"
	"github.com/mcpspec/mcpspec/suites/finding"
)

type Finding = finding.Finding

// The findings' constructors (finding.Outcome.With), as every kind of check names them.
// Functions, not method values, so that go vet checks their format strings.
func passed(format string, args ...any) Finding     { return finding.Pass.With(format, args...) }
func violated(format string, args ...any) Finding   { return finding.Violation.With(format, args...) }
func na(format string, args ...any) Finding         { return finding.NotApplicable.With(format, args...) }
func untestable(format string, args ...any) Finding { return finding.Untestable.With(format, args...) }
func broken(format string, args ...any) Finding     { return finding.Broken.With(format, args...) }

// notExercised is the na of a rule the traffic gave no occasion to keep or break.
func notExercised(why string) Finding { return na("%s: %s", NotExercised, why) }

// reg holds the observed checks, one per requirement and party: a requirement judged on both
// sides is two checks of one ID.
var (
	reg = check.NewRegistry(check.Config[Observed]{
		Side: validateObserved,
		Key:  func(c *Check) string { return c.ID + " (" + c.Side.Whose + ")" },
	})
	regOnce sync.Once
)

// The transports of an observed check, each named (results' names).
var allTransports = []string{wire.Stdio, wire.HTTP, wire.SSE}

// Checks returns every observed check, in registration order. The checks are built in this
// package, not registered from outside: an invalid one is a bug its tests catch, and panics.
// Each group is recorded with the file of the function that builds it.
func Checks() []*Check {
	regOnce.Do(func() {
		for _, group := range []func() []Check{schemaChecks, stdioChecks, idChecks, lifeChecks, transportChecks, flowChecks, statelessChecks} {
			file, _ := runtime.FuncForPC(reflect.ValueOf(group).Pointer()).FileLine(0)
			reg.Add(file, group()...)
		}
	})
	all, err := reg.All()
	if err != nil {
		panic(err)
	}
	return all
}

// validateObserved completes an observed check once check.Validate has passed: it names the
// party whose rule it judges, and has a Judge.
func validateObserved(c *Check) error {
	if c.Side.Whose != Server && c.Side.Whose != Client {
		return fmt.Errorf("observed check %s: party %q is not %s or %s", c.ID, c.Side.Whose, Server, Client)
	}
	if c.Side.Judge == nil {
		return fmt.Errorf("observed check %s: needs a Judge function", c.ID)
	}
	return nil
}

// bothSides makes one check per side from a judge that takes the side.
func bothSides(id, level string, transports []string, summary string, judge func(v *View, side string) Finding) []Check {
	out := make([]Check, 0, 2)
	for _, side := range []string{Server, Client} {
		out = append(out, Check{ID: id, Level: level, Revisions: catalog.AllCatalogued, Summary: summary, Transports: transports,
			Side: Observed{Whose: side, Judge: func(v *View) Finding { return judge(v, side) }}})
	}
	return out
}

// exchanges pairs each request with the responses that answer it.
type exchanges struct {
	answers  map[int][]int // index in Msgs of a request → indices of its responses
	answerOf map[int]int   // index in Msgs of a response → the request it answers
	orphans  map[int]bool  // responses whose id is that of no request of the other side
	rejected map[int]bool  // requests whose HTTP POST was refused (4xx/5xx with no JSON-RPC answer)
}

// pair matches responses to requests by id: a response answers the first request of the other
// side with its id that it follows and that has no answer yet, else (a second answer) the
// latest such request. Messages of the other side that carry an id without being responses
// (an invalid request keeps its id) count as requests: their error answer echoes it.
func (v *View) pair() exchanges {
	if v.paired != nil {
		return *v.paired
	}
	ex := exchanges{answers: map[int][]int{}, answerOf: map[int]int{}, orphans: map[int]bool{}, rejected: map[int]bool{}}
	defer func() { v.paired = &ex }()
	byID := map[string][]int{} // side|id → requests in order
	for i, m := range v.Msgs {
		if m.HasID && !m.IsResponse() && !m.ID.IsNull() {
			k := m.From + "|" + string(m.ID)
			byID[k] = append(byID[k], i)
			if r := v.Records[m.Rec]; r.Exchange != 0 && v.refused(r.Exchange) {
				ex.rejected[i] = true
			}
			continue
		}
		if !m.IsResponse() || !m.HasID || m.ID.IsNull() {
			continue
		}
		reqs := byID[other(m.From)+"|"+string(m.ID)]
		match := -1
		for _, q := range reqs {
			if len(ex.answers[q]) == 0 {
				match = q
				break
			}
		}
		if match < 0 && len(reqs) > 0 {
			match = reqs[len(reqs)-1]
		}
		if match < 0 {
			ex.orphans[i] = true
			continue
		}
		ex.answers[match] = append(ex.answers[match], i)
		ex.answerOf[i] = match
	}
	return ex
}

// refused reports whether an HTTP exchange's response is an error status with no JSON-RPC
// message in it: the request was refused at the transport, not left unanswered.
func (v *View) refused(exchange int) bool {
	r, ok := v.response(exchange)
	return ok && r.Status >= 400 && !carriesMessages(r)
}

// cancelled is the set of request ids (of the side that sent the cancellations) named by a
// notifications/cancelled, each with the index of the first such notification.
func (v *View) cancelled(from string) map[jsonrpc.ID]int {
	out := map[jsonrpc.ID]int{}
	for i, m := range v.Msgs {
		if m.From != from || m.Method != "notifications/cancelled" || !m.IsNotification() {
			continue
		}
		if id, ok := paramID(m.Params, "requestId"); ok {
			if _, seen := out[id]; !seen {
				out[id] = i
			}
		}
	}
	return out
}
