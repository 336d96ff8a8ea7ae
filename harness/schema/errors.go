package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ErrUnknownRevision is wrapped by the error returned for a revision with no embedded schema.
var ErrUnknownRevision = errors.New("schema: unknown revision")

// ErrUnknownDefinition is wrapped by the error returned for a name the revision does not define.
var ErrUnknownDefinition = errors.New("schema: unknown definition")

// detailsInMessage is how many details Error() shows before summarising the rest.
const detailsInMessage = 2

// ValidationError says that a value is not valid against a definition of a revision.
type ValidationError struct {
	Revision   string
	Definition string
	// Details has one line per violation, "at <JSON pointer>: <reason>", for the branch of any
	// anyOf/oneOf that came closest to matching (the one that got deepest into the value).
	Details []string

	cause error // the library's full error tree, or the JSON decoding error
}

// Error gives the revision, the definition and the first details on one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schema %s %s: ", e.Revision, e.Definition)
	shown := e.Details[:min(len(e.Details), detailsInMessage)]
	b.WriteString(strings.Join(shown, "; "))
	if more := len(e.Details) - len(shown); more > 0 {
		fmt.Fprintf(&b, " (and %d more)", more)
	}
	return b.String()
}

// Unwrap returns the underlying error: a *jsonschema.ValidationError with every branch tried,
// or the JSON decoding error when the value was not JSON.
func (e *ValidationError) Unwrap() error { return e.cause }

func newValidationError(revision, definition string, err error) error {
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return fmt.Errorf("schema: validating against %s of revision %s: %w", definition, revision, err)
	}
	var details []string
	for _, leaf := range bestLeaves(verr) {
		details = append(details, fmt.Sprintf("at %s: %s", instancePointer(leaf.InstanceLocation), reason(leaf)))
	}
	if len(details) == 0 {
		details = []string{verr.Error()}
	}
	return &ValidationError{Revision: revision, Definition: definition, Details: details, cause: verr}
}

// bestLeaves returns the errors at the bottom of the tree that explain the failure. Where the
// tree offers alternatives (anyOf, or oneOf with none matching), it follows only the
// alternative that got deepest into the value: a response with a bad result is explained by
// the response branch, not by the request branch's "missing method".
func bestLeaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	if isAlternatives(e) {
		var best []*jsonschema.ValidationError
		bestDepth := -1
		for _, c := range e.Causes {
			leaves := bestLeaves(c)
			if d := maxDepth(leaves); d > bestDepth || (d == bestDepth && len(leaves) < len(best)) {
				best, bestDepth = leaves, d
			}
		}
		return best
	}
	var all []*jsonschema.ValidationError
	for _, c := range e.Causes {
		all = append(all, bestLeaves(c)...)
	}
	return all
}

func isAlternatives(e *jsonschema.ValidationError) bool {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
		return true
	case *kind.OneOf:
		return len(k.Subschemas) == 0
	}
	return false
}

func maxDepth(leaves []*jsonschema.ValidationError) int {
	depth := 0
	for _, l := range leaves {
		depth = max(depth, len(l.InstanceLocation))
	}
	return depth
}

// reason is a leaf error's message in English, without its location.
func reason(leaf *jsonschema.ValidationError) string {
	if out := leaf.DetailedOutput(); out.Error != nil {
		return out.Error.String()
	}
	return leaf.Error()
}

// instancePointer renders an instance location as a JSON pointer, or "(root)" for the value
// itself.
func instancePointer(tokens []string) string {
	if len(tokens) == 0 {
		return "(root)"
	}
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return b.String()
}
