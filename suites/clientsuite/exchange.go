package clientsuite

import (
	"mime"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/record"
)

// Helpers of the client checks of several pages: the sets of scenarios they judge, and the
// words and headers of an exchange. The checks live in the files of their pages (the
// catalogue's areas table), as the server checks do in suites/.

// handshakeOnly: the official suite's initialize scenario, whose exchange (initialize,
// notifications/initialized, perhaps tools/list) is enough for the checks that read the
// handshake and the transport; and its elicitation-sep1034-client-defaults, which holds one too.
var handshakeOnly = []string{probe.ScenarioInitialize, probe.ScenarioElicitDefaults}

// everyExchange: the scenarios besides tools_call whose every exchange the transport rules bind
// (a resumption GET, a cancellation POST, the requests after a re-initialize): each is judged
// in every recording another check has served, not only in tools_call's (the checks ride: a
// scenario is never launched for them alone).
var everyExchange = []string{probe.ScenarioInitialize, probe.ScenarioElicitDefaults, probe.ScenarioSessionExpiry,
	probe.ScenarioSSERetry, probe.ScenarioRequestTimeout, probe.ScenarioTaskCancel, probe.ScenarioSubscriptions}

func describe(m Msg) string {
	switch {
	case m.Method != "":
		return m.Method
	case m.IsResponse():
		return "a response (id " + string(m.ID) + ")"
	}
	return "a message"
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// posts are the indices of the client's POSTs to the endpoint.
func (v *View) requests(channel string) []int {
	var out []int
	for i, r := range v.Records {
		if r.Dir == record.Recv && r.Channel == channel {
			out = append(out, i)
		}
	}
	return out
}

// accepts reports whether an Accept header lists the media type by name.
func accepts(accept, media string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && strings.EqualFold(mt, media) {
			return true
		}
	}
	return false
}

// isInitialize reports whether an HTTP request's body holds an initialize request.
func isInitialize(r record.Record) bool {
	return slices.ContainsFunc(parseMsgs([]byte(r.Body)), func(m Msg) bool { return m.Method == "initialize" && m.IsRequest() })
}
