package enforce

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
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

// refusedKeywords are keywords gojsonschema does not know. It would
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

// auditor walks a schema document, refuses what gojsonschema would check
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
	// steps maps a subschema's location to the subschemas it applies to a
	// part of its instance, and to which part, for the fan-out bound.
	steps map[string][]step
	// perValue is the most subschemas checkFanOut found one value of an
	// answer checked against, and perName one member's name (propertyNames):
	// more, never fewer, where it counts coarsely. Check holds an answer's
	// values and names times these to MaxCheckWork.
	perValue, perName int
}

// stepKind is which part of an instance a subschema applies to.
type stepKind int

const (
	stepMember  stepKind = iota // properties: the member named key
	stepPattern                 // patternProperties: members whose names match key
	stepOther                   // additionalProperties: members neither names nor matches
	stepAt                      // items as an array (prefixItems in 2020-12): the item at index
	stepRest                    // additionalItems (items beside prefixItems in 2020-12): items past the tuple
	stepEvery                   // items as one schema, contains: every item
	stepName                    // propertyNames: each member's name, a string
)

// step is a subschema applied to a part of the instance of the subschema
// holding it.
type step struct {
	kind  stepKind
	key   string
	index int
	to    string
}

func newAuditor(root any) (*auditor, error) {
	a := &auditor{
		root: root, draft: draft7,
		refs: map[string]string{}, edges: map[string][]string{},
		children: map[string][]string{}, walked: map[string]bool{},
		steps: map[string][]step{},
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
	if err := a.checkFanOut(); err != nil {
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
// differently, normalise values gojsonschema reads too strictly, and
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
// that gojsonschema would ignore or check wrongly.
func (a *auditor) refuse(m map[string]any, keys []string, loc string) error {
	for _, k := range keys {
		if why, ok := refusedKeywords[k]; ok && !(a.draft == draft2020 && translated2020[k]) {
			reason := why + " is not supported by gojsonschema, which would ignore it"
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
			return &SchemaError{Keyword: "enum", Location: loc, Reason: fmt.Sprintf("%d values, more than MaxEnum (%d): gojsonschema checks an enum's values pairwise when it compiles", len(e), MaxEnum)}
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

// rewriteForDialect drops what the dialect ignores and gojsonschema
// would apply, and registers the format checkers the dialect asserts.
func (a *auditor) rewriteForDialect(m, out map[string]any) {
	if a.draft == draft2020 {
		// Keywords 2020-12 does not have are ignored by it; gojsonschema
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

// normalise rewrites values gojsonschema reads more strictly than JSON
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
		// An empty enum admits nothing; gojsonschema would admit all.
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
			if st, ok := a.stepFor(m, k, at); ok {
				a.steps[loc] = append(a.steps[loc], st)
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

// stepFor says which part of m's instance the subschema of keyword k at
// location at applies to, as gojsonschema applies it; ok is false for a
// subschema applied to the instance itself or reached only by $ref.
func (a *auditor) stepFor(m map[string]any, k, at string) (st step, ok bool) {
	st.to = at
	last := strings.ReplaceAll(strings.ReplaceAll(at[strings.LastIndexByte(at, '/')+1:], "~1", "/"), "~0", "~")
	switch k {
	case "properties", "patternProperties":
		st.kind, st.key = stepMember, last
		if k == "patternProperties" {
			st.kind = stepPattern
		}
	case "additionalProperties":
		st.kind = stepOther
	case "propertyNames":
		st.kind = stepName
	case "contains":
		st.kind = stepEvery
	case "prefixItems":
		st.kind = stepAt
		st.index, _ = strconv.Atoi(last)
	case "items":
		if _, isList := m["items"].([]any); isList {
			st.kind = stepAt
			st.index, _ = strconv.Atoi(last)
		} else if _, tuple := m["prefixItems"]; tuple && a.draft == draft2020 {
			st.kind = stepRest
		} else {
			st.kind = stepEvery
		}
	case "additionalItems":
		// The validator applies it only beside items as an array.
		if _, isList := m["items"].([]any); !isList {
			return st, false
		}
		st.kind = stepRest
	default:
		return st, false
	}
	return st, true
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
		// Before 2019-09 $ref replaces its siblings: gojsonschema ignores
		// them, and so do the cycle check and the expansion bound. They
		// stay in the document, where a pointer may still reach them.
		a.edges[loc] = []string{target}
		delete(a.children, loc)
		delete(a.steps, loc)
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

// checkFanOut holds each value of an answer nested up to MaxDepth deep to
// MaxSchemaExpansion subschemas (see there why). Answers nest in endless
// ways, but only the steps stepsFrom lists lead to different subschemas,
// so a breadth-first walk over them that visits each distinct multiset of
// subschemas once, at the least depth it occurs, covers every answer.
// Where it cannot tell which subschemas a step leads to (any other
// member) it counts more, never fewer. A walk past fanOutWork falls back
// to a coarser count.
func (a *auditor) checkFanOut() error {
	f := newFanOut(a)
	type reached struct {
		v      visits
		parent int
		via    string // the step from its parent, as a JSON Pointer token
	}
	refuse := func(all []reached, at int, via string, v visits, deep int) error {
		path := via
		for i := at; i > 0; i = all[i].parent {
			path = all[i].via + path
		}
		if path == "" {
			path = "the root"
		}
		return &SchemaError{Keyword: "$ref", Location: f.busiest(v), Reason: fmt.Sprintf("recursion fans out: one value of an answer nested %d deep (at %s) would be checked against more than MaxSchemaExpansion (%d) subschemas, for gojsonschema checks a value once for every branch that reaches it", deep, cut(path, 256), MaxSchemaExpansion)}
	}
	start := f.closure(f.id(""))
	if start.total() > MaxSchemaExpansion {
		return refuse(nil, 0, "", start, 0)
	}
	a.perValue = start.total()
	all := []reached{{v: start}}
	seen := map[string]bool{start.key(): true}
	work := 0
	frontier := []int{0}
	for depth := 1; depth <= MaxDepth && len(frontier) > 0; depth++ {
		var next []int
		for _, i := range frontier {
			for _, s := range f.stepsFrom(all[i].v) {
				v := f.take(all[i].v, s)
				if v.total() > MaxSchemaExpansion {
					return refuse(all, i, s.token(), v, depth)
				}
				if s.kind == stepName {
					a.perName = max(a.perName, v.total())
				} else {
					a.perValue = max(a.perValue, v.total())
				}
				if work += len(v); work > fanOutWork {
					return f.coarse(start)
				}
				if s.kind == stepName || len(v) == 0 {
					continue // a member's name is a string: nothing nests in it
				}
				if k := v.key(); !seen[k] {
					seen[k] = true
					all = append(all, reached{v: v, parent: i, via: s.token()})
					next = append(next, len(all)-1)
				}
			}
		}
		frontier = next
	}
	return nil
}

// coarse is checkFanOut's fallback when the ways to nest are too many to
// follow one by one. At each depth it follows a single multiset that holds
// each subschema as often as any one way of nesting reaches it there: it
// counts more than any answer demands, never fewer, so it may refuse a
// schema the finer walk would admit.
func (f *fanOut) coarse(start visits) error {
	tooMany := &SchemaError{Keyword: "$ref", Reason: fmt.Sprintf("recursion admits too many different ways to nest an answer for the audit to hold each value of it to MaxSchemaExpansion (%d) subschemas", MaxSchemaExpansion)}
	u, work := start, 0
	f.a.perValue = start.total()
	for depth := 1; depth <= MaxDepth; depth++ {
		m := map[int]int{}
		for _, s := range f.stepsFrom(u) {
			v := f.take(u, s)
			if work += len(v); work > fanOutWork || v.total() > MaxSchemaExpansion {
				return tooMany
			}
			if s.kind == stepName {
				f.a.perName = max(f.a.perName, v.total())
				continue // a member's name is a string: nothing nests in it
			}
			f.a.perValue = max(f.a.perValue, v.total())
			for _, x := range v {
				m[x.node] = max(m[x.node], x.n)
			}
		}
		next := visitsOf(m)
		if next.total() > MaxSchemaExpansion {
			return tooMany
		}
		f.a.perValue = max(f.a.perValue, next.total())
		if next.key() == u.key() {
			return nil // the same from here on
		}
		u = next
	}
	return nil
}

// fanOutWork bounds the audit's own work in checkFanOut: the subschemas it
// counts over all the ways to nest that it follows.
const fanOutWork = 10 * MaxSchemaExpansion

// visits is a multiset of subschemas, by id, sorted: those checked against
// one value of an answer, each as many times as the schema reaches it.
type visits []visit

type visit struct {
	node int
	n    int
}

// fanOutCap stands for any count past MaxSchemaExpansion, so that counts
// never overflow.
const fanOutCap = MaxSchemaExpansion + 1

func (v visits) total() int {
	t := 0
	for _, x := range v {
		t = min(t+x.n, fanOutCap)
	}
	return t
}

// capped is a*b, or fanOutCap when that is more.
func capped(a, b int) int {
	if a != 0 && b > fanOutCap/a {
		return fanOutCap
	}
	return min(a*b, fanOutCap)
}

func (v visits) key() string {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.AppendUvarint(b, uint64(x.node))
		b = binary.AppendUvarint(b, uint64(x.n))
	}
	return string(b)
}

func visitsOf(m map[int]int) visits {
	v := make(visits, 0, len(m))
	for node, n := range m {
		v = append(v, visit{node, n})
	}
	sort.Slice(v, func(i, j int) bool { return v[i].node < v[j].node })
	return v
}

// fanOut holds what checkFanOut computes once: ids for locations, the
// subschemas each applies to its own instance, compiled patterns.
type fanOut struct {
	a        *auditor
	ids      map[string]int
	locs     []string
	closures map[int]visits
	patterns map[string]*regexp.Regexp
}

func newFanOut(a *auditor) *fanOut {
	return &fanOut{a: a, ids: map[string]int{}, closures: map[int]visits{}, patterns: map[string]*regexp.Regexp{}}
}

func (f *fanOut) id(loc string) int {
	if i, ok := f.ids[loc]; ok {
		return i
	}
	f.ids[loc] = len(f.locs)
	f.locs = append(f.locs, loc)
	return len(f.locs) - 1
}

// closure is what gojsonschema checks a value against when it checks it
// against node: node itself and, with multiplicity, every subschema node
// applies to the same value ($ref target, allOf, anyOf, …). findCycle
// has refused a loop among these.
func (f *fanOut) closure(node int) visits {
	if v, ok := f.closures[node]; ok {
		return v
	}
	m := map[int]int{node: 1}
	for _, e := range f.a.edges[f.locs[node]] {
		for _, x := range f.closure(f.id(e)) {
			m[x.node] = min(m[x.node]+x.n, fanOutCap)
		}
	}
	v := visitsOf(m)
	f.closures[node] = v
	return v
}

// stepsFrom lists the steps into a value that lead from the subschemas
// in v to different subschemas: each member name their properties list,
// any other member, each tuple position, any later item, a member's name.
func (f *fanOut) stepsFrom(v visits) []step {
	names := map[string]bool{}
	other, items, name := false, false, false
	tuple := 0
	for _, x := range v {
		for _, s := range f.a.steps[f.locs[x.node]] {
			switch s.kind {
			case stepMember:
				names[s.key] = true
			case stepPattern, stepOther:
				other = true
			case stepAt:
				tuple = max(tuple, s.index+1)
				items = true
			case stepRest, stepEvery:
				items = true
			case stepName:
				name = true
			}
		}
	}
	var out []step
	for _, n := range sortedKeys(names) {
		out = append(out, step{kind: stepMember, key: n})
	}
	if other {
		out = append(out, step{kind: stepOther})
	}
	if items {
		for i := 0; i <= tuple; i++ { // tuple stands for every later item
			out = append(out, step{kind: stepAt, index: i})
		}
	}
	if name {
		out = append(out, step{kind: stepName})
	}
	return out
}

// take returns the subschemas checked against the part of a value that s
// steps into, when the value is checked against those in v.
func (f *fanOut) take(v visits, s step) visits {
	m := map[int]int{}
	add := func(c visits, times int) {
		for _, x := range c {
			m[x.node] = min(m[x.node]+capped(x.n, times), fanOutCap)
		}
	}
	for _, x := range v {
		steps := f.a.steps[f.locs[x.node]]
		switch s.kind {
		case stepMember:
			found, matched := false, false
			for _, t := range steps {
				if t.kind == stepMember && t.key == s.key {
					found = true
					add(f.closure(f.id(t.to)), x.n)
				}
				if t.kind == stepPattern && f.matches(t.key, s.key) {
					matched = true
					add(f.closure(f.id(t.to)), x.n)
				}
			}
			for _, t := range steps {
				if t.kind == stepOther && !found && !matched {
					add(f.closure(f.id(t.to)), x.n)
				}
			}
		case stepOther:
			// A member no properties name: it may match any of the
			// patterns, or none and meet additionalProperties.
			pm, om := map[int]int{}, map[int]int{}
			for _, t := range steps {
				into := pm
				if t.kind == stepOther {
					into = om
				} else if t.kind != stepPattern {
					continue
				}
				for _, c := range f.closure(f.id(t.to)) {
					into[c.node] = min(into[c.node]+c.n, fanOutCap)
				}
			}
			for node, n := range om {
				pm[node] = max(pm[node], n)
			}
			add(visitsOf(pm), x.n)
		case stepAt:
			tuple := 0
			for _, t := range steps {
				if t.kind == stepAt {
					tuple = max(tuple, t.index+1)
				}
			}
			for _, t := range steps {
				if t.kind == stepEvery || t.kind == stepAt && t.index == s.index || t.kind == stepRest && s.index >= tuple {
					add(f.closure(f.id(t.to)), x.n)
				}
			}
		case stepName:
			for _, t := range steps {
				if t.kind == stepName {
					add(f.closure(f.id(t.to)), x.n)
				}
			}
		}
	}
	return visitsOf(m)
}

// matches reports whether pattern matches name as gojsonschema matches
// it; a pattern that does not compile is taken to match.
func (f *fanOut) matches(pattern, name string) bool {
	re, ok := f.patterns[pattern]
	if !ok {
		re, _ = regexp.Compile(pattern)
		f.patterns[pattern] = re
	}
	return re == nil || re.MatchString(name)
}

// busiest names the subschema v checks a value against most often,
// preferring a $ref: where the fan-out shows.
func (f *fanOut) busiest(v visits) string {
	best, bestN := "", -1
	for _, x := range v {
		loc := f.locs[x.node]
		n := x.n * 2
		if _, isRef := f.a.refs[loc]; isRef {
			n++
		}
		if n > bestN || n == bestN && loc < best {
			best, bestN = loc, n
		}
	}
	return best
}

// token writes the step as a JSON Pointer token of the answer.
func (s step) token() string {
	switch s.kind {
	case stepMember:
		return "/" + escapePointer(s.key)
	case stepOther:
		return "/<any member>"
	case stepAt:
		return "/" + strconv.Itoa(s.index)
	}
	return " (a member's name)"
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
// Anything else could send gojsonschema to the network or to anchors it
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
