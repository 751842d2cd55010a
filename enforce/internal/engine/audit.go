package engine

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// refNode is an output object holding a $ref, with its target in the
// original document.
type refNode struct {
	node        map[string]any
	loc, target string
	// alone: the subschema at loc is checked as its target alone (no
	// siblings, or a dialect where $ref replaces them).
	alone bool
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
	// plain: no identifier or nested dialect anywhere (compileDraft),
	// so the index is the document alone; objects is a size hint.
	plain   bool
	objects int
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
	// Compares is set when a keyword compares instance values by their
	// JSON text (uniqueItems, or an enum or const holding a number): only
	// then must an answer's numbers be canonicalized before validation.
	Compares bool
	// walked holds every location audited.
	walked map[string]bool
	// steps maps a subschema's location to the subschemas it applies to a
	// part of its instance, and to which part, for the fan-out bound.
	steps map[string][]step
	// fan and start are checkFanOut's walk and the answer's own
	// subschemas, kept for reach.
	fan   *FanOut
	start visits
	// PerValue is the most subschemas reach found one value of an
	// answer checked against, and PerName one member's name (propertyNames):
	// more, never fewer. Check holds an answer's
	// values and names times these to MaxCheckWork.
	PerValue, PerName int
	// fans: recursion fans out, or the ways to nest are too many for
	// reach to follow: Check counts each answer's checks instead.
	fans bool
	// keys holds each object's keys in order while its subschemas are
	// walked (walkObject): one slice for the whole walk.
	keys []string
	// Ignored are the keywords the walk met where their subschema's
	// dialect does not define them (enforce.Schema.Ignored).
	Ignored []IgnoredKeyword
}

const (
	stepMember  stepKind = iota // properties: the member named key
	stepPattern                 // patternProperties: members whose names match key
	stepOther                   // additionalProperties: members neither names nor matches
	stepAt                      // items as an array (prefixItems in 2020-12): the item at index
	stepRest                    // additionalItems (items beside prefixItems in 2020-12): items past the tuple
	stepEvery                   // items as one schema, contains: every item
	stepName                    // propertyNames: each member's name, a string
)

// NewAuditor indexes the schema document root (its identifiers and
// anchors) for Audit.
func NewAuditor(root any) (*Auditor, error) {
	a := &Auditor{
		root: root, draft: draft7,
		steps: map[string][]step{},
		keys:  make([]string, 0, 32),
		// refs and edges are made when the walk meets the first (see
		// addEdge), walked by Audit.
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
	a.Target, a.plain, a.objects = compileDraft(root, a.draft)
	return a, nil
}

// Audit checks the whole document and returns the rewritten copy to
// compile.
func (a *Auditor) Audit() (any, error) {
	if err := a.indexRoot(); err != nil {
		return nil, err
	}
	a.walked = make(map[string]bool, max(len(a.ix.base), a.objects)) // the index met every subschema a keyword holds
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
	if a.walked == nil {
		a.walked = map[string]bool{} // a walk without Audit's
	}
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
	// The first refusal found is always the same: keys in order, in a
	// slice of a.keys, which the subschemas' walks append to past it.
	from := len(a.keys)
	for k := range m {
		a.keys = append(a.keys, k)
	}
	keys := a.keys[from:len(a.keys):len(a.keys)]
	slices.Sort(keys)
	defer func() { a.keys = a.keys[:from] }()
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
	if err := a.normalise(m, out, keys, loc); err != nil {
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
	if a.refs == nil {
		a.refs = map[string]string{}
	}
	a.refs[loc] = target
	a.addEdge(loc, target)
	out["$ref"] = pointerRef(target)
	return nil
}

// addEdge records that the subschema at from applies the one at to to
// the same instance.
func (a *Auditor) addEdge(from, to string) {
	if a.edges == nil {
		a.edges = map[string][]string{}
	}
	a.edges[from] = append(a.edges[from], to)
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
func (a *Auditor) normalise(m, out map[string]any, keys []string, loc string) error {
	counts := false // most subschemas bound no count: six lookups saved
	for _, k := range keys {
		if kw, ok := keywords[k]; ok && kw.count {
			counts = true
			break
		}
	}
	for i := 0; counts && i < len(countKeywords); i++ {
		k := countKeywords[i]
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
	if validStrings(list) && distinct(list) {
		return list // equal encodings are equal strings here: none repeats
	}
	seen := make(map[string]bool, len(list))
	out := list[:0:0]
	for _, v := range list {
		b, err := encoded(v)
		if err == nil && seen[b] {
			continue
		}
		seen[b] = true
		out = append(out, v)
	}
	return out
}

// encoded is json.Marshal(v) as a string, written without it for a
// plain string (see plainString), null, true and false.
func encoded(v any) (string, error) {
	switch v := v.(type) {
	case string:
		if plainString(v) {
			return `"` + v + `"`, nil
		}
	case nil:
		return "null", nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// descend audits every subschema of m, replacing it in out by its
// rewrite, and records which apply to the same instance (for the cycle
// check) and which are reached at all (for the expansion bound).
func (a *Auditor) descend(m, out map[string]any, keys []string, loc string) error {
	// m's steps gather in one slice, made once for as many as m's
	// keywords hold subschemas, and are recorded when all are walked
	// (nothing reads a.steps during the walk).
	var steps []step
	defer func() {
		if len(steps) > 0 {
			a.steps[loc] = append(a.steps[loc], steps...)
		}
	}()
	for _, k := range keys {
		kw, ok := keywords[k]
		if !ok || kw.kind == valueData || kw.refused != "" || !kw.defines(a.draft) {
			continue
		}
		v := m[k]
		ek := jsonvalue.EscapePointer(k)
		sub := func(s any, at string, inPlace bool) (any, error) {
			r, err := a.walk(s, at, k)
			if err != nil {
				return nil, err
			}
			if inPlace {
				a.addEdge(loc, at)
			}
			if st, ok := a.stepFor(m, k, at); ok {
				if steps == nil {
					steps = make([]step, 0, subschemaCount(m, keys))
				}
				steps = append(steps, st)
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
			r, err := sub(v, loc+"/"+ek, kw.inPlace)
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
				r, err := sub(e, loc+"/"+ek+"/"+strconv.Itoa(i), kw.inPlace)
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
			from := len(a.keys)
			for name := range mm {
				a.keys = append(a.keys, name)
			}
			names := a.keys[from:len(a.keys):len(a.keys)]
			slices.Sort(names)
			for _, name := range names { // the first refusal found is always the same
				e := mm[name]
				if _, isNames := e.([]any); isNames && k == "dependencies" {
					subs[name] = e
					continue
				}
				r, err := sub(e, loc+"/"+ek+"/"+jsonvalue.EscapePointer(name), kw.inPlace)
				if err != nil {
					return err
				}
				subs[name] = r
			}
			a.keys = a.keys[:from]
			out[k] = subs
		}
	}
	return nil
}

// subschemaCount is at most how many subschemas m's keywords keys hold:
// descend's steps, made once.
func subschemaCount(m map[string]any, keys []string) int {
	n := 0
	for _, k := range keys {
		switch v := m[k].(type) {
		case []any:
			n += len(v)
		case map[string]any:
			n += max(len(v), 1)
		default:
			n++
		}
	}
	return n
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
	node, alone := out, true
	if ref, ok := out["$ref"]; ok && a.draft >= draft2019 && len(out) > 1 {
		alone = false
		// Since 2019-09 $ref applies beside its siblings, but the
		// validator stops at $ref: move it into allOf, which means the
		// same.
		delete(out, "$ref")
		all, _ := out["allOf"].([]any)
		node = map[string]any{"$ref": ref}
		out["allOf"] = append(all, node)
	}
	if isRef {
		a.refNodes = append(a.refNodes, refNode{node: node, loc: loc, target: target, alone: alone})
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
	if len(n) > 0 && len(n) < 19 && strings.Trim(string(n), "0123456789") == "" && (n[0] != '0' || len(n) == 1) {
		return n, nil // plain digits, as most counts are written: the same number, no big.Rat
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		return "", fmt.Errorf("must be a non-negative integer, not %s", n)
	}
	return json.Number(r.Num().String()), nil
}
