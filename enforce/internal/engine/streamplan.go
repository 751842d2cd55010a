package engine

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// Where an enforce.Incremental gives an early verdict. At json-parse, at the
// byte that makes the answer unparseable: prose before the value, a
// markdown fence, anything after a whole value but whitespace, a
// control character or invalid UTF-8 in a string, nesting past
// MaxDepth, the byte past the size bound; where the message names a
// character that starts there, it waits for the rest of that character,
// and a number past its length bound is judged when it ends. At
// schema-validate, only in subschemas reached from the root through
// properties, additionalProperties, items (one schema) and $ref, using
// only keywords the table (keywords.go) plans: a value of the wrong
// type at its first byte (a number at its end: the message names
// integer or number); a member additionalProperties false refuses, when
// its name closes; a scalar breaking a keyword checked as it streams,
// when it closes; an array past maxItems, at the item too many. Each is
// gojsonschema's own verdict on a document holding only the path to the
// value; an Incremental asks at most maxAsks times, and not about a value
// below more than maxAskItems array items or with a pointer longer than
// MaxQuote.

// Plan is the part of a schema an enforce.Incremental may judge before the
// answer ends. Each subschema gojsonschema reaches through properties,
// additionalProperties, items (one schema) and $ref alone, and that uses
// only keywords the table plans (keywords.go), becomes a PlanNode; any other subschema, and
// all below it, gives no early verdict.
type Plan struct {
	Tree  any // the audited schema, as gojsonschema compiled it
	Draft Draft

	once sync.Once
	root *PlanNode
}

// Root returns the plan's root, built (on the first call) with links
// to fast, the schema's fast path (see PlanNode.C).
func (p *Plan) Root(fast *Node) *PlanNode {
	p.once.Do(func() {
		b := planBuilder{tree: p.Tree, memo: map[string]*PlanNode{}}
		p.root = b.build("", p.Tree, fast).Live()
	})
	return p.root
}

// Kinds is a set of JSON types, as the type keyword names them.
type Kinds uint8

// The JSON types.
const (
	KindNull Kinds = 1 << iota
	KindBoolean
	KindInteger
	KindNumber
	KindString
	KindArray
	KindObject
)

var kindNames = map[string]Kinds{
	"null": KindNull, "boolean": KindBoolean, "integer": KindInteger, "number": KindNumber,
	"string": KindString, "array": KindArray, "object": KindObject,
}

// PlanNode is one subschema of the plan. Its checks are a filter: when one
// says a value may fail, gojsonschema itself decides (enforce's
// Incremental.ask), so a check that is too eager costs time, never a
// wrong verdict.
type PlanNode struct {
	opaque bool // uses something whose verdict a prefix cannot decide
	Never  bool // the schema false
	types  Kinds

	HasEnum bool
	enum    []any // with canonical numbers, as the audit wrote them

	MinLen, MaxLen int // -1 when absent
	Pattern        *regexp.Regexp
	Format         string

	numeric                  bool
	hasMin, hasMax           bool
	min, max                 float64
	exMinFlag, exMaxFlag     bool // draft-04's boolean exclusive bounds
	hasExMin, hasExMax       bool
	exMin, exMax, multipleOf float64

	Props     map[string]pprop
	AddlFalse bool
	Addl      *PlanNode
	Items     *PlanNode
	MaxItems  int // -1 when absent

	// C is the fast path's subschema this PlanNode was built with (nil:
	// none); an Incremental whose object has the subschema c takes its
	// members' subschemas from props, sparing a lookup.
	C *Node
}

// pprop is a member's PlanNode, and its subschema for the fast path:
// C.Member(name) of the PlanNode's C.
type pprop struct {
	P *PlanNode
	C *Node
}

// Live returns n, or nil when no early verdict can come from n or below.
func (n *PlanNode) Live() *PlanNode {
	if n == nil || n.opaque {
		return nil
	}
	return n
}

type planBuilder struct {
	tree any
	memo map[string]*PlanNode // by location in the audited tree
}

func (b *planBuilder) build(loc string, v any, c *Node) *PlanNode {
	if n, ok := b.memo[loc]; ok {
		return n // being built further up, for a recursive $ref
	}
	n := &PlanNode{MinLen: -1, MaxLen: -1, MaxItems: -1, C: c}
	b.memo[loc] = n
	switch v := v.(type) {
	case bool:
		n.Never = !v
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			// The audit leaves a $ref with siblings only where the
			// validator ignores them: the target is the whole schema.
			target, err := RefPointer(ref)
			sub, found := jsonvalue.ResolvePointer(b.tree, target)
			if err != nil || !found {
				n.opaque = true
				return n
			}
			t := b.build(target, sub, c)
			b.memo[loc] = t
			return t
		}
		b.fill(n, loc, v, c)
	default:
		n.opaque = true
	}
	return n
}

func (b *planBuilder) fill(n *PlanNode, loc string, m map[string]any, c *Node) {
	for k := range m {
		if keywords[k].stream == streamUnplanned {
			n.opaque = true
			return
		}
	}
	if _, tuple := m["items"].([]any); tuple {
		n.opaque = true
		return
	}
	ok := true
	if t, has := m["type"]; has {
		n.types, ok = TypeKinds(t)
	}
	if e, has := m["enum"].([]any); has {
		n.HasEnum, n.enum = true, e
	}
	if c, has := m["const"]; has {
		if n.HasEnum {
			n.enum = append(append([]any(nil), n.enum...), c) // either may fail; gojsonschema decides
		} else {
			n.HasEnum, n.enum = true, []any{c}
		}
	}
	n.MinLen, ok = countOf(m, "minLength", ok)
	n.MaxLen, ok = countOf(m, "maxLength", ok)
	n.MaxItems, ok = countOf(m, "maxItems", ok)
	if p, has := m["pattern"]; has {
		ps, isString := p.(string)
		re, err := regexp.Compile(ps)
		ok = ok && isString && err == nil
		n.Pattern = re
	}
	if f, has := m["format"]; has {
		n.Format, _ = f.(string)
	}
	n.hasMin, n.min, ok = boundOf(m, "minimum", ok)
	n.hasMax, n.max, ok = boundOf(m, "maximum", ok)
	if f, isFlag := m["exclusiveMinimum"].(bool); isFlag {
		n.exMinFlag = f
	} else {
		n.hasExMin, n.exMin, ok = boundOf(m, "exclusiveMinimum", ok)
	}
	if f, isFlag := m["exclusiveMaximum"].(bool); isFlag {
		n.exMaxFlag = f
	} else {
		n.hasExMax, n.exMax, ok = boundOf(m, "exclusiveMaximum", ok)
	}
	var hasMult bool
	hasMult, n.multipleOf, ok = boundOf(m, "multipleOf", ok)
	if hasMult && !(n.multipleOf > 0) {
		ok = false
	}
	n.numeric = n.hasMin || n.hasMax || n.hasExMin || n.hasExMax || hasMult
	if !ok {
		n.opaque = true
		return
	}
	if props, has := m["properties"].(map[string]any); has {
		n.Props = make(map[string]pprop, len(props))
		for name, sub := range props {
			cm := c.Member(name)
			n.Props[name] = pprop{P: b.build(loc+"/properties/"+jsonvalue.EscapePointer(name), sub, cm), C: cm}
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case bool:
		n.AddlFalse = !ap
	case map[string]any:
		n.Addl = b.build(loc+"/additionalProperties", ap, c.Member(unlistedName(m)))
	}
	if items, has := m["items"]; has {
		n.Items = b.build(loc+"/items", items, c.Item(0))
	}
}

// TypeKinds is the set a type keyword's value t names; false when t is
// not a valid one.
func TypeKinds(t any) (Kinds, bool) {
	var k Kinds
	switch t := t.(type) {
	case string:
		k = kindNames[t]
		return k, k != 0
	case []any:
		for _, e := range t {
			s, _ := e.(string)
			if kindNames[s] == 0 {
				return 0, false
			}
			k |= kindNames[s]
		}
		return k, k != 0
	}
	return 0, false
}

func countOf(m map[string]any, key string, ok bool) (int, bool) {
	v, has := m[key]
	if !has {
		return -1, ok
	}
	n, isNum := v.(json.Number)
	i, err := strconv.Atoi(string(n))
	return i, ok && isNum && err == nil && i >= 0
}

func boundOf(m map[string]any, key string, ok bool) (bool, float64, bool) {
	v, has := m[key]
	if !has {
		return false, 0, ok
	}
	n, isNum := v.(json.Number)
	f, err := strconv.ParseFloat(string(n), 64)
	return true, f, ok && isNum && err == nil
}

// Admits reports whether a value of kind k (never KindInteger: a number
// is KindNumber) can pass n's type. A number's exactness waits for its
// end.
func (n *PlanNode) Admits(k Kinds) bool {
	if n.Never {
		return false
	}
	if n.types == 0 {
		return true
	}
	if k == KindNumber {
		return n.types&(KindNumber|KindInteger) != 0
	}
	return n.types&k != 0
}

// MayFail reports whether a closed scalar of kind k may break n: text is
// a string's value or a number's JSON text; for true, false and null it
// is the literal.
func (n *PlanNode) MayFail(k Kinds, text string) bool {
	if !n.Admits(k) {
		return true
	}
	if n.HasEnum && !n.inEnum(k, text) {
		return true
	}
	switch k {
	case KindString:
		if n.MinLen >= 0 || n.MaxLen >= 0 {
			l := utf8.RuneCountInString(text)
			if (n.MinLen >= 0 && l < n.MinLen) || (n.MaxLen >= 0 && l > n.MaxLen) {
				return true
			}
		}
		if n.Pattern != nil && !n.Pattern.MatchString(text) {
			return true
		}
		if n.Format != "" && !gojsonschema.FormatCheckers.IsFormat(n.Format, text) {
			return true
		}
	case KindNumber:
		exact := !strings.ContainsAny(text, ".eE")
		if n.types != 0 && n.types&KindNumber == 0 && !exact {
			return true // 1.0 is an integer too: gojsonschema decides
		}
		if n.numeric {
			return n.numberMayFail(text)
		}
	}
	return false
}

func (n *PlanNode) numberMayFail(text string) bool {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return true
	}
	switch {
	case n.hasMax && (f > n.max || (n.exMaxFlag && f >= n.max)),
		n.hasMin && (f < n.min || (n.exMinFlag && f <= n.min)),
		n.hasExMax && f >= n.exMax,
		n.hasExMin && f <= n.exMin:
		return true
	}
	if n.multipleOf > 0 {
		q := f / n.multipleOf
		if math.IsInf(q, 0) || math.IsNaN(q) || math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
			return true
		}
	}
	return false
}

func (n *PlanNode) inEnum(k Kinds, text string) bool {
	for _, e := range n.enum {
		switch e := e.(type) {
		case string:
			if k == KindString && e == text {
				return true
			}
		case json.Number:
			if k == KindNumber && (string(e) == text || jsonvalue.CanonicalNumber(json.Number(text)) == e) {
				return true
			}
		case bool:
			if k == KindBoolean && (text == "true") == e {
				return true
			}
		case nil:
			if k == KindNull {
				return true
			}
		}
	}
	return false
}

// unlistedName is a member name that properties in m does not list: the
// subschema of such a member (for the links of PlanNode.C only; a link that
// does not fit costs a lookup, never a wrong subschema).
func unlistedName(m map[string]any) string {
	props, _ := m["properties"].(map[string]any)
	name := "\x00"
	for props[name] != nil {
		name += "\x00"
	}
	return name
}
