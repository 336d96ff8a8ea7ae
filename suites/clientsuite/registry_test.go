package clientsuite

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// TestRegisterRecordsTheFile: each client check knows the file that registered it, as a server
// check does, in this package's directory.
func TestRegisterRecordsTheFile(t *testing.T) {
	checks, err := Checks()
	if err != nil {
		t.Fatal(err)
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if filepath.Dir(c.File) != here || filepath.Ext(c.File) != ".go" {
			t.Errorf("%s: registered in %q, want a file of %s", c.ID, c.File, here)
		}
	}
}

// A client check states its revisions, derived from the catalogue or listed, and its transports:
// nothing is defaulted, as for a server check.
func TestValidateRefusesImplicitDefaults(t *testing.T) {
	judge := func(*View) Finding { return passed("ok") }
	base := func() Check {
		return Check{ID: "PING-RESPOND", Level: "MUST", Summary: "s", Side: Client{Scenario: "tools_call", Judge: judge},
			Revisions: catalog.AllCatalogued, Transports: allTransports}
	}
	cases := map[string]func(c *Check){
		"no revisions":       func(c *Check) { c.Revisions = nil },
		"both":               func(c *Check) { c.Versions = []string{harness.Rev20250618} },
		"derives to nothing": func(c *Check) { c.Revisions = catalog.Since(harness.Rev20260728) },
		"no transport":       func(c *Check) { c.Transports = nil },
		"unknown transport":  func(c *Check) { c.Transports = []string{"carrier-pigeon"} },
	}
	for name, mutate := range cases {
		c := base()
		mutate(&c)
		if err := config.Validate(&c); err == nil {
			t.Errorf("%s: validate accepted %+v", name, c)
		}
	}
	c := base()
	c.Revisions = catalog.Until(harness.Rev20250618)
	if err := config.Validate(&c); err != nil || !slices.Equal(c.Versions, []string{harness.Rev20241105, harness.Rev20250326, harness.Rev20250618}) {
		t.Errorf("Until(2025-06-18): %v, versions %v", err, c.Versions)
	}
}
