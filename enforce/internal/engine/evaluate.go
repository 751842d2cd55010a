package engine

import (
	"encoding/json"
	"math/big"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// Valid reports whether v passes n, as gojsonschema judges it. v is a
// tree from jsonvalue.Parse, numbers canonicalized as gojsonschema sees them.
// Format checks, the costliest, come last: a failing answer seldom pays
// for them.
func (n *Node) Valid(v any) bool {
	var e evaluation
	if !n.Check(v, &e) {
		return false
	}
	for _, f := range e.formats {
		if !checkFormat(f.format, f.v) {
			return false
		}
	}
	return true
}

// evaluation holds the format checks deferred to the end of one valid.
type evaluation struct {
	formats []deferredFormat
}

type deferredFormat struct {
	format string
	v      any // a string, or a json.Number
}

// checkFormat is gojsonschema's format check: of a string, or of a
// number as the big.Rat it hands the checker.
func checkFormat(format string, v any) bool {
	if num, ok := v.(json.Number); ok {
		r, ok := new(big.Rat).SetString(string(num))
		return ok && gojsonschema.FormatCheckers.IsFormat(format, r)
	}
	return gojsonschema.FormatCheckers.IsFormat(format, v)
}

// format checks v's format now, or, where v must pass n for the whole
// to pass (e not nil), at the end.
func (n *Node) formatOK(v any, e *evaluation) bool {
	if n.format == "" {
		return true
	}
	if e != nil {
		e.formats = append(e.formats, deferredFormat{n.format, v})
		return true
	}
	return checkFormat(n.format, v)
}

// Passes is Valid of v, its numbers first canonicalized in place where
// canonical (the schema compares values by their JSON text); false
// should either panic, which leaves the verdict to gojsonschema.
func (n *Node) Passes(v any, canonical bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if canonical {
		v = jsonvalue.CanonicalizeInPlace(v)
	}
	return n.Valid(v)
}

// OwnPasses is CheckOwn, false should it panic.
func (n *Node) OwnPasses(v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return n.CheckOwn(v)
}

// Check is Valid's walk. e is nil where v need not pass n for the whole
// to pass (below anyOf, oneOf, not, if or contains): there every check is
// made at once.
func (n *Node) Check(v any, e *evaluation) bool {
	if n.always {
		return true
	}
	if n.never {
		return false
	}
	switch x := v.(type) {
	case nil:
		if n.types != 0 && n.types&KindNull == 0 {
			return false
		}
	case bool:
		if n.types != 0 && n.types&KindBoolean == 0 {
			return false
		}
	case string:
		if n.types != 0 && n.types&KindString == 0 {
			return false
		}
		if !n.validString(x) || !n.formatOK(v, e) {
			return false
		}
	case json.Number:
		if !n.validNumber(x) || !n.formatOK(v, e) {
			return false
		}
	case []any:
		if n.types != 0 && n.types&KindArray == 0 {
			return false
		}
		if !n.validArray(x, e) {
			return false
		}
	case map[string]any:
		if n.types != 0 && n.types&KindObject == 0 {
			return false
		}
		if !n.validObject(x, e) {
			return false
		}
	default:
		return false
	}
	if n.enum != nil && !n.enum.has(v) {
		return false
	}
	if n.constant != nil && !n.constant.has(v) {
		return false
	}
	return n.validApplicators(v, e)
}

func (n *Node) validApplicators(v any, e *evaluation) bool {
	for _, s := range n.allOf {
		if !s.Check(v, e) {
			return false
		}
	}
	if len(n.anyOf) > 0 {
		ok := false
		for _, s := range n.anyOf {
			if s.Check(v, nil) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(n.oneOf) > 0 {
		passed := 0
		for _, s := range n.oneOf {
			if s.Check(v, nil) {
				passed++
			}
		}
		if passed != 1 {
			return false
		}
	}
	if n.not != nil && n.not.Check(v, nil) {
		return false
	}
	if n.ifS != nil {
		if n.ifS.Check(v, nil) {
			if n.thenS != nil && !n.thenS.Check(v, e) {
				return false
			}
		} else if n.elseS != nil && !n.elseS.Check(v, e) {
			return false
		}
	}
	return true
}

func (n *Node) validString(s string) bool {
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

func (n *Node) validNumber(num json.Number) bool {
	text := string(num)
	d := jsonvalue.ParseDec(text)
	var r *big.Rat // gojsonschema's value, made only where the decimal does not fit
	rat := func() *big.Rat {
		if r == nil {
			r, _ = new(big.Rat).SetString(text)
		}
		return r
	}
	if !d.OK && rat() == nil {
		return false
	}
	if n.types != 0 && n.types&KindNumber == 0 {
		isInt := false
		if d.OK {
			isInt = d.IsInt()
		} else {
			isInt = rat().IsInt()
		}
		if !isInt || n.types&KindInteger == 0 {
			return false
		}
	}
	cmp := func(b *cnum) int {
		if d.OK && b.d.OK {
			return d.Cmp(b.d)
		}
		return rat().Cmp(b.r)
	}
	if m := n.multipleOf; m != nil {
		if d.OK && m.d.OK {
			if !d.MultipleOf(m.d) {
				return false
			}
		} else if !new(big.Rat).Quo(rat(), m.r).IsInt() {
			return false
		}
	}
	return !((n.maximum != nil && cmp(n.maximum) > 0) || (n.exMax != nil && cmp(n.exMax) >= 0) ||
		(n.minimum != nil && cmp(n.minimum) < 0) || (n.exMin != nil && cmp(n.exMin) <= 0))
}

func (n *Node) validArray(a []any, e *evaluation) bool {
	if n.minItems >= 0 && len(a) < n.minItems || n.maxItems >= 0 && len(a) > n.maxItems {
		return false
	}
	if n.items != nil {
		for _, x := range a {
			if !n.items.Check(x, e) {
				return false
			}
		}
	} else if len(n.tuple) > 0 {
		for i, x := range a {
			switch {
			case i < len(n.tuple):
				if !n.tuple[i].Check(x, e) {
					return false
				}
			case n.noAddl:
				return false
			case n.addlItems != nil:
				if !n.addlItems.Check(x, e) {
					return false
				}
			}
		}
	}
	if n.Unique && len(a) > 1 {
		seen := make(map[string]bool, len(a))
		for _, x := range a {
			k, ok := EqKey(x)
			if !ok || seen[k] {
				return false
			}
			seen[k] = true
		}
	}
	if n.contains != nil {
		ok := false
		for _, x := range a {
			if n.contains.Check(x, nil) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (n *Node) validObject(m map[string]any, e *evaluation) bool {
	if n.minProps >= 0 && len(m) < n.minProps || n.maxProps >= 0 && len(m) > n.maxProps {
		return false
	}
	for _, r := range n.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	// Members holding a string, number or literal first: they are cheap,
	// and a failing answer fails sooner.
	var later [16]string
	nested := later[:0]
	for k, v := range m {
		switch v.(type) {
		case map[string]any, []any:
			if len(nested) < len(later) {
				nested = append(nested, k)
				continue
			}
		}
		if !n.member1(m, k, v, e) {
			return false
		}
	}
	for _, k := range nested {
		if !n.member1(m, k, m[k], e) {
			return false
		}
	}
	return true
}

// member1 checks the member k of m, whose value is v.
func (n *Node) member1(m map[string]any, k string, v any, e *evaluation) bool {
	p, found := n.props[k]
	if found && !p.Check(v, e) {
		return false
	}
	matched := false
	for _, pp := range n.patterns {
		if pp.re.MatchString(k) {
			matched = true
			if !pp.node.Check(v, e) {
				return false
			}
		}
	}
	if !found && !matched {
		if n.AddlFalse || (n.addl != nil && !n.addl.Check(v, e)) {
			return false
		}
	}
	if n.names != nil && !n.names.Check(k, e) {
		return false
	}
	for _, dep := range n.depNames[k] {
		if _, ok := m[dep]; !ok {
			return false
		}
	}
	if ds, ok := n.depSchemas[k]; ok && !ds.Check(m, e) {
		return false
	}
	return true
}

// Member is the subschema of the member name when it is known from the
// name alone, else nil.
func (n *Node) Member(name string) *Node {
	if n == nil || n.never || n.opaqueKids {
		return nil
	}
	if n.always {
		return anyCnode
	}
	for _, pp := range n.patterns {
		if pp.re.MatchString(name) {
			return nil // more than one subschema may apply
		}
	}
	if p, ok := n.props[name]; ok {
		return p
	}
	if n.AddlFalse {
		return nil
	}
	if n.addl != nil {
		return n.addl
	}
	return anyCnode
}

// Item is the subschema of item i when it is known from i alone, else
// nil.
func (n *Node) Item(i int) *Node {
	if n == nil || n.never || n.opaqueKids {
		return nil
	}
	switch {
	case n.always:
		return anyCnode
	case n.items != nil:
		return n.items
	case len(n.tuple) == 0:
		return anyCnode
	case i < len(n.tuple):
		return n.tuple[i]
	case n.noAddl:
		return nil
	case n.addlItems != nil:
		return n.addlItems
	}
	return anyCnode
}

// CheckOwn is check for an object or array v whose members or items each
// already passed the subschema member or item gives it (none nil): it
// makes the checks of n on v itself, and none of those on its parts. A
// node whose kids are not known from their names or indexes alone
// (opaqueKids) is checked whole. Formats are checked at once.
func (n *Node) CheckOwn(v any) bool {
	if n.always {
		return true
	}
	if n.never {
		return false
	}
	if n.opaqueKids {
		return n.Check(v, nil)
	}
	switch x := v.(type) {
	case []any:
		if n.types != 0 && n.types&KindArray == 0 {
			return false
		}
		if n.minItems >= 0 && len(x) < n.minItems || n.maxItems >= 0 && len(x) > n.maxItems {
			return false
		}
		if n.Unique && len(x) > 1 {
			seen := make(map[string]bool, len(x))
			for _, e := range x {
				k, ok := EqKey(e)
				if !ok || seen[k] {
					return false
				}
				seen[k] = true
			}
		}
	case map[string]any:
		if n.types != 0 && n.types&KindObject == 0 {
			return false
		}
		if n.minProps >= 0 && len(x) < n.minProps || n.maxProps >= 0 && len(x) > n.maxProps {
			return false
		}
		for _, r := range n.required {
			if _, ok := x[r]; !ok {
				return false
			}
		}
		if n.names != nil || len(n.depNames) > 0 {
			for k := range x {
				if n.names != nil && !n.names.Check(k, nil) {
					return false
				}
				for _, dep := range n.depNames[k] {
					if _, ok := x[dep]; !ok {
						return false
					}
				}
			}
		}
	default:
		return n.Check(v, nil)
	}
	if n.enum != nil && !n.enum.has(v) {
		return false
	}
	if n.constant != nil && !n.constant.has(v) {
		return false
	}
	return true // no applicators: they make opaqueKids
}

// Lists reports whether n's properties or patternProperties list the
// member name.
func (n *Node) Lists(name string) bool {
	if _, listed := n.props[name]; listed {
		return true
	}
	for _, pp := range n.patterns {
		if pp.re.MatchString(name) {
			return true
		}
	}
	return false
}

// ShapePasses is CheckOwn of an object (obj) or array of size members or
// items, for a node whose own keywords need only the member names and the
// size (ShapeOnly); has reports whether the object has a member.
func (n *Node) ShapePasses(obj bool, size int, has func(name string) bool) bool {
	if n.always {
		return true
	}
	if obj {
		if n.types != 0 && n.types&KindObject == 0 {
			return false
		}
		if n.minProps >= 0 && size < n.minProps || n.maxProps >= 0 && size > n.maxProps {
			return false
		}
		for _, r := range n.required {
			if !has(r) {
				return false
			}
		}
		return true
	}
	if n.types != 0 && n.types&KindArray == 0 {
		return false
	}
	return !(n.minItems >= 0 && size < n.minItems || n.maxItems >= 0 && size > n.maxItems)
}

// ShapeOnly reports whether CheckOwn needs no more of an object or array
// than its member names and size: no enum, const, propertyNames,
// dependencies, uniqueItems or applicator, and not the schema false.
func (n *Node) ShapeOnly() bool {
	return !n.never && !n.opaqueKids && n.enum == nil && n.constant == nil && n.names == nil &&
		len(n.depNames) == 0 && !n.Unique
}

// EqKey is the text gojsonschema compares enum, const and uniqueItems
// values by: the value encoded, decoded without json.Number (numbers
// become float64) and encoded again. ok is false where gojsonschema
// fails to (a number beyond float64), which fails the value.
func EqKey(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		if plainString(v) {
			return `"` + v + `"`, true // what encoding/json writes for it
		}
	case nil:
		return "null", true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	}
	return eqKeyJSON(v)
}

// eqKeyJSON is EqKey by encoding/json: v encoded, decoded and encoded.
func eqKeyJSON(v any) (string, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	var back any
	if err := json.Unmarshal(b, &back); err != nil {
		return "", false
	}
	if b, err = json.Marshal(back); err != nil {
		return "", false
	}
	return string(b), true
}

// plainString reports whether encoding/json writes s as it is, between
// quotes: printable ASCII, none of it escaped (no quote, backslash, nor
// what it escapes for HTML).
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func (e *cenum) has(v any) bool {
	if s, ok := v.(string); ok {
		return e.strs[s] // a string's key is its encoding, one to one for valid UTF-8
	}
	k, ok := EqKey(v)
	return ok && e.keys[k]
}
