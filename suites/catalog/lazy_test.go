package catalog_test

import (
	"errors"
	"os"
	"testing"

	"github.com/mcpspec/mcpspec/suites/assuite"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/clientsuite"
	"github.com/mcpspec/mcpspec/suites/conform"
	"github.com/mcpspec/mcpspec/suites/observed"
)

// parsedAtInit is whether linking every check package parsed the catalogue before main: each
// process that links them (the stdio probe, every mcpspec run) would pay for it at start.
var parsedAtInit bool

func TestMain(m *testing.M) {
	parsedAtInit = catalog.Parsed()
	os.Exit(m.Run())
}

func TestRegistriesWaitForTheirFirstReader(t *testing.T) {
	if parsedAtInit {
		t.Fatal("the catalogue was parsed at init: a registry validated its checks before their first reader")
	}
	// The readers do parse it, and see valid registries.
	for name, read := range map[string]func() error{
		"conform":     func() error { _, err := conform.Checks(); return err },
		"clientsuite": func() error { _, err := clientsuite.Checks(); return err },
		"assuite":     func() error { _, err := assuite.Checks(); return err },
		"observed": func() error {
			if len(observed.Checks()) == 0 { // it panics on an invalid registration
				return errors.New("no checks")
			}
			return nil
		},
	} {
		if err := read(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !catalog.Parsed() {
		t.Error("reading the registries did not parse the catalogue")
	}
}
