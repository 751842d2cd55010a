package enforce

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// cnode is one subschema compiled for the fast path: an evaluator that
// says whether a value passes, with gojsonschema's own semantics (see
// compileFast). It writes no issues: a value it fails goes to the
// validator, which does.
type cnode struct {
	always, never bool // the schemas true and false

	types kinds // 0: any

	enum     *cenum // nil when absent
	constant *cenum

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp
	format         string

	multipleOf, minimum, maximum, exMin, exMax *cnum

	props      map[string]*cnode
	patterns   []cpattern
	addlFalse  bool
	addl       *cnode // nil: any member
	required   []string
	minProps   int // -1 when absent
	maxProps   int
	names      *cnode // propertyNames
	depNames   map[string][]string
	depSchemas map[string]*cnode

	items     *cnode   // one schema for every item
	tuple     []*cnode // items as an array
	tupleSet  bool
	addlItems *cnode // additionalItems as a schema, after a tuple
	noAddl    bool   // additionalItems false, after a tuple
	minItems  int    // -1 when absent
	maxItems  int
	unique    bool
	contains  *cnode

	allOf, anyOf, oneOf []*cnode
	not                 *cnode
	ifS, thenS, elseS   *cnode

	// opaqueKids: something here applies subschemas to this value or
	// its parts besides properties, additionalProperties and items, so
	// the subschema of a member or item is not known from its name or
	// index alone (see Stream.Partial).
	opaqueKids bool
}

type cpattern struct {
	re   *regexp.Regexp
	node *cnode
}

// cenum holds the values an enum or const admits, keyed as gojsonschema
// compares them (see eqKey); strings also by their value.
type cenum struct {
	strs map[string]bool
	keys map[string]bool
}

// cnum is a number from the schema: exact as a decimal where it fits,
// and always as the big.Rat gojsonschema compares.
type cnum struct {
	d jsonvalue.Dec
	r *big.Rat
}

var anyCnode = &cnode{always: true, minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}

// compileFast compiles the audited schema tree for the fast path, for
// gojsonschema's draft. It returns nil when some keyword's value is not
// in a form it compiles (gojsonschema then judges every answer). It
// knows every keyword gojsonschema applies, for the drafts in which it
// applies them, and ignores the others as gojsonschema does.
func compileFast(tree any, d draft) *cnode {
	b := &cbuilder{tree: tree, draft: d, memo: map[string]*cnode{}}
	defer func() {
		if recover() != nil {
			b.ok = false
		}
	}()
	b.ok = true
	n := b.build("", tree)
	if !b.ok {
		return nil
	}
	return n
}

type cbuilder struct {
	tree  any
	draft draft
	memo  map[string]*cnode
	ok    bool
}

func (b *cbuilder) fail() *cnode {
	b.ok = false
	return anyCnode
}

func (b *cbuilder) build(loc string, v any) *cnode {
	if n, ok := b.memo[loc]; ok {
		return n
	}
	switch v := v.(type) {
	case bool:
		// The audit admits a boolean in draft-04 only where draft-04 does.
		if v {
			return anyCnode
		}
		return &cnode{never: true}
	case map[string]any:
		if ref, ok := v["$ref"]; ok {
			rs, isString := ref.(string)
			if !isString {
				return b.fail()
			}
			// The audit writes a reference to the root as "".
			target, err := "", error(nil)
			if rs != "" {
				target, err = refPointer(rs)
			}
			sub, found := jsonvalue.ResolvePointer(b.tree, target)
			if err != nil || !found {
				return b.fail()
			}
			// The validator ignores a $ref's siblings. The audit refused
			// cycles of $ref alone, so this ends.
			t := b.build(target, sub)
			b.memo[loc] = t
			return t
		}
		n := &cnode{minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}
		b.memo[loc] = n
		b.fill(n, loc, v)
		return n
	}
	return b.fail()
}

func (b *cbuilder) fill(n *cnode, loc string, m map[string]any) {
	at := func(k string) string { return loc + "/" + jsonvalue.EscapePointer(k) }
	if t, has := m["type"]; has {
		var ok bool
		if n.types, ok = typeKinds(t); !ok {
			b.fail()
		}
	}
	if e, has := m["enum"]; has {
		list, ok := e.([]any)
		if !ok {
			b.fail()
		} else if len(list) > 0 {
			n.enum = b.enumOf(list)
		}
	}
	if c, has := m["const"]; has && b.draft >= draft6 {
		n.constant = b.enumOf([]any{c})
	}
	n.minLen = b.count(m, "minLength")
	n.maxLen = b.count(m, "maxLength")
	n.minProps = b.count(m, "minProperties")
	n.maxProps = b.count(m, "maxProperties")
	n.minItems = b.count(m, "minItems")
	n.maxItems = b.count(m, "maxItems")
	if p, has := m["pattern"]; has {
		ps, ok := p.(string)
		re, err := regexp.Compile(ps)
		if !ok || err != nil {
			b.fail()
		}
		n.pattern = re
	}
	if f, has := m["format"]; has {
		fs, ok := f.(string)
		if !ok {
			b.fail()
		}
		n.format = fs
	}
	n.multipleOf = b.number(m, "multipleOf")
	if n.multipleOf != nil && n.multipleOf.r.Sign() <= 0 {
		b.fail()
	}
	n.minimum = b.number(m, "minimum")
	n.maximum = b.number(m, "maximum")
	for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		v, has := m[k]
		if !has {
			continue
		}
		bound := &n.minimum
		ex := &n.exMin
		if k == "exclusiveMaximum" {
			bound, ex = &n.maximum, &n.exMax
		}
		if b.draft == draft4 {
			flag, ok := v.(bool)
			if !ok || *bound == nil {
				b.fail()
				continue
			}
			if flag {
				*ex, *bound = *bound, nil
			}
			continue
		}
		if _, isNum := v.(json.Number); isNum {
			*ex = b.number(m, k)
		} else if _, isBool := v.(bool); !isBool {
			b.fail()
		}
	}
	if u, has := m["uniqueItems"]; has {
		flag, ok := u.(bool)
		if !ok {
			b.fail()
		}
		n.unique = flag
	}
	if r, has := m["required"]; has {
		list, ok := r.([]any)
		if !ok {
			b.fail()
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				b.fail()
			}
			n.required = append(n.required, s)
		}
	}
	if p, has := m["properties"]; has {
		pm, ok := p.(map[string]any)
		if !ok {
			b.fail()
		}
		n.props = make(map[string]*cnode, len(pm))
		for name, sub := range pm {
			n.props[name] = b.build(at("properties")+"/"+jsonvalue.EscapePointer(name), sub)
		}
	}
	if p, has := m["patternProperties"]; has {
		pm, ok := p.(map[string]any)
		if !ok {
			b.fail()
		}
		for _, pat := range sortedKeys(pm) {
			re, err := regexp.Compile(pat)
			if err != nil {
				b.fail()
				continue
			}
			n.patterns = append(n.patterns, cpattern{re: re, node: b.build(at("patternProperties")+"/"+jsonvalue.EscapePointer(pat), pm[pat])})
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case nil:
		if _, has := m["additionalProperties"]; has {
			b.fail()
		}
	case bool:
		n.addlFalse = !ap
	case map[string]any:
		n.addl = b.build(at("additionalProperties"), ap)
	default:
		b.fail()
	}
	if pn, has := m["propertyNames"]; has && b.draft >= draft6 {
		n.names = b.sub(at("propertyNames"), pn)
	}
	if deps, has := m["dependencies"]; has {
		dm, ok := deps.(map[string]any)
		if !ok {
			b.fail()
		}
		for k, dv := range dm {
			switch dv := dv.(type) {
			case []any:
				var names []string
				for _, e := range dv {
					s, ok := e.(string)
					if !ok {
						b.fail()
					}
					names = append(names, s)
				}
				if len(names) > 0 {
					if n.depNames == nil {
						n.depNames = map[string][]string{}
					}
					n.depNames[k] = names
				}
			case map[string]any, bool:
				if n.depSchemas == nil {
					n.depSchemas = map[string]*cnode{}
				}
				n.depSchemas[k] = b.build(at("dependencies")+"/"+jsonvalue.EscapePointer(k), dv)
			default:
				b.fail()
			}
		}
	}
	if it, has := m["items"]; has {
		switch it := it.(type) {
		case []any:
			n.tupleSet = true
			for i, e := range it {
				n.tuple = append(n.tuple, b.sub(at("items")+"/"+strconv.Itoa(i), e))
			}
		default:
			n.items = b.sub(at("items"), it)
		}
	}
	if ai, has := m["additionalItems"]; has {
		switch ai := ai.(type) {
		case bool:
			n.noAddl = !ai
		case map[string]any:
			n.addlItems = b.build(at("additionalItems"), ai)
		default:
			b.fail()
		}
	}
	if c, has := m["contains"]; has && b.draft >= draft6 {
		n.contains = b.sub(at("contains"), c)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		v, has := m[k]
		if !has {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			b.fail()
		}
		var subs []*cnode
		for i, e := range list {
			subs = append(subs, b.build(at(k)+"/"+strconv.Itoa(i), e))
		}
		switch k {
		case "allOf":
			n.allOf = subs
		case "anyOf":
			n.anyOf = subs
		default:
			n.oneOf = subs
		}
	}
	if v, has := m["not"]; has {
		n.not = b.sub(at("not"), v)
	}
	if b.draft >= draft7 {
		if v, has := m["if"]; has {
			n.ifS = b.sub(at("if"), v)
		}
		if v, has := m["then"]; has {
			n.thenS = b.sub(at("then"), v)
		}
		if v, has := m["else"]; has {
			n.elseS = b.sub(at("else"), v)
		}
	}
	n.opaqueKids = len(n.allOf)+len(n.anyOf)+len(n.oneOf) > 0 || n.not != nil || n.ifS != nil ||
		n.depSchemas != nil || n.contains != nil
}

// sub builds a subschema that must be an object or a boolean.
func (b *cbuilder) sub(loc string, v any) *cnode {
	switch v.(type) {
	case map[string]any, bool:
		return b.build(loc, v)
	}
	return b.fail()
}

func (b *cbuilder) count(m map[string]any, k string) int {
	v, has := m[k]
	if !has {
		return -1
	}
	n, ok := v.(json.Number)
	i, err := strconv.Atoi(string(n))
	if !ok || err != nil || i < 0 {
		b.fail()
		return -1
	}
	return i
}

func (b *cbuilder) number(m map[string]any, k string) *cnum {
	v, has := m[k]
	if !has {
		return nil
	}
	n, ok := v.(json.Number)
	if !ok {
		b.fail()
		return nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		b.fail()
		return nil
	}
	return &cnum{d: jsonvalue.ParseDec(string(n)), r: r}
}

func (b *cbuilder) enumOf(list []any) *cenum {
	e := &cenum{strs: map[string]bool{}, keys: map[string]bool{}}
	for _, v := range list {
		if s, ok := v.(string); ok {
			e.strs[s] = true
		}
		k, ok := eqKey(v)
		if !ok {
			b.fail()
		}
		e.keys[k] = true
	}
	return e
}

// eqKey is the text gojsonschema compares enum, const and uniqueItems
// values by: the value encoded, decoded without json.Number (numbers
// become float64) and encoded again. ok is false where gojsonschema
// fails to (a number beyond float64), which fails the value.
func eqKey(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "null", true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	}
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

func (e *cenum) has(v any) bool {
	if s, ok := v.(string); ok {
		return e.strs[s] // a string's key is its encoding, one to one for valid UTF-8
	}
	k, ok := eqKey(v)
	return ok && e.keys[k]
}

// valid reports whether v passes n, as gojsonschema judges it. v is a
// tree from jsonvalue.Parse, numbers canonicalized as gojsonschema sees them.
// Format checks, the costliest, come last: a failing answer seldom pays
// for them.
func (n *cnode) valid(v any) bool {
	var e evaluation
	if !n.check(v, &e) {
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
func (n *cnode) formatOK(v any, e *evaluation) bool {
	if n.format == "" {
		return true
	}
	if e != nil {
		e.formats = append(e.formats, deferredFormat{n.format, v})
		return true
	}
	return checkFormat(n.format, v)
}

// check is valid's walk. e is nil where v need not pass n for the whole
// to pass (below anyOf, oneOf, not, if or contains): there every check is
// made at once.
func (n *cnode) check(v any, e *evaluation) bool {
	if n.always {
		return true
	}
	if n.never {
		return false
	}
	switch x := v.(type) {
	case nil:
		if n.types != 0 && n.types&kindNull == 0 {
			return false
		}
	case bool:
		if n.types != 0 && n.types&kindBoolean == 0 {
			return false
		}
	case string:
		if n.types != 0 && n.types&kindString == 0 {
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
		if n.types != 0 && n.types&kindArray == 0 {
			return false
		}
		if !n.validArray(x, e) {
			return false
		}
	case map[string]any:
		if n.types != 0 && n.types&kindObject == 0 {
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

func (n *cnode) validApplicators(v any, e *evaluation) bool {
	for _, s := range n.allOf {
		if !s.check(v, e) {
			return false
		}
	}
	if len(n.anyOf) > 0 {
		ok := false
		for _, s := range n.anyOf {
			if s.check(v, nil) {
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
			if s.check(v, nil) {
				passed++
			}
		}
		if passed != 1 {
			return false
		}
	}
	if n.not != nil && n.not.check(v, nil) {
		return false
	}
	if n.ifS != nil {
		if n.ifS.check(v, nil) {
			if n.thenS != nil && !n.thenS.check(v, e) {
				return false
			}
		} else if n.elseS != nil && !n.elseS.check(v, e) {
			return false
		}
	}
	return true
}

func (n *cnode) validString(s string) bool {
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

func (n *cnode) validNumber(num json.Number) bool {
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
	if n.types != 0 && n.types&kindNumber == 0 {
		isInt := false
		if d.OK {
			isInt = d.IsInt()
		} else {
			isInt = rat().IsInt()
		}
		if !isInt || n.types&kindInteger == 0 {
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

func (n *cnode) validArray(a []any, e *evaluation) bool {
	if n.minItems >= 0 && len(a) < n.minItems || n.maxItems >= 0 && len(a) > n.maxItems {
		return false
	}
	if n.items != nil {
		for _, x := range a {
			if !n.items.check(x, e) {
				return false
			}
		}
	} else if len(n.tuple) > 0 {
		for i, x := range a {
			switch {
			case i < len(n.tuple):
				if !n.tuple[i].check(x, e) {
					return false
				}
			case n.noAddl:
				return false
			case n.addlItems != nil:
				if !n.addlItems.check(x, e) {
					return false
				}
			}
		}
	}
	if n.unique && len(a) > 1 {
		seen := make(map[string]bool, len(a))
		for _, x := range a {
			k, ok := eqKey(x)
			if !ok || seen[k] {
				return false
			}
			seen[k] = true
		}
	}
	if n.contains != nil {
		ok := false
		for _, x := range a {
			if n.contains.check(x, nil) {
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

func (n *cnode) validObject(m map[string]any, e *evaluation) bool {
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
func (n *cnode) member1(m map[string]any, k string, v any, e *evaluation) bool {
	p, found := n.props[k]
	if found && !p.check(v, e) {
		return false
	}
	matched := false
	for _, pp := range n.patterns {
		if pp.re.MatchString(k) {
			matched = true
			if !pp.node.check(v, e) {
				return false
			}
		}
	}
	if !found && !matched {
		if n.addlFalse || (n.addl != nil && !n.addl.check(v, e)) {
			return false
		}
	}
	if n.names != nil && !n.names.check(k, e) {
		return false
	}
	for _, dep := range n.depNames[k] {
		if _, ok := m[dep]; !ok {
			return false
		}
	}
	if ds, ok := n.depSchemas[k]; ok && !ds.check(m, e) {
		return false
	}
	return true
}

// member is the subschema of the member name when it is known from the
// name alone, else nil.
func (n *cnode) member(name string) *cnode {
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
	if n.addlFalse {
		return nil
	}
	if n.addl != nil {
		return n.addl
	}
	return anyCnode
}

// item is the subschema of item i when it is known from i alone, else
// nil.
func (n *cnode) item(i int) *cnode {
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

// passesFast reports whether the fast path passes doc, a tree jsonvalue.Parse
// made for this check (its numbers may be canonicalized in place). False
// means gojsonschema must judge it.
func (s *Schema) passesFast(doc any) (ok bool) {
	if s.fast == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if s.canonical {
		doc = jsonvalue.CanonicalizeInPlace(doc)
	}
	return s.fast.valid(doc)
}

// checkOwn is check for an object or array v whose members or items each
// already passed the subschema member or item gives it (none nil): it
// makes the checks of n on v itself, and none of those on its parts. A
// node whose kids are not known from their names or indexes alone
// (opaqueKids) is checked whole. Formats are checked at once.
func (n *cnode) checkOwn(v any) bool {
	if n.always {
		return true
	}
	if n.never {
		return false
	}
	if n.opaqueKids {
		return n.check(v, nil)
	}
	switch x := v.(type) {
	case []any:
		if n.types != 0 && n.types&kindArray == 0 {
			return false
		}
		if n.minItems >= 0 && len(x) < n.minItems || n.maxItems >= 0 && len(x) > n.maxItems {
			return false
		}
		if n.unique && len(x) > 1 {
			seen := make(map[string]bool, len(x))
			for _, e := range x {
				k, ok := eqKey(e)
				if !ok || seen[k] {
					return false
				}
				seen[k] = true
			}
		}
	case map[string]any:
		if n.types != 0 && n.types&kindObject == 0 {
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
				if n.names != nil && !n.names.check(k, nil) {
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
		return n.check(v, nil)
	}
	if n.enum != nil && !n.enum.has(v) {
		return false
	}
	if n.constant != nil && !n.constant.has(v) {
		return false
	}
	return true // no applicators: they make opaqueKids
}

// shapeOnly reports whether checkOwn needs no more of an object or array
// than its member names and size: no enum, const, propertyNames,
// dependencies, uniqueItems or applicator, and not the schema false.
func (n *cnode) shapeOnly() bool {
	return !n.never && !n.opaqueKids && n.enum == nil && n.constant == nil && n.names == nil &&
		len(n.depNames) == 0 && !n.unique
}
