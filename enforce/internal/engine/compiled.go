package engine

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// Node is one subschema compiled for the fast path: an evaluator that
// says whether a value passes, with gojsonschema's own semantics (see
// CompileFast). It writes no issues: a value it fails goes to the
// validator, which does.
type Node struct {
	Always, never bool // the schemas true and false

	Types Kinds // 0: any

	enum     *cenum // nil when absent
	constant *cenum

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp
	format         string

	multipleOf, minimum, maximum, exMin, exMax *cnum

	Props      map[string]*Node
	Patterns   []cpattern
	AddlFalse  bool
	addl       *Node // nil: any member
	Required   []string
	MinProps   int // -1 when absent
	MaxProps   int
	names      *Node // propertyNames
	depNames   map[string][]string
	depSchemas map[string]*Node

	items     *Node   // one schema for every item
	tuple     []*Node // items as an array
	tupleSet  bool
	addlItems *Node // additionalItems as a schema, after a tuple
	noAddl    bool  // additionalItems false, after a tuple
	MinItems  int   // -1 when absent
	MaxItems  int
	Unique    bool
	contains  *Node

	allOf, anyOf, oneOf []*Node
	not                 *Node
	ifS, thenS, elseS   *Node

	// opaqueKids: something here applies subschemas to this value or
	// its parts besides properties, additionalProperties and items, so
	// the subschema of a member or item is not known from its name or
	// index alone (see Incremental.Partial).
	opaqueKids bool
}

type cpattern struct {
	Re   *regexp.Regexp
	node *Node
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

var anyCnode = &Node{Always: true, minLen: -1, maxLen: -1, MinProps: -1, MaxProps: -1, MinItems: -1, MaxItems: -1}

// CompileFast compiles the audited schema tree for the fast path, for
// gojsonschema's draft. It returns nil when some keyword's value is not
// in a form it compiles (gojsonschema then judges every answer). It
// knows every keyword gojsonschema applies, for the drafts in which it
// applies them, and ignores the others as gojsonschema does.
func CompileFast(tree any, d Draft) *Node {
	b := &cbuilder{tree: tree, draft: d, memo: map[string]*Node{}}
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
	draft Draft
	memo  map[string]*Node
	ok    bool
}

func (b *cbuilder) fail() *Node {
	b.ok = false
	return anyCnode
}

func (b *cbuilder) build(loc string, v any) *Node {
	if n, ok := b.memo[loc]; ok {
		return n
	}
	switch v := v.(type) {
	case bool:
		// The audit admits a boolean in draft-04 only where draft-04 does.
		if v {
			return anyCnode
		}
		return &Node{never: true}
	case map[string]any:
		if ref, ok := v["$ref"]; ok {
			rs, isString := ref.(string)
			if !isString {
				return b.fail()
			}
			// The audit writes a reference to the root as "".
			target, err := "", error(nil)
			if rs != "" {
				target, err = RefPointer(rs)
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
		n := &Node{minLen: -1, maxLen: -1, MinProps: -1, MaxProps: -1, MinItems: -1, MaxItems: -1}
		b.memo[loc] = n
		b.fill(n, loc, v)
		return n
	}
	return b.fail()
}

func (b *cbuilder) fill(n *Node, loc string, m map[string]any) {
	at := func(k string) string { return loc + "/" + jsonvalue.EscapePointer(k) }
	if t, has := m["type"]; has {
		var ok bool
		if n.Types, ok = TypeKinds(t); !ok {
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
	if c, has := b.get(m, "const"); has {
		n.constant = b.enumOf([]any{c})
	}
	n.minLen = b.count(m, "minLength")
	n.maxLen = b.count(m, "maxLength")
	n.MinProps = b.count(m, "minProperties")
	n.MaxProps = b.count(m, "maxProperties")
	n.MinItems = b.count(m, "minItems")
	n.MaxItems = b.count(m, "maxItems")
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
		if b.draft == Draft4 {
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
		n.Unique = flag
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
			n.Required = append(n.Required, s)
		}
	}
	if p, has := m["properties"]; has {
		pm, ok := p.(map[string]any)
		if !ok {
			b.fail()
		}
		n.Props = make(map[string]*Node, len(pm))
		for name, sub := range pm {
			n.Props[name] = b.build(at("properties")+"/"+jsonvalue.EscapePointer(name), sub)
		}
	}
	if p, has := m["patternProperties"]; has {
		pm, ok := p.(map[string]any)
		if !ok {
			b.fail()
		}
		for _, pat := range SortedKeys(pm) {
			re, err := regexp.Compile(pat)
			if err != nil {
				b.fail()
				continue
			}
			n.Patterns = append(n.Patterns, cpattern{Re: re, node: b.build(at("patternProperties")+"/"+jsonvalue.EscapePointer(pat), pm[pat])})
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case nil:
		if _, has := m["additionalProperties"]; has {
			b.fail()
		}
	case bool:
		n.AddlFalse = !ap
	case map[string]any:
		n.addl = b.build(at("additionalProperties"), ap)
	default:
		b.fail()
	}
	if pn, has := b.get(m, "propertyNames"); has {
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
					n.depSchemas = map[string]*Node{}
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
	if c, has := b.get(m, "contains"); has {
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
		var subs []*Node
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
	if v, has := b.get(m, "if"); has {
		n.ifS = b.sub(at("if"), v)
	}
	if v, has := b.get(m, "then"); has {
		n.thenS = b.sub(at("then"), v)
	}
	if v, has := b.get(m, "else"); has {
		n.elseS = b.sub(at("else"), v)
	}
	n.opaqueKids = len(n.allOf)+len(n.anyOf)+len(n.oneOf) > 0 || n.not != nil || n.ifS != nil ||
		n.depSchemas != nil || n.contains != nil
}

// get is m's keyword k, where b's draft defines it (the table,
// keywords.go): gojsonschema ignores it elsewhere.
func (b *cbuilder) get(m map[string]any, k string) (any, bool) {
	v, has := m[k]
	return v, has && keywords[k].defines(b.draft)
}

// sub builds a subschema that must be an object or a boolean.
func (b *cbuilder) sub(loc string, v any) *Node {
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
		k, ok := EqKey(v)
		if !ok {
			b.fail()
		}
		e.keys[k] = true
	}
	return e
}

// EqKey is the text gojsonschema compares enum, const and uniqueItems
// values by: the value encoded, decoded without json.Number (numbers
// become float64) and encoded again. ok is false where gojsonschema
// fails to (a number beyond float64), which fails the value.
func EqKey(v any) (string, bool) {
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
	k, ok := EqKey(v)
	return ok && e.keys[k]
}

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

// Check is Valid's walk. e is nil where v need not pass n for the whole
// to pass (below anyOf, oneOf, not, if or contains): there every check is
// made at once.
func (n *Node) Check(v any, e *evaluation) bool {
	if n.Always {
		return true
	}
	if n.never {
		return false
	}
	switch x := v.(type) {
	case nil:
		if n.Types != 0 && n.Types&KindNull == 0 {
			return false
		}
	case bool:
		if n.Types != 0 && n.Types&KindBoolean == 0 {
			return false
		}
	case string:
		if n.Types != 0 && n.Types&KindString == 0 {
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
		if n.Types != 0 && n.Types&KindArray == 0 {
			return false
		}
		if !n.validArray(x, e) {
			return false
		}
	case map[string]any:
		if n.Types != 0 && n.Types&KindObject == 0 {
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
	if n.Types != 0 && n.Types&KindNumber == 0 {
		isInt := false
		if d.OK {
			isInt = d.IsInt()
		} else {
			isInt = rat().IsInt()
		}
		if !isInt || n.Types&KindInteger == 0 {
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
	if n.MinItems >= 0 && len(a) < n.MinItems || n.MaxItems >= 0 && len(a) > n.MaxItems {
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
	if n.MinProps >= 0 && len(m) < n.MinProps || n.MaxProps >= 0 && len(m) > n.MaxProps {
		return false
	}
	for _, r := range n.Required {
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
	p, found := n.Props[k]
	if found && !p.Check(v, e) {
		return false
	}
	matched := false
	for _, pp := range n.Patterns {
		if pp.Re.MatchString(k) {
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
	if n.Always {
		return anyCnode
	}
	for _, pp := range n.Patterns {
		if pp.Re.MatchString(name) {
			return nil // more than one subschema may apply
		}
	}
	if p, ok := n.Props[name]; ok {
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
	case n.Always:
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
	if n.Always {
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
		if n.Types != 0 && n.Types&KindArray == 0 {
			return false
		}
		if n.MinItems >= 0 && len(x) < n.MinItems || n.MaxItems >= 0 && len(x) > n.MaxItems {
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
		if n.Types != 0 && n.Types&KindObject == 0 {
			return false
		}
		if n.MinProps >= 0 && len(x) < n.MinProps || n.MaxProps >= 0 && len(x) > n.MaxProps {
			return false
		}
		for _, r := range n.Required {
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

// ShapeOnly reports whether checkOwn needs no more of an object or array
// than its member names and size: no enum, const, propertyNames,
// dependencies, uniqueItems or applicator, and not the schema false.
func (n *Node) ShapeOnly() bool {
	return !n.never && !n.opaqueKids && n.enum == nil && n.constant == nil && n.names == nil &&
		len(n.depNames) == 0 && !n.Unique
}
