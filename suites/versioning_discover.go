package suites

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/streamhttp"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of server/discover, the request by which basic/versioning negotiates (2026-07-28).

func init() {
	conform.Register(
		conform.Check{ID: "VER26-DISCOVER", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "server/discover is served: supported versions (this one among them), capabilities and caching hints",
			Side:    conform.Server{Run: checkDiscover}},
		conform.Check{ID: "VER26-DISCOVER-SERVERINFO", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary: "the server/discover result names the server (name and version) in _meta io.modelcontextprotocol/serverInfo",
			Side:    conform.Server{Run: checkDiscoverServerInfo}},
		conform.Check{ID: "VER26-DISCOVER-CONSISTENT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "discover tells the truth: each stateless version it lists is accepted, and the capabilities it declares are the lists it serves",
			LevelReason: "Derived, no keyword: supportedVersions and capabilities are what a client negotiates by, so a listed version the server refuses, or a declared list it does not serve, breaks negotiation (MUST). A list served although undeclared fails only when it holds items: an empty answer misleads no client.",
			Side:        conform.Server{Run: checkDiscoverConsistent}},
	)
}

func checkDiscover(t *conform.T) conform.Finding {
	resp := t.S.InitResponse()
	obj, ok := resp.ResultObject()
	if !ok {
		return conform.Violated("server/discover was not answered with a result: %s", show(resp))
	}
	var versions []string
	if json.Unmarshal(obj["supportedVersions"], &versions) != nil || !slices.Contains(versions, t.Revision) {
		return conform.Violated("supportedVersions %s does not list %s", string(obj["supportedVersions"]), t.Revision)
	}
	if err := t.S.Env().Validator.Definition(t.Revision, "DiscoverResult", resp.Result); err != nil {
		return conform.Violated("%v", err)
	}
	return conform.Passed("")
}

func checkDiscoverServerInfo(t *conform.T) conform.Finding {
	obj, f := resultOf(sample{"server/discover", t.S.InitResponse()})
	if f != nil {
		return *f
	}
	if why := serverInfoProblem(obj); why != "" {
		return conform.Violated("the server/discover result %s: %s", why, show(t.S.InitResponse()))
	}
	return conform.Passed("")
}

func checkDiscoverConsistent(t *conform.T) conform.Finding {
	var versions []string
	_ = json.Unmarshal(t.S.InitResult()["supportedVersions"], &versions)
	for _, v := range versions {
		if !harness.IsStateless(v) || v == t.Revision {
			continue
		}
		resp, _, err := statelessRequest(t, "server/discover", map[string]any{"_meta": statelessMeta(v, nil)}, http.Header{streamhttp.HeaderProtocol: {v}})
		if err != nil {
			return conform.Violated("server/discover at the advertised version %s got no JSON-RPC reply: %v", v, err)
		}
		if _, ok := resp.ResultObject(); !ok {
			return conform.Violated("supportedVersions lists %s, but server/discover at %s was refused: %s", v, v, show(resp))
		}
	}
	if f := unsupportedListsSubset(t, versions); f != nil {
		return *f
	}
	for _, l := range lists {
		resp, err := t.S.Request(t.Ctx, l.method, nil)
		if err != nil {
			return conform.Violated("%s: %v", l.method, err)
		}
		obj, served := resp.ResultObject()
		declared := t.S.HasCapability(l.cap)
		switch {
		case declared && !served:
			return conform.Violated("discover declares %s, but %s was refused: %s", l.cap, l.method, show(resp))
		case !declared && served && string(obj[l.key]) != "[]":
			return conform.Violated("discover does not declare %s, but %s lists items: %s", l.cap, l.method, show(resp))
		}
	}
	return conform.Passed("")
}

// unsupportedListsSubset checks that the versions a -32022 error names as supported are among
// those discover lists (when the server answers -32022 at all: VER26-UNSUPPORTED judges that).
func unsupportedListsSubset(t *conform.T, versions []string) *conform.Finding {
	const bogus = "1900-01-01"
	resp, _, err := statelessRequest(t, "server/discover", map[string]any{"_meta": statelessMeta(bogus, nil)}, http.Header{streamhttp.HeaderProtocol: {bogus}})
	if err != nil {
		return nil
	}
	if code, ok := errorCode(resp); !ok || code != codeUnsupportedVersion {
		return nil
	}
	e, _ := resp.ErrorObject()
	var data struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(e.Data, &data)
	for _, v := range data.Supported {
		if !slices.Contains(versions, v) {
			f := conform.Violated("a -32022 error names %s as supported, but discover's supportedVersions %v does not: %s", v, versions, show(resp))
			return &f
		}
	}
	return nil
}
