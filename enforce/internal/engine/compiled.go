package engine

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Node is one subschema compiled for the fast path: an evaluator that
// says whether a value passes, with gojsonschema's own semantics (see
// CompileFast). It writes no issues: a value it fails goes to the
// validator, which does.
type Node struct {
	always, never bool // the schemas true and false

	types     Kinds  // 0: any
	typeNames string // the type keyword as gojsonschema writes it in an issue

	enum     *cenum // nil when absent
	constant *cenum

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp
	format         string

	multipleOf, minimum, maximum, exMin, exMax *cnum

	props      map[string]*Node
	patterns   []cpattern
	AddlFalse  bool
	addl       *Node // nil: any member
	required   []string
	minProps   int // -1 when absent
	maxProps   int
	names      *Node // propertyNames
	depNames   map[string][]string
	depSchemas map[string]*Node

	items     *Node   // one schema for every item
	tuple     []*Node // items as an array
	tupleSet  bool
	addlItems *Node // additionalItems as a schema, after a tuple
	noAddl    bool  // additionalItems false, after a tuple
	minItems  int   // -1 when absent
	maxItems  int
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
	re   *regexp.Regexp
	node *Node
}

// cenum holds the values an enum or const admits, keyed as gojsonschema
// compares them (see eqKey); strings also by their value.
type cenum struct {
	strs map[string]bool
	keys map[string]bool
	list []string // the keys in the schema's order, for an issue's message
}

// cnum is a number from the schema: exact as a decimal where it fits,
// and always as the big.Rat gojsonschema compares.
type cnum struct {
	d    jsonvalue.Dec
	r    *big.Rat
	text atomic.Pointer[string] // as an issue writes it (bound), once written
}

var anyCnode = &Node{always: true, minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}

// CompileFast compiles the audited schema tree for the fast path, for
// gojsonschema's draft. It returns nil when some keyword's value is not
// in a form it compiles (gojsonschema then judges every answer). It
// knows every keyword gojsonschema applies, for the drafts in which it
// applies them, and ignores the others as gojsonschema does.
func CompileFast(tree any, d Draft) *Node { return compileFast(tree, d, true) }

// CompileFast is [CompileFast] of the tree a's Audit returned: where
// the audit met no $ref, each subschema is built once, where it stands,
// with neither its location nor a memo by location.
func (a *Auditor) CompileFast(tree any) *Node { return compileFast(tree, a.Target, len(a.refs) > 0) }

func compileFast(tree any, d Draft, refs bool) *Node {
	b := &cbuilder{tree: tree, draft: d}
	if refs {
		b.memo = map[string]*Node{}
	}
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
	memo  map[string]*Node // by location; nil where the tree holds no $ref (nor are locations written)
	ok    bool
}

// at is the location of keyword k of the subschema at loc, and of its
// member or item tail when not "": "" when b keeps no memo.
func (b *cbuilder) at(loc, k, tail string) string {
	if b.memo == nil {
		return ""
	}
	if tail != "" {
		return loc + "/" + jsonvalue.EscapePointer(k) + "/" + tail
	}
	return loc + "/" + jsonvalue.EscapePointer(k)
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
			b.memo[loc] = t // a $ref: the memo is there
			return t
		}
		n := &Node{minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}
		if b.memo != nil {
			b.memo[loc] = n
		}
		b.fill(n, loc, v)
		return n
	}
	return b.fail()
}

func (b *cbuilder) fill(n *Node, loc string, m map[string]any) {
	at := func(k string) string { return b.at(loc, k, "") }
	if t, has := m["type"]; has {
		var ok bool
		if n.types, ok = TypeKinds(t); !ok {
			b.fail()
		}
		n.typeNames = typeNames(t)
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
		n.required = make([]string, 0, len(list))
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
		n.props = make(map[string]*Node, len(pm))
		for name, sub := range pm {
			n.props[name] = b.build(b.at(loc, "properties", jsonvalue.EscapePointer(name)), sub)
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
			n.patterns = append(n.patterns, cpattern{re: re, node: b.build(b.at(loc, "patternProperties", jsonvalue.EscapePointer(pat)), pm[pat])})
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
				n.depSchemas[k] = b.build(b.at(loc, "dependencies", jsonvalue.EscapePointer(k)), dv)
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
				n.tuple = append(n.tuple, b.sub(b.at(loc, "items", strconv.Itoa(i)), e))
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
			subs = append(subs, b.build(b.at(loc, k, strconv.Itoa(i)), e))
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
	e := &cenum{strs: make(map[string]bool, len(list)), keys: make(map[string]bool, len(list)), list: make([]string, 0, len(list))}
	for _, v := range list {
		if s, ok := v.(string); ok {
			e.strs[s] = true
		}
		k, ok := EqKey(v)
		if !ok {
			b.fail()
		}
		e.keys[k] = true
		e.list = append(e.list, k)
	}
	return e
}

// typeNames is the type keyword's value t (a name or a list of names) as
// gojsonschema writes it in an issue: the name, or the names in the
// schema's order as [a,b].
func typeNames(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		names := make([]string, len(t))
		for i, e := range t {
			names[i], _ = e.(string)
		}
		if len(names) == 1 {
			return names[0]
		}
		return "[" + strings.Join(names, ",") + "]"
	}
	return ""
}
