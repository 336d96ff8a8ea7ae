package clientsuite

import (
	"github.com/mcpspec/mcpspec/harness/record"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"strings"

	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/wire"
)

// The subscription checks judge the subscriptions scenario (2026-07-28, stdio): the probe
// notes the client's subscriptions/listen, the notification it sent of a subscription the
// client never opened, the list_changed of the client's own, the end of the connection, and
// its own relaunch.

func init() {
	Register(
		Check{ID: "SUB-STDIO-RESEND", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: []string{wire.Stdio},
			Summary: "after the stdio connection ended and was re-established, the client re-sends subscriptions/listen",
			Side:    Client{Scenario: probe.ScenarioSubscriptions, Judge: judgeSubResend}},
	)
}

// note is the index of the first probe event of kind k after index from, -1 if none.
func (v *View) note(k record.EventKind, from int) int {
	for i := from + 1; i < len(v.Records); i++ {
		if v.Records[i].Is(k) {
			return i
		}
	}
	return -1
}

// listsBetween is the first tools/list the client sent after record index a and before b (b < 0:
// to the end).
func (v *View) listsBetween(a, b int) *Msg {
	for i := range v.Msgs {
		m := &v.Msgs[i]
		if m.Method == "tools/list" && m.Rec > a && (b < 0 || m.Rec < b) {
			return m
		}
	}
	return nil
}

// noSubscription is the finding of a run without subscriptions/listen.
func (v *View) noSubscription() Finding {
	if v.statelessRequests() == 0 {
		return untestable("the client made no request past discovery")
	}
	return na("the client opened no subscription (no subscriptions/listen): it does not use them, or did not take the probe's tools.listChanged as the offer of one")
}

func judgeSubResend(v *View) Finding {
	listen := v.note(record.EvSubscribed, -1)
	if listen < 0 {
		return v.noSubscription()
	}
	hangup := v.note(record.EvHangup, listen)
	if hangup < 0 {
		return untestable("the probe never ended the connection: the client did not list the tools again after its subscription's tools/list_changed (the contract)")
	}
	relaunch := v.note(record.EvRelaunch, hangup)
	if relaunch < 0 {
		return na("the client did not re-establish the connection after the probe ended it, so it had no subscription to re-establish (the contract asks it to relaunch the server once)")
	}
	if again := v.note(record.EvSubscribed, relaunch); again >= 0 {
		return passed("after the probe ended the connection and was launched again, the client re-sent subscriptions/listen (%s)", v.Records[again].Body)
	}
	var sent []string
	for _, m := range v.Msgs {
		if m.Rec > relaunch && m.IsRequest() {
			sent = append(sent, m.Method)
		}
	}
	return violated("the client re-established the connection (launched the server again) but did not re-send subscriptions/listen; it sent %s", orNone(strings.Join(sent, ", ")))
}
