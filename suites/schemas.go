package suites

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Helpers, no checks: compiling the JSON Schemas a server publishes.

// noLoader refuses every document a server's schema refers to: mcpspec works offline and never
// reads a file or a URL because a server named it.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpspec does not load %s", url)
}

// compileSchema compiles a schema a server sent, 2020-12 unless it names another dialect.
// judged is false when the error says nothing about the schema's validity (a dialect or a
// document mcpspec cannot load): only a schema its metaschema rejects, or a broken pattern, is
// judged invalid.
func compileSchema(name string, raw json.RawMessage) (sch *jsonschema.Schema, judged bool, err error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, true, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	// The name only labels the document; escaped, so that any tool name makes a valid URI.
	loc := "urn:mcpspec:schema:" + url.PathEscape(name)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, false, err
	}
	if sch, err = c.Compile(loc); err == nil {
		return sch, true, nil
	}
	var invalid *jsonschema.SchemaValidationError
	var regex *jsonschema.InvalidRegexError
	return nil, errors.As(err, &invalid) || errors.As(err, &regex), err
}
