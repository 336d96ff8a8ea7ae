package suites

import (
	"encoding/json"
	"fmt"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/jsonrpc"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: requests of the extensions' checks (ext_*.go), which declare the extension
// they judge in their own client capabilities, as the client a server extends would.

// extCaps declares the extension id with settings (nil: an empty object).
func extCaps(id string, settings map[string]any) map[string]any {
	if settings == nil {
		settings = map[string]any{}
	}
	return map[string]any{"extensions": map[string]any{id: settings}}
}

// extSettings is the server's capabilities.extensions entry for id as an object; a finding
// (a violation) when it is not one.
func extSettings(t *conform.T, id string) (map[string]json.RawMessage, *conform.Finding) {
	raw, _ := conform.ServerExtension(t.S, id)
	var settings map[string]json.RawMessage
	if json.Unmarshal(raw, &settings) != nil || settings == nil {
		f := conform.Violated("capabilities.extensions[%q] is %s, not an object", id, clip(string(raw), 120))
		return nil, &f
	}
	return settings, nil
}

// extRequest sends method with params, its _meta declaring caps.
func extRequest(t *conform.T, method string, params map[string]any, caps map[string]any) (jsonrpc.Message, error) {
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	p["_meta"] = statelessMeta(t.Revision, map[string]any{harness.MetaClientCapabilities: caps})
	resp, _, err := statelessRequest(t, method, p, nil)
	return resp, err
}

// extList follows method's cursors (at most maxPages pages) declaring caps, and returns the
// items under key.
func extList(t *conform.T, method, key string, caps map[string]any) ([]map[string]json.RawMessage, error) {
	var out []map[string]json.RawMessage
	params := map[string]any{}
	for page := 1; page <= maxPages; page++ {
		resp, err := extRequest(t, method, params, caps)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		obj, ok := resp.ResultObject()
		if !ok {
			return nil, fmt.Errorf("%s (page %d) was not answered with a result: %s", method, page, show(resp))
		}
		var items []map[string]json.RawMessage
		if json.Unmarshal(obj[key], &items) != nil {
			return nil, fmt.Errorf("%s (page %d) has no %s array of objects: %s", method, page, key, show(resp))
		}
		out = append(out, items...)
		cursor, ok := jsonString(obj["nextCursor"])
		if !ok || cursor == "" {
			return out, nil
		}
		params = map[string]any{"cursor": cursor}
	}
	return nil, fmt.Errorf("%s still had a nextCursor after %d pages", method, maxPages)
}

// readContent is the first content of a resources/read of uri declaring caps: its text (or
// blob) and mimeType. A finding when there is none.
type readContent struct {
	text, mime string
	resp       jsonrpc.Message
}

func extRead(t *conform.T, uri string, caps map[string]any) (readContent, *conform.Finding) {
	resp, err := extRequest(t, "resources/read", map[string]any{"uri": uri}, caps)
	if err != nil {
		f := conform.Crashed("resources/read of %s got no reply: %v", uri, err)
		return readContent{}, &f
	}
	obj, ok := resp.ResultObject()
	var contents []struct {
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
		MimeType string  `json:"mimeType"`
	}
	if !ok || json.Unmarshal(obj["contents"], &contents) != nil || len(contents) == 0 {
		f := conform.Violated("resources/read of %s, a resource the server lists, returned no content: %s", uri, show(resp))
		return readContent{resp: resp}, &f
	}
	c := readContent{mime: contents[0].MimeType, resp: resp}
	switch {
	case contents[0].Text != nil:
		c.text = *contents[0].Text
	case contents[0].Blob != nil:
		c.text = *contents[0].Blob
	}
	return c, nil
}
