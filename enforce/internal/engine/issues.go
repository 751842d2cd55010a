package engine

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Issues returns the issues gojsonschema finds in v (a tree as Valid
// takes it), with its pointers and its words, in no set order; ok is
// false where n cannot write them all exactly so (a value gojsonschema
// panics on), and gojsonschema must.
func (n *Node) Issues(v any) (issues []Issue, ok bool) {
	w := issueWalk{ok: true}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	w.walk(n, v)
	return w.issues, w.ok
}

// issueWalk is gojsonschema's walk (validation.go, validateRecursive),
// keyword for keyword, writing the issues it writes: where it merges
// the issues of a subschema, so does this walk, and where it asks only
// whether a subschema passes, Check answers (the differential tests hold
// Check to its verdicts). The issues are sorted later, so the order in
// which the walk finds them does not matter; how many it finds does.
type issueWalk struct {
	issues []Issue
	at     []string // the member names and item indexes down to the value
	ok     bool
	// score is gojsonschema's score of what the walk judged (result.go:
	// one for each of its validate functions that ran to its end, and
	// for each required member present and member a pattern matched;
	// less two for each issue), by which it picks the branch of a
	// failing anyOf or oneOf, and the item of a failing contains, whose
	// issues it writes.
	score int
}

// add writes the issue of keyword with message at the value the walk is
// at.
func (w *issueWalk) add(keyword, message string) {
	w.score -= 2
	w.issues = append(w.issues, Issue{Path: w.pointer(), Keyword: keyword, Message: message})
}

// addMember writes the issue of keyword with message at the member name
// of the object the walk is at (missing, or not allowed).
func (w *issueWalk) addMember(keyword, message, name string) {
	w.score -= 2
	w.issues = append(w.issues, Issue{Path: w.pointer() + "/" + jsonvalue.EscapePointer(name), Keyword: keyword, Message: message})
}

func (w *issueWalk) pointer() string {
	var b strings.Builder
	for _, seg := range w.at {
		b.WriteByte('/')
		b.WriteString(jsonvalue.EscapePointer(seg))
	}
	return b.String()
}

// field is gojsonschema's name for the value in an enum's or const's
// message: the member names and indexes joined by dots, "(root)" alone.
func (w *issueWalk) field() string {
	if len(w.at) == 0 {
		return "(root)"
	}
	return strings.Join(w.at, ".")
}

// down walks sub over v, the member or item seg of the value the walk is
// at.
func (w *issueWalk) down(sub *Node, v any, seg string) {
	if strings.Contains(seg, ctxSep) {
		// gojsonschema's context would split there (contextPointer).
		w.ok = false
		return
	}
	w.at = append(w.at, seg)
	w.walk(sub, v)
	w.at = w.at[:len(w.at)-1]
}

// failed reports whether walking sub over v, at the same value, finds an
// issue, and keeps what it finds, as gojsonschema merges a subschema's
// result whatever it is (allOf).
func (w *issueWalk) failed(sub *Node, v any) bool {
	before := len(w.issues)
	w.walk(sub, v)
	return len(w.issues) > before
}

// trial is a walk of sub over v, the member or item seg of the value
// the walk is at ("" for that value itself), in a result of its own
// (gojsonschema's subValidateWithContext): its issues and score, kept
// only where the caller merges them.
type trial struct {
	issues []Issue
	score  int
}

func (w *issueWalk) try(sub *Node, v any, seg string) trial {
	before, score := len(w.issues), w.score
	if seg == "" {
		w.walk(sub, v)
	} else {
		w.down(sub, v, seg)
	}
	t := trial{issues: append([]Issue(nil), w.issues[before:]...), score: w.score - score}
	w.issues, w.score = w.issues[:before], score
	return t
}

// merge keeps t's issues and score (gojsonschema's mergeErrors).
func (w *issueWalk) merge(t trial) {
	w.issues = append(w.issues, t.issues...)
	w.score += t.score
}

// best is the trial gojsonschema keeps of several failing ones: the
// first of the highest score.
func best(ts []trial) trial {
	b := ts[0]
	for _, t := range ts[1:] {
		if t.score > b.score {
			b = t
		}
	}
	return b
}

func (w *issueWalk) walk(n *Node, v any) {
	if !w.ok || n.always {
		return
	}
	if n.never {
		w.add("false", "False always fails validation")
		return
	}
	given := ""
	switch x := v.(type) {
	case nil:
		if n.types != 0 && n.types&KindNull == 0 {
			given = "null"
		}
	case bool:
		if n.types != 0 && n.types&KindBoolean == 0 {
			given = "boolean"
		}
	case string:
		if n.types != 0 && n.types&KindString == 0 {
			given = "string"
		}
	case json.Number:
		nv := numberOf(x)
		if !nv.d.OK && nv.rat() == nil { // a decimal that fits always parses
			w.ok = false // gojsonschema would fail on it
			return
		}
		if n.types != 0 && n.types&KindNumber == 0 && !(nv.isInt() && n.types&KindInteger != 0) {
			given = "number"
			if nv.isInt() {
				given = "integer"
			}
		}
	case []any:
		if n.types != 0 && n.types&KindArray == 0 {
			given = "array"
		}
	case map[string]any:
		if n.types != 0 && n.types&KindObject == 0 {
			given = "object"
		}
	default:
		w.ok = false
		return
	}
	if given != "" {
		w.add("type", "Invalid type. Expected: "+n.typeNames+", given: "+given)
		return
	}
	// validateSchema, validateCommon and validateRecursive itself each
	// score one, and the function of the value's kind one more (there is
	// none for null and booleans).
	w.score += 3
	switch v.(type) {
	case string, json.Number, []any, map[string]any:
		w.score++
	}
	w.applicators(n, v)
	switch x := v.(type) {
	case string:
		w.str(n, x)
	case json.Number:
		w.number(n, x)
	case []any:
		w.array(n, x)
	case map[string]any:
		w.object(n, x)
	}
	w.common(n, v)
	if m, isObject := v.(map[string]any); isObject {
		for name, sub := range n.props {
			if mv, has := m[name]; has {
				w.down(sub, mv, name)
			}
		}
	}
}

// applicators is gojsonschema's validateSchema.
func (w *issueWalk) applicators(n *Node, v any) {
	// anyOf, oneOf: where every branch fails, gojsonschema writes the
	// issues of the branch it scores best, beside its own. oneOf with
	// two branches passing writes its own issue alone.
	if len(n.anyOf) > 0 {
		passed := false
		for _, s := range n.anyOf {
			if s.Check(v, nil) {
				passed = true
				break
			}
		}
		if !passed {
			w.bestBranch("anyOf", "Must validate at least one schema (anyOf)", n.anyOf, v)
		}
	}
	if len(n.oneOf) > 0 {
		passed := 0
		for _, s := range n.oneOf {
			if s.Check(v, nil) {
				passed++
			}
		}
		switch {
		case passed > 1:
			w.add("oneOf", oneOfMessage)
		case passed == 0:
			w.bestBranch("oneOf", oneOfMessage, n.oneOf, v)
		}
	}
	if len(n.allOf) > 0 {
		failed := false
		for _, s := range n.allOf {
			if w.failed(s, v) {
				failed = true
			}
		}
		if failed {
			w.add("allOf", "Must validate all the schemas (allOf)")
		}
	}
	if n.not != nil && n.not.Check(v, nil) {
		w.add("not", "Must not validate the schema (not)")
	}
	if m, isObject := v.(map[string]any); isObject && (n.depNames != nil || n.depSchemas != nil) {
		for k := range m {
			for _, dep := range n.depNames[k] {
				if _, has := m[dep]; !has {
					w.add("dependencies", "Has a dependency on "+dep)
				}
			}
			if ds, has := n.depSchemas[k]; has {
				w.walk(ds, v)
			}
		}
	}
	if n.ifS != nil {
		// then and else are merged only where they fail.
		if n.ifS.Check(v, nil) {
			if t := w.tryFailing(n.thenS, v); t != nil {
				w.add("then", `Must validate "then" as "if" was valid`)
				w.merge(*t)
			}
		} else if t := w.tryFailing(n.elseS, v); t != nil {
			w.add("else", `Must validate "else" as "if" was not valid`)
			w.merge(*t)
		}
	}
}

// oneOfMessage is gojsonschema's issue of a failing oneOf.
const oneOfMessage = "Must validate one and only one schema (oneOf)"

// bestBranch writes the issues of an anyOf or oneOf (keyword, with
// message) whose branches all fail v: its own, and those of the branch
// gojsonschema scores best.
func (w *issueWalk) bestBranch(keyword, message string, branches []*Node, v any) {
	ts := make([]trial, len(branches))
	for i, b := range branches {
		ts[i] = w.try(b, v, "")
	}
	w.add(keyword, message)
	w.merge(best(ts))
}

// tryFailing is the trial of sub (nil: none) over v where it fails.
func (w *issueWalk) tryFailing(sub *Node, v any) *trial {
	if sub == nil {
		return nil
	}
	if t := w.try(sub, v, ""); len(t.issues) > 0 {
		return &t
	}
	return nil
}

// format writes the issue of a format v does not match.
func (w *issueWalk) format(n *Node, v any) {
	if n.format != "" && !checkFormat(n.format, v) {
		// issueOf leaves the engine's prefix out of the name.
		w.add("format", "Does not match format '"+strings.ReplaceAll(n.format, FormatPrefix, "")+"'")
	}
}

func (w *issueWalk) str(n *Node, s string) {
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			w.add("minLength", "String length must be greater than or equal to "+strconv.Itoa(n.minLen))
		}
		if n.maxLen >= 0 && l > n.maxLen {
			w.add("maxLength", "String length must be less than or equal to "+strconv.Itoa(n.maxLen))
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		w.add("pattern", "Does not match pattern '"+n.pattern.String()+"'")
	}
	w.format(n, s)
}

// bound is a number of the schema as gojsonschema writes it in an issue
// (a big.Float of its value, printed), made once.
func bound(c *cnum) string {
	if t := c.text.Load(); t != nil {
		return *t
	}
	t := fmt.Sprint(new(big.Float).SetRat(c.r))
	c.text.Store(&t)
	return t
}

// answerNumber is a number of the answer, as a decimal where it fits,
// and as gojsonschema's big.Rat where it must be.
type answerNumber struct {
	text string
	d    jsonvalue.Dec
	r    *big.Rat
	bad  bool // the big.Rat does not parse
}

func numberOf(num json.Number) answerNumber {
	return answerNumber{text: string(num), d: jsonvalue.ParseDec(string(num))}
}

func (a *answerNumber) rat() *big.Rat {
	if a.r == nil && !a.bad {
		var ok bool
		a.r, ok = new(big.Rat).SetString(a.text)
		a.bad = !ok
	}
	return a.r
}

func (a *answerNumber) isInt() bool {
	if a.d.OK {
		return a.d.IsInt()
	}
	return a.rat().IsInt()
}

// cmp compares a with b as gojsonschema does, exactly.
func (a *answerNumber) cmp(b *cnum) int {
	if a.d.OK && b.d.OK {
		return a.d.Cmp(b.d)
	}
	return a.rat().Cmp(b.r)
}

func (w *issueWalk) number(n *Node, num json.Number) {
	if n.multipleOf == nil && n.minimum == nil && n.maximum == nil && n.exMin == nil && n.exMax == nil && n.format == "" {
		return
	}
	a := numberOf(num)
	if !a.d.OK && a.rat() == nil {
		w.ok = false // gojsonschema would fail on it
		return
	}
	if m := n.multipleOf; m != nil {
		multiple := false
		if a.d.OK && m.d.OK {
			multiple = a.d.MultipleOf(m.d)
		} else {
			multiple = new(big.Rat).Quo(a.rat(), m.r).IsInt()
		}
		if !multiple {
			w.add("multipleOf", "Must be a multiple of "+bound(m))
		}
	}
	if n.maximum != nil && a.cmp(n.maximum) > 0 {
		w.add("maximum", "Must be less than or equal to "+bound(n.maximum))
	}
	if n.exMax != nil && a.cmp(n.exMax) >= 0 {
		w.add("exclusiveMaximum", "Must be less than "+bound(n.exMax))
	}
	if n.minimum != nil && a.cmp(n.minimum) < 0 {
		w.add("minimum", "Must be greater than or equal to "+bound(n.minimum))
	}
	if n.exMin != nil && a.cmp(n.exMin) <= 0 {
		w.add("exclusiveMinimum", "Must be greater than "+bound(n.exMin))
	}
	w.format(n, num)
}

func (w *issueWalk) array(n *Node, a []any) {
	if n.items != nil {
		for i, x := range a {
			w.down(n.items, x, strconv.Itoa(i))
		}
	} else if len(n.tuple) > 0 {
		for i, x := range a {
			switch {
			case i < len(n.tuple):
				w.down(n.tuple[i], x, strconv.Itoa(i))
			case n.addlItems != nil:
				w.down(n.addlItems, x, strconv.Itoa(i))
			}
		}
		if n.noAddl && len(a) > len(n.tuple) {
			w.add("additionalItems", "No additional items allowed on array")
		}
	}
	if n.minItems >= 0 && len(a) < n.minItems {
		w.add("minItems", "Array must have at least "+strconv.Itoa(n.minItems)+" items")
	}
	if n.maxItems >= 0 && len(a) > n.maxItems {
		w.add("maxItems", "Array must have at most "+strconv.Itoa(n.maxItems)+" items")
	}
	if n.Unique {
		seen := make(map[string]int, len(a))
		for j, x := range a {
			k, ok := EqKey(x)
			if !ok {
				w.ok = false // gojsonschema panics on it
				return
			}
			if i, dup := seen[k]; dup {
				w.add("uniqueItems", "array items["+strconv.Itoa(i)+","+strconv.Itoa(j)+"] must be unique")
			}
			seen[k] = j
		}
	}
	if n.contains != nil {
		for _, x := range a {
			if n.contains.Check(x, nil) {
				return
			}
		}
		// gojsonschema writes the issues of the item it scores best,
		// beside its own.
		ts := make([]trial, len(a))
		for i, x := range a {
			ts[i] = w.try(n.contains, x, strconv.Itoa(i))
		}
		w.add("contains", "At least one of the items must match")
		if len(ts) > 0 {
			w.merge(best(ts))
		}
	}
}

func (w *issueWalk) object(n *Node, m map[string]any) {
	if n.minProps >= 0 && len(m) < n.minProps {
		w.add("minProperties", "Must have at least "+strconv.Itoa(n.minProps)+" properties")
	}
	if n.maxProps >= 0 && len(m) > n.maxProps {
		w.add("maxProperties", "Must have at most "+strconv.Itoa(n.maxProps)+" properties")
	}
	for _, r := range n.required {
		if _, has := m[r]; !has {
			w.addMember("required", r+" is required", r)
		} else {
			w.score++
		}
	}
	for k, v := range m {
		_, found := n.props[k]
		matched := false
		for _, pp := range n.patterns {
			if pp.re.MatchString(k) {
				matched = true
				w.down(pp.node, v, k)
			}
		}
		if matched {
			w.score++
		}
		if !found && !matched {
			if n.AddlFalse {
				w.addMember("additionalProperties", "Additional property "+k+" is not allowed", k)
			} else if n.addl != nil {
				w.down(n.addl, v, k)
			}
		}
	}
	if n.names != nil {
		for k := range m {
			if t := w.tryFailing(n.names, k); t != nil {
				w.add("propertyNames", `Property name of "`+k+`" does not match`)
				w.merge(*t)
			}
		}
	}
}

// common is gojsonschema's validateCommon: const, then enum.
func (w *issueWalk) common(n *Node, v any) {
	if n.constant == nil && n.enum == nil {
		return
	}
	if _, isString := v.(string); !isString {
		if _, ok := EqKey(v); !ok {
			w.ok = false // gojsonschema panics on it
			return
		}
	}
	if n.constant != nil && !n.constant.has(v) {
		w.add("const", w.field()+" does not match: "+n.constant.list[0])
	}
	if n.enum != nil && !n.enum.has(v) {
		w.add("enum", w.field()+" must be one of the following: "+strings.Join(n.enum.list, ", "))
	}
}
