package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpspec/mcpspec/fixtures/refauthserver"
	"github.com/mcpspec/mcpspec/fixtures/refclient"
	"github.com/mcpspec/mcpspec/fixtures/reference"
	"github.com/mcpspec/mcpspec/suites/assuite"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// listEntry is one row of `mcpspec list`.
type listEntry struct {
	ID       string   `json:"id"`
	Area     string   `json:"area"`
	Level    string   `json:"level"`
	Versions []string `json:"versions"`
	// Extension is the protocol extension the requirement belongs to (nil: the core protocol).
	Extension   *listExtension `json:"extension,omitempty"`
	Implemented bool           `json:"implemented"`
	Transports  []string       `json:"transports,omitempty"`
	HasFault    bool           `json:"hasFault"`
	Excluded    string         `json:"excluded,omitempty"`       // why it is deliberately not checked
	JSONRPC     bool           `json:"jsonrpcProfile,omitempty"` // checked by run --jsonrpc too
	Client      bool           `json:"client,omitempty"`         // checked in clients by mcpspec client
	AuthServer  bool           `json:"authServer,omitempty"`     // checked in authorization servers by mcpspec authserver
	Summary     string         `json:"summary,omitempty"`
	LevelReason string         `json:"levelReason,omitempty"`
}

// listExtension names an extension: its identifier, the version of its text the requirement
// was written from, and the base revisions it applies to.
type listExtension struct {
	ID        string   `json:"id"`
	Version   string   `json:"version"`
	Revisions []string `json:"revisions"`
}

func cmdList(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print JSON")
	onlyImpl := fs.Bool("implemented", false, "only implemented requirements")
	if err := parseFlags(fs, args, "mcpspec list [--json] [--implemented]", stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("list: unexpected argument %q", fs.Arg(0))
	}
	entries, err := listEntries()
	if err != nil {
		return err
	}
	if *onlyImpl {
		var kept []listEntry
		for _, e := range entries {
			if e.Implemented {
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tLEVEL\tIMPLEMENTED\tFAULT\tTRANSPORTS\tREVISIONS\tSUMMARY")
	impl, excluded := 0, 0
	for _, e := range entries {
		mark, fault := "-", "-"
		summary := e.Summary
		switch {
		case e.Implemented:
			mark = "yes"
			impl++
		case e.Excluded != "":
			mark = "excluded"
			summary = e.Excluded
			excluded++
		}
		if e.HasFault {
			fault = "yes"
		}
		if e.Extension != nil {
			summary = "[extension " + e.Extension.ID + "] " + summary
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Level, mark, fault, strings.Join(e.Transports, ","), strings.Join(e.Versions, ","), summary)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d requirements: %d implemented, %d excluded (with the reason), %d not yet implemented\n", len(entries), impl, excluded, len(entries)-impl-excluded)
	var profile []string
	for _, e := range entries {
		if e.JSONRPC {
			profile = append(profile, e.ID)
		}
	}
	if len(profile) > 0 {
		fmt.Fprintf(stdout, "the JSON-RPC profile (run --jsonrpc) checks %d of them: %s\n", len(profile), strings.Join(profile, ", "))
	}
	for _, x := range catalog.Extensions() {
		n, clientOnly := 0, true
		for _, e := range entries {
			if e.Extension != nil && e.Extension.ID == x.ID {
				n++
				_, server := conform.Lookup(e.ID)
				clientOnly = clientOnly && e.Client && !server
			}
		}
		where := "judged only where the server declares it in capabilities.extensions"
		if clientOnly {
			// An authorization extension (DPoP) is negotiated through OAuth, not capabilities.
			where = "judged on clients, in the scenarios that use it"
		}
		if n > 0 {
			fmt.Fprintf(stdout, "the extension %s (%s; base revisions %s) has %d of them, %s\n", x.ID, x.Version, strings.Join(x.Revisions, ", "), n, where)
		}
	}
	var clients []string
	for _, e := range entries {
		if e.Client {
			clients = append(clients, e.ID)
		}
	}
	if len(clients) > 0 {
		fmt.Fprintf(stdout, "mcpspec client checks %d of them in clients: %s\n", len(clients), strings.Join(clients, ", "))
	}
	var authServers []string
	for _, e := range entries {
		if e.AuthServer {
			authServers = append(authServers, e.ID)
		}
	}
	if len(authServers) > 0 {
		fmt.Fprintf(stdout, "mcpspec authserver checks %d of them in authorization servers: %s\n", len(authServers), strings.Join(authServers, ", "))
	}
	return nil
}

func listEntries() ([]listEntry, error) {
	all, err := catalog.All()
	if err != nil {
		return nil, err
	}
	if _, err := conform.Checks(); err != nil {
		return nil, err
	}
	if _, err := clientsuite.Checks(); err != nil {
		return nil, err
	}
	if _, err := assuite.Checks(); err != nil {
		return nil, err
	}
	asFaults := map[string]bool{}
	for _, f := range refauthserver.Faults() {
		asFaults[f.ID] = true
	}
	clientFaults := map[string]bool{}
	faults := map[string]bool{}
	for _, f := range reference.Faults() {
		faults[f.Requirement] = true
	}
	for _, f := range refclient.Faults() {
		clientFaults[f.ID] = true
	}
	var out []listEntry
	for _, e := range all {
		le := listEntry{ID: e.ID, Area: e.Area, Level: e.Level, Versions: e.Versions, HasFault: faults[e.ID]}
		if x, ok := e.ExtensionOf(); ok {
			le.Extension = &listExtension{ID: x.ID, Version: x.Version, Revisions: x.Revisions}
		}
		le.Excluded, _ = conform.Exclusion(e.ID)
		if c, ok := conform.Lookup(e.ID); ok {
			le.Implemented, le.Level, le.Versions, le.Transports, le.Summary, le.LevelReason = true, c.Level, c.Versions, c.Transports, c.Summary, c.LevelReason
			le.JSONRPC = c.Side.JSONRPC
		}
		// A client check implements its row too; a row binding both sides (PING-RESPOND,
		// MSG-JSONRPC) keeps the server check's versions and transports.
		if c, ok := clientsuite.Lookup(e.ID); ok {
			le.Client, le.Excluded = true, ""
			le.HasFault = le.HasFault || clientFaults[e.ID]
			if !le.Implemented {
				le.Implemented, le.Level, le.Versions, le.Transports, le.Summary, le.LevelReason = true, c.Level, c.Versions, c.Transports, c.Summary, c.LevelReason
			}
		}
		if c, ok := assuite.Lookup(e.ID); ok {
			le.AuthServer, le.HasFault = true, asFaults[e.ID]
			le.Implemented, le.Level, le.Versions, le.Transports, le.Summary, le.LevelReason = true, levelsOf(c), c.Versions, []string{"http"}, c.Summary, c.LevelReason
		}
		out = append(out, le)
	}
	return out, nil
}

// levelsOf words an authorization-server check's level, with the revisions that word it
// otherwise: "MUST (SHOULD at 2025-03-26)".
func levelsOf(c *assuite.Check) string {
	var other []string
	for _, v := range c.Versions {
		if l := c.LevelAt(v); l != c.Level {
			other = append(other, l+" at "+v)
		}
	}
	if len(other) == 0 {
		return c.Level
	}
	return c.Level + " (" + strings.Join(other, ", ") + ")"
}
