package enforce

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

// Where a Stream gives an early verdict. At json-parse, at the byte that
// makes the answer unparseable: prose before the value, a markdown
// fence, anything after a whole value but whitespace, a control
// character or invalid UTF-8 in a string, nesting past MaxDepth, the
// byte past the size bound; where the message names a character that
// starts there, it waits for the rest of that character, and a number
// past its length bound is judged when it ends. At schema-validate, only
// in subschemas reached from the root through properties,
// additionalProperties, items (one schema) and $ref, using only
// planChecked and planAtEnd keywords: a value of the wrong type at its
// first byte (a number at its end: the message names integer or
// number); a member additionalProperties false refuses, when its name
// closes; a scalar breaking a planChecked keyword, when it closes; an
// array past maxItems, at the item too many. Each is gojsonschema's own
// verdict on a document holding only the path to the value; a Stream
// asks at most maxAsks times, and not about a value below more than
// maxAskItems array items or with a pointer longer than MaxQuote.
//
// streamPlan is the part of a schema a [Stream] may judge before the
// answer ends. Each subschema gojsonschema reaches through properties,
// additionalProperties, items (one schema) and $ref alone, and that uses
// only the keywords below, becomes a pnode; any other subschema, and all
// below it, gives no early verdict.
type streamPlan struct {
	tree  any // the audited schema, as gojsonschema compiled it
	draft draft

	once sync.Once
	root *pnode
}

// rootNode returns the plan's root, built (on the first call) with links
// to fast, the schema's fast path (see pnode.c).
func (p *streamPlan) rootNode(fast *cnode) *pnode {
	p.once.Do(func() {
		b := planBuilder{tree: p.tree, memo: map[string]*pnode{}}
		p.root = b.build("", p.tree, fast).live()
	})
	return p.root
}

// kinds is a set of JSON types, as the type keyword names them.
type kinds uint8

const (
	kindNull kinds = 1 << iota
	kindBoolean
	kindInteger
	kindNumber
	kindString
	kindArray
	kindObject
)

var kindNames = map[string]kinds{
	"null": kindNull, "boolean": kindBoolean, "integer": kindInteger, "number": kindNumber,
	"string": kindString, "array": kindArray, "object": kindObject,
}

// pnode is one subschema of the plan. Its checks are a filter: when one
// says a value may fail, gojsonschema itself decides (see
// [Stream.confirm]), so a check that is too eager costs time, never a
// wrong verdict.
type pnode struct {
	opaque bool // uses something whose verdict a prefix cannot decide
	never  bool // the schema false
	types  kinds

	hasEnum bool
	enum    []any // with canonical numbers, as the audit wrote them

	minLen, maxLen int // -1 when absent
	pattern        *regexp.Regexp
	format         string

	numeric                  bool
	hasMin, hasMax           bool
	min, max                 float64
	exMinFlag, exMaxFlag     bool // draft-04's boolean exclusive bounds
	hasExMin, hasExMax       bool
	exMin, exMax, multipleOf float64

	props     map[string]pprop
	addlFalse bool
	addl      *pnode
	items     *pnode
	maxItems  int // -1 when absent

	// c is the fast path's subschema this pnode was built with (nil:
	// none); a Stream whose object has the subschema c takes its
	// members' subschemas from props, sparing a lookup.
	c *cnode
}

// pprop is a member's pnode, and its subschema for the fast path:
// c.member(name) of the pnode's c.
type pprop struct {
	p *pnode
	c *cnode
}

// live returns n, or nil when no early verdict can come from n or below.
func (n *pnode) live() *pnode {
	if n == nil || n.opaque {
		return nil
	}
	return n
}

// Keywords by what a prefix can decide about them.
var (
	// planChecked are checked as the answer streams.
	planChecked = map[string]bool{
		"type": true, "enum": true, "const": true, "pattern": true, "format": true,
		"minLength": true, "maxLength": true, "minimum": true, "maximum": true,
		"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
		"properties": true, "additionalProperties": true, "items": true, "maxItems": true,
	}
	// planAtEnd only add issues of their own at the end; they change
	// nothing about the keywords checked early, here or below.
	planAtEnd = map[string]bool{
		"required": true, "minItems": true, "minProperties": true, "maxProperties": true,
		"uniqueItems": true, "additionalItems": true, // without an items array, gojsonschema ignores it
		"title": true, "description": true, "default": true, "examples": true, "$comment": true,
		"readOnly": true, "writeOnly": true, "deprecated": true,
		"definitions": true, "$defs": true, "contentMediaType": true, "contentEncoding": true,
	}
)

type planBuilder struct {
	tree any
	memo map[string]*pnode // by location in the audited tree
}

func (b *planBuilder) build(loc string, v any, c *cnode) *pnode {
	if n, ok := b.memo[loc]; ok {
		return n // being built further up, for a recursive $ref
	}
	n := &pnode{minLen: -1, maxLen: -1, maxItems: -1, c: c}
	b.memo[loc] = n
	switch v := v.(type) {
	case bool:
		n.never = !v
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			// The audit leaves a $ref with siblings only where the
			// validator ignores them: the target is the whole schema.
			target, err := refPointer(ref)
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

func (b *planBuilder) fill(n *pnode, loc string, m map[string]any, c *cnode) {
	for k := range m {
		if !planChecked[k] && !planAtEnd[k] {
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
		n.types, ok = typeKinds(t)
	}
	if e, has := m["enum"].([]any); has {
		n.hasEnum, n.enum = true, e
	}
	if c, has := m["const"]; has {
		if n.hasEnum {
			n.enum = append(append([]any(nil), n.enum...), c) // either may fail; gojsonschema decides
		} else {
			n.hasEnum, n.enum = true, []any{c}
		}
	}
	n.minLen, ok = countOf(m, "minLength", ok)
	n.maxLen, ok = countOf(m, "maxLength", ok)
	n.maxItems, ok = countOf(m, "maxItems", ok)
	if p, has := m["pattern"]; has {
		ps, isString := p.(string)
		re, err := regexp.Compile(ps)
		ok = ok && isString && err == nil
		n.pattern = re
	}
	if f, has := m["format"]; has {
		n.format, _ = f.(string)
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
		n.props = make(map[string]pprop, len(props))
		for name, sub := range props {
			cm := c.member(name)
			n.props[name] = pprop{p: b.build(loc+"/properties/"+jsonvalue.EscapePointer(name), sub, cm), c: cm}
		}
	}
	switch ap := m["additionalProperties"].(type) {
	case bool:
		n.addlFalse = !ap
	case map[string]any:
		n.addl = b.build(loc+"/additionalProperties", ap, c.member(unlistedName(m)))
	}
	if items, has := m["items"]; has {
		n.items = b.build(loc+"/items", items, c.item(0))
	}
}

func typeKinds(t any) (kinds, bool) {
	var k kinds
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

// admits reports whether a value of kind k (never kindInteger: a number
// is kindNumber) can pass n's type. A number's exactness waits for its
// end.
func (n *pnode) admits(k kinds) bool {
	if n.never {
		return false
	}
	if n.types == 0 {
		return true
	}
	if k == kindNumber {
		return n.types&(kindNumber|kindInteger) != 0
	}
	return n.types&k != 0
}

// mayFail reports whether a closed scalar of kind k may break n: text is
// a string's value or a number's JSON text; for true, false and null it
// is the literal.
func (n *pnode) mayFail(k kinds, text string) bool {
	if !n.admits(k) {
		return true
	}
	if n.hasEnum && !n.inEnum(k, text) {
		return true
	}
	switch k {
	case kindString:
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := utf8.RuneCountInString(text)
			if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
				return true
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(text) {
			return true
		}
		if n.format != "" && !gojsonschema.FormatCheckers.IsFormat(n.format, text) {
			return true
		}
	case kindNumber:
		exact := !strings.ContainsAny(text, ".eE")
		if n.types != 0 && n.types&kindNumber == 0 && !exact {
			return true // 1.0 is an integer too: gojsonschema decides
		}
		if n.numeric {
			return n.numberMayFail(text)
		}
	}
	return false
}

func (n *pnode) numberMayFail(text string) bool {
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

func (n *pnode) inEnum(k kinds, text string) bool {
	for _, e := range n.enum {
		switch e := e.(type) {
		case string:
			if k == kindString && e == text {
				return true
			}
		case json.Number:
			if k == kindNumber && (string(e) == text || jsonvalue.CanonicalNumber(json.Number(text)) == e) {
				return true
			}
		case bool:
			if k == kindBoolean && (text == "true") == e {
				return true
			}
		case nil:
			if k == kindNull {
				return true
			}
		}
	}
	return false
}

// unlistedName is a member name that properties in m does not list: the
// subschema of such a member (for the links of pnode.c only; a link that
// does not fit costs a lookup, never a wrong subschema).
func unlistedName(m map[string]any) string {
	props, _ := m["properties"].(map[string]any)
	name := "\x00"
	for props[name] != nil {
		name += "\x00"
	}
	return name
}
