package conform

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/check"
)

// reg holds the server checks. Validating needs the catalogue, whose parsing would cost every
// process linking this package (each reference server a run starts) tens of milliseconds of
// CPU at init: it waits for the registry's first reader, which settles the exclusions too.
var (
	config = check.Config[Server]{Side: validateServer, Settle: settleExclusions, Sorted: true}
	reg    = check.NewRegistry(config)
)

// Register adds checks to the registry. An unknown or duplicate ID, or a malformed check, is an
// error reported when the tree is built, so it can never pass silently.
func Register(cs ...Check) { reg.Register(cs...) }

// Checks returns every registered check, sorted by ID, and the registration errors.
func Checks() ([]*Check, error) { return reg.All() }

// Lookup returns the registered check for id.
func Lookup(id string) (*Check, bool) { return reg.Lookup(id) }

var (
	exclMu      sync.Mutex // never held while calling reg: settleExclusions runs under reg's lock
	exclusions  = map[string]string{}
	pendingExcl []struct{ id, reason string } // excluded, not yet checked against the catalogue
)

// Exclude records why a requirement is deliberately not checked, so `mcpspec list` can say so
// instead of leaving it looking forgotten. Excluding an implemented or unknown ID is an error.
func Exclude(id, reason string) {
	exclMu.Lock()
	defer exclMu.Unlock()
	pendingExcl = append(pendingExcl, struct{ id, reason string }{id, reason})
}

// settleExclusions checks the pending exclusions against the catalogue, in the order they came.
func settleExclusions() []error {
	exclMu.Lock()
	defer exclMu.Unlock()
	var errs []error
	for _, x := range pendingExcl {
		if _, ok := catalog.Lookup(x.id); !ok {
			errs = append(errs, fmt.Errorf("exclusion of unknown requirement %s", x.id))
			continue
		}
		exclusions[x.id] = x.reason
	}
	pendingExcl = nil
	return errs
}

// Exclusion returns why id is not checked. Client obligations are excluded by rule: the harness
// honours them itself and there is nothing to observe in the server. Those that a client check
// (suites/clientsuite) judges are implemented all the same: `mcpspec list` says so.
func Exclusion(id string) (string, bool) {
	if _, implemented := reg.Lookup(id); implemented {
		return "", false
	}
	exclMu.Lock()
	r, ok := exclusions[id]
	exclMu.Unlock()
	if ok {
		return r, true
	}
	if e, ok := catalog.Lookup(id); ok && strings.Contains(e.Level, "(client)") {
		return "a client obligation: mcpspec honours it in every exchange", true
	}
	return "", false
}
