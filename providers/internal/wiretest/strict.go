package wiretest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The checks below refuse what each provider documents it refuses in a
// native schema, so that a wire server can answer 400 as the provider
// does. They are written from the providers' documentation, apart from
// the lowering they test.

// OpenAIStrict checks a response_format schema sent with strict: true
// against OpenAI's supported-schemas rules.
func OpenAIStrict(schema []byte) error {
	return check(schema, strictRules{
		name: "openai",
		allowed: words("type", "properties", "required", "additionalProperties", "items", "anyOf",
			"enum", "const", "$ref", "$defs", "definitions", "description", "title", "pattern", "format",
			"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"),
		formats:      words("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"),
		enumValue:    scalar,
		allRequired:  true,
		closed:       true,
		typed:        true,
		objectRoot:   true,
		refAlone:     true,
		recursion:    true,
		maxProps:     5000,
		maxDepth:     10,
		maxEnum:      1000,
		noUnionAtTop: true,
	})
}

// AnthropicFormat checks an output_config.format schema against
// Anthropic's structured-outputs rules.
func AnthropicFormat(schema []byte) error {
	return check(schema, strictRules{
		name: "anthropic",
		allowed: words("type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf",
			"enum", "const", "$ref", "$defs", "definitions", "description", "title", "default", "pattern",
			"format", "minItems"),
		formats:     words("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"),
		enumValue:   scalar,
		closed:      true,
		typed:       true,
		objectRoot:  true,
		minItemsMax: 1,
		maxOptional: 24,
		maxUnions:   16,
	})
}

// GeminiSchema checks a responseJsonSchema against the Gemini API's
// documented subset; it refuses what the API would ignore, too.
func GeminiSchema(schema []byte) error {
	return check(schema, strictRules{
		name: "gemini",
		allowed: words("$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum",
			"items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf",
			"properties", "additionalProperties", "required", "propertyOrdering"),
		enumValue: func(v any) bool {
			switch v.(type) {
			case string, float64:
				return true
			}
			return false
		},
		refAlone: true,
	})
}

// The OpenAI-compatible providers of issue 36, each refusing what it
// documents (the pages are cited at native's profiles). Mistral and Groq
// document no keyword list: their servers take the conservative core the
// profiles send, and refuse the rest, which is stricter than the
// providers may be. OpenRouter's strict mode is checked by OpenAIStrict.

// MistralStrict checks a strict response_format schema against
// Mistral's structured outputs: every object closed; optional members
// allowed; no recursion.
func MistralStrict(schema []byte) error {
	return check(schema, strictRules{
		name:       "mistral",
		allowed:    core,
		enumValue:  scalar,
		closed:     true,
		typed:      true,
		objectRoot: true,
		refAlone:   true,
	})
}

// GroqStrict checks a strict response_format schema against Groq's
// strict mode: every property required, every object closed; no
// recursion.
func GroqStrict(schema []byte) error {
	return check(schema, strictRules{
		name:        "groq",
		allowed:     core,
		enumValue:   scalar,
		allRequired: true,
		closed:      true,
		typed:       true,
		objectRoot:  true,
		refAlone:    true,
	})
}

// XAISchema checks a response_format schema against xAI's supported
// subset: its types, anyOf, oneOf, allOf, $ref and $defs without
// cycles, and its enforced formats.
func XAISchema(schema []byte) error {
	return check(schema, strictRules{
		name: "xai",
		allowed: words("type", "properties", "required", "additionalProperties", "items", "anyOf", "oneOf", "allOf",
			"enum", "const", "$ref", "$defs", "definitions", "description", "title", "format"),
		formats:    words("date", "time", "date-time", "email", "uuid", "ipv4"),
		enumValue:  scalar,
		typed:      true,
		objectRoot: true,
	})
}

// ErrDeepSeekSchema is DeepSeekSchema's answer to every schema: DeepSeek
// takes response_format json_object only.
var ErrDeepSeekSchema = errors.New("deepseek: This response_format type is unavailable now")

// DeepSeekSchema refuses every json_schema response format, as DeepSeek
// does.
func DeepSeekSchema([]byte) error { return ErrDeepSeekSchema }

// core is the keywords the Mistral and Groq servers take.
var core = words("type", "properties", "required", "additionalProperties", "items", "anyOf",
	"enum", "const", "$ref", "$defs", "definitions", "description", "title")

type strictRules struct {
	name                                     string
	allowed, formats                         map[string]bool
	enumValue                                func(any) bool
	allRequired, closed, typed, objectRoot   bool
	refAlone, recursion, noUnionAtTop        bool
	minItemsMax                              int
	maxProps, maxDepth, maxEnum              int
	maxOptional, maxUnions                   int
	props, enums, optional, unions, depthMax int
	refs                                     map[string][]string // ref site → targets inside its schema
}

func words(ws ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func scalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func check(schema []byte, r strictRules) error {
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("%s: invalid schema: %w", r.name, err)
	}
	obj, ok := root.(map[string]any)
	if r.objectRoot && (!ok || obj["type"] != "object") {
		return fmt.Errorf("%s: the root must be an object schema", r.name)
	}
	if _, union := obj["anyOf"]; r.noUnionAtTop && union {
		return fmt.Errorf("%s: the root must not be anyOf", r.name)
	}
	r.refs = map[string][]string{}
	if err := r.node(root, root, "", 0); err != nil {
		return err
	}
	limit := func(n, max int, what string) error {
		if max > 0 && n > max {
			return fmt.Errorf("%s: %d %s, over %d", r.name, n, what, max)
		}
		return nil
	}
	for _, err := range []error{
		limit(r.props, r.maxProps, "properties"), limit(r.depthMax, r.maxDepth, "levels of nesting"),
		limit(r.enums, r.maxEnum, "enum values"), limit(r.optional, r.maxOptional, "optional properties"),
		limit(r.unions, r.maxUnions, "unions"),
	} {
		if err != nil {
			return err
		}
	}
	if !r.recursion {
		for at := range r.refs {
			if r.cycle(at, at, map[string]bool{}) {
				return fmt.Errorf("%s: recursive schema at %s", r.name, at)
			}
		}
	}
	return nil
}

// cycle reports whether following $refs from the schema at ptr comes
// back to start.
func (r *strictRules) cycle(start, ptr string, seen map[string]bool) bool {
	for site, target := range r.refs {
		if !(site == ptr || strings.HasPrefix(site, ptr+"/") || ptr == "") {
			continue
		}
		t := target[0]
		if t == start || strings.HasPrefix(start, t+"/") || t == "" {
			return true
		}
		if !seen[site] {
			seen[site] = true
			if r.cycle(start, t, seen) {
				return true
			}
		}
	}
	return false
}

func (r *strictRules) node(root, v any, ptr string, depth int) error {
	o, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %s: a schema must be an object", r.name, where(ptr))
	}
	for k := range o {
		if !r.allowed[k] {
			return fmt.Errorf("%s: %s: '%s' is not permitted", r.name, where(ptr), k)
		}
	}
	if ref, has := o["$ref"]; has {
		s, _ := ref.(string)
		target := strings.TrimPrefix(s, "#")
		if u, err := url.PathUnescape(target); err == nil {
			target = u
		}
		if !strings.HasPrefix(s, "#") || resolve(root, target) == nil {
			return fmt.Errorf("%s: %s: $ref %q does not resolve", r.name, where(ptr), s)
		}
		r.refs[ptr] = []string{target}
		if r.refAlone {
			for k := range o {
				if !strings.HasPrefix(k, "$") {
					return fmt.Errorf("%s: %s: '%s' beside a $ref", r.name, where(ptr), k)
				}
			}
		}
	}
	_, hasType := o["type"]
	_, hasAny := o["anyOf"]
	_, hasAll := o["allOf"]
	_, hasRef := o["$ref"]
	_, hasEnum := o["enum"]
	_, hasConst := o["const"]
	if r.typed && !hasType && !hasAny && !hasAll && !hasRef && !hasEnum && !hasConst {
		return fmt.Errorf("%s: %s: a schema must have a type", r.name, where(ptr))
	}
	if t, ok := o["type"].([]any); ok && len(t) > 1 || hasAny {
		r.unions++
	}
	if f, ok := o["format"].(string); ok && r.formats != nil && !r.formats[f] {
		return fmt.Errorf("%s: %s: format %q is not supported", r.name, where(ptr), f)
	}
	if e, ok := o["enum"]; ok {
		list, _ := e.([]any)
		for _, x := range list {
			if !r.enumValue(x) {
				return fmt.Errorf("%s: %s: enum value %v is not supported", r.name, where(ptr), x)
			}
		}
		r.enums += len(list)
	}
	if n, ok := o["minItems"].(float64); ok && r.minItemsMax > 0 && n > float64(r.minItemsMax) {
		return fmt.Errorf("%s: %s: minItems %v is not supported (0 or 1)", r.name, where(ptr), n)
	}
	isObject := o["type"] == "object"
	if t, ok := o["type"].([]any); ok {
		for _, x := range t {
			isObject = isObject || x == "object"
		}
	}
	props, _ := o["properties"].(map[string]any)
	if isObject || props != nil {
		depth++
		r.depthMax = max(r.depthMax, depth)
		if r.closed && o["additionalProperties"] != false {
			return fmt.Errorf("%s: %s: additionalProperties must be false", r.name, where(ptr))
		}
		required := map[string]bool{}
		list, _ := o["required"].([]any)
		for _, x := range list {
			s, _ := x.(string)
			required[s] = true
		}
		for name := range props {
			r.props++
			if !required[name] {
				if r.allRequired {
					return fmt.Errorf("%s: %s: every property must be required; %q is not", r.name, where(ptr), name)
				}
				r.optional++
			}
		}
	}
	sub := func(v any, p string) error { return r.node(root, v, p, depth) }
	for name, p := range props {
		if err := sub(p, ptr+"/properties/"+name); err != nil {
			return err
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		defs, _ := o[k].(map[string]any)
		for name, d := range defs {
			if err := r.node(root, d, ptr+"/"+k+"/"+name, 0); err != nil {
				return err
			}
		}
	}
	if items, ok := o["items"]; ok {
		if err := sub(items, ptr+"/items"); err != nil {
			return err
		}
	}
	if ap, ok := o["additionalProperties"].(map[string]any); ok {
		if err := sub(ap, ptr+"/additionalProperties"); err != nil {
			return err
		}
	}
	for _, k := range []string{"anyOf", "allOf", "oneOf", "prefixItems"} {
		list, _ := o[k].([]any)
		for i, b := range list {
			if err := sub(b, fmt.Sprintf("%s/%s/%d", ptr, k, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func where(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}

// resolve finds the value at a JSON Pointer.
func resolve(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = o[tok]; !ok {
			return nil
		}
	}
	return v
}
