package clientsuite

import (
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
		Check{ID: "STDIO26-SUB-CORRELATE", Level: "MUST", Scenario: probe.ScenarioSubscriptions, Transports: []string{wire.Stdio}, Versions: modernOnly,
			Summary: "the client takes a notification for its subscription by the io.modelcontextprotocol/subscriptionId in its _meta, not by its type",
			Judge:   judgeSubCorrelate},
		Check{ID: "SUB-STDIO-RESEND", Level: "MUST", Scenario: probe.ScenarioSubscriptions, Transports: []string{wire.Stdio}, Versions: modernOnly,
			Summary: "after the stdio connection ended and was re-established, the client re-sends subscriptions/listen",
			Judge:   judgeSubResend},
	)
}

// note is the index of the first probe event of kind k after index from, -1 if none.
func (v *View) note(k probe.EventKind, from int) int {
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
	if v.modernRequests() == 0 {
		return untestable("the client made no request past discovery")
	}
	return na("the client opened no subscription (no subscriptions/listen): it does not use them, or did not take the probe's tools.listChanged as the offer of one")
}

func judgeSubCorrelate(v *View) Finding {
	listen := v.note(probe.EvSubscribed, -1)
	if listen < 0 {
		return v.noSubscription()
	}
	foreign := v.note(probe.EvForeignChange, listen-1)
	own := v.note(probe.EvOwnChange, listen)
	// Up to the relaunch, if any: the second connection sends no foreign notification.
	end := v.note(probe.EvRelaunch, listen)
	if foreign < 0 {
		return untestable("the probe sent no notification of another subscription")
	}
	if m := v.listsBetween(foreign, own); m != nil && (end < 0 || m.Rec < end) {
		return violated("the client listed the tools again (record %d) after a tools/list_changed whose _meta names subscription %q, which it never opened, before any of its own subscription's", v.Records[m.Rec].Seq, probe.ForeignSubscription)
	}
	if own < 0 {
		return untestable("the client did not call %s after its subscription was acknowledged, so the probe sent no list_changed of its own subscription to tell its silence from deafness (the contract)", probe.ToolEcho)
	}
	if m := v.listsBetween(own, end); m != nil {
		return passed("the client ignored the tools/list_changed of subscription %q and listed the tools again on its own subscription's (record %d)", probe.ForeignSubscription, v.Records[m.Rec].Seq)
	}
	return untestable("the client did not list the tools again after its own subscription's tools/list_changed, so its silence after the other subscription's shows nothing (the contract)")
}

func judgeSubResend(v *View) Finding {
	listen := v.note(probe.EvSubscribed, -1)
	if listen < 0 {
		return v.noSubscription()
	}
	hangup := v.note(probe.EvHangup, listen)
	if hangup < 0 {
		return untestable("the probe never ended the connection: the client did not list the tools again after its subscription's tools/list_changed (the contract)")
	}
	relaunch := v.note(probe.EvRelaunch, hangup)
	if relaunch < 0 {
		return na("the client did not re-establish the connection after the probe ended it, so it had no subscription to re-establish (the contract asks it to relaunch the server once)")
	}
	if again := v.note(probe.EvSubscribed, relaunch); again >= 0 {
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
