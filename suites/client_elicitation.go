package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Checks of client/elicitation: the form-mode elicitation requests a server makes during the
// calls of its tools that elicit (the input tool, and tools named for elicitation): at the
// handshake revisions as requests of its own on a session that declared elicitation, at
// 2026-07-28 as the inputRequests of an InputRequiredResult, which the harness answers as a
// willing client would (elicitations.go, inputtool.go).

func init() {
	conform.Register(
		conform.Check{ID: "ELICIT-SCHEMA-FLAT", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a form-mode elicitation asks with a flat object schema: each property a string, number, integer, boolean or enum (an array only as a multi-select enum)",
			LevelReason: "A restriction stated without a keyword, which the schema enforces (requestedSchema's properties are primitive schema definitions): a nested or non-primitive property fails." + elicitFormsFrom,
			Side:        conform.Server{HandshakeObserved: true, Run: checkElicitSchemaFlat}},
		conform.Check{ID: "ELICIT-NO-SENSITIVE", Level: "SHOULD", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "a form-mode elicitation asks for no field whose name, title or format says password, secret, API key, access token or payment card",
			LevelReason: "MUST NOT in the spec, but a field's name can only suggest that it asks for something sensitive, never prove it: mcpspec warns. URL-mode elicitations, the spec's way to handle secrets, are not judged." + elicitFormsFrom,
			Side:        conform.Server{HandshakeObserved: true, Run: checkElicitNoSensitive}},
		conform.Check{ID: "ELICIT-ENUM-FORMS", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "every enum field of a form-mode elicitation takes one of the revision's enum forms: a string enum (with enumNames as long, where given); from 2025-11-25 also a titled oneOf of const and title, or a multi-select array whose items hold a string enum or an anyOf of const and title",
			LevelReason: "The schema's PrimitiveSchemaDefinition admits these forms and no other; a form of a later revision, or a titled option without its title, fails." + elicitFormsFrom,
			Side:        conform.Server{HandshakeObserved: true, Run: checkElicitEnumForms}},
		conform.Check{ID: "ELICIT-DEFAULT-TYPES", Level: "MUST", Revisions: conform.AllCatalogued, Transports: streamTransport,
			Summary:     "every default in a form-mode elicitation has its field's type: a string, an integer, a number or a boolean, one of the choices of a single-select, an array of choices of a multi-select",
			LevelReason: "The schema (2025-11-25 on, SEP-1034) types each primitive schema's default; a default of another type, or outside the choices, is one a client cannot apply." + elicitFormsFrom,
			Side:        conform.Server{HandshakeObserved: true, Run: checkElicitDefaultTypes}},
	)
}

func checkElicitEnumForms(t *conform.T) conform.Finding {
	forms, f := gatherElicitations(t)
	if f != nil {
		return *f
	}
	enums := 0
	for _, r := range forms {
		props, why := formProperties(r)
		if why != "" {
			continue // ELICIT-SCHEMA-FLAT's matter
		}
		for _, name := range sortedKeys(props) {
			isEnum, why := enumFormFault(t.Revision, props[name])
			if !isEnum {
				continue
			}
			enums++
			if why != "" {
				return conform.Violated("enum field %q %s, in %s", name, why, r.where())
			}
		}
	}
	if enums == 0 {
		return conform.CannotTest("the %d form-mode elicitations gathered have no enum field", len(forms))
	}
	return conform.Passed("%d enum fields", enums)
}

func checkElicitDefaultTypes(t *conform.T) conform.Finding {
	forms, f := gatherElicitations(t)
	if f != nil {
		return *f
	}
	defaults := 0
	for _, r := range forms {
		props, why := formProperties(r)
		if why != "" {
			continue
		}
		for _, name := range sortedKeys(props) {
			has, why := defaultFault(props[name])
			if !has {
				continue
			}
			defaults++
			if why != "" {
				return conform.Violated("field %q: %s, in %s", name, why, r.where())
			}
		}
	}
	if defaults == 0 {
		return conform.CannotTest("the %d form-mode elicitations gathered have no field with a default", len(forms))
	}
	return conform.Passed("%d defaults", defaults)
}

// fieldSchema is what the enum and default judgements read of a form's property.
type fieldSchema struct {
	Type      json.RawMessage `json:"type"`
	Enum      json.RawMessage `json:"enum"`
	EnumNames json.RawMessage `json:"enumNames"`
	OneOf     json.RawMessage `json:"oneOf"`
	AnyOf     json.RawMessage `json:"anyOf"`
	Items     json.RawMessage `json:"items"`
	Default   json.RawMessage `json:"default"`
}

// stringList reads a JSON array of strings; ok is false for anything else.
func stringList(raw json.RawMessage) ([]string, bool) {
	var out []string
	if jsonKind(raw) != '[' || json.Unmarshal(raw, &out) != nil {
		return nil, false
	}
	return out, true
}

// titledOptions reads an array of {const, title} options (both strings) and returns the consts;
// why says what is wrong otherwise.
func titledOptions(raw json.RawMessage) (consts []string, why string) {
	var opts []map[string]json.RawMessage
	if jsonKind(raw) != '[' || json.Unmarshal(raw, &opts) != nil {
		return nil, "is not an array of options"
	}
	for i, o := range opts {
		c, okC := jsonString(o["const"])
		_, okT := jsonString(o["title"])
		if !okC || !okT {
			return nil, fmt.Sprintf("has option %d without a string const and a string title: %s", i, clip(asJSON(o), 80))
		}
		consts = append(consts, c)
	}
	return consts, ""
}

// enumFormFault says whether a form property is an enum field (it has enum, enumNames, oneOf
// or anyOf, or is an array) and, if so, why it is not one of the forms of revision rev ("" when
// it is).
func enumFormFault(rev string, raw json.RawMessage) (isEnum bool, why string) {
	var p fieldSchema
	if jsonKind(raw) != '{' || json.Unmarshal(raw, &p) != nil {
		return false, ""
	}
	typ, _ := jsonString(p.Type)
	if p.Enum == nil && p.EnumNames == nil && p.OneOf == nil && p.AnyOf == nil && typ != "array" {
		return false, ""
	}
	titledForms := rev >= harness.Rev20251125
	switch {
	case typ == "array" && !titledForms:
		return true, "is a multi-select array, a form 2025-11-25 introduced"
	case typ == "array":
		return true, multiSelectFault(p)
	case typ != "string":
		return true, fmt.Sprintf("has type %s: an enum's type is string (array for a multi-select)", clip(string(p.Type), 30))
	case p.AnyOf != nil:
		return true, "has anyOf: a single-select's titled options go in oneOf"
	case p.OneOf != nil && !titledForms:
		return true, "has oneOf, the titled form 2025-11-25 introduced"
	case p.OneOf != nil && (p.Enum != nil || p.EnumNames != nil):
		return true, "has oneOf beside enum or enumNames: a single-select is one form or the other"
	case p.OneOf != nil:
		_, why := titledOptions(p.OneOf)
		if why != "" {
			return true, "oneOf " + why
		}
		return true, ""
	}
	values, ok := stringList(p.Enum)
	if !ok {
		return true, "has no enum array of strings"
	}
	if p.EnumNames != nil {
		names, ok := stringList(p.EnumNames)
		switch {
		case !ok:
			return true, "has an enumNames that is not an array of strings"
		case len(names) != len(values):
			return true, fmt.Sprintf("has %d enumNames for %d enum values", len(names), len(values))
		}
	}
	return true, ""
}

// multiSelectFault says why an array field is not a multi-select of 2025-11-25 ("" when it is).
func multiSelectFault(p fieldSchema) string {
	var items fieldSchema
	if jsonKind(p.Items) != '{' || json.Unmarshal(p.Items, &items) != nil {
		return "is an array without an items schema"
	}
	switch {
	case items.Enum != nil && items.AnyOf != nil:
		return "has items with both enum and anyOf"
	case items.AnyOf != nil:
		if _, why := titledOptions(items.AnyOf); why != "" {
			return "items.anyOf " + why
		}
		return ""
	case items.Enum != nil:
		if it, _ := jsonString(items.Type); it != "string" {
			return fmt.Sprintf("has items of type %s: an untitled multi-select's items are strings", clip(string(items.Type), 30))
		}
		if _, ok := stringList(items.Enum); !ok {
			return "has an items.enum that is not an array of strings"
		}
		return ""
	}
	return "has items with neither an enum nor an anyOf of options"
}

// choices are the values an enum field allows (nil for a field that is not an enum).
func choices(p fieldSchema) []string {
	if v, ok := stringList(p.Enum); ok {
		return v
	}
	if v, why := titledOptions(p.OneOf); why == "" {
		return v
	}
	var items fieldSchema
	if json.Unmarshal(p.Items, &items) == nil {
		return choices(fieldSchema{Enum: items.Enum, OneOf: items.AnyOf})
	}
	return nil
}

// defaultFault says whether a form property has a default and, if so, why that default does
// not fit the property ("" when it does).
func defaultFault(raw json.RawMessage) (has bool, why string) {
	var p fieldSchema
	if jsonKind(raw) != '{' || json.Unmarshal(raw, &p) != nil || p.Default == nil {
		return false, ""
	}
	typ, _ := jsonString(p.Type)
	shown := clip(string(p.Default), 60)
	allowed := choices(p)
	switch typ {
	case "string":
		v, ok := jsonString(p.Default)
		switch {
		case !ok:
			return true, fmt.Sprintf("the default %s of a string field is not a string", shown)
		case allowed != nil && !slices.Contains(allowed, v):
			return true, fmt.Sprintf("the default %s is not one of the choices %q", shown, allowed)
		}
	case "integer", "number":
		var n json.Number
		if jsonKind(p.Default) == '"' || json.Unmarshal(p.Default, &n) != nil {
			return true, fmt.Sprintf("the default %s of the %s field is not a number", shown, typ)
		}
		if _, err := n.Int64(); typ == "integer" && err != nil {
			if f, err := n.Float64(); err != nil || f != float64(int64(f)) {
				return true, fmt.Sprintf("the default %s of an integer field is not an integer", shown)
			}
		}
	case "boolean":
		if string(p.Default) != "true" && string(p.Default) != "false" {
			return true, fmt.Sprintf("the default %s of a boolean field is not a boolean", shown)
		}
	case "array":
		values, ok := stringList(p.Default)
		if !ok {
			return true, fmt.Sprintf("the default %s of a multi-select is not an array of strings", shown)
		}
		for _, v := range values {
			if allowed != nil && !slices.Contains(allowed, v) {
				return true, fmt.Sprintf("the default %s holds %q, not one of the choices %q", shown, v, allowed)
			}
		}
	}
	return true, ""
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

// elicitFormsFrom says where the elicitation checks find what they judge.
const elicitFormsFrom = " The forms are those of the tools that elicit (--input-tool, and tools named *elicit* but not *url*): at the handshake revisions the server's elicitation/create during a call on a session of the check's own declaring elicitation, at 2026-07-28 the calls' input requests. No such tool is na; tools that elicit nothing are untestable."

func checkElicitSchemaFlat(t *conform.T) conform.Finding {
	forms, f := gatherElicitations(t)
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
var sensitiveWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`password|passwd|passphrase|secret|apikey|accesstoken|authtoken|bearertoken|refreshtoken|privatekey|creditcard|cardnumber|cvv|cvc|^token$|^pin$|^iban$`)
})

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
		if w := sensitiveWord().FindString(folded); w != "" {
			return s, true
		}
	}
	return "", false
}

func checkElicitNoSensitive(t *conform.T) conform.Finding {
	forms, f := gatherElicitations(t)
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
