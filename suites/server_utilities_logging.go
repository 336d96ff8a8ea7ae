package suites

import (
	"encoding/json"
	"fmt"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of server/utilities/logging: the capability, logging/setLevel (handshake revisions), log
// levels and the shape of notifications/message, and the per-request log level of the stateless
// revision (logtool.go).

func init() {
	conform.Register(
		conform.Check{ID: "LOG-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary: "a server that sends log messages declares the logging capability",
			Side:    conform.Server{Connection: conform.Fresh, Ready: logCapReady, Run: checkLogCap}},
		// LOG-SETLEVEL and LOG-INVALID-LEVEL judge the state session (state.go).
		conform.Check{ID: "LOG-SETLEVEL", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary:     "a server that declares logging accepts logging/setLevel with an empty result",
			LevelReason: "The row's MAY binds the client (it may send logging/setLevel). The server's rules: declaring logging announces the method (a declaration is held to its methods, as the *-CAP checks hold it), JSON-RPC obliges an answer, and the schema's result is EmptyResult.",
			Side:        conform.Server{Connection: conform.Observed, Ready: loggingReady, Run: checkSetLevel}},
		conform.Check{ID: "LOG-SETLEVEL-FILTER", Revisions: conform.AllCatalogued, Transports: allTransports, Level: "SHOULD",
			Summary:     "after logging/setLevel, log messages below the set level are not sent",
			LevelReason: "The schema's lower-case should is read as SHOULD.",
			Side:        conform.Server{Connection: conform.Fresh, Ready: logToolReady, Run: checkSetLevelFilter}},
		conform.Check{ID: "LOG-INVALID-LEVEL", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "an unknown log level is refused: logging/setLevel with -32602; at 2026-07-28 a request whose _meta names it is rejected",
			LevelReason: "At 2026-07-28 the spec says only that the request should be rejected, so any JSON-RPC error passes there.",
			Side:        conform.Server{Connection: conform.Observed, Ready: loggingReady, Run: checkInvalidLevel}},
		// LOG-LEVEL-ENUM judges the log tool's messages on a server of its own, or without a log
		// tool those the state session got (a server that logs on its own logs there).
		conform.Check{ID: "LOG-LEVEL-ENUM", Level: "MUST", Revisions: conform.AllCatalogued, Transports: allTransports,
			Summary:     "every log message has an RFC 5424 level, data, and a string logger if any",
			LevelReason: "The levels are the schema's LoggingLevel enumeration; data is required by the schema.",
			Side:        conform.Server{Connection: conform.Observed, Ready: loggingReady, Run: checkLogLevelEnum}},
		conform.Check{ID: "LOG26-SETLEVEL-REMOVED", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "logging/setLevel no longer exists: a stateless (2026-07-28) request for it gets -32601 (over HTTP with 404)", LevelReason: removedMethodLevelReason,
			Side: conform.Server{Run: checkSetLevelRemoved}},
		conform.Check{ID: "LOG26-OPT-IN", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a request whose _meta names no log level gets no log messages (the log tool logs when asked to)",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkLogOptIn}},
		conform.Check{ID: "LOG26-SCOPE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "a request's log messages come only before its response, on its own response stream",
			Side:    conform.Server{Connection: conform.Fresh, Run: checkLogScope}},
		conform.Check{ID: "LOG26-AT-OR-ABOVE", Level: "MAY", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "log messages for a request are at or above the level it asked for",
			LevelReason: "The spec allows messages at or above the requested level (MAY); one below it was not asked for, which mcpspec reports as a warning.",
			Side:        conform.Server{Connection: conform.Fresh, Run: checkLogAtOrAbove}},
	)
}

// logCapReady passes LOG-CAP without a server of its own when the server declares logging
// (what every session of the revision is told).
func logCapReady(t *conform.T) (conform.Finding, bool) {
	if t.S.HasCapability("logging") {
		return conform.Passed("the server declares logging"), true
	}
	return conform.Finding{}, false
}

// loggingReady ends a check of logging before its server is started when the server does not
// declare logging.
func loggingReady(t *conform.T) (conform.Finding, bool) {
	if !t.S.HasCapability("logging") {
		return conform.NA("the server does not declare logging"), true
	}
	return conform.Finding{}, false
}

// logToolReady ends a check that reads the log tool's messages before its server is started
// when the server does not declare logging or no log tool was named.
func logToolReady(t *conform.T) (conform.Finding, bool) {
	if f, done := loggingReady(t); done {
		return f, true
	}
	if t.Options().LogTool == "" {
		return conform.CannotTest("%s", noLogTool), true
	}
	return conform.Finding{}, false
}

// logParams decodes a notifications/message's params.
type logParams struct {
	Level  *string         `json:"level"`
	Data   json.RawMessage `json:"data"`
	Logger json.RawMessage `json:"logger"`
}

func checkLogCap(t *conform.T) conform.Finding {
	level := "debug" // at 2026-07-28 in the call's _meta
	if !t.S.Stateless() {
		// The server may refuse this; the log tool's messages are what matter.
		_, _ = setLevel(t, level)
		level = ""
	}
	run, f := runLogTool(t, level)
	if f != nil {
		return *f
	}
	for _, r := range t.S.Conn.Inbox().Since(0) {
		for _, m := range flatten(r.Msg) {
			if m.Method == "notifications/message" {
				return conform.Violated("the server sent a log message without declaring logging: %s", show(m))
			}
		}
	}
	return conform.Passed("no log message came (the log tool sent %d), and logging is not declared", len(run.logs))
}

// observedLevels is the state session's log-level part (state.go).
func observedLevels(t *conform.T) (*setLevels, *conform.Finding) {
	st, f := observeState(t)
	if f != nil {
		return nil, f
	}
	if st.gone != "" {
		f := conform.CannotTest("the server of the state session stopped answering after %s", st.gone)
		return nil, &f
	}
	if st.levels == nil {
		f := conform.NA("the server does not declare logging")
		return nil, &f
	}
	return st.levels, nil
}

func checkSetLevel(t *conform.T) conform.Finding {
	obs, f := observedLevels(t)
	if f != nil {
		return *f
	}
	if obs.validErr != nil {
		return conform.Violated("logging/setLevel got no reply: %v", obs.validErr)
	}
	if !isEmptyResult(obs.valid) {
		return conform.Violated("logging/setLevel \"info\" was not answered with an empty result: %s", show(obs.valid))
	}
	return conform.Passed("")
}

func checkSetLevelFilter(t *conform.T) conform.Finding {
	const threshold = "error"
	all, f := logsAt(t, "debug")
	if f != nil {
		return *f
	}
	below := 0
	for _, r := range all.logs {
		if n, ok := logSeverity[logLevelOf(r.Msg)]; ok && n < logSeverity[threshold] {
			below++
		}
	}
	if below == 0 {
		return conform.CannotTest("the log tool %q logs nothing below %s even at debug, so a filter would not show", t.Options().LogTool, threshold)
	}
	run, f := logsAt(t, threshold)
	if f != nil {
		return *f
	}
	for _, r := range run.logs {
		if n, ok := logSeverity[logLevelOf(r.Msg)]; !ok || n < logSeverity[threshold] {
			return conform.Violated("after logging/setLevel %q, a log message at %q: %s", threshold, logLevelOf(r.Msg), show(r.Msg))
		}
	}
	return conform.Passed("%d message(s) at debug, %d at %s and above", len(all.logs), len(run.logs), threshold)
}

func logLevelOf(m jsonrpc.Message) string {
	var p logParams
	_ = json.Unmarshal(m.Params, &p)
	if p.Level == nil {
		return ""
	}
	return *p.Level
}

func checkInvalidLevel(t *conform.T) conform.Finding {
	obs, f := observedLevels(t)
	if f != nil {
		return *f
	}
	if obs.goneAfterValid {
		return conform.CannotTest("the server stopped answering after logging/setLevel \"info\" (see LOG-SETLEVEL): %v", obs.validErr)
	}
	if obs.invalidErr != nil {
		return conform.Crashed("%s %q got no reply: %v", obs.invalidMethod, unknownLogLevel, obs.invalidErr)
	}
	if harness.IsStateless(t.Revision) {
		if !obs.invalid.HasError {
			return conform.Violated("%s %q was served: %s", obs.invalidMethod, unknownLogLevel, show(obs.invalid))
		}
		return conform.Passed("")
	}
	if ok, why := expectError(obs.invalid, codeInvalidParams); !ok {
		return conform.Violated("%s %q: %s", obs.invalidMethod, unknownLogLevel, why)
	}
	return conform.Passed("")
}

func checkLogLevelEnum(t *conform.T) conform.Finding {
	var logs []jsonrpc.Message
	from := "of the log tool"
	if t.Options().LogTool != "" {
		run, f := observeLogTool(t)
		if f != nil {
			return *f
		}
		if run.f != nil {
			return *run.f
		}
		if logs = run.logs; len(logs) == 0 {
			return conform.CannotTest("the log tool %q logged nothing at debug", t.Options().LogTool)
		}
	} else {
		// No log tool: the log messages the run has already, those of the state session,
		// which sets a log level. Only a run without any is untestable.
		from = "the state session got unasked (no --log-tool)"
		if st, f := observeState(t); f == nil {
			for _, m := range st.notifications {
				if m.Method == "notifications/message" {
					logs = append(logs, m)
				}
			}
		}
		if len(logs) == 0 {
			return conform.CannotTest("no log message came, not even in the state session, which sets a log level; %s", noLogTool)
		}
	}
	for _, m := range logs {
		if why := badLogMessage(m); why != "" {
			return conform.Violated("%s: %s", why, show(m))
		}
	}
	return conform.Passed("%d log message(s) %s", len(logs), from)
}

// badLogMessage says what is wrong with a log message's params, or "".
func badLogMessage(m jsonrpc.Message) string {
	var p logParams
	if json.Unmarshal(m.Params, &p) != nil {
		return "the params are not an object"
	}
	if p.Level == nil {
		return "the log message has no string level"
	}
	if _, ok := logSeverity[*p.Level]; !ok {
		return fmt.Sprintf("the level %q is not an RFC 5424 severity", *p.Level)
	}
	if p.Data == nil {
		return "the log message has no data"
	}
	if _, ok := jsonString(p.Logger); p.Logger != nil && !ok {
		return "the logger is not a string"
	}
	return ""
}

func checkSetLevelRemoved(t *conform.T) conform.Finding {
	// Valid params for the old method, so that a server still serving it answers with a result.
	return expectRemoved(t, "logging/setLevel", map[string]any{"level": "info"})
}

// logSeverity orders the RFC 5424 levels, least severe first.
var logSeverity = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3,
	"error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

func checkLogOptIn(t *conform.T) conform.Finding {
	asked, f := runLogTool(t, "debug")
	if f != nil {
		return *f
	}
	if len(asked.logs) == 0 {
		return conform.CannotTest("the log tool %q wrote nothing even at debug, so its silence without a level would prove nothing", t.Options().LogTool)
	}
	unasked, f := runLogTool(t, "")
	if f != nil {
		return *f
	}
	if len(unasked.logs) > 0 {
		return conform.Violated("%d log message(s) for a request that named no log level: %s", len(unasked.logs), show(unasked.logs[0].Msg))
	}
	return conform.Passed("")
}

func checkLogScope(t *conform.T) conform.Finding {
	run, f := runLogTool(t, "debug")
	if f != nil {
		return *f
	}
	if len(run.logs) == 0 {
		return conform.CannotTest("the log tool %q wrote nothing at debug, so there is no log message to place", t.Options().LogTool)
	}
	for _, r := range run.logs {
		if r.Index > run.respAt {
			return conform.Violated("a log message came after the request's response: %s", show(r.Msg))
		}
		if run.d.CarriesReplies && r.Via != run.d {
			return conform.Violated("a log message came on another stream than the request's response: %s", show(r.Msg))
		}
	}
	return conform.Passed("")
}

func checkLogAtOrAbove(t *conform.T) conform.Finding {
	const asked = "warning"
	run, f := runLogTool(t, asked)
	if f != nil {
		return *f
	}
	for _, r := range run.logs {
		var p struct {
			Level string `json:"level"`
		}
		_ = json.Unmarshal(r.Msg.Params, &p)
		if n, known := logSeverity[p.Level]; !known || n < logSeverity[asked] {
			return conform.Violated("a log message at %q for a request that asked for %s and above: %s", p.Level, asked, show(r.Msg))
		}
	}
	return conform.Passed("%d log message(s), all at %s or above", len(run.logs), asked)
}
