package check

import (
	"runtime"
	"slices"
	"testing"

	"github.com/mcpspec/mcpspec/harness/wire"
	"github.com/mcpspec/mcpspec/suites/catalog"
)

// plain is a side with nothing of its own; scoped and leveled use the optional hooks.
type (
	plain   struct{ kind Kind }
	scoped  struct{}
	leveled struct{}
)

func (p plain) Kind() Kind {
	if p.kind == "" {
		return Client
	}
	return p.kind
}
func (scoped) Kind() Kind { return Server }
func (scoped) Scope(rev string, _, transports []string) []string {
	if rev == "jsonrpc" {
		return []string{wire.Stdio}
	}
	return transports
}
func (leveled) Kind() Kind                       { return Observed }
func (leveled) LevelAt(level, rev string) string { return level + "@" + rev }

const (
	rev0 = "2024-11-05"
	rev1 = "2025-03-26"
	rev4 = "2026-07-28"
)

func base() Check[plain] {
	return Check[plain]{ID: "PING-RESPOND", Level: "MUST", Summary: "s", Revisions: catalog.AllCatalogued,
		Transports: []string{wire.Stdio, wire.HTTP, wire.SSE}}
}

// TestValidateStatesEverything: a check states its revisions and transports; nothing is
// defaulted, and what it states is held to the catalogue and to its kind.
func TestValidateStatesEverything(t *testing.T) {
	cases := map[string]func(c *Check[plain]){
		"unknown id":         func(c *Check[plain]) { c.ID = "NO-SUCH-REQUIREMENT" },
		"bad level":          func(c *Check[plain]) { c.Level = "MUST NOT" },
		"MAY off the server": func(c *Check[plain]) { c.Level = "MAY" },
		"no summary":         func(c *Check[plain]) { c.Summary = "" },
		"no revisions":       func(c *Check[plain]) { c.Revisions = nil },
		"both":               func(c *Check[plain]) { c.Versions = []string{rev1} },
		"derives to nothing": func(c *Check[plain]) { c.Revisions = catalog.Since("2099-01-01") },
		"outside catalogue":  func(c *Check[plain]) { c.Revisions, c.Versions = nil, []string{"1999-01-01"} },
		"no transport":       func(c *Check[plain]) { c.Transports = nil },
		"unknown transport":  func(c *Check[plain]) { c.Transports = []string{"carrier-pigeon"} },
		"stdio to an AS":     func(c *Check[plain]) { c.Side.kind = AuthServer },
	}
	for name, mutate := range cases {
		c := base()
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, c)
		}
	}
	c := base()
	c.Side.kind, c.Level = Server, "MAY"
	c.Revisions = catalog.Until(rev1)
	if err := c.Validate(); err != nil || !slices.Equal(c.Versions, []string{rev0, rev1}) {
		t.Errorf("a server MAY until %s: %v, versions %v", rev1, err, c.Versions)
	}
	c = base()
	c.Side.kind, c.Transports = AuthServer, []string{wire.HTTP}
	if err := c.Validate(); err != nil {
		t.Errorf("an authorization-server check over HTTP: %v", err)
	}
}

func TestSideHooks(t *testing.T) {
	c := Check[plain]{Level: "SHOULD", Versions: []string{rev1}, Transports: []string{wire.HTTP}}
	if c.Kind() != Client || c.LevelAt(rev1) != "SHOULD" || !c.AppliesTo(rev1, wire.HTTP) || c.AppliesTo(rev4, wire.HTTP) || c.AppliesTo(rev1, wire.Stdio) {
		t.Errorf("a plain side: kind %s, level %s, applies %v", c.Kind(), c.LevelAt(rev1), c.AppliesTo(rev1, wire.HTTP))
	}
	s := Check[scoped]{Versions: []string{rev1}, Transports: []string{wire.HTTP}}
	if !s.AppliesTo("jsonrpc", wire.Stdio) || s.AppliesTo("jsonrpc", wire.HTTP) || !s.AppliesTo(rev4, wire.HTTP) {
		t.Error("a Scoped side does not decide where its checks apply")
	}
	l := Check[leveled]{Level: "MUST"}
	if got := l.LevelAt(rev1); got != "MUST@"+rev1 {
		t.Errorf("a Leveled side: level %q", got)
	}
}

// TestRegistry: the registry records the registering file, validates with the side's part,
// keys by ID unless told otherwise, and names its kind in errors.
func TestRegistry(t *testing.T) {
	sides := 0
	cfg := Config[plain]{Side: func(c *Check[plain]) error { sides++; return nil }}
	reg := NewRegistry(cfg)
	_, file, _, _ := runtime.Caller(0)
	register := func(cs ...Check[plain]) { reg.Register(cs...) }
	bad := base()
	bad.Transports = nil
	register(base(), base(), bad)
	all, err := reg.All()
	if len(all) != 1 || all[0].File != file || sides != 2 {
		t.Errorf("%d checks (file %q), side validated %d times; want 1 from %s, 2", len(all), all[0].File, sides, file)
	}
	want := "invalid client check registrations: client check PING-RESPOND registered twice; client check PING-RESPOND: names no transport"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	keyed := NewRegistry(Config[plain]{Key: func(c *Check[plain]) string { return c.ID + "/" + c.Level }})
	other := base()
	other.Level = "SHOULD"
	keyed.Add("x.go", base(), other)
	if all, err := keyed.All(); len(all) != 2 || err != nil {
		t.Errorf("keyed: %d checks, %v", len(all), err)
	}
}
