package suites

import (
	"encoding/json"

	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: sampling results of every list and read, and comparing answers.

// sample is one result the server gave, with the request that produced it.
type sample struct {
	method string
	resp   jsonrpc.Message
}

// sampleResults gathers the results of the session's opening (discover or initialize) and of
// every list the server declares.
func sampleResults(t *conform.T) ([]sample, *conform.Finding) {
	first := "initialize"
	if t.S.Stateless() {
		first = "server/discover"
	}
	out := []sample{{first, t.S.InitResponse()}}
	for _, l := range lists {
		if !t.S.HasCapability(l.cap) {
			continue
		}
		resp, err := askedFirstPage(t, l.method)
		if err != nil {
			f := conform.Violated("%s: %v", l.method, err)
			return nil, &f
		}
		out = append(out, sample{l.method, resp})
	}
	return out, nil
}

// resultOf is a sample's result object, or a finding when it is an error.
func resultOf(s sample) (map[string]json.RawMessage, *conform.Finding) {
	obj, ok := s.resp.ResultObject()
	if !ok {
		f := conform.CannotTest("%s was not answered with a result: %s", s.method, show(s.resp))
		return nil, &f
	}
	return obj, nil
}

// withoutMeta is a result without its _meta, as canonical JSON (sorted keys), for comparisons:
// _meta may legitimately differ between calls (trace ids, timestamps), and so may the text of
// an opaque cursor, so only whether there is one counts.
func withoutMeta(resp jsonrpc.Message) (string, bool) {
	obj, ok := resp.ResultObject()
	if !ok {
		return "", false
	}
	delete(obj, "_meta")
	if _, more := obj["nextCursor"]; more {
		obj["nextCursor"] = json.RawMessage(`true`)
	}
	return canonical(obj), true
}

// declaredList is the first list the server declares, or a not-applicable finding.
func declaredList(t *conform.T) (method string, f *conform.Finding) {
	for _, l := range lists {
		if t.S.HasCapability(l.cap) {
			return l.method, nil
		}
	}
	na := conform.NA("the server declares none of tools, resources, prompts: no list to ask for")
	return "", &na
}

// compareRounds bounds how often compareAnswers asks again when the answers without a variant
// changed between its first and last request (a list may change at any time, by another client
// or another check on the same server).
const compareRounds = 3

// compareAnswers sends method with each params and fails when a result differs from the
// first's. The first params are sent again at the end of each round: only a round in which
// they got the same answer both times is judged, so a list changed meanwhile is no violation.
func compareAnswers(t *conform.T, method string, variants []string, params []map[string]any) conform.Finding {
	ask := func(i int) (string, *conform.Finding) {
		resp, err := t.S.Request(t.Ctx, method, params[i])
		if err != nil {
			f := conform.Violated("%s %s: %v", method, variants[i], err)
			return "", &f
		}
		got, ok := withoutMeta(resp)
		if !ok {
			f := conform.Violated("%s %s was not answered with a result object: %s", method, variants[i], show(resp))
			return "", &f
		}
		return got, nil
	}
	for range compareRounds {
		answers := make([]string, len(params))
		for i := range params {
			got, f := ask(i)
			if f != nil {
				return *f
			}
			answers[i] = got
		}
		again, f := ask(0)
		if f != nil {
			return *f
		}
		if again != answers[0] {
			continue // the list changed during the round
		}
		for i := 1; i < len(answers); i++ {
			if answers[i] != answers[0] {
				return conform.Violated("%s %s gave another result than %s (asked before and after it, with the same answer):\n%s\nversus\n%s", method, variants[i], variants[0], clip(answers[i], 400), clip(answers[0], 400))
			}
		}
		return conform.Passed("")
	}
	return conform.CannotTest("%s %s got a different answer at the start and the end of each of %d rounds: the list kept changing", method, variants[0], compareRounds)
}
