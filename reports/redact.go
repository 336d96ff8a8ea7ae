package reports

import (
	"encoding/json"
	"sort"
	"strings"
)

// Redacted replaces every secret in a redacted run.
const Redacted = "[REDACTED]"

// Redact replaces every occurrence of every non-empty secret with
// "[REDACTED]" in the text that can carry one: the target description,
// serverInfo, messages, evidence and errors. A secret is also found in its
// JSON-escaped form, as it would appear inside a JSON body. Fields mcpspec
// itself generates (IDs, titles, levels, revisions, transports, spec links,
// tool version) are left alone, so a secret that happens to look like "2"
// cannot corrupt the machine-readable parts of a report. Secrets of any
// length are redacted where they are looked for; the CLI decides which
// values are secrets.
func Redact(r *Run, secrets []string) {
	rep := newRedactor(secrets)
	if rep == nil {
		return
	}
	s := rep.Replace
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
// wire transcript, say): every secret and its JSON-escaped forms become "[REDACTED]".
func Redactor(secrets []string) func(string) string {
	rep := newRedactor(secrets)
	if rep == nil {
		return func(s string) string { return s }
	}
	return rep.Replace
}

// newRedactor builds one replacer for all secrets and their JSON-escaped
// forms, longest first so a secret containing another is replaced whole.
// It returns nil when there is nothing to redact.
func newRedactor(secrets []string) *strings.Replacer {
	seen := map[string]bool{}
	var forms []string
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			forms = append(forms, f)
		}
	}
	for _, secret := range secrets {
		add(secret)
		add(jsonEscaped(secret, true))
		add(jsonEscaped(secret, false))
	}
	if len(forms) == 0 {
		return nil
	}
	sort.SliceStable(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	return strings.NewReplacer(pairs...)
}

// jsonEscaped is the secret as it appears between the quotes of a JSON string.
func jsonEscaped(secret string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(secret); err != nil {
		return "" // a string always encodes; nothing extra to redact otherwise
	}
	quoted := strings.TrimSuffix(b.String(), "\n")
	return quoted[1 : len(quoted)-1]
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
