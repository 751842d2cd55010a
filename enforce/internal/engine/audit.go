package engine

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Draft is a JSON Schema dialect, declared with $schema. The values are
// ordered by release.
type Draft int

const (
	// Draft4, Draft6 and draft7 are gojsonschema's own.
	Draft4 Draft = 4
	Draft6 Draft = 6
	draft7 Draft = 7
	// draft2019 and draft2020 are checked by translating to draft-07
	// where the meaning is the same, and refusing what cannot be
	// translated.
	draft2019 Draft = 2019
	draft2020 Draft = 2020
)

// String is d's name: "draft-07", "2020-12", ….
func (d Draft) String() string {
	switch d {
	case draft2019:
		return "2019-09"
	case draft2020:
		return "2020-12"
	}
	return fmt.Sprintf("draft-%02d", int(d))
}

var dialects = map[string]Draft{
	"http://json-schema.org/draft-04/schema":       Draft4,
	"http://json-schema.org/draft-06/schema":       Draft6,
	"http://json-schema.org/draft-07/schema":       draft7,
	"https://json-schema.org/draft/2019-09/schema": draft2019,
	"https://json-schema.org/draft/2020-12/schema": draft2020,
}

// dialectOf reads the value of $schema at loc.
func dialectOf(v any, loc string) (Draft, error) {
	s, ok := v.(string)
	if !ok {
		return 0, &Error{Keyword: "$schema", Location: loc, Reason: "must be a string"}
	}
	d, ok := dialects[strings.TrimSuffix(s, "#")]
	if !ok {
		return 0, &Error{Keyword: "$schema", Location: loc, Reason: fmt.Sprintf("unsupported dialect %q (supported: draft-04, draft-06, draft-07, 2019-09, 2020-12; none means draft-07)", s)}
	}
	return d, nil
}

// refNode is an output object holding a $ref, with its target in the
// original document.
type refNode struct {
	node   map[string]any
	target string
}

// Auditor walks a schema document, refuses what gojsonschema would check
// wrongly, and rewrites what it can check right once rewritten.
type Auditor struct {
	root any
	// draft is the dialect of the subschema being walked: the root's, or
	// a nested $schema's. target is the one gojsonschema compiles the
	// rewrite as: the dialect of every subschema when they agree on
	// draft-04, -06 or -07, else draft-07, into which the others are
	// translated.
	draft, Target Draft
	ix            index
	// refs maps the location of each $ref to its target's location.
	refs map[string]string
	// edges maps a subschema's location to the subschemas it applies to the
	// same instance (its $ref target, allOf members, …). A cycle among them
	// would recurse forever without consuming input.
	edges map[string][]string
	// refNodes are the output objects holding each $ref, with its target
	// in the original document, and moved maps original locations of
	// translated keywords to their new path segments: each $ref is aimed
	// at its target's place in the rewrite once the walk is done.
	refNodes []refNode
	moved    map[string]string
	// compares is set when a keyword compares instance values by their
	// JSON text (uniqueItems, or an enum or const holding a number): only
	// then must an answer's numbers be canonicalized before validation.
	Compares bool
	// walked holds every location audited.
	walked map[string]bool
	// steps maps a subschema's location to the subschemas it applies to a
	// part of its instance, and to which part, for the fan-out bound.
	steps map[string][]step
	// perValue is the most subschemas checkFanOut found one value of an
	// answer checked against, and perName one member's name (propertyNames):
	// more, never fewer. Check holds an answer's
	// values and names times these to MaxCheckWork.
	PerValue, PerName int
	// fans: recursion fans out, or the ways to nest are too many for
	// checkFanOut to follow: Check counts each answer's checks instead.
	fans bool
	// ignored are the keywords the walk met where their subschema's
	// dialect does not define them (see [Schema.Ignored]).
	Ignored []IgnoredKeyword
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

// NewAuditor indexes the schema document root (its identifiers and
// anchors) for Audit.
func NewAuditor(root any) (*Auditor, error) {
	a := &Auditor{
		root: root, draft: draft7,
		refs: map[string]string{}, edges: map[string][]string{},
		walked: map[string]bool{},
		steps:  map[string][]step{},
	}
	if m, ok := root.(map[string]any); ok {
		if v, ok := m["$schema"]; ok {
			d, err := dialectOf(v, "")
			if err != nil {
				return nil, err
			}
			a.draft = d
		}
	}
	a.Target = compileDraft(root, a.draft)
	return a, nil
}

// compileDraft is the draft gojsonschema compiles a document of root
// dialect d as: d itself when every $schema in it agrees on draft-04,
// -06 or -07, else draft-07.
func compileDraft(root any, d Draft) Draft {
	same := d <= draft7
	var scan func(v any, depth int)
	scan = func(v any, depth int) {
		if !same || depth > jsonvalue.MaxDepth {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			if s, ok := v["$schema"].(string); ok && depth > 0 {
				if nd, known := dialects[strings.TrimSuffix(s, "#")]; known && nd != d {
					same = false
				}
			}
			for _, e := range v {
				scan(e, depth+1)
			}
		case []any:
			for _, e := range v {
				scan(e, depth+1)
			}
		}
	}
	scan(root, 0)
	if same {
		return d
	}
	return draft7
}

// Audit checks the whole document and returns the rewritten copy to
// compile.
func (a *Auditor) Audit() (any, error) {
	if err := a.indexRoot(); err != nil {
		return nil, err
	}
	out, err := a.walk(a.root, "", "")
	if err != nil {
		return nil, err
	}
	// A $ref may point anywhere in the document, also where no keyword
	// puts a subschema ("#/references/id"): each such target is audited
	// as a subschema of the dialect around it, and its rewrite put in its
	// place, until every target is audited.
	for {
		var todo []string
		for _, from := range SortedKeys(a.refs) {
			if to := a.refs[from]; !a.walked[to] {
				todo = append(todo, to)
			}
		}
		if len(todo) == 0 {
			break
		}
		for _, to := range todo {
			if a.walked[to] {
				continue
			}
			if out, err = a.walkTarget(out, to); err != nil {
				return nil, err
			}
		}
	}
	if err := a.findCycle(); err != nil {
		return nil, err
	}
	if err := a.checkFanOut(); err != nil {
		return nil, err
	}
	a.reaim()
	sort.Slice(a.Ignored, func(i, j int) bool {
		x, y := a.Ignored[i], a.Ignored[j]
		if x.Location != y.Location {
			return x.Location < y.Location
		}
		return x.Keyword < y.Keyword
	})
	return out, nil
}

// walk checks the subschema s at location loc, the value of keyword
// under (or "" for the root and $ref targets), and returns its rewrite.
func (a *Auditor) walk(s any, loc, under string) (any, error) {
	a.walked[loc] = true
	switch s := s.(type) {
	case bool:
		// draft-04 has boolean values of its own in these two places.
		if a.draft == Draft4 && under != "additionalProperties" && under != "additionalItems" {
			return nil, &Error{Location: loc, Reason: "a boolean schema needs draft-06 or later (draft-04 allows a boolean only at additionalProperties and additionalItems)"}
		}
		return s, nil
	case map[string]any:
		return a.walkObject(s, loc)
	default:
		return nil, &Error{Location: loc, Reason: fmt.Sprintf("a schema must be an object or a boolean, not %s", jsonvalue.Kind(s))}
	}
}

// walkObject audits one schema object in four steps: refuse what the
// validator would check wrongly, rewrite what the dialect means
// differently, normalise values gojsonschema reads too strictly, and
// descend into subschemas. What needs the audited subschemas (2020-12
// translations, $ref beside siblings) comes last.
func (a *Auditor) walkObject(m map[string]any, loc string) (any, error) {
	if v, ok := m["$schema"]; ok && loc != "" {
		d, err := dialectOf(v, loc)
		if err != nil {
			return nil, err
		}
		defer func(outer Draft) { a.draft = outer }(a.draft)
		a.draft = d
	}
	keys := SortedKeys(m) // the first refusal found is always the same
	if err := a.refuse(m, keys, loc); err != nil {
		return nil, err
	}
	// The rewrite keeps only keywords that assert or apply subschemas in
	// this dialect: annotations assert nothing, and gojsonschema reads an
	// "id" anywhere, also in a default, as a change of base.
	out := make(map[string]any, len(m))
	for _, k := range keys {
		kw, known := keywords[k]
		switch {
		case !known:
		case !kw.defines(a.draft):
			if !kw.container {
				a.Ignored = append(a.Ignored, IgnoredKeyword{Keyword: k, Location: loc, Dialect: a.draft.String()})
			}
		case kw.refused == "":
			out[k] = m[k]
		}
	}
	if err := a.identify(m, out, loc); err != nil {
		return nil, err
	}
	if err := a.rewriteForDialect(m, out, loc); err != nil {
		return nil, err
	}
	if err := a.normalise(m, out, loc); err != nil {
		return nil, err
	}
	if err := a.descend(m, out, keys, loc); err != nil {
		return nil, err
	}
	return a.finish(m, out, loc)
}

// refuse returns a *Error for the first thing in m, in key order,
// that gojsonschema would ignore or check wrongly.
func (a *Auditor) refuse(m map[string]any, keys []string, loc string) error {
	for _, k := range keys {
		kw, ok := keywords[k]
		if !ok || kw.refused == "" || !kw.defines(a.draft) {
			continue
		}
		if v := m[k]; (k == "unevaluatedProperties" || k == "unevaluatedItems") && (v == true || isEmptyObject(v) || unevaluatedAlone(m, k)) {
			continue // admits everything, or translated in finish
		}
		return &Error{Keyword: k, Location: loc, Reason: kw.refused + " is not supported by gojsonschema, which would ignore it"}
	}
	if ref, ok := m["$ref"]; ok {
		if _, ok := ref.(string); !ok {
			return &Error{Keyword: "$ref", Location: loc, Reason: "must be a string"}
		}
	}
	if _, ok := m["items"].([]any); ok && a.draft == draft2020 {
		return &Error{Keyword: "items", Location: loc, Reason: "in 2020-12 items takes one schema; an array of schemas is prefixItems"}
	}
	if e, ok := m["enum"].([]any); ok && len(e) == 0 {
		if _, ok := m["not"]; ok {
			return &Error{Keyword: "enum", Location: loc, Reason: "an empty enum beside not is not supported"}
		}
	}
	if v, ok := m["required"].([]any); ok && len(v) == 0 && a.draft == Draft4 {
		return &Error{Keyword: "required", Location: loc, Reason: "draft-04 requires at least one name"}
	}
	return nil
}

// evaluators are the keywords that apply subschemas to the instance
// itself and so may evaluate members or items that unevaluatedProperties
// and unevaluatedItems then leave alone.
var evaluators = []string{"allOf", "anyOf", "oneOf", "if", "then", "else", "$ref", "$dynamicRef", "$recursiveRef", "dependentSchemas", "contains"}

// unevaluatedAlone reports whether keyword k (unevaluatedProperties or
// unevaluatedItems) of m stands where no keyword but m's own properties,
// patternProperties, additionalProperties, prefixItems, items and
// additionalItems evaluates anything: then it means exactly what
// additionalProperties or items after the tuple would (see
// translateUnevaluated).
func unevaluatedAlone(m map[string]any, k string) bool {
	for _, e := range evaluators {
		if _, ok := m[e]; ok && (e != "contains" || k == "unevaluatedItems") {
			return false
		}
	}
	return true
}

// translateUnevaluated rewrites an unevaluatedProperties or
// unevaluatedItems that stands alone (unevaluatedAlone) to its draft-07
// equivalent, once m's other keywords are translated: what the others
// evaluate is then known from m itself.
func (a *Auditor) translateUnevaluated(m, out map[string]any, loc string) error {
	if a.draft < draft2019 {
		return nil
	}
	for _, k := range []string{"unevaluatedProperties", "unevaluatedItems"} {
		v, ok := m[k]
		if !ok || v == true || isEmptyObject(v) {
			continue
		}
		to := ""
		switch {
		case k == "unevaluatedProperties":
			if _, every := m["additionalProperties"]; !every {
				to = "additionalProperties"
			}
		case a.draft == draft2020:
			if _, every := m["items"]; !every {
				to = "items"
				if _, tuple := m["prefixItems"]; tuple {
					to = "additionalItems"
				}
			}
		default: // 2019-09: items as an array is the tuple
			switch m["items"].(type) {
			case nil:
				to = "items"
			case []any:
				if _, rest := m["additionalItems"]; !rest {
					to = "additionalItems"
				}
			}
		}
		if to == "" {
			continue // every member or item is evaluated already
		}
		at := loc + "/" + jsonvalue.EscapePointer(k)
		r, err := a.walk(v, at, k)
		if err != nil {
			return err
		}
		if st, ok := a.stepFor(m, k, at); ok {
			a.steps[loc] = append(a.steps[loc], st)
		}
		out[to] = r
		a.move(at, "/"+to)
	}
	return nil
}

func isEmptyObject(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

// identify links the $ref of m to its target, which the index resolved
// as the specification says ($id, id and anchors included); the rewrite
// keeps no identifier, so its every $ref is a JSON Pointer from the root.
func (a *Auditor) identify(m, out map[string]any, loc string) error {
	rs, ok := m["$ref"].(string)
	if !ok {
		return nil
	}
	target, err := a.resolve(loc, rs)
	if err != nil {
		return &Error{Keyword: "$ref", Location: loc, Reason: err.Error()}
	}
	a.refs[loc] = target
	a.edges[loc] = append(a.edges[loc], target)
	out["$ref"] = pointerRef(target)
	return nil
}

// rewriteForDialect rewrites what the dialect means differently from the
// draft gojsonschema compiles, and registers the format checkers the
// dialect asserts.
func (a *Auditor) rewriteForDialect(m, out map[string]any, loc string) error {
	if f, ok := m["format"].(string); ok {
		if a.draft >= draft2019 {
			// format is an annotation since 2019-09.
			delete(out, "format")
			a.Ignored = append(a.Ignored, IgnoredKeyword{Keyword: "format", Location: loc, Dialect: a.draft.String()})
		} else if inexactFormats[f] {
			return &Error{Keyword: "format", Location: loc, Reason: fmt.Sprintf("%q cannot be checked exactly: it needs Unicode's IDNA tables (RFC 5892), which neither gojsonschema nor this package holds", f)}
		} else {
			out["format"] = formatName(f)
		}
	}
	delete(out, "unevaluatedProperties") // only true or {} get here
	delete(out, "unevaluatedItems")
	if a.draft == Draft4 && a.Target != Draft4 {
		// draft-04's exclusive bounds are booleans beside the bound.
		for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
			v, ok := m[k]
			if !ok {
				continue
			}
			flag, isBool := v.(bool)
			if !isBool {
				return &Error{Keyword: k, Location: loc, Reason: "must be a boolean in draft-04"}
			}
			bound := "minimum"
			if k == "exclusiveMaximum" {
				bound = "maximum"
			}
			delete(out, k)
			if b, ok := m[bound]; ok && flag {
				out[k] = b
				delete(out, bound)
			}
		}
	}
	return nil
}

// normalise rewrites values gojsonschema reads more strictly than JSON
// Schema means them: counts written as 2.0, an empty enum, an enum
// listing a value twice, and numbers in values compared by their JSON
// text.
func (a *Auditor) normalise(m, out map[string]any, loc string) error {
	for _, k := range countKeywords {
		if v, ok := m[k]; ok {
			n, err := countValue(v)
			if err != nil {
				return &Error{Keyword: k, Location: loc, Reason: err.Error()}
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
		a.Compares = true
	}
	for _, k := range []string{"enum", "const"} {
		if v, ok := out[k]; ok && jsonvalue.HoldsNumber(v) {
			// Only a number can be spelled two ways: an enum of strings
			// needs no canonical answer.
			a.Compares = true
			out[k] = jsonvalue.CanonicalNumbers(v)
		}
	}
	if e, ok := out["enum"].([]any); ok && a.draft >= Draft6 {
		// Since draft-06 an enum may list a value twice, which means
		// what listing it once does; gojsonschema refuses it.
		out["enum"] = uniqueValues(e)
	}
	return nil
}

// uniqueValues is list without the values an earlier one equals.
func uniqueValues(list []any) []any {
	seen := make(map[string]bool, len(list))
	out := list[:0:0]
	for _, v := range list {
		b, err := json.Marshal(v)
		if err == nil && seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		out = append(out, v)
	}
	return out
}

// descend audits every subschema of m, replacing it in out by its
// rewrite, and records which apply to the same instance (for the cycle
// check) and which are reached at all (for the expansion bound).
func (a *Auditor) descend(m, out map[string]any, keys []string, loc string) error {
	for _, k := range keys {
		kw, ok := keywords[k]
		if !ok || kw.kind == valueData || kw.refused != "" || !kw.defines(a.draft) {
			continue
		}
		v := m[k]
		child := loc + "/" + jsonvalue.EscapePointer(k)
		sub := func(s any, at string, inPlace bool) (any, error) {
			r, err := a.walk(s, at, k)
			if err != nil {
				return nil, err
			}
			if inPlace {
				a.edges[loc] = append(a.edges[loc], at)
			}
			if st, ok := a.stepFor(m, k, at); ok {
				a.steps[loc] = append(a.steps[loc], st)
			}
			return r, nil
		}
		kind := kw.kind
		if kind == valueItems {
			kind = valueSchema
			if _, isList := v.([]any); isList {
				kind = valueList
			}
		}
		switch kind {
		case valueSchema:
			r, err := sub(v, child, kw.inPlace)
			if err != nil {
				return err
			}
			out[k] = r
		case valueList:
			list, ok := v.([]any)
			if !ok {
				return &Error{Keyword: k, Location: loc, Reason: "must be an array of schemas"}
			}
			if k != "items" && len(list) == 0 {
				return &Error{Keyword: k, Location: loc, Reason: "must not be empty"}
			}
			subs := make([]any, len(list))
			for i, e := range list {
				r, err := sub(e, child+"/"+strconv.Itoa(i), kw.inPlace)
				if err != nil {
					return err
				}
				subs[i] = r
			}
			out[k] = subs
		case valueMap:
			mm, ok := v.(map[string]any)
			if !ok {
				return &Error{Keyword: k, Location: loc, Reason: "must be an object"}
			}
			subs := make(map[string]any, len(mm))
			for _, name := range SortedKeys(mm) { // the first refusal found is always the same
				e := mm[name]
				if _, isNames := e.([]any); isNames && k == "dependencies" {
					subs[name] = e
					continue
				}
				r, err := sub(e, child+"/"+jsonvalue.EscapePointer(name), kw.inPlace)
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
func (a *Auditor) stepFor(m map[string]any, k, at string) (st step, ok bool) {
	st.to = at
	last := strings.ReplaceAll(strings.ReplaceAll(at[strings.LastIndexByte(at, '/')+1:], "~1", "/"), "~0", "~")
	switch k {
	case "properties", "patternProperties":
		st.kind, st.key = stepMember, last
		if k == "patternProperties" {
			st.kind = stepPattern
		}
	case "additionalProperties", "unevaluatedProperties":
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
	case "unevaluatedItems":
		// translateUnevaluated makes it items after a tuple, or items.
		st.kind = stepEvery
		if _, tuple := m["prefixItems"]; tuple {
			st.kind = stepRest
		} else if _, isList := m["items"].([]any); isList {
			st.kind = stepRest
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

// finish applies what needs the audited subschemas: the 2019-09 and
// 2020-12 translations, $ref's relation to its siblings, which differs
// by dialect, and the split of a long enum.
func (a *Auditor) finish(m, out map[string]any, loc string) (any, error) {
	if a.draft >= draft2019 {
		if err := a.translate2020(m, out, loc); err != nil {
			return nil, err
		}
	}
	target, isRef := a.refs[loc]
	if isRef && a.draft < draft2019 {
		// Before 2019-09 $ref replaces its siblings: gojsonschema ignores
		// them, and so do the cycle check and the fan-out bound. They
		// stay in the document, where a pointer may still reach them.
		a.edges[loc] = []string{target}
		delete(a.steps, loc)
	}
	node := out
	if ref, ok := out["$ref"]; ok && a.draft >= draft2019 && len(out) > 1 {
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
	if err := a.translateUnevaluated(m, out, loc); err != nil {
		return nil, err
	}
	if e, ok := out["enum"].([]any); ok && len(e) > MaxEnum {
		// gojsonschema checks an enum's values pairwise as it compiles:
		// an enum in pieces of MaxEnum values, any of which the value
		// must be in, means the same and compiles in linear time.
		delete(out, "enum")
		var pieces []any
		for i := 0; i < len(e); i += MaxEnum {
			pieces = append(pieces, map[string]any{"enum": e[i:min(i+MaxEnum, len(e))]})
		}
		all, _ := out["allOf"].([]any)
		out["allOf"] = append(all, map[string]any{"anyOf": pieces})
	}
	return out, nil
}

// checkFanOut holds each value of an answer to MaxSchemaExpansion
// subschemas (see there why). Answers nest in endless ways, but only the
// steps stepsFrom lists lead to different subschemas, so a breadth-first
// walk over them that visits each distinct multiset of subschemas once,
// at the least depth it occurs, covers every answer. Where it cannot tell
// which subschemas a step leads to (any other member) it counts more,
// never fewer.
//
// A schema that checks the answer itself against more is refused: no
// answer could be judged. Where recursion fans out, so that some value
// nested deep enough would be checked against more, or the walk passes
// fanOutWork, the schema is accepted and Check counts the checks of each
// answer along the answer itself (a.fans): real answers are shallow
// where the worst case is deep.
func (a *Auditor) checkFanOut() error {
	f := newFanOut(a)
	start := f.closure(f.id(""))
	if start.total() > MaxSchemaExpansion {
		return &Error{Keyword: "$ref", Location: f.busiest(start), Reason: fmt.Sprintf("the schema checks an answer against more than MaxSchemaExpansion (%d) subschemas with its references followed: validating one answer could take minutes", MaxSchemaExpansion)}
	}
	a.PerValue = start.total()
	seen := map[string]bool{start.key(): true}
	work := 0
	frontier := []visits{start}
	for depth := 1; depth <= jsonvalue.MaxDepth && len(frontier) > 0; depth++ {
		var next []visits
		for _, u := range frontier {
			scan := 0 // what one take from u reads besides its result
			for _, x := range u {
				scan += 1 + len(f.info(x.node).rest)
			}
			for _, s := range f.stepsFrom(u) {
				v := f.take(u, s, &f.sc)
				if work += scan + len(v); work > fanOutWork || v.total() > MaxSchemaExpansion {
					a.fans = true
					return nil
				}
				if s.kind == stepName {
					a.PerName = max(a.PerName, v.total())
					continue // a member's name is a string: nothing nests in it
				}
				a.PerValue = max(a.PerValue, v.total())
				if k := v.key(); len(v) > 0 && !seen[k] {
					seen[k] = true
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
	return nil
}

// FrozenFanOut is, for a schema whose recursion fans out, what counts an
// answer's checks ([FanOut.Within]): every subschema's steps and
// subschemas applied in place, computed now, so that answers may be
// counted concurrently.
func (a *Auditor) FrozenFanOut() *FanOut {
	if !a.fans {
		return nil
	}
	f := newFanOut(a)
	f.id("")
	for node := 0; node < len(f.locs); node++ {
		for _, st := range f.stepsOf(node) {
			if st.kind == stepPattern {
				f.matches(st.key, "")
			}
		}
		f.closure(node)
	}
	f.a = nil // the audit's maps are not needed, nor kept alive
	return f
}

// Within reports whether validating doc checks each of its values
// against at most MaxSchemaExpansion subschemas and all against at most
// limit, counting as the fan-out walk counts, along doc. f must be
// frozen.
func (f *FanOut) Within(doc any, limit int64) bool {
	var sc scratch
	var total int64
	var visit func(v any, vs visits) bool
	visit = func(v any, vs visits) bool {
		// Counts are capped just past MaxSchemaExpansion, the most one
		// value may be checked against.
		n := vs.total()
		if total += int64(n); n > MaxSchemaExpansion || total > limit {
			return false
		}
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if names := f.take(vs, step{kind: stepName}, &sc); len(names) > 0 {
					if total += int64(names.total()); total > limit {
						return false
					}
				}
				if c := f.take(vs, step{kind: stepMember, key: k}, &sc); len(c) > 0 && !visit(e, c) {
					return false
				}
			}
		case []any:
			for i, e := range v {
				if c := f.take(vs, step{kind: stepAt, index: i}, &sc); len(c) > 0 && !visit(e, c) {
					return false
				}
			}
		}
		return true
	}
	return visit(doc, f.closure(0))
}

// fanOutWork bounds the audit's own work in checkFanOut: the subschemas it
// counts over all the ways to nest that it follows. Past it, answers are
// counted one by one (see there).
const fanOutWork = MaxSchemaExpansion / 4

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
	slices.SortFunc(v, func(x, y visit) int { return x.node - y.node })
	return v
}

// FanOut holds what checkFanOut computes once: ids for locations, the
// subschemas each applies to its own instance, compiled patterns.
type FanOut struct {
	a        *Auditor
	ids      map[string]int
	locs     []string
	closures []visits // by node; nil until computed
	patterns map[string]*regexp.Regexp
	// nodeSteps are each node's steps, their targets as ids.
	nodeSteps []*nodeInfo // by node; nil until computed
	sc        scratch     // take's, in the audit
}

// scratch is take's working space: counts by node, zero where untouched,
// and the nodes touched.
type scratch struct{ acc, touched []int }

// nodeStep is a step whose target is a node id.
type nodeStep struct {
	step
	node int
}

// stepsOf is the steps of the subschema node.
func (f *FanOut) stepsOf(node int) []nodeStep { return f.info(node).all }

// nodeInfo is a node's steps, its targets as ids: all of them, and
// split into those by member name and the rest, so that a step into one
// member costs what the node has besides its properties.
type nodeInfo struct {
	all     []nodeStep
	members map[string][]int
	rest    []nodeStep
}

func (f *FanOut) info(node int) *nodeInfo {
	if node < len(f.nodeSteps) && f.nodeSteps[node] != nil {
		return f.nodeSteps[node]
	}
	steps := f.a.steps[f.locs[node]]
	in := &nodeInfo{all: make([]nodeStep, len(steps))}
	for i, st := range steps {
		ns := nodeStep{st, f.id(st.to)}
		in.all[i] = ns
		if st.kind == stepMember {
			if in.members == nil {
				in.members = map[string][]int{}
			}
			in.members[st.key] = append(in.members[st.key], ns.node)
		} else {
			in.rest = append(in.rest, ns)
		}
	}
	for node >= len(f.nodeSteps) {
		f.nodeSteps = append(f.nodeSteps, nil)
	}
	f.nodeSteps[node] = in
	return in
}

func newFanOut(a *Auditor) *FanOut {
	return &FanOut{a: a, ids: map[string]int{}, patterns: map[string]*regexp.Regexp{}}
}

func (f *FanOut) id(loc string) int {
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
func (f *FanOut) closure(node int) visits {
	if node < len(f.closures) && f.closures[node] != nil {
		return f.closures[node]
	}
	m := map[int]int{node: 1}
	for _, e := range f.a.edges[f.locs[node]] {
		for _, x := range f.closure(f.id(e)) {
			m[x.node] = min(m[x.node]+x.n, fanOutCap)
		}
	}
	v := visitsOf(m)
	for node >= len(f.closures) {
		f.closures = append(f.closures, nil)
	}
	f.closures[node] = v
	return v
}

// stepsFrom lists the steps into a value that lead from the subschemas
// in v to different subschemas: each member name their properties list,
// any other member, each tuple position, any later item, a member's name.
func (f *FanOut) stepsFrom(v visits) []step {
	names := map[string]bool{}
	other, items, name := false, false, false
	tuple := 0
	for _, x := range v {
		for _, s := range f.stepsOf(x.node) {
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
	for _, n := range SortedKeys(names) {
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
func (f *FanOut) take(v visits, s step, sc *scratch) visits {
	// The counts gather in sc.acc, by node, zero where untouched: the walk
	// takes millions of steps, where a map per take would be most of its
	// time.
	touched := sc.touched[:0]
	add := func(c visits, times int) {
		for _, x := range c {
			if x.node >= len(sc.acc) {
				sc.acc = append(sc.acc, make([]int, x.node+1-len(sc.acc)+len(sc.acc))...)
			}
			if sc.acc[x.node] == 0 {
				touched = append(touched, x.node)
			}
			sc.acc[x.node] = min(sc.acc[x.node]+capped(x.n, times), fanOutCap)
		}
	}
	for _, x := range v {
		in := f.info(x.node)
		steps := in.rest
		switch s.kind {
		case stepMember:
			named := in.members[s.key]
			for _, t := range named {
				add(f.closure(t), x.n)
			}
			matched := false
			for _, t := range steps {
				if t.kind == stepPattern && f.matches(t.key, s.key) {
					matched = true
					add(f.closure(t.node), x.n)
				}
			}
			for _, t := range steps {
				if t.kind == stepOther && len(named) == 0 && !matched {
					add(f.closure(t.node), x.n)
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
				for _, c := range f.closure(t.node) {
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
					add(f.closure(t.node), x.n)
				}
			}
		case stepName:
			for _, t := range steps {
				if t.kind == stepName {
					add(f.closure(t.node), x.n)
				}
			}
		}
	}
	slices.Sort(touched)
	out := make(visits, len(touched))
	for i, node := range touched {
		out[i] = visit{node, sc.acc[node]}
		sc.acc[node] = 0
	}
	sc.touched = touched
	return out
}

// matches reports whether pattern matches name as gojsonschema matches
// it; a pattern that does not compile is taken to match.
func (f *FanOut) matches(pattern, name string) bool {
	re, ok := f.patterns[pattern]
	if !ok {
		re, _ = regexp.Compile(pattern)
		f.patterns[pattern] = re
	}
	return re == nil || re.MatchString(name)
}

// busiest names the subschema v checks a value against most often,
// preferring a $ref: where the fan-out shows.
func (f *FanOut) busiest(v visits) string {
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
		return "/" + jsonvalue.EscapePointer(s.key)
	case stepOther:
		return "/<any member>"
	case stepAt:
		return "/" + strconv.Itoa(s.index)
	}
	return " (a member's name)"
}

// findCycle refuses a $ref loop that consumes no input: validating any
// instance against it would recurse forever.
func (a *Auditor) findCycle() error {
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
			for _, from := range SortedKeys(a.refs) {
				if from == at || strings.HasPrefix(from, at+"/") {
					ref = from
					break
				}
			}
			return &Error{Keyword: "$ref", Location: ref, Reason: "reference cycle that consumes no input: validation would never end"}
		}
	}
	return nil
}

// SortedKeys returns m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countValue accepts a non-negative integer, also written as 2.0.
func countValue(v any) (json.Number, error) {
	n, ok := v.(json.Number)
	if !ok {
		return "", fmt.Errorf("must be a non-negative integer, not %s", jsonvalue.Kind(v))
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		return "", fmt.Errorf("must be a non-negative integer, not %s", n)
	}
	return json.Number(r.Num().String()), nil
}
