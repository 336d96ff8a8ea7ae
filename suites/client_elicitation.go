package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of client/elicitation: the elicitation requests a server makes. At 2026-07-28 they
// arrive as the inputRequests of the input tool's InputRequiredResult (--input-tool), which the
// harness answers as a willing client would, round after round (inputtool.go).

func init() {
	conform.Register(
		conform.Check{ID: "ELICIT-SCHEMA-FLAT", Level: "MUST", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "a form-mode elicitation asks with a flat object schema: each property a string, number, integer, boolean or enum (an array only as a multi-select enum)",
			LevelReason: "A restriction stated without a keyword, which the schema enforces (requestedSchema's properties are primitive schema definitions): a nested or non-primitive property fails." + inputsAtModern,
			Ready:       inputToolReady, Run: checkElicitSchemaFlat},
		conform.Check{ID: "ELICIT-NO-SENSITIVE", Level: "SHOULD", Revisions: conform.Since(harness.Rev20260728), Transports: streamTransport,
			Summary:     "a form-mode elicitation asks for no field whose name, title or format says password, secret, API key, access token or payment card",
			LevelReason: "MUST NOT in the spec, but a field's name can only suggest that it asks for something sensitive, never prove it: mcpspec warns. URL-mode elicitations, the spec's way to handle secrets, are not judged." + inputsAtModern,
			Ready:       inputToolReady, Run: checkElicitNoSensitive},
	)
}

func isFormElicitation(r inputRequest) bool {
	if r.method != "elicitation/create" {
		return false
	}
	mode, _ := jsonString(r.params["mode"])
	return mode == "" || mode == "form"
}

// formProperties are a form's requestedSchema and its properties; why is non-empty when the
// schema is not an object schema with an object of properties.
func formProperties(r inputRequest) (props map[string]json.RawMessage, why string) {
	var schema struct {
		Type       json.RawMessage `json:"type"`
		Properties json.RawMessage `json:"properties"`
	}
	raw := r.params["requestedSchema"]
	if jsonKind(raw) != '{' || json.Unmarshal(raw, &schema) != nil {
		return nil, "requestedSchema is not an object"
	}
	if typ, _ := jsonString(schema.Type); typ != "object" {
		return nil, `requestedSchema's type is not "object"`
	}
	if jsonKind(schema.Properties) != '{' || json.Unmarshal(schema.Properties, &props) != nil {
		return nil, "requestedSchema's properties is not an object"
	}
	return props, ""
}

// primitiveTypes are the types a form's property may have.
var primitiveTypes = []string{"string", "number", "integer", "boolean"}

// flatnessFault says why a form property is not primitive, or "".
func flatnessFault(raw json.RawMessage) string {
	var p struct {
		Type       json.RawMessage `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Items      json.RawMessage `json:"items"`
	}
	if jsonKind(raw) != '{' || json.Unmarshal(raw, &p) != nil {
		return "is not a schema object"
	}
	typ, _ := jsonString(p.Type)
	switch {
	case p.Properties != nil || typ == "object":
		return "is a nested object"
	case typ == "array":
		// Only a multi-select enum: items are an enum of strings, not objects or arrays.
		var items struct {
			Type       json.RawMessage `json:"type"`
			Properties json.RawMessage `json:"properties"`
		}
		if jsonKind(p.Items) != '{' || json.Unmarshal(p.Items, &items) != nil {
			return "is an array without an items schema"
		}
		if it, _ := jsonString(items.Type); it == "object" || it == "array" || items.Properties != nil {
			return "is an array of " + it + "s"
		}
		return ""
	case !slices.Contains(primitiveTypes, typ):
		return fmt.Sprintf("has type %s, not a primitive type", clip(string(p.Type), 40))
	}
	return ""
}

func checkElicitSchemaFlat(t *conform.T) conform.Finding {
	forms, f := requestsOf(t, "form-mode elicitation", isFormElicitation)
	if f != nil {
		return *f
	}
	for _, r := range forms {
		props, why := formProperties(r)
		if why != "" {
			return conform.Violated("%s, in %s", why, r.where())
		}
		for _, name := range sortedKeys(props) {
			if why := flatnessFault(props[name]); why != "" {
				return conform.Violated("property %q %s, in %s", name, why, r.where())
			}
		}
	}
	return conform.Passed("")
}

// sensitiveWord matches, in a name with its case folded and everything but letters and digits
// dropped, words that name credentials or payment data.
var sensitiveWord = regexp.MustCompile(`password|passwd|passphrase|secret|apikey|accesstoken|authtoken|bearertoken|refreshtoken|privatekey|creditcard|cardnumber|cvv|cvc|^token$|^pin$|^iban$`)

// sensitive says whether a form property's name, title or format names sensitive data.
func sensitive(name string, raw json.RawMessage) (string, bool) {
	var p struct {
		Title  string `json:"title"`
		Format string `json:"format"`
	}
	_ = json.Unmarshal(raw, &p)
	for _, s := range []string{name, p.Title, p.Format} {
		folded := strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				return r
			case r >= 'A' && r <= 'Z':
				return r + 'a' - 'A'
			}
			return -1
		}, s)
		if w := sensitiveWord.FindString(folded); w != "" {
			return s, true
		}
	}
	return "", false
}

func checkElicitNoSensitive(t *conform.T) conform.Finding {
	forms, f := requestsOf(t, "form-mode elicitation", isFormElicitation)
	if f != nil {
		return *f
	}
	for _, r := range forms {
		props, _ := formProperties(r) // a malformed schema is ELICIT-SCHEMA-FLAT's matter
		for _, name := range sortedKeys(props) {
			if said, ok := sensitive(name, props[name]); ok {
				return conform.Violated("form-mode elicitation field %q (%q) looks like it asks for sensitive information, in %s", name, said, r.where())
			}
		}
	}
	return conform.Passed("")
}
