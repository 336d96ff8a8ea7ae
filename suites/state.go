package suites

import "github.com/mcpspec/mcpspec/suites/conform"

// cancelStopID is the check that judges the state session's last part.
const cancelStopID = "CANCEL-STOP-NO-RESPONSE"

// The state session is one server of its own per revision and transport for the checks that
// change a session's state and need it unchanged by anyone else: first its resources (listed,
// read and changed with no subscription, then one subscribed to and unsubscribed again), then
// its log level ("info", then an unknown level), last the slow tool's cancelled calls, whose
// work may go on. Each check judges its own part; a part after which the server no longer
// answers leaves the later ones untestable.

// stateSession is what the state session's server did, part by part.
type stateSession struct {
	unsubscribed *conform.Finding // RES-UPDATED-ONLY-SUBSCRIBED's verdict; nil without resources
	subscribed   *conform.Finding // RES-SUBSCRIBE's verdict; nil without resources.subscribe
	levels       *setLevels       // LOG-SETLEVEL's and LOG-INVALID-LEVEL's answers; nil without logging
	cancelled    *conform.Finding // CANCEL-STOP-NO-RESPONSE's verdict; nil where it does not run
	gone         string           // the part after which the server stopped answering
}

func observeState(t *conform.T) (*stateSession, *conform.Finding) {
	v, f := t.Observe("state", conform.Fresh, func(o *conform.T) any {
		st := &stateSession{}
		if !o.S.Modern() && o.S.HasCapability("resources") {
			unsubscribed := updatesUnsubscribed(o)
			st.unsubscribed = &unsubscribed
			if declaresSubscribe(o) {
				subscribed := subscribeUnsubscribe(o)
				st.subscribed = &subscribed
			}
			if !o.S.Responsive(o.Ctx) {
				st.gone = "its resources were listed, read and subscribed to"
				return st
			}
		}
		if o.S.HasCapability("logging") {
			st.levels = setLevelPart(o)
			if !o.S.Responsive(o.Ctx) {
				st.gone = "its log level was set"
				return st
			}
		}
		if c, ok := conform.Lookup(cancelStopID); ok && c.AppliesTo(o.Revision, o.Transport) {
			if _, ready := needSlowTool(o); ready {
				cancelled := cancelStops(o)
				st.cancelled = &cancelled
			}
		}
		return st
	})
	if f != nil {
		return nil, f
	}
	return v.(*stateSession), nil
}
