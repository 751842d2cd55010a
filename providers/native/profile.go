package native

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Profile names a provider's structured-output mode, with the rules its
// lowering follows. The values are what `enforcer schema -provider`
// takes.
type Profile string

const (
	// OpenAI is OpenAI's strict mode (response_format json_schema with
	// strict: true): the root is an object, every object lists all its
	// properties as required and forbids additional ones, optional
	// members are sent as required and nullable, and only the documented
	// keywords are sent (no minLength, maxLength, allOf, not, …). A
	// contract it cannot express is sent non-strict.
	OpenAI Profile = "openai"
	// Anthropic is Anthropic's structured outputs (output_config.format):
	// objects forbid additional properties, optional members stay
	// optional (at most 24 in a schema), no recursion, no numeric or
	// length bounds, minItems only 0 or 1. A contract it cannot express
	// is sent with no native schema.
	Anthropic Profile = "anthropic"
	// Gemini is the Gemini API's responseJsonSchema: type, format, enum
	// (strings and numbers), items, minItems, maxItems, minimum, maximum,
	// anyOf, properties, additionalProperties, required, $ref and $defs;
	// nothing beside a $ref; no recursion.
	Gemini Profile = "gemini"
	// VLLM is vLLM's OpenAI-compatible server (guided decoding): most of
	// JSON Schema, without multipleOf, uniqueItems, contains, property
	// counts, patternProperties, not or if/then/else; oneOf is sent as
	// anyOf.
	VLLM Profile = "vllm"
	// LlamaCpp is llama.cpp's server, whose schema-to-grammar converter
	// takes types, enum, const, properties, required,
	// additionalProperties, items, minItems, maxItems, anyOf, $ref,
	// pattern, minLength, maxLength, the formats date, time, date-time
	// and uuid, and numeric bounds on integers only.
	LlamaCpp Profile = "llama.cpp"
	// Ollama is Ollama's OpenAI-compatible endpoint, which hands the
	// schema to llama.cpp's converter: the same subset as [LlamaCpp].
	Ollama Profile = "ollama"
	// Mistral is Mistral's custom structured outputs (response_format
	// json_schema, strict: true) on its OpenAI-compatible endpoint:
	// objects forbid additional properties, optional members stay
	// optional; Mistral documents no keyword subset, so only type, enum,
	// const, items, anyOf and objects are sent, with no recursion. A
	// contract it cannot express is sent non-strict.
	Mistral Profile = "mistral"
	// Groq is Groq's strict structured outputs (response_format
	// json_schema, strict: true): every property required, optional ones
	// sent nullable, objects closed, and, as for [Mistral], only type,
	// enum, const, items, anyOf and objects, with no recursion. A
	// contract it cannot express is sent non-strict (best-effort).
	Groq Profile = "groq"
	// XAI is xAI's structured outputs (response_format json_schema):
	// type, enum, const, anyOf, oneOf (sent as anyOf), an allOf of one
	// schema, $ref and $defs without cycles, and the formats date, time,
	// date-time, email, uuid and ipv4; length, count, pattern and
	// numeric bounds, which it takes only as best effort, are left out;
	// objects closed. A contract it cannot express is sent with no
	// native schema.
	XAI Profile = "xai"
	// OpenRouter is OpenRouter's structured outputs, which pass the
	// schema on to whichever provider serves the model: sent by
	// [OpenAI]'s rules, the strictest those providers document.
	OpenRouter Profile = "openrouter"
	// DeepSeek is DeepSeek's chat completions, whose JSON output is
	// response_format json_object only: no schema is ever sent natively
	// (the report says so), and the contract reaches the model in the
	// system message.
	DeepSeek Profile = "deepseek"
)

// Profiles lists every profile, in the order the documentation names
// them.
var Profiles = []Profile{OpenAI, Anthropic, Gemini, VLLM, LlamaCpp, Ollama, Mistral, Groq, XAI, OpenRouter, DeepSeek}

// ErrUnknownProfile is returned for a profile not in [Profiles].
var ErrUnknownProfile = errors.New("native: unknown profile")

// ErrSchema is returned for a contract that is not a JSON Schema
// (not JSON, or not an object or boolean at its root).
var ErrSchema = errors.New("native: not a JSON Schema")

// rules is what a profile's lowering follows.
type rules struct {
	// keep: the assertion keywords the provider takes (those not named
	// are left out, and judged only here).
	keep set
	// annotations: the annotation keywords sent; others are left out.
	annotations set
	// formats the provider takes; nil: all.
	formats set
	// enumOK says which enum values the provider takes.
	enumOK func(any) bool

	requireAll   bool // every property required; optional ones made nullable
	closed       bool // every object must forbid additional properties
	typed        bool // every schema must say what it accepts (no {} or true)
	objectRoot   bool // the root must be an object schema, not a union
	refAlone     bool // nothing but $-keywords beside a $ref
	recursion    bool // $ref cycles allowed
	simpleRegex  bool // patterns without backreferences, lookaround or \b
	intBounds    bool // numeric bounds only on integers
	constAsEnum  bool // const sent as a one-value enum
	minItemsCap  int  // minItems above this is sent as this; 0: no cap
	fallback     Mode // what a contract the rules cannot express gets
	maxProps     int  // object properties in all; 0: no limit
	maxDepth     int  // nesting of objects; 0: no limit
	maxEnum      int  // enum values in all
	maxStrings   int  // length of property names, enum and const strings in all
	maxOptional  int  // optional properties in all
	maxUnions    int  // anyOf and type arrays in all
	oneOfAsAnyOf bool // oneOf sent as anyOf (exclusivity judged here)
	defsOnly     bool // definitions sent as $defs
	// refFirst: the provider reads the schema as draft-07 (no $schema is
	// sent), where $ref replaces its siblings, and its grammar converter
	// resolves $ref first; a contract of 2019-09 or later, where they
	// apply beside it, has its $ref sent in an anyOf of one schema.
	refFirst bool
	// never, when not "", says why the provider takes no schema at all:
	// every contract gets the fallback, for that reason.
	never string
}

type set map[string]bool

func setOf(names ...string) set {
	s := set{}
	for _, n := range names {
		s[n] = true
	}
	return s
}

func primitive(v any) bool {
	switch v.(type) {
	case *object, []any:
		return false
	}
	return true
}

func stringOrNumber(v any) bool {
	switch v.(type) {
	case string, json.Number:
		return true
	}
	return false
}

func (p Profile) rules() (*rules, error) {
	r, ok := profiles[p]
	if !ok {
		return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknownProfile, string(p), Profiles)
	}
	return r, nil
}

var llamaCpp = &rules{
	keep: setOf("type", "enum", "const", "required", "additionalProperties", "items",
		"minItems", "maxItems", "anyOf", "oneOf", "pattern", "format", "minLength", "maxLength",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
	annotations:  setOf("title", "description"),
	formats:      setOf("date", "time", "date-time", "uuid"),
	enumOK:       primitive,
	recursion:    true,
	intBounds:    true,
	oneOfAsAnyOf: true,
	fallback:     ModeNone,
	refFirst:     true,
}

// openAI is OpenAI's strict mode, which OpenRouter's follows.
var openAI = &rules{
	keep: setOf("type", "enum", "const", "required", "additionalProperties", "items", "anyOf", "oneOf",
		"pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"minItems", "maxItems"),
	annotations:  setOf("title", "description"),
	formats:      setOf("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"),
	enumOK:       primitive,
	requireAll:   true,
	closed:       true,
	typed:        true,
	objectRoot:   true,
	refAlone:     true,
	recursion:    true,
	simpleRegex:  true,
	oneOfAsAnyOf: true,
	fallback:     ModeNonStrict,
	maxProps:     5000,
	maxDepth:     10,
	maxEnum:      1000,
	maxStrings:   120000,
}

// The profiles of the OpenAI-compatible providers added for issue 36,
// each from the provider's own documentation, as read for it:
//
//   - Mistral: https://docs.mistral.ai/capabilities/structured-output/custom_structured_output/
//     documents response_format json_schema with strict, and no subset
//     of JSON Schema; what strict mode requires is that every object set
//     additionalProperties false (pydantic-ai's Mistral profile, PR
//     #4763, sends optional members as they are). The keywords sent are
//     the conservative core every strict provider here takes.
//   - Groq: https://console.groq.com/docs/structured-outputs says that
//     with strict: true "all fields must be required and objects must set
//     additionalProperties: false", on the models it names (others answer
//     400), and that strict: false is best effort. It lists no other
//     keyword rule: the same conservative core as Mistral's.
//   - xAI: https://docs.x.ai/developers/model-capabilities/text/structured-outputs
//     lists the supported types (string, number, integer, boolean, null,
//     enum, const, array, object, anyOf, oneOf "behaves identically to
//     anyOf", allOf of a single subschema, $ref/$defs "non-circular
//     references only"), additionalProperties defaulting to false, the
//     formats it enforces (date, time, date-time, email, uuid, ipv4), and
//     other keywords as best effort only; its earlier guide
//     (https://docs.x.ai/docs/guides/structured-outputs) said minLength,
//     maxLength, minItems and maxItems are not supported.
//   - OpenRouter: https://openrouter.ai/docs/structured-outputs sends
//     response_format json_schema with strict on to the provider serving
//     the model, its example with every property required and
//     additionalProperties false: OpenAI's rules.
//   - DeepSeek: https://api-docs.deepseek.com/guides/json_mode offers
//     response_format {"type": "json_object"} only, with the format asked
//     for in the prompt; no json_schema.
var (
	conservativeCore = setOf("type", "enum", "const", "required", "additionalProperties", "items", "anyOf", "oneOf")
	mistral          = &rules{
		keep:         conservativeCore,
		annotations:  setOf("title", "description"),
		enumOK:       primitive,
		closed:       true,
		typed:        true,
		objectRoot:   true,
		refAlone:     true,
		oneOfAsAnyOf: true,
		fallback:     ModeNonStrict,
	}
	groq = &rules{
		keep:         conservativeCore,
		annotations:  setOf("title", "description"),
		enumOK:       primitive,
		requireAll:   true,
		closed:       true,
		typed:        true,
		objectRoot:   true,
		refAlone:     true,
		oneOfAsAnyOf: true,
		fallback:     ModeNonStrict,
	}
	xai = &rules{
		keep: setOf("type", "enum", "const", "required", "additionalProperties", "items", "anyOf", "oneOf",
			"format"),
		annotations:  setOf("title", "description"),
		formats:      setOf("date", "time", "date-time", "email", "uuid", "ipv4"),
		enumOK:       primitive,
		closed:       true,
		typed:        true,
		objectRoot:   true,
		refAlone:     true,
		oneOfAsAnyOf: true,
		fallback:     ModeNone,
	}
	deepSeek = &rules{
		keep:        conservativeCore,
		annotations: setOf("title", "description"),
		enumOK:      primitive,
		fallback:    ModeNone,
		never:       "DeepSeek takes response_format json_object only, no json_schema",
	}
)

var profiles = map[Profile]*rules{
	OpenAI:     openAI,
	OpenRouter: openAI,
	Mistral:    mistral,
	Groq:       groq,
	XAI:        xai,
	DeepSeek:   deepSeek,
	Anthropic: {
		keep: setOf("type", "enum", "const", "required", "additionalProperties", "items", "anyOf", "oneOf",
			"pattern", "format", "minItems"),
		annotations:  setOf("title", "description", "default"),
		formats:      setOf("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"),
		enumOK:       primitive,
		closed:       true,
		typed:        true,
		objectRoot:   true,
		simpleRegex:  true,
		minItemsCap:  1,
		oneOfAsAnyOf: true,
		fallback:     ModeNone,
		maxOptional:  24,
		maxUnions:    16,
	},
	Gemini: {
		keep: setOf("type", "enum", "const", "required", "additionalProperties", "items", "anyOf", "oneOf",
			"format", "minItems", "maxItems", "minimum", "maximum"),
		annotations:  setOf("title", "description"),
		enumOK:       stringOrNumber,
		refAlone:     true,
		constAsEnum:  true,
		defsOnly:     true,
		oneOfAsAnyOf: true,
		fallback:     ModeNone,
	},
	VLLM: {
		keep: setOf("type", "enum", "const", "required", "additionalProperties", "items",
			"minItems", "maxItems", "anyOf", "oneOf", "pattern", "format", "minLength", "maxLength",
			"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
		annotations:  setOf("title", "description"),
		formats:      setOf("date", "time", "date-time", "uuid", "ipv4", "ipv6", "uri"),
		enumOK:       primitive,
		recursion:    true,
		oneOfAsAnyOf: true,
		fallback:     ModeNone,
		refFirst:     true,
	},
	LlamaCpp: llamaCpp,
	Ollama:   llamaCpp,
}
