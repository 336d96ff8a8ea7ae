package suites

import (
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: running the log tool (--log-tool) and setting log levels.

// unknownLogLevel is not one of RFC 5424's severities.
const unknownLogLevel = "verbose"

// setLevel sends logging/setLevel in a handshake session.
func setLevel(t *conform.T, level string) (jsonrpc.Message, error) {
	return t.S.Request(t.Ctx, "logging/setLevel", map[string]any{"level": level})
}

// logToolRun is what one call of the log tool at debug gave, on a server of its own.
type logToolRun struct {
	logs  []jsonrpc.Message // the log messages from the call on
	notes []jsonrpc.Message // every notification the server sent
	f     *conform.Finding
}

// observeLogTool has the log tool log at debug on a server of its own per revision and
// transport (T.Observe), which LOG-LEVEL-ENUM and MSG-NOTIF-NO-ID both judge: setting the level
// changes the server's state, so it is done on no session other checks use.
func observeLogTool(t *conform.T) (logToolRun, *conform.Finding) {
	v, f := t.Observe("log-tool-debug", conform.Fresh, func(o *conform.T) any {
		run, f := logsAt(o, "debug")
		out := logToolRun{f: f, notes: notificationsOf(o.S)}
		for _, r := range run.logs {
			out.logs = append(out.logs, r.Msg)
		}
		return out
	})
	if f != nil {
		return logToolRun{}, f
	}
	return v.(logToolRun), nil
}

// logsAt has the log tool log at level: in a handshake session level is set first with
// logging/setLevel, at 2026-07-28 it goes in the call's _meta.
func logsAt(t *conform.T, level string) (logRun, *conform.Finding) {
	if !t.S.Stateless() {
		resp, err := setLevel(t, level)
		if err != nil || !resp.HasResult {
			f := conform.CannotTest("logging/setLevel %q was not answered with a result: %v %s", level, err, show(resp))
			return logRun{}, &f
		}
		return runLogTool(t, "")
	}
	return runLogTool(t, level)
}

// setLevels is how the state session's server answered logging/setLevel "info" and then an unknown
// level (at 2026-07-28 only the latter, in a request's _meta).
type setLevels struct {
	valid, invalid       jsonrpc.Message
	validErr, invalidErr error
	invalidMethod        string // what carried the unknown level
	goneAfterValid       bool   // the server stopped answering after the valid level
}

// metaLogLevel is the _meta key by which a stateless request asks for log messages.
const metaLogLevel = "io.modelcontextprotocol/logLevel"

// logRun is what came for one call of the log tool.
type logRun struct {
	d      *wire.Delivery
	respAt int             // inbox index of the response
	logs   []wire.Received // every notifications/message from the call on
}

// noLogTool says why a check that needs log messages could not run.
const noLogTool = "needs a tool that writes log messages; name one with --log-tool NAME --log-tool-args JSON"

// runLogTool calls the --log-tool with level in its _meta (none when "") and gathers every log
// message from the call until the server is quiet after its response.
func runLogTool(t *conform.T, level string) (logRun, *conform.Finding) {
	var run logRun
	if t.Options().LogTool == "" {
		f := conform.CannotTest("%s", noLogTool)
		return run, &f
	}
	if !t.S.HasCapability("tools") {
		f := conform.CannotTest("the server declares no tools capability, so --log-tool %q cannot be called", t.Options().LogTool)
		return run, &f
	}
	args := t.Options().LogToolArgs
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	params, _ := t.S.StatelessParams(map[string]any{"name": t.Options().LogTool, "arguments": args}).(map[string]any)
	if meta, ok := params["_meta"].(map[string]any); ok && level != "" {
		meta[metaLogLevel] = level
	}
	id := t.S.NextID()
	t.S.Sent(id, "tools/call")
	from := t.S.Mark()
	d, err := t.S.Send(t.Ctx, rawRequest(id, "tools/call", params))
	if err != nil {
		f := conform.Crashed("calling the log tool: %v", err)
		return run, &f
	}
	run.d = d
	resp, err := t.S.AwaitReply(t.Ctx, d, from, id)
	if err != nil || !resp.HasResult {
		f := conform.CannotTest("the log tool %q was not answered with a result: %v %s", t.Options().LogTool, err, show(resp))
		return run, &f
	}
	if _, err := t.S.Quiet(t.Ctx, from); err != nil {
		f := conform.Crashed("%v", err)
		return run, &f
	}
	for _, r := range t.S.Conn.Inbox().Since(from) {
		if wire.ContainsResponse(r.Msg, id) {
			run.respAt = r.Index
		}
		for _, m := range flatten(r.Msg) {
			if m.Kind == jsonrpc.Notification && m.Method == "notifications/message" {
				run.logs = append(run.logs, r)
			}
		}
	}
	return run, nil
}
