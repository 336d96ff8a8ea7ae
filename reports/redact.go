package reports

import "github.com/mcpspec/mcpspec/harness/secrets"

// Redacted replaces every secret in a redacted run.
const Redacted = secrets.Redacted

// Redact replaces every secret, in every form harness/secrets finds it in, with "[REDACTED]"
// in the text that can carry one: the target description, serverInfo, messages, evidence and
// errors. Fields mcpspec itself generates (IDs, titles, levels, revisions, transports, spec
// links, tool version) are left alone. Values too short or too common to be secrets
// (secrets.IsSecret) are not redacted. Redact is for the reports: call it on results the
// checks have already judged.
func Redact(r *Run, values []string) {
	rep := secrets.New(values)
	if rep.Empty() {
		return
	}
	s := rep.Redact
	r.Target.Description = s(r.Target.Description)
	replaceAll(r.Errors, s)
	if r.Target.ServerInfo != nil {
		r.Target.ServerInfo = redactValue(r.Target.ServerInfo, s).(map[string]any)
	}
	for i := range r.Results {
		res := &r.Results[i]
		res.Message, res.BaselineReason = s(res.Message), s(res.BaselineReason)
		for j := range res.Evidence {
			ev := &res.Evidence[j]
			ev.Meta, ev.Body = s(ev.Meta), s(ev.Body)
		}
	}
}

// Redactor returns the replacement Redact applies to text, for text that is not a report (a
// wire transcript, the console).
func Redactor(values []string) func(string) string {
	return secrets.New(values).Redact
}

func replaceAll(list []string, s func(string) string) {
	for i := range list {
		list[i] = s(list[i])
	}
}

// redactValue walks a decoded JSON value, replacing secrets in strings and
// in object keys.
func redactValue(v any, s func(string) string) any {
	switch v := v.(type) {
	case string:
		return s(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[s(k)] = redactValue(val, s)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = redactValue(val, s)
		}
		return out
	}
	return v
}
