package conform

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/suites/catalog"
)

var (
	regMu   sync.Mutex
	pending []Check // registered, not yet validated: see settle
	checks  []*Check
	regErrs []error
	byID    = map[string]*Check{}
)

// Register adds checks to the registry. An unknown or duplicate ID, or a malformed check, is an
// error reported when the tree is built, so it can never pass silently. Validating needs the
// catalogue, whose parsing would cost every process linking this package (each reference server
// a run starts) tens of milliseconds of CPU at init: it waits for the registry's first reader.
func Register(cs ...Check) {
	_, file, _, _ := runtime.Caller(1)
	regMu.Lock()
	defer regMu.Unlock()
	for _, c := range cs {
		c.File = file
		pending = append(pending, c)
	}
}

// settle validates and indexes the pending registrations and exclusions, in the order they
// came. The caller holds regMu.
func settle() {
	for i := range pending {
		c := pending[i]
		if err := c.validate(); err != nil {
			regErrs = append(regErrs, err)
			continue
		}
		if _, dup := byID[c.ID]; dup {
			regErrs = append(regErrs, fmt.Errorf("check %s registered twice", c.ID))
			continue
		}
		byID[c.ID] = &c
		checks = append(checks, &c)
	}
	pending = nil
	for _, x := range pendingExcl {
		if _, ok := catalog.Lookup(x.id); !ok {
			regErrs = append(regErrs, fmt.Errorf("exclusion of unknown requirement %s", x.id))
			continue
		}
		exclusions[x.id] = x.reason
	}
	pendingExcl = nil
}

// Checks returns every registered check, sorted by ID, and the registration errors.
func Checks() ([]*Check, error) {
	regMu.Lock()
	defer regMu.Unlock()
	settle()
	out := append([]*Check(nil), checks...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(regErrs) > 0 {
		return out, fmt.Errorf("invalid check registrations: %v", regErrs)
	}
	return out, nil
}

// Lookup returns the registered check for id.
func Lookup(id string) (*Check, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	settle()
	c, ok := byID[id]
	return c, ok
}

var (
	exclusions  = map[string]string{}
	pendingExcl []struct{ id, reason string } // excluded, not yet checked against the catalogue
)

// Exclude records why a requirement is deliberately not checked, so `mcpspec list` can say so
// instead of leaving it looking forgotten. Excluding an implemented or unknown ID is an error.
func Exclude(id, reason string) {
	regMu.Lock()
	defer regMu.Unlock()
	pendingExcl = append(pendingExcl, struct{ id, reason string }{id, reason})
}

// Exclusion returns why id is not checked. Client obligations are excluded by rule: the harness
// honours them itself and there is nothing to observe in the server. Those that a client check
// (suites/clientsuite) judges are implemented all the same: `mcpspec list` says so.
func Exclusion(id string) (string, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	settle()
	if _, implemented := byID[id]; implemented {
		return "", false
	}
	if r, ok := exclusions[id]; ok {
		return r, true
	}
	if e, ok := catalog.Lookup(id); ok && strings.Contains(e.Level, "(client)") {
		return "a client obligation: mcpspec honours it in every exchange", true
	}
	return "", false
}
