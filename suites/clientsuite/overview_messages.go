package clientsuite

import (
	"encoding/json"
	"errors"
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/probe"
	"github.com/mcpspec/mcpspec/harness/schema"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"slices"
	"strings"
)

// The client checks of basic/index (messages): the schema of every message, and the ids of the
// client's requests.

func init() {
	Register(
		Check{ID: "SCHEMA-CLIENT-REF-NO-DEREF", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary:     "a client does not dereference a tool schema's $ref that resolves to a network URI: the probe's canary URL is never fetched",
			LevelReason: "The text says MUST NOT: implementations must not automatically dereference a $ref that resolves to a network URI (an opt-in mode may, disabled by default). The canary is the $ref's URL on a loopback listener of the probe's own, so any request to it is a dereference, whenever it comes before the client exits.",
			Side:        Client{Scenario: probe.ScenarioRefNoDeref, Judge: judgeRefNoDeref}},
		Check{ID: "SCHEMA-CLIENT-PRESERVE", Level: "MUST", Revisions: catalog.AllCatalogued, Transports: allTransports,
			Summary:     "the input schema a client holds for a tool keeps the JSON Schema 2020-12 keywords the server gave it (json_schema_echo shows it)",
			LevelReason: "Clients MUST support JSON Schema 2020-12, the default dialect from 2025-11-25: a client that drops $schema, $defs or additionalProperties (and, from 2026-07-28, where tool schemas take the whole vocabulary, allOf/anyOf, if/then/else or an $anchor) no longer holds the schema the server declared, so it cannot validate or present the tool's input by it. Only a client that echoes the schema, as the official scenario asks, shows what it holds; any other is untestable.",
			Side:        Client{Scenario: probe.ScenarioSchemaPreservation, Judge: judgeSchemaPreserve}},
		Check{ID: "MSG-JSONRPC", Revisions: catalog.AllCatalogued, Transports: allTransports, Level: "MUST",
			Summary: "every message the client sends validates against the negotiated revision's schema",
			Side:    Client{Scenario: probe.ScenarioTools, Also: handshakeOnly, Judge: judgeSchema}},
		Check{ID: "MSG-REQ-ID-TYPE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: allTransports,
			Summary: "every request the client sends has a string or integer id (a null id is MSG-REQ-ID-NOT-NULL's matter)",
			Side:    Client{Scenario: probe.ScenarioTools, Also: idScenarios, Rides: true, Judge: judgeIDType}},
		Check{ID: "MSG-REQ-ID-NOT-NULL", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: allTransports,
			Summary: "no request the client sends has a null id",
			Side:    Client{Scenario: probe.ScenarioTools, Also: idScenarios, Rides: true, Judge: judgeIDNotNull}},
		Check{ID: "MSG-REQ-ID-UNIQUE", Revisions: catalog.AllCatalogued, Level: "MUST", Transports: allTransports,
			Summary: "the client never reuses a request id within the session (at 2026-07-28: never the id of another request still in flight)",
			Side:    Client{Scenario: probe.ScenarioTools, Also: idScenarios, Rides: true, Judge: judgeIDUnique}},
	)
}

func judgeSchema(v *View) Finding {
	if len(v.Msgs) == 0 {
		return untestable("the client sent no message")
	}
	initialized := false
	for _, m := range v.Msgs {
		// A client that speaks 2026-07-28 may ask server/discover before it falls back to
		// initialize (the probe refuses it at older revisions): such a message is judged at the
		// revision it declares, not at the one negotiated after it.
		rev := v.Revision
		initialized = initialized || m.Method == "initialize"
		if !initialized && m.Method == "server/discover" {
			rev = declaredRevision(m.Raw)
		}
		defs := []string{"JSONRPCMessage"}
		switch {
		case m.Method == "initialize" && harness.IsStateless(rev):
			// A dual-era client's fallback: the revision defines no initialize, so only its
			// JSON-RPC shape is judged here.
		case m.Method == "initialize":
			defs = append(defs, "InitializeRequest")
		case m.IsRequest():
			defs = append(defs, "ClientRequest")
		case m.IsNotification():
			defs = append(defs, "ClientNotification")
		}
		raw := m.Raw
		if m.IsRequest() && !validID(m.ID) {
			raw = withValidID(raw) // the id is MSG-REQ-ID-TYPE's or MSG-REQ-ID-NOT-NULL's matter
		}
		for _, d := range defs {
			// Each message of a batch is judged on its own; the batch itself is
			// HTTP-POST-BODY's matter.
			if err := v.Validator.Definition(rev, d, raw); err != nil {
				if errors.Is(err, schema.ErrUnknownDefinition) {
					// mcpspec's own lookup failed (initialize has no definition at 2026-07-28):
					// a harness error, not the client's failure.
					return broken("record %d: %s cannot be judged at %s: %v", v.Records[m.Rec].Seq, describe(m), rev, err)
				}
				return violated("record %d: %s is not a valid %s at %s: %v", v.Records[m.Rec].Seq, describe(m), d, rev, err)
			}
		}
		if m.IsResponse() && m.Result != nil && strings.Contains(string(m.ID), probe.PingID) {
			if err := v.Validator.Definition(rev, "EmptyResult", m.Result); err != nil {
				return violated("the answer to the probe's ping is not a valid EmptyResult at %s: %v", rev, err)
			}
		}
	}
	return passed("%d messages validate against the %s schema", len(v.Msgs), v.Revision)
}

// declaredRevision is the revision a server/discover request names in its _meta when mcpspec
// knows its schema, else 2026-07-28, the revision that defines server/discover.
func declaredRevision(raw json.RawMessage) string {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	var rev string
	if json.Unmarshal(raw, &m) == nil && json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/protocolVersion"], &rev) == nil && harness.IsStateless(rev) && slices.Contains(harness.Revisions, rev) {
		return rev
	}
	return harness.Rev20260728
}

func judgeIDType(v *View) Finding {
	reqs := v.clientRequests()
	if len(reqs) == 0 {
		return v.noRequest()
	}
	for _, m := range reqs {
		if k := idKind(m.ID); k == "other" {
			return violated("the client's %s (record %d) has id %s, neither a string nor an integer", m.Method, v.Records[m.Rec].Seq, m.ID)
		}
	}
	return passed("all %d of the client's requests have a string or integer id (a null one is MSG-REQ-ID-NOT-NULL's matter)", len(reqs))
}

func judgeIDNotNull(v *View) Finding {
	reqs := v.clientRequests()
	if len(reqs) == 0 {
		return v.noRequest()
	}
	for _, m := range reqs {
		if idKind(m.ID) == "null" {
			return violated("the client's %s (record %d) has a null id", m.Method, v.Records[m.Rec].Seq)
		}
	}
	return passed("none of the client's %d requests has a null id", len(reqs))
}

func judgeIDUnique(v *View) Finding {
	reqs := v.clientRequests()
	if len(reqs) == 0 {
		return v.noRequest()
	}
	if harness.IsStateless(v.Revision) {
		skipped, f := v.walk(func(m Msg, inFlight []Msg) *Finding {
			for _, o := range inFlight {
				if string(o.ID) == string(m.ID) {
					f := violated("the client's %s (record %d) has id %s, the id of its %s (record %d), still in flight", m.Method, v.Records[m.Rec].Seq, m.ID, o.Method, v.Records[o.Rec].Seq)
					return &f
				}
			}
			return nil
		}, nil)
		if f != nil {
			return *f
		}
		return passed("none of the client's %d requests reused the id of a request in flight%s", len(reqs), skippedNote(skipped))
	}
	seen := map[string]Msg{}
	_, f := v.walk(func(m Msg, _ []Msg) *Finding {
		if o, dup := seen[string(m.ID)]; dup {
			f := violated("the client's %s (record %d) has id %s, which its %s (record %d) used before in the session", m.Method, v.Records[m.Rec].Seq, m.ID, o.Method, v.Records[o.Rec].Seq)
			return &f
		}
		seen[string(m.ID)] = m
		return nil
	}, func() { seen = map[string]Msg{} })
	if f != nil {
		return *f
	}
	return passed("none of the client's %d requests reused an id within its session (a session begins at initialize)", len(reqs))
}
