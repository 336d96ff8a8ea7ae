// Package registry is the one mechanism behind every kind of check (server, client,
// authorization-server, observed): registrations recorded with the file that made them,
// validated lazily on the first read, indexed by ID, duplicate and invalid ones reported as
// errors rather than dropped silently.
//
// Validation waits for the first reader because it usually needs the catalogue, whose parsing
// would cost every process linking a check package (each reference server and stdio probe a run
// starts) tens of milliseconds of CPU at init.
package registry

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Config says how a Registry treats its kind of check.
type Config[C any] struct {
	// Kind names the checks in messages: "client check" gives "client check X registered twice".
	Kind string
	// ID is a check's key: unique in the registry, the Lookup key and the sort key.
	ID func(c *C) string
	// Validate checks a registration and completes its defaults; an error drops it. Optional.
	Validate func(c *C) error
	// SetFile records the file that registered a check. Optional.
	SetFile func(c *C, file string)
	// Settle is extra work done at each settling, after the pending checks are indexed and
	// with the registry's lock held (conform's exclusions): its errors join the registration
	// errors. It must not call the registry. Optional.
	Settle func() []error
	// Sorted: All returns the checks sorted by ID; otherwise in registration order.
	Sorted bool
}

// Registry holds the checks of one kind. Its zero value is not usable: see New.
type Registry[C any] struct {
	cfg     Config[C]
	mu      sync.Mutex
	pending []batch[C] // registered, not yet validated: see settle
	checks  []*C
	byID    map[string]*C
	errs    []error
}

// New returns an empty registry configured by cfg; cfg.Kind and cfg.ID are required.
func New[C any](cfg Config[C]) *Registry[C] {
	if cfg.Kind == "" || cfg.ID == nil {
		panic("registry.New: a kind and an ID accessor are required")
	}
	return &Registry[C]{cfg: cfg, byID: map[string]*C{}}
}

// batch is one registration call's checks, kept as they came until the registry settles: at
// init a process only stores the slice (no copy, no file name resolved), since most processes
// that link checks (each reference server and stdio probe a run starts) never read them.
type batch[C any] struct {
	file string     // the registering file, or "" while pcs are to be resolved
	pcs  [3]uintptr // Register's stack: itself, its caller, and that one's caller (the file)
	cs   []C
}

// Add registers checks made in file. Nothing is validated until the first All or Lookup.
func (r *Registry[C]) Add(file string, cs ...C) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, batch[C]{file: file, cs: cs})
}

// Register is Add with the file of the function that called its caller: the file of the checks
// when a package's own Register(cs ...C) calls it, as each check package's does.
func (r *Registry[C]) Register(cs ...C) {
	b := batch[C]{cs: cs}
	runtime.Callers(1, b.pcs[:]) // no symbols yet: resolved only when the registry settles
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, b)
}

// fileName is the registering file of b.
func (b batch[C]) fileName() string {
	if b.file != "" || b.pcs[0] == 0 {
		return b.file // Add's file, "" included
	}
	// Frames, not the pcs one by one: they count inlined calls (a package's Register is
	// usually inlined into the init that calls it).
	frames := runtime.CallersFrames(b.pcs[:])
	for range 2 {
		if _, more := frames.Next(); !more {
			return ""
		}
	}
	frame, _ := frames.Next()
	return frame.File
}

// settle validates and indexes the pending registrations, in the order they came. The caller
// holds r.mu.
func (r *Registry[C]) settle() {
	var pending []C
	for _, b := range r.pending {
		file := b.fileName()
		for _, c := range b.cs { // a copy: the caller's slice stays as it was
			if r.cfg.SetFile != nil {
				r.cfg.SetFile(&c, file)
			}
			pending = append(pending, c)
		}
	}
	for i := range pending {
		c := &pending[i]
		if r.cfg.Validate != nil {
			if err := r.cfg.Validate(c); err != nil {
				r.errs = append(r.errs, err)
				continue
			}
		}
		id := r.cfg.ID(c)
		if _, dup := r.byID[id]; dup {
			r.errs = append(r.errs, fmt.Errorf("%s %s registered twice", r.cfg.Kind, id))
			continue
		}
		r.byID[id] = c
		r.checks = append(r.checks, c)
	}
	r.pending = nil
	if r.cfg.Settle != nil {
		r.errs = append(r.errs, r.cfg.Settle()...)
	}
}

// All returns every valid check (sorted by ID if the registry is Sorted, else in registration
// order) and, if any registration was invalid, an error naming each fault.
func (r *Registry[C]) All() ([]*C, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settle()
	out := slices.Clone(r.checks)
	if r.cfg.Sorted {
		slices.SortStableFunc(out, func(a, b *C) int { return cmp.Compare(r.cfg.ID(a), r.cfg.ID(b)) })
	}
	if len(r.errs) > 0 {
		msgs := make([]string, len(r.errs))
		for i, e := range r.errs {
			msgs[i] = e.Error()
		}
		return out, errors.New("invalid " + r.cfg.Kind + " registrations: " + strings.Join(msgs, "; "))
	}
	return out, nil
}

// Lookup returns the valid check registered under id.
func (r *Registry[C]) Lookup(id string) (*C, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settle()
	c, ok := r.byID[id]
	return c, ok
}
