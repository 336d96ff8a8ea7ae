// Package schema validates JSON-RPC messages and MCP types against the official JSON schemas of
// each protocol revision, as embedded by package fixtures. Nothing is fetched from the network.
//
// The schemas have no root schema: a value is checked against one definition
// (#/definitions/<Name> up to 2025-06-18, #/$defs/<Name> from 2025-11-25). Message uses
// JSONRPCMessage. Numbers are decoded as json.Number, so large integer ids keep every digit.
//
// Formats are asserted at every revision ("uri" must be an absolute URI, "uri-template" must
// parse), so draft-07 and 2020-12 revisions are held to the same rules; "byte" (base64) is not a
// format the library knows and is not checked.
package schema

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MessageDefinition is the definition every JSON-RPC message on the wire must match.
const MessageDefinition = "JSONRPCMessage"

// Validator validates raw JSON against the embedded schemas. It is safe for concurrent use:
// each revision is decoded, and each (revision, definition) compiled, once, on first use.
type Validator struct {
	mu        sync.Mutex
	revisions map[string]*revisionState

	// valid holds what already validated, by revision, definition and bytes: a server answers
	// the same results (a tools/list, a resource) to session after session, and validation is
	// a function of these three alone. Bounded by validBytes. A whole message is kept by its
	// shape (MessageOfShape) instead: its id makes its bytes unique.
	validMu    sync.Mutex
	valid      map[validKey]struct{}
	validBytes int
}

type validKey struct{ revision, definition, raw string }

// Bounds of Validator.valid: what a run's distinct results need, well within memory.
const (
	maxValidBytes = 8 << 20
	// MaxRemembered is the longest result or message shape a Validator keeps: a larger one is
	// rarely repeated (callers need not build a shape longer than this).
	MaxRemembered = 64 << 10
)

// revisionState holds one revision's document and what has been compiled from it. Its mutex
// serialises the compiler, which is not safe for concurrent use; compiled schemas are.
type revisionState struct {
	mu       sync.Mutex
	doc      *revisionDoc
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

// New returns a Validator. It does no work until the first validation.
func New() *Validator {
	return &Validator{revisions: map[string]*revisionState{}}
}

// Message validates one wire message (a JSON-RPC request, notification or response, or a batch
// array where the revision allows it) against the revision's JSONRPCMessage.
func (v *Validator) Message(revision string, raw []byte) error {
	return v.validate(revision, MessageDefinition, raw, "")
}

// MessageOfShape validates raw as Message does, and remembers a valid message by shape: a text
// the caller derives from raw such that messages of one shape are valid or invalid together
// (the same members but for an id of the same JSON type: every revision's RequestId is "a
// string or an integer" and nothing more). A server answers the same results session after
// session under fresh ids, so a run validates each answer once instead of at each id. An empty
// shape caches nothing.
func (v *Validator) MessageOfShape(revision string, raw []byte, shape string) error {
	return v.validate(revision, MessageDefinition, raw, shape)
}

// Definition validates raw against the named definition of the revision, e.g.
// "InitializeResult" or "ListToolsResult". It returns nil when valid, a *ValidationError when
// raw is not JSON or does not match, and an error wrapping ErrUnknownRevision or
// ErrUnknownDefinition when there is nothing to validate against.
func (v *Validator) Definition(revision, name string, raw []byte) error {
	key := ""
	if name != MessageDefinition {
		key = string(raw)
	}
	return v.validate(revision, name, raw, key)
}

// validate validates raw against a definition, remembering a valid one under key (none when
// key is "" or too long to be worth keeping).
func (v *Validator) validate(revision, name string, raw []byte, key string) error {
	cache := key != "" && len(key) <= MaxRemembered
	if cache {
		v.validMu.Lock()
		_, ok := v.valid[validKey{revision, name, key}]
		v.validMu.Unlock()
		if ok {
			return nil
		}
	}
	sch, err := v.compiled(revision, name)
	if err != nil {
		return err
	}
	instance, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &ValidationError{
			Revision:   revision,
			Definition: name,
			Details:    []string{"not valid JSON: " + err.Error()},
			cause:      err,
		}
	}
	if err := sch.Validate(instance); err != nil {
		return newValidationError(revision, name, err)
	}
	if cache {
		v.validMu.Lock()
		if v.valid == nil {
			v.valid = map[validKey]struct{}{}
		}
		if v.validBytes+len(key) <= maxValidBytes {
			k := validKey{revision, name, key}
			if _, ok := v.valid[k]; !ok {
				v.valid[k] = struct{}{}
				v.validBytes += len(key)
			}
		}
		v.validMu.Unlock()
	}
	return nil
}

// HasDefinition reports whether the revision's schema defines name. An unknown revision has no
// definitions.
func (v *Validator) HasDefinition(revision, name string) bool {
	rs, err := v.revision(revision)
	if err != nil {
		return false
	}
	_, ok := rs.doc.definitions[name]
	return ok
}

// Definitions returns the names the revision's schema defines, sorted.
func (v *Validator) Definitions(revision string) ([]string, error) {
	rs, err := v.revision(revision)
	if err != nil {
		return nil, err
	}
	return rs.doc.names(), nil
}

// revision returns the loaded state of a revision, loading it on first use.
func (v *Validator) revision(revision string) (*revisionState, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if rs, ok := v.revisions[revision]; ok {
		return rs, nil
	}
	doc, err := loadRevision(revision)
	if err != nil {
		return nil, err
	}
	c := newCompiler()
	if err := c.AddResource(schemaURL(revision), doc.doc); err != nil {
		return nil, fmt.Errorf("schema: registering revision %s: %w", revision, err)
	}
	rs := &revisionState{doc: doc, compiler: c, compiled: map[string]*jsonschema.Schema{}}
	v.revisions[revision] = rs
	return rs, nil
}

// compiled returns the compiled schema of a definition, compiling it on first use.
func (v *Validator) compiled(revision, name string) (*jsonschema.Schema, error) {
	rs, err := v.revision(revision)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if sch, ok := rs.compiled[name]; ok {
		return sch, nil
	}
	if _, ok := rs.doc.definitions[name]; !ok {
		return nil, fmt.Errorf("%w %q in revision %s", ErrUnknownDefinition, name, revision)
	}
	sch, err := rs.compiler.Compile(schemaURL(revision) + rs.doc.pointer(name))
	if err != nil {
		return nil, fmt.Errorf("schema: compiling %s of revision %s: %w", name, revision, err)
	}
	rs.compiled[name] = sch
	return sch, nil
}

// newCompiler returns a compiler that never fetches anything and asserts formats whatever the
// draft, so every revision is held to the same rules.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.UseLoader(offlineLoader{})
	c.AssertFormat()
	return c
}
