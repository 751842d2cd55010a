package enforce

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// draft is the JSON Schema dialect a schema declares with $schema.
type draft int

const (
	draft4 draft = 4
	draft6 draft = 6
	draft7 draft = 7
	// draft2020 is checked by translating to draft-07 where the meaning is
	// the same, and refusing what cannot be translated.
	draft2020 draft = 2020
)

func (d draft) String() string {
	if d == draft2020 {
		return "2020-12"
	}
	return fmt.Sprintf("draft-%02d", int(d))
}

var dialects = map[string]draft{
	"http://json-schema.org/draft-04/schema":       draft4,
	"http://json-schema.org/draft-06/schema":       draft6,
	"http://json-schema.org/draft-07/schema":       draft7,
	"https://json-schema.org/draft/2020-12/schema": draft2020,
}

// refusedKeywords are keywords the validator does not know. It would
// ignore them silently, so a schema that uses them is refused instead.
var refusedKeywords = map[string]string{
	"prefixItems":           "2020-12 tuple validation",
	"unevaluatedProperties": "2019-09/2020-12 evaluation tracking",
	"unevaluatedItems":      "2019-09/2020-12 evaluation tracking",
	"dependentRequired":     "2019-09/2020-12 dependencies",
	"dependentSchemas":      "2019-09/2020-12 dependencies",
	"$anchor":               "2019-09/2020-12 anchors",
	"$dynamicRef":           "2020-12 dynamic references",
	"$dynamicAnchor":        "2020-12 dynamic references",
	"$recursiveRef":         "2019-09 recursive references",
	"$recursiveAnchor":      "2019-09 recursive references",
	"minContains":           "2019-09/2020-12 contains bounds",
	"maxContains":           "2019-09/2020-12 contains bounds",
	"$vocabulary":           "2019-09/2020-12 vocabularies",
}

// Where subschemas live, by keyword. inPlace keywords apply their
// subschemas to the same instance; the others descend into it.
var (
	schemaKeywords = map[string]bool{ // value is one schema
		"additionalItems": false, "additionalProperties": false, "contains": false,
		"propertyNames": false, "items": false,
		"not": true, "if": true, "then": true, "else": true,
	}
	schemaListKeywords = map[string]bool{ // value is an array of schemas
		"allOf": true, "anyOf": true, "oneOf": true, "items": false,
		"prefixItems": false, // 2020-12 only; translated below
	}
	schemaMapKeywords = map[string]bool{ // value is an object of schemas
		"properties": false, "patternProperties": false,
		"definitions": false, "$defs": false,
		"dependencies":     true, // applies to the same instance
		"dependentSchemas": true, // 2020-12 only; translated below
	}
	// translated2020 are 2020-12 keywords with an exact draft-07
	// equivalent: they are rewritten, not refused.
	translated2020 = map[string]bool{"prefixItems": true, "dependentRequired": true, "dependentSchemas": true}
	// count keywords take a non-negative integer; 2.0 is one.
	countKeywords = []string{"maxItems", "minItems", "maxLength", "minLength", "maxProperties", "minProperties"}
)

// refNode is an output object holding a $ref, with its target in the
// original document.
type refNode struct {
	node   map[string]any
	target string
}

// auditor walks a schema document, refuses what the validator would check
// wrongly, and rewrites what it can check right once rewritten.
type auditor struct {
	root  any
	draft draft
	// refs maps the location of each $ref to its target's location.
	refs map[string]string
	// edges maps a subschema's location to the subschemas it applies to the
	// same instance (its $ref target, allOf members, …). A cycle among them
	// would recurse forever without consuming input.
	edges map[string][]string
	// anyRef and subIDs decide whether base-URI changes matter.
	anyRef bool
	subID  string
	// refNodes are the output objects holding each $ref, with its target
	// in the original document, and moved maps original locations of
	// translated keywords to their new path segments: a $ref into a
	// translated keyword is re-aimed once the walk is done.
	refNodes []refNode
	moved    map[string]string
	// compares is set when a keyword compares instance values by their
	// JSON text (uniqueItems, or an enum or const holding a number): only
	// then must an answer's numbers be canonicalized before validation.
	compares bool
	// children maps a subschema's location to every subschema it applies,
	// to the same instance or to a part of it, for the expansion bound;
	// walked holds every location audited, so that a $ref can be held to
	// subschemas the audit saw.
	children map[string][]string
	walked   map[string]bool
}

func newAuditor(root any) (*auditor, error) {
	a := &auditor{
		root: root, draft: draft7,
		refs: map[string]string{}, edges: map[string][]string{},
		children: map[string][]string{}, walked: map[string]bool{},
	}
	if m, ok := root.(map[string]any); ok {
		if v, ok := m["$schema"]; ok {
			s, ok := v.(string)
			if !ok {
				return nil, &SchemaError{Keyword: "$schema", Reason: "must be a string"}
			}
			d, ok := dialects[strings.TrimSuffix(s, "#")]
			if !ok {
				return nil, &SchemaError{Keyword: "$schema", Reason: fmt.Sprintf("unsupported dialect %q (supported: draft-04, draft-06, draft-07, 2020-12; none means draft-07)", s)}
			}
			a.draft = d
		}
	}
	return a, nil
}

// audit checks the whole document and returns the rewritten copy to
// compile.
func (a *auditor) audit() (any, error) {
	out, err := a.walk(a.root, "")
	if err != nil {
		return nil, err
	}
	if a.anyRef && a.subID != "" {
		return nil, &SchemaError{Keyword: a.idKeyword(), Location: a.subID, Reason: "an identifier in a subschema changes the base of $ref; only references within one document, by JSON Pointer, are supported"}
	}
	for _, from := range sortedKeys(a.refs) {
		to := a.refs[from]
		if _, ok := resolvePointer(a.root, to); !ok {
			return nil, &SchemaError{Keyword: "$ref", Location: from, Reason: fmt.Sprintf("target %q not found in the schema", "#"+to)}
		}
		if v, _ := resolvePointer(a.root, to); !a.walked[to] && v != true && v != false {
			return nil, &SchemaError{Keyword: "$ref", Location: from, Reason: fmt.Sprintf("target %q is not where a subschema may stand (under an unknown keyword?), so it was not audited", "#"+to)}
		}
	}
	if err := a.findCycle(); err != nil {
		return nil, err
	}
	if err := a.checkExpansion(); err != nil {
		return nil, err
	}
	a.reaim()
	return out, nil
}

func (a *auditor) idKeyword() string {
	if a.draft == draft4 {
		return "id"
	}
	return "$id"
}

// walk checks the subschema s at location loc and returns its rewrite.
func (a *auditor) walk(s any, loc string) (any, error) {
	a.walked[loc] = true
	switch s := s.(type) {
	case bool:
		if a.draft == draft4 {
			return nil, &SchemaError{Location: loc, Reason: "a boolean schema needs draft-06 or later"}
		}
		return s, nil
	case map[string]any:
		return a.walkObject(s, loc)
	default:
		return nil, &SchemaError{Location: loc, Reason: fmt.Sprintf("a schema must be an object or a boolean, not %s", jsonKind(s))}
	}
}

// walkObject audits one schema object in four steps: refuse what the
// validator would check wrongly, rewrite what the dialect means
// differently, normalise values the validator reads too strictly, and
// descend into subschemas. What needs the audited subschemas (2020-12
// translations, $ref beside siblings) comes last.
func (a *auditor) walkObject(m map[string]any, loc string) (any, error) {
	keys := sortedKeys(m) // the first refusal found is always the same
	if err := a.refuse(m, keys, loc); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(m))
	for _, k := range keys {
		out[k] = m[k]
	}
	a.identify(m, out, loc)
	a.rewriteForDialect(m, out)
	if err := a.normalise(m, out, loc); err != nil {
		return nil, err
	}
	if err := a.descend(m, out, keys, loc); err != nil {
		return nil, err
	}
	return a.finish(m, out, loc)
}

// refuse returns a *SchemaError for the first thing in m, in key order,
// that the validator would ignore or check wrongly.
func (a *auditor) refuse(m map[string]any, keys []string, loc string) error {
	for _, k := range keys {
		if why, ok := refusedKeywords[k]; ok && !(a.draft == draft2020 && translated2020[k]) {
			reason := why + " is not supported by the validator, which would ignore it"
			if translated2020[k] {
				reason = why + " is not a " + a.draft.String() + " keyword; declare \"$schema\": \"https://json-schema.org/draft/2020-12/schema\" to use it"
			}
			return &SchemaError{Keyword: k, Location: loc, Reason: reason}
		}
	}
	if _, ok := m["$schema"]; ok && loc != "" {
		return &SchemaError{Keyword: "$schema", Location: loc, Reason: "a dialect change inside a schema is not supported"}
	}
	if ref, ok := m["$ref"]; ok {
		rs, ok := ref.(string)
		if !ok {
			return &SchemaError{Keyword: "$ref", Location: loc, Reason: "must be a string"}
		}
		if _, err := refPointer(rs); err != nil {
			return &SchemaError{Keyword: "$ref", Location: loc, Reason: err.Error()}
		}
	}
	if _, ok := m["items"].([]any); ok && a.draft == draft2020 {
		return &SchemaError{Keyword: "items", Location: loc, Reason: "in 2020-12 items takes one schema; an array of schemas is prefixItems, which is not supported"}
	}
	if e, ok := m["enum"].([]any); ok {
		if len(e) == 0 {
			if _, ok := m["not"]; ok {
				return &SchemaError{Keyword: "enum", Location: loc, Reason: "an empty enum beside not is not supported"}
			}
		}
		if len(e) > MaxEnum {
			return &SchemaError{Keyword: "enum", Location: loc, Reason: fmt.Sprintf("%d values, more than MaxEnum (%d): the validator checks an enum's values pairwise when it compiles", len(e), MaxEnum)}
		}
	}
	if v, ok := m["required"].([]any); ok && len(v) == 0 && a.draft == draft4 {
		return &SchemaError{Keyword: "required", Location: loc, Reason: "draft-04 requires at least one name"}
	}
	return nil
}

// identify handles what names and links subschemas: $schema, the root's
// own identifier, identifiers in subschemas (which change the base of
// $ref), and the $ref itself.
func (a *auditor) identify(m, out map[string]any, loc string) {
	delete(out, "$schema")
	if id, ok := m[a.idKeyword()].(string); ok {
		if loc == "" || strings.HasPrefix(id, "#") {
			delete(out, a.idKeyword()) // the root's own id: all refs are local
		} else if a.subID == "" {
			a.subID = loc
		}
	}
	if rs, ok := m["$ref"].(string); ok {
		target, _ := refPointer(rs) // refuse checked it
		a.anyRef = true
		a.refs[loc] = target
		a.edges[loc] = append(a.edges[loc], target)
	}
}

// rewriteForDialect drops what the dialect ignores and the validator
// would apply, and registers the format checkers the dialect asserts.
func (a *auditor) rewriteForDialect(m, out map[string]any) {
	if a.draft == draft2020 {
		// Keywords 2020-12 does not have are ignored by it; the validator
		// would apply them.
		delete(out, "additionalItems")
		delete(out, "dependencies")
		// format is an annotation in 2020-12.
		delete(out, "format")
		return
	}
	if f, ok := m["format"].(string); ok {
		out["format"] = formatName(f)
	}
}

// normalise rewrites values the validator reads more strictly than JSON
// Schema means them: counts written as 2.0, an empty enum, and numbers in
// values compared by their JSON text.
func (a *auditor) normalise(m, out map[string]any, loc string) error {
	for _, k := range countKeywords {
		if v, ok := m[k]; ok {
			n, err := countValue(v)
			if err != nil {
				return &SchemaError{Keyword: k, Location: loc, Reason: err.Error()}
			}
			out[k] = n
		}
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 0 {
		// An empty enum admits nothing; the validator would admit all.
		delete(out, "enum")
		out["not"] = map[string]any{}
	}
	if _, ok := m["uniqueItems"]; ok {
		a.compares = true
	}
	for _, k := range []string{"enum", "const"} {
		if v, ok := out[k]; ok && holdsNumber(v) {
			// Only a number can be spelled two ways: an enum of strings
			// needs no canonical answer.
			a.compares = true
			out[k] = canonicalNumbers(v)
		}
	}
	return nil
}

// descend audits every subschema of m, replacing it in out by its
// rewrite, and records which apply to the same instance (for the cycle
// check) and which are reached at all (for the expansion bound).
func (a *auditor) descend(m, out map[string]any, keys []string, loc string) error {
	for _, k := range keys {
		v := m[k]
		child := loc + "/" + escapePointer(k)
		sub := func(s any, at string, inPlace bool) (any, error) {
			r, err := a.walk(s, at)
			if err != nil {
				return nil, err
			}
			if inPlace {
				a.edges[loc] = append(a.edges[loc], at)
			}
			if k != "definitions" && k != "$defs" { // reached only by $ref
				a.children[loc] = append(a.children[loc], at)
			}
			return r, nil
		}
		if inPlace, ok := schemaKeywords[k]; ok {
			if _, isList := v.([]any); !(k == "items" && isList) {
				if k == "additionalItems" && a.draft == draft2020 {
					continue
				}
				r, err := sub(v, child, inPlace)
				if err != nil {
					return err
				}
				out[k] = r
				continue
			}
		}
		if inPlace, ok := schemaListKeywords[k]; ok {
			list, ok := v.([]any)
			if !ok {
				return &SchemaError{Keyword: k, Location: loc, Reason: "must be an array of schemas"}
			}
			if k != "items" && len(list) == 0 {
				return &SchemaError{Keyword: k, Location: loc, Reason: "must not be empty"}
			}
			subs := make([]any, len(list))
			for i, e := range list {
				r, err := sub(e, child+"/"+strconv.Itoa(i), inPlace)
				if err != nil {
					return err
				}
				subs[i] = r
			}
			out[k] = subs
			continue
		}
		if inPlace, ok := schemaMapKeywords[k]; ok {
			if k == "dependencies" && a.draft == draft2020 {
				continue
			}
			mm, ok := v.(map[string]any)
			if !ok {
				return &SchemaError{Keyword: k, Location: loc, Reason: "must be an object"}
			}
			subs := make(map[string]any, len(mm))
			for _, name := range sortedKeys(mm) { // the first refusal found is always the same
				e := mm[name]
				if _, isNames := e.([]any); isNames && k == "dependencies" {
					subs[name] = e
					continue
				}
				r, err := sub(e, child+"/"+escapePointer(name), inPlace)
				if err != nil {
					return err
				}
				subs[name] = r
			}
			out[k] = subs
		}
	}
	return nil
}

// finish applies what needs the audited subschemas: the 2020-12
// translations, and $ref's relation to its siblings, which differs by
// dialect.
func (a *auditor) finish(m, out map[string]any, loc string) (any, error) {
	if a.draft == draft2020 {
		if err := a.translate2020(m, out, loc); err != nil {
			return nil, err
		}
	}
	target, isRef := a.refs[loc]
	if isRef && a.draft != draft2020 {
		// Before 2019-09 $ref replaces its siblings: the validator ignores
		// them, and so do the cycle check and the expansion bound. They
		// stay in the document, where a pointer may still reach them.
		a.edges[loc] = []string{target}
		delete(a.children, loc)
	}
	node := out
	if ref, ok := out["$ref"]; ok && a.draft == draft2020 && len(out) > 1 {
		// Since 2019-09 $ref applies beside its siblings, but the
		// validator stops at $ref: move it into allOf, which means the
		// same.
		delete(out, "$ref")
		all, _ := out["allOf"].([]any)
		node = map[string]any{"$ref": ref}
		out["allOf"] = append(all, node)
	}
	if isRef {
		a.refNodes = append(a.refNodes, refNode{node: node, target: target})
	}
	return out, nil
}

// checkExpansion bounds the work one answer can demand: the number of
// subschemas validation may visit with every $ref inlined, where a
// reference back into a subschema already being expanded (recursion,
// which consumes input) counts once. A few kilobytes of schema whose
// levels each refer twice to the next expand to millions.
func (a *auditor) checkExpansion() error {
	n := 0
	expanding := map[string]bool{}
	var visit func(loc string) bool
	visit = func(loc string) bool {
		if n++; n > MaxSchemaExpansion {
			return false
		}
		if expanding[loc] {
			return true
		}
		expanding[loc] = true
		defer delete(expanding, loc)
		for _, c := range a.children[loc] {
			if !visit(c) {
				return false
			}
		}
		if target, ok := a.refs[loc]; ok {
			return visit(target)
		}
		return true
	}
	if !visit("") {
		return &SchemaError{Keyword: "$ref", Reason: fmt.Sprintf("the schema expands to more than MaxSchemaExpansion (%d) subschemas with its references inlined: validating one answer could take minutes", MaxSchemaExpansion)}
	}
	return nil
}

// findCycle refuses a $ref loop that consumes no input: validating any
// instance against it would recurse forever.
func (a *auditor) findCycle() error {
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(loc string) (string, bool)
	visit = func(loc string) (string, bool) {
		switch state[loc] {
		case active:
			return loc, true
		case done:
			return "", false
		}
		state[loc] = active
		next := append([]string(nil), a.edges[loc]...)
		sort.Strings(next)
		for _, n := range next {
			if at, ok := visit(n); ok {
				return at, true
			}
		}
		state[loc] = done
		return "", false
	}
	locs := make([]string, 0, len(a.edges))
	for l := range a.edges {
		locs = append(locs, l)
	}
	sort.Strings(locs)
	for _, l := range locs {
		if at, ok := visit(l); ok {
			ref := at
			for _, from := range sortedKeys(a.refs) {
				if from == at || strings.HasPrefix(from, at+"/") {
					ref = from
					break
				}
			}
			return &SchemaError{Keyword: "$ref", Location: ref, Reason: "reference cycle that consumes no input: validation would never end"}
		}
	}
	return nil
}

// refPointer accepts a reference to a JSON Pointer within the same
// document ("#", "#/definitions/a") and returns the unescaped pointer.
// Anything else could send the validator to the network or to anchors it
// resolves wrongly.
func refPointer(ref string) (string, error) {
	if !strings.HasPrefix(ref, "#") {
		return "", fmt.Errorf("%q is not a reference within this schema: only \"#\" and \"#/json/pointer\" references are supported, so validation never reaches the network", ref)
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return "", fmt.Errorf("%q: %v", ref, err)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", fmt.Errorf("%q names an anchor; only JSON Pointer references are supported", ref)
	}
	return frag, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
