package suites

import (
	"encoding/json"
	"regexp"
	"sync"

	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: content blocks and resource contents, as tools, prompts and resources share them.

// maxReads bounds how many listed resources (and prompts) a check reads.
const maxReads = 10

// rfc3986URI matches an absolute URI: a scheme, a colon, then only the characters RFC 3986
// allows (unreserved, reserved, and percent escapes).
var rfc3986URI = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$`)
})

// textXorBlob says what is wrong with a resource content's text and blob ("" if nothing).
func textXorBlob(c map[string]json.RawMessage) string {
	_, isText := jsonString(c["text"])
	_, isBlob := jsonString(c["blob"])
	switch {
	case isText && isBlob:
		return "has both text and blob"
	case !isText && !isBlob:
		return "has neither a string text nor a string blob"
	}
	return ""
}

// contentItem is one item of a tool result's content.
type contentItem struct {
	tool string
	raw  json.RawMessage
	obj  map[string]json.RawMessage
	typ  string
}

// sampleContent calls the read-only tools and gathers their results' content items.
func sampleContent(t *conform.T) ([]contentItem, []toolCall, *conform.Finding) {
	calls, why, f := sampleCalls(t, anyTool)
	if f != nil {
		return nil, nil, f
	}
	if calls == nil {
		c := conform.CannotTest("no tool could be called: %s", why)
		return nil, nil, &c
	}
	var items []contentItem
	for _, c := range calls {
		obj, ok := c.result()
		if !ok {
			continue
		}
		var raws []json.RawMessage
		_ = json.Unmarshal(obj["content"], &raws)
		for _, r := range raws {
			it := contentItem{tool: c.def.name, raw: r}
			_ = json.Unmarshal(r, &it.obj)
			it.typ, _ = jsonString(it.obj["type"])
			items = append(items, it)
		}
	}
	return items, calls, nil
}
