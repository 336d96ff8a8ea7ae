// Package check is the one check model: a requirement's check with the fields every kind of
// check has (ID, level, summary, revisions, transports, registering file), their validation
// against the catalogue, and a Side holding what only one kind has (a server check's Run, a
// client check's Judge, …). Each check package names its instantiation Check (conform.Check is
// Check[conform.Server]) and registers into a registry made by NewRegistry.
package check

import (
	"fmt"
	"slices"

	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
	"github.com/mcpspec/mcpspec/suites/registry"
)

// Kind is the side a check judges.
type Kind string

// The kinds of check.
const (
	Server     Kind = "server"               // a server under test (conform)
	Client     Kind = "client"               // a client under test (clientsuite)
	AuthServer Kind = "authorization-server" // an OAuth authorization server (assuite)
	Observed   Kind = "observed"             // recorded traffic, either side (observed)
)

// levels are the levels a kind's check may have: MAY only where a check can report what a
// server does optionally.
func (k Kind) levels() []string {
	if k == Server {
		return []string{"MUST", "SHOULD", "MAY"}
	}
	return []string{"MUST", "SHOULD"}
}

// transports are the transports a kind's check may name: an authorization server is reached
// over HTTP only.
func (k Kind) transports() []string {
	if k == AuthServer {
		return []string{wire.HTTP}
	}
	return []string{wire.Stdio, wire.HTTP, wire.SSE}
}

// Side is the part of a check that only its kind has. Its Kind must not depend on its fields:
// the registry asks a zero value.
type Side interface {
	Kind() Kind
}

// Scoped is a Side that decides where its checks apply beyond their Versions and Transports
// (the server's JSON-RPC profile and stateless transports): Scope returns the transports a check
// runs over at revision, none if it does not run there.
type Scoped interface {
	Scope(revision string, versions, transports []string) []string
}

// Leveled is a Side whose checks' level depends on the revision: LevelAt returns it, given the
// check's Level.
type Leveled interface {
	LevelAt(level, revision string) string
}

// Check is one requirement's check.
type Check[S Side] struct {
	ID          string
	Level       string // MUST or SHOULD (a server check MAY too): a violation fails a MUST and warns a SHOULD
	LevelReason string // why this level, where the spec's wording needed a decision
	Summary     string // the requirement in mcpspec's words
	// Revisions derives the revisions the check runs at from its catalogue row
	// (catalog.AllCatalogued, Since, Until); Versions lists them instead where no derivation
	// says it. A check sets exactly one of the two; validation leaves the result in Versions.
	Revisions catalog.Revisions
	Versions  []string
	// Transports are those it runs over, each named (wire.Stdio, wire.HTTP, wire.SSE); never
	// defaulted.
	Transports []string
	// Side is what only this kind of check has, its Run or Judge among it.
	Side S
	// File is the source file that registered the check (set by the registry): the layout
	// test holds it to the file of the check's area in the catalogue's areas table.
	File string
}

// Kind is the side the check judges.
func (c *Check[S]) Kind() Kind { return c.Side.Kind() }

// Title is the spec title: the ID first, so --focus 'ID' selects it.
func (c *Check[S]) Title() string { return fmt.Sprintf("%s [%s] %s", c.ID, c.Level, c.Summary) }

// Area is the catalogue's area code.
func (c *Check[S]) Area() string {
	e, _ := catalog.Lookup(c.ID)
	return e.Area
}

// LevelAt is the check's level at revision.
func (c *Check[S]) LevelAt(revision string) string {
	if l, ok := any(c.Side).(Leveled); ok {
		return l.LevelAt(c.Level, revision)
	}
	return c.Level
}

// AppliesTo reports whether the check runs at revision over transport.
func (c *Check[S]) AppliesTo(revision, transport string) bool {
	if s, ok := any(c.Side).(Scoped); ok {
		return slices.Contains(s.Scope(revision, c.Versions, c.Transports), transport)
	}
	return slices.Contains(c.Versions, revision) && slices.Contains(c.Transports, transport)
}

// Validate checks what every kind of check must state against the catalogue, and derives
// Versions from Revisions. Nothing is defaulted.
func (c *Check[S]) Validate() error {
	kind := c.Kind()
	e, ok := catalog.Lookup(c.ID)
	if !ok {
		return fmt.Errorf("%s check %q: no such requirement in the catalogue", kind, c.ID)
	}
	if !slices.Contains(kind.levels(), c.Level) {
		return fmt.Errorf("%s check %s: level %q is not one of %v", kind, c.ID, c.Level, kind.levels())
	}
	if c.Summary == "" {
		return fmt.Errorf("%s check %s: needs a summary", kind, c.ID)
	}
	switch {
	case c.Revisions != nil && c.Versions != nil:
		return fmt.Errorf("%s check %s: sets both Revisions and Versions", kind, c.ID)
	case c.Revisions != nil:
		c.Versions = c.Revisions(e.Versions)
	}
	if len(c.Versions) == 0 {
		return fmt.Errorf("%s check %s: runs at no revision (Revisions or Versions must name one of the catalogue's %v)", kind, c.ID, e.Versions)
	}
	for _, v := range c.Versions {
		if !slices.Contains(e.Versions, v) {
			return fmt.Errorf("%s check %s: revision %s is outside the catalogue's %v", kind, c.ID, v, e.Versions)
		}
	}
	if len(c.Transports) == 0 {
		return fmt.Errorf("%s check %s: names no transport", kind, c.ID)
	}
	for _, t := range c.Transports {
		if !slices.Contains(kind.transports(), t) {
			return fmt.Errorf("%s check %s: unknown transport %q (a %s check runs over %v)", kind, c.ID, t, kind, kind.transports())
		}
	}
	return nil
}

// Config says how a kind's registry treats its checks beyond what every registry does.
type Config[S Side] struct {
	// Side checks and completes a check's side once Validate has passed (its Run or Judge
	// present, a gate wrapped around it). Optional.
	Side func(c *Check[S]) error
	// Key is a check's key in the registry (default: its ID), for a kind that checks one
	// requirement more than once (observed: once per party).
	Key func(c *Check[S]) string
	// Settle and Sorted are registry.Config's.
	Settle func() []error
	Sorted bool
}

// Validate is what the registry does to each check: Check.Validate, then cfg.Side.
func (cfg Config[S]) Validate(c *Check[S]) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if cfg.Side != nil {
		return cfg.Side(c)
	}
	return nil
}

// NewRegistry returns the registry of one kind's checks: each records the file that registered
// it, is validated (Validate, then cfg.Side) on the registry's first read, and is keyed by ID.
func NewRegistry[S Side](cfg Config[S]) *registry.Registry[Check[S]] {
	var zero S
	key := cfg.Key
	if key == nil {
		key = func(c *Check[S]) string { return c.ID }
	}
	return registry.New(registry.Config[Check[S]]{
		Kind:     string(zero.Kind()) + " check",
		ID:       key,
		Validate: cfg.Validate,
		SetFile:  func(c *Check[S], file string) { c.File = file },
		Settle:   cfg.Settle,
		Sorted:   cfg.Sorted,
	})
}
