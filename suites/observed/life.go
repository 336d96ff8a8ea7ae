package observed

import "github.com/mcpspec/mcpspec/suites/catalog"
import "github.com/mcpspec/mcpspec/harness"

// lifeChecks: the handshake, and cancellation of it.
func lifeChecks() []Check {
	return []Check{
		{ID: "LIFE-INITIALIZED-NOTIF", Level: "MUST", Versions: harness.HandshakeRevisions, Transports: allTransports,
			Summary: "after the InitializeResult the client sends notifications/initialized before any request but ping",
			Side:    Observed{Whose: Client, Judge: judgeInitialized}},
		{ID: "LIFE-PRE-INIT-REQUEST", Level: "SHOULD", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "the client sends no request but ping before the server has answered initialize",
			Side:    Observed{Whose: Client, Judge: judgePreInit}},
		{ID: "LIFE-SERVER-WAIT-INITIALIZED", Level: "SHOULD", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "between initialize and notifications/initialized the server sends no request but ping",
			Side:    Observed{Whose: Server, Judge: judgeServerWaits}},
		{ID: "CANCEL-NO-INIT-CANCEL", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary: "the client never cancels initialize",
			Side:    Observed{Whose: Client, Judge: judgeNoInitCancel}},
	}
}

func judgeInitialized(v *View) Finding {
	if v.InitAnswer < 0 || !v.Msgs[v.InitAnswer].HasResult {
		return notExercised("no initialize was answered with a result")
	}
	for _, m := range v.Msgs[v.InitAnswer+1:] {
		if m.From != Client {
			continue
		}
		switch {
		case m.Method == "notifications/initialized":
			return passed("record %d: the client sent notifications/initialized after the InitializeResult", v.seq(m))
		case m.IsRequest() && m.Method != "ping":
			return violated("record %d: the client sent %s before notifications/initialized", v.seq(m), describe(m))
		}
	}
	return notExercised("the client sent no request after the InitializeResult")
}

func judgeNoInitCancel(v *View) Finding {
	cancels := v.cancelled(Client)
	if len(cancels) == 0 {
		return notExercised("the client cancelled nothing")
	}
	if v.Init >= 0 {
		if i, ok := cancels[v.Msgs[v.Init].ID]; ok {
			return violated("record %d: the client cancelled initialize (id %s)", v.seq(v.Msgs[i]), v.Msgs[v.Init].ID.Text())
		}
	}
	return passed("the client cancelled %d requests, none of them initialize", len(cancels))
}

func judgePreInit(v *View) Finding {
	end := len(v.Msgs) // with no answer to initialize (or no initialize), everything is before it
	if v.InitAnswer >= 0 {
		end = v.InitAnswer
	}
	n := 0
	for i, m := range v.Msgs[:end] {
		if m.From != Client || !m.IsRequest() || m.Method == "initialize" {
			continue
		}
		n++
		before := v.Init >= 0 && i < v.Init // an initialize follows: the recording holds the start
		switch {
		case m.Method == "ping":
		case m.Method == "server/discover" && (before || v.Init < 0):
			// A dual-era client tries discovery first and falls back to initialize when refused.
		case before:
			// Not only the SHOULD NOT: "the initialization phase MUST be the first interaction".
			f := violated("record %d: the client sent %s before initialize: the initialization phase MUST be the first interaction", v.seq(m), describe(m))
			f.Severe = true
			return f
		default:
			return violated("record %d: the client sent %s before the server answered initialize", v.seq(m), describe(m))
		}
	}
	if v.Init < 0 && n == 0 {
		return notExercised("the client sent no request")
	}
	return passed("the client sent %d requests besides initialize before its answer, none but ping or server/discover", n)
}

func judgeServerWaits(v *View) Finding {
	if v.InitAnswer < 0 {
		return notExercised("no initialize was answered")
	}
	for _, m := range v.Msgs[v.InitAnswer+1:] {
		switch {
		case m.From == Client && m.Method == "notifications/initialized":
			return passed("the server sent no request but ping before notifications/initialized (record %d)", v.seq(m))
		case m.From == Server && m.IsRequest() && m.Method != "ping":
			return violated("record %d: the server sent %s before the client's notifications/initialized", v.seq(m), describe(m))
		}
	}
	return notExercised("the client never sent notifications/initialized")
}
