package suites

import (
	"encoding/json"
	"strings"

	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of MCP Apps, io.modelcontextprotocol/ui (SEP-1865, github.com/modelcontextprotocol/
// ext-apps): a tool names the UI a host renders for it in _meta.ui.resourceUri (the deprecated
// _meta["ui/resourceUri"] too), a ui:// resource the server lists, whose content is HTML of the
// mimeType text/html;profile=mcp-app. The requests declare the extension with that mimeType, as
// a host that renders apps does: a server may offer its app tools only then.

func init() {
	conform.Register(
		conform.Check{ID: "APPS-CAP", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the MCP Apps extension's entry in capabilities.extensions is an object, whose mimeTypes, where given, is an array of strings",
			Side:    conform.Server{Run: checkAppsCap}},
		conform.Check{ID: "APPS-UI-RESOURCE", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a tool's _meta.ui.resourceUri is a ui:// URI of a resource that resources/list lists and resources/read serves",
			LevelReason: "A host fetches the UI by that URI; one it cannot list or read leaves the tool without its UI.",
			Side:        conform.Server{Run: checkAppsUIResource}},
		conform.Check{ID: "APPS-UI-MIME", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "every ui:// resource is listed and read with the mimeType text/html;profile=mcp-app",
			Side:    conform.Server{Run: checkAppsUIMime}},
	)
}

const (
	appsExtension = "io.modelcontextprotocol/ui"
	appsMime      = "text/html;profile=mcp-app"
)

// appsCaps declares MCP Apps as a host that renders HTML apps.
func appsCaps() map[string]any {
	return extCaps(appsExtension, map[string]any{"mimeTypes": []string{appsMime}})
}

// toolUI is the resource URI a tool definition links in its _meta, and whether it links one.
func toolUI(tool map[string]json.RawMessage) (string, bool) {
	var meta struct {
		UI struct {
			ResourceURI *string `json:"resourceUri"`
		} `json:"ui"`
		Legacy *string `json:"ui/resourceUri"`
	}
	if json.Unmarshal(tool["_meta"], &meta) != nil {
		return "", false
	}
	switch {
	case meta.UI.ResourceURI != nil:
		return *meta.UI.ResourceURI, true
	case meta.Legacy != nil:
		return *meta.Legacy, true
	}
	return "", false
}

// uiResources are the ui:// resources resources/list lists, by URI.
func uiResources(t *conform.T) (map[string]map[string]json.RawMessage, *conform.Finding) {
	out := map[string]map[string]json.RawMessage{}
	if !t.S.HasCapability("resources") {
		return out, nil
	}
	items, err := extList(t, "resources/list", "resources", appsCaps())
	if err != nil {
		f := conform.CannotTest("%v", err)
		return nil, &f
	}
	for _, it := range items {
		if uri, _ := jsonString(it["uri"]); strings.HasPrefix(uri, "ui://") {
			out[uri] = it
		}
	}
	return out, nil
}

func checkAppsCap(t *conform.T) conform.Finding {
	settings, f := extSettings(t, appsExtension)
	if f != nil {
		return *f
	}
	if raw, ok := settings["mimeTypes"]; ok {
		var types []string
		if json.Unmarshal(raw, &types) != nil {
			return conform.Violated("the MCP Apps extension's mimeTypes is %s, not an array of strings", clip(string(raw), 80))
		}
	}
	return conform.Passed("")
}

func checkAppsUIResource(t *conform.T) conform.Finding {
	if !t.S.HasCapability("tools") {
		return conform.NA("the server declares no tools capability")
	}
	tools, err := extList(t, "tools/list", "tools", appsCaps())
	if err != nil {
		return conform.CannotTest("%v", err)
	}
	listed, f := uiResources(t)
	if f != nil {
		return *f
	}
	linked := 0
	for _, tool := range tools {
		uri, ok := toolUI(tool)
		if !ok {
			continue
		}
		name, _ := jsonString(tool["name"])
		if !strings.HasPrefix(uri, "ui://") {
			return conform.Violated("the tool %q links the UI %q, which is not a ui:// URI", name, uri)
		}
		if listed[uri] == nil {
			return conform.Violated("the tool %q links the UI %s, which resources/list does not list", name, uri)
		}
		if _, f := extRead(t, uri, appsCaps()); f != nil {
			return *f
		}
		linked++
	}
	if linked == 0 {
		return conform.NA("no tool links a UI in _meta.ui.resourceUri")
	}
	return conform.Passed("%d tools link a UI", linked)
}

func checkAppsUIMime(t *conform.T) conform.Finding {
	listed, f := uiResources(t)
	if f != nil {
		return *f
	}
	if len(listed) == 0 {
		return conform.NA("resources/list lists no ui:// resource")
	}
	for _, uri := range sortedURIs(listed) {
		if mime, _ := jsonString(listed[uri]["mimeType"]); mime != appsMime {
			return conform.Violated("resources/list gives %s the mimeType %q, not %s", uri, mime, appsMime)
		}
		c, f := extRead(t, uri, appsCaps())
		if f != nil {
			return *f
		}
		if c.mime != appsMime {
			return conform.Violated("resources/read gives %s the mimeType %q, not %s: %s", uri, c.mime, appsMime, show(c.resp))
		}
	}
	return conform.Passed("%d ui:// resources", len(listed))
}
