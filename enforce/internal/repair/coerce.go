package repair

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// The coerce repair ([Coerce]) rewrites a value only where the
// schema leaves no doubt: at a location where no subschema that may
// apply admits a string, a string that spells a JSON number or a boolean
// becomes it; where only an array is admitted, a string that holds a
// JSON array becomes that array, and another lone value an array of it,
// unless it has a second reading (null, an empty string, a string with a
// separator: see stringForArray), which is left. So the answer as
// written certainly failed there, and the new value is the one it spelled.
//
// "May apply" is read generously, so that doubt never coerces: allOf
// constrains, anyOf and oneOf admit what any branch admits, and not,
// if/then/else and dependencies are left out (each can only narrow what
// is admitted). A member's subschemas are those of its properties entry,
// else of the patternProperties that match its name, else of
// additionalProperties; a pattern Go cannot compile makes the member
// admit anything.

// maxCoerceWork bounds the subschemas the coerce repair looks at for one
// answer; past it, the answer is not coerced.
const maxCoerceWork = 1 << 20

type coercer struct {
	plan  *engine.Plan
	text  string
	work  int
	edits []textEdit
	// bare is where the strings the quote repair wrote begin, ascending,
	// those not yet reached; misplaced, one was where the schema admits
	// no string.
	bare      []int
	misplaced bool
}

type textEdit struct {
	start, end int
	with       string
}

// coerce returns text, one JSON value, with the coerce repair applied,
// and whether it changed anything.
func (m Mender) coerce(text string) (string, bool) {
	if m.Plan == nil {
		return "", false
	}
	c := coercer{plan: m.Plan, text: text}
	p := jsonvalue.Parser{S: text}
	p.SkipSpace()
	if _, ok := c.walk(p.I, m.Plan.Tree); !ok || len(c.edits) == 0 {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(text) + 2*len(c.edits))
	at := 0
	for _, e := range c.edits {
		b.WriteString(text[at:e.start])
		b.WriteString(e.with)
		at = e.end
	}
	b.WriteString(text[at:])
	return b.String(), true
}

// stringsAdmitted reports whether the schema admits a string at every
// place v's bare words were quoted, and no boolean where the word is a
// yes or a no (yesNoWord): the quote repair's condition; true when there
// are none.
func (m Mender) stringsAdmitted(v relaxed) bool {
	if len(v.bare) == 0 {
		return true
	}
	if m.Plan == nil {
		return false
	}
	c := coercer{plan: m.Plan, text: v.json, bare: v.bare}
	p := jsonvalue.Parser{S: v.json}
	p.SkipSpace()
	_, ok := c.walk(p.I, m.Plan.Tree)
	return ok && !c.misplaced && len(c.bare) == 0
}

// walk visits the value at text[i:] under schema and returns where it
// ends; false when the work bound was passed.
func (c *coercer) walk(i int, schema any) (int, bool) {
	k, ok := c.kinds(schema, 0)
	if !ok {
		return 0, false
	}
	t := c.text[i]
	if len(c.bare) > 0 && c.bare[0] == i {
		c.bare = c.bare[1:]
		c.misplaced = c.misplaced || k&engine.KindString == 0 ||
			k&engine.KindBoolean != 0 && yesNoWord(c.text[i+1:strings.IndexByte(c.text[i+1:], '"')+i+1])
	}
	if k == engine.KindArray && t == '"' {
		return c.stringForArray(i)
	}
	if k == engine.KindArray && t == 'n' {
		// null where only an array is admitted: [] or [null], two
		// readings.
		return i + len("null"), true
	}
	if k == engine.KindArray && t != '[' {
		// A lone value where only an array is admitted: [value].
		c.edits = append(c.edits, textEdit{start: i, end: i, with: "["})
		end, ok := c.walk(i, c.item(schema, 0))
		c.edits = append(c.edits, textEdit{start: end, end: end, with: "]"})
		return end, ok
	}
	switch t {
	case '{':
		return c.object(i, schema)
	case '[':
		return c.array(i, schema)
	case '"':
		p := jsonvalue.Parser{S: c.text, I: i}
		p.Str()
		raw := c.text[i+1 : p.I-1]
		if k&engine.KindString == 0 && !strings.ContainsRune(raw, '\\') {
			switch {
			case k&engine.KindNumber != 0 && isNumberText(raw, false),
				k&engine.KindInteger != 0 && isNumberText(raw, true),
				k&engine.KindBoolean != 0 && (raw == "true" || raw == "false"):
				c.edits = append(c.edits, textEdit{start: i, end: p.I, with: raw})
			}
		}
		return p.I, true
	}
	p := jsonvalue.Parser{S: c.text, I: i}
	p.Value()
	return p.I, true
}

// stringForArray reads the string at text[i:] where only an array is
// admitted, and returns where it ends. A string that holds a JSON array
// ("[\"a\", \"b\"]") is read as that array: it has one reading. A string
// that begins with '[' and is no JSON array, is empty, or holds a
// separator (listSeparated: "a, b", "a/b", "a and b") has two, one item
// or several, and is left. Any other string is an array of it.
func (c *coercer) stringForArray(i int) (int, bool) {
	p := jsonvalue.Parser{S: c.text, I: i}
	p.Str()
	var content string
	if json.Unmarshal([]byte(c.text[i:p.I]), &content) != nil {
		return p.I, true
	}
	inner := jsonvalue.Parser{S: content}
	inner.SkipSpace()
	switch {
	case inner.I < len(content) && content[inner.I] == '[':
		if validJSON(content) {
			c.edits = append(c.edits, textEdit{start: i, end: p.I, with: strings.TrimSpace(content)})
		}
	case content != "" && !listSeparated(content):
		c.edits = append(c.edits, textEdit{start: i, end: i, with: "["}, textEdit{start: p.I, end: p.I, with: "]"})
	}
	return p.I, true
}

// listSeparated reports whether s may be a list written in one string:
// it holds a comma, semicolon, bar, slash, ampersand, plus, tab or line
// break, or the word "and" or "or" ("salt and pepper" is one item or
// two).
func listSeparated(s string) bool {
	if strings.ContainsAny(s, ",;|/&+\t\n\r") {
		return true
	}
	for _, w := range strings.Fields(s) {
		if strings.EqualFold(w, "and") || strings.EqualFold(w, "or") {
			return true
		}
	}
	return false
}

func (c *coercer) object(i int, schema any) (int, bool) {
	p := jsonvalue.Parser{S: c.text, I: i + 1}
	for {
		p.SkipSpace()
		if c.text[p.I] == '}' {
			return p.I + 1, true
		}
		if c.text[p.I] == ',' {
			p.I++
			p.SkipSpace()
		}
		name := p.Str()
		p.SkipSpace()
		p.I++ // ':'
		p.SkipSpace()
		end, ok := c.walk(p.I, c.member(schema, name))
		if !ok {
			return 0, false
		}
		p.I = end
	}
}

func (c *coercer) array(i int, schema any) (int, bool) {
	p := jsonvalue.Parser{S: c.text, I: i + 1}
	for n := 0; ; n++ {
		p.SkipSpace()
		if c.text[p.I] == ']' {
			return p.I + 1, true
		}
		if c.text[p.I] == ',' {
			p.I++
			p.SkipSpace()
		}
		end, ok := c.walk(p.I, c.item(schema, n))
		if !ok {
			return 0, false
		}
		p.I = end
	}
}

// kinds is what schema admits, read generously; false past the work
// bound or the nesting bound.
func (c *coercer) kinds(schema any, depth int) (engine.Kinds, bool) {
	const all = engine.KindNull | engine.KindBoolean | engine.KindInteger | engine.KindNumber | engine.KindString | engine.KindArray | engine.KindObject
	if c.work++; c.work > maxCoerceWork || depth > jsonvalue.MaxDepth {
		return 0, false
	}
	switch v := schema.(type) {
	case bool:
		if v {
			return all, true
		}
		return 0, true
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			return c.kinds(c.resolve(ref), depth+1)
		}
		k := engine.Kinds(all)
		if t, ok := v["type"]; ok {
			if tk, ok := engine.TypeKinds(t); ok {
				if tk&engine.KindNumber != 0 {
					tk |= engine.KindInteger
				}
				k &= tk
			}
		}
		if e, ok := v["enum"].([]any); ok {
			var ek engine.Kinds
			for _, x := range e {
				ek |= kindOf(x)
			}
			k &= ek
		}
		if x, ok := v["const"]; ok {
			k &= kindOf(x)
		}
		if subs, ok := v["allOf"].([]any); ok {
			for _, sub := range subs {
				sk, ok := c.kinds(sub, depth+1)
				if !ok {
					return 0, false
				}
				k &= sk
			}
		}
		for _, kw := range [...]string{"anyOf", "oneOf"} {
			subs, ok := v[kw].([]any)
			if !ok {
				continue
			}
			var any engine.Kinds
			for _, sub := range subs {
				sk, ok := c.kinds(sub, depth+1)
				if !ok {
					return 0, false
				}
				any |= sk
			}
			k &= any
		}
		return k, true
	}
	return all, true // not a schema the audit left: admit anything
}

// kindOf is the kind of a parsed JSON value; a number that is an
// integer is both.
func kindOf(v any) engine.Kinds {
	switch v := v.(type) {
	case nil:
		return engine.KindNull
	case bool:
		return engine.KindBoolean
	case string:
		return engine.KindString
	case []any:
		return engine.KindArray
	case map[string]any:
		return engine.KindObject
	default:
		if n, ok := v.(interface{ String() string }); ok && isNumberText(n.String(), true) {
			return engine.KindNumber | engine.KindInteger
		}
		return engine.KindNumber
	}
}

func (c *coercer) resolve(ref string) any {
	ptr, err := engine.RefPointer(ref)
	if err != nil {
		return true
	}
	sub, ok := jsonvalue.ResolvePointer(c.plan.Tree, ptr)
	if !ok {
		return true
	}
	return sub
}

// member is a schema for what schema says of its member name: every
// subschema that may apply to it.
func (c *coercer) member(schema any, name string) any {
	return c.part(schema, 0, engine.KindObject, func(m map[string]any) any {
		if props, ok := m["properties"].(map[string]any); ok {
			if sub, ok := props[name]; ok {
				return sub
			}
		}
		if pats, ok := m["patternProperties"].(map[string]any); ok {
			var matched []any
			for pat, sub := range pats {
				re, err := regexp.Compile(pat)
				if err != nil {
					return true
				}
				if re.MatchString(name) {
					matched = append(matched, sub)
				}
			}
			if len(matched) > 0 {
				return map[string]any{"allOf": matched}
			}
		}
		if ap, ok := m["additionalProperties"]; ok {
			return ap
		}
		return true
	})
}

// item is a schema for what schema says of its item n.
func (c *coercer) item(schema any, n int) any {
	return c.part(schema, 0, engine.KindArray, func(m map[string]any) any {
		switch items := m["items"].(type) {
		case []any:
			if n < len(items) {
				return items[n]
			}
			if ai, ok := m["additionalItems"]; ok {
				return ai
			}
		case nil:
		default:
			return items
		}
		return true
	})
}

// part builds the schema of a part of a value of kind k (a member of an
// object, an item of an array) from what each subschema of schema says
// of it (own), keeping allOf as allOf and anyOf and oneOf as anyOf
// without the branches that cannot admit a value of kind k.
func (c *coercer) part(schema any, depth int, k engine.Kinds, own func(map[string]any) any) any {
	if c.work++; c.work > maxCoerceWork || depth > jsonvalue.MaxDepth {
		return true
	}
	m, ok := schema.(map[string]any)
	if !ok {
		return true // a boolean: true admits anything; false, nothing, so the answer failed anyway
	}
	if ref, ok := m["$ref"].(string); ok {
		return c.part(c.resolve(ref), depth+1, k, own)
	}
	all := []any{own(m)}
	if subs, ok := m["allOf"].([]any); ok {
		for _, sub := range subs {
			all = append(all, c.part(sub, depth+1, k, own))
		}
	}
	for _, kw := range [...]string{"anyOf", "oneOf"} {
		if subs, ok := m[kw].([]any); ok {
			var branches []any
			for _, sub := range subs {
				if bk, ok := c.kinds(sub, depth+1); ok && bk&k == 0 {
					continue // cannot apply to this value
				}
				branches = append(branches, c.part(sub, depth+1, k, own))
			}
			if len(branches) == 0 {
				return true // no branch admits the value: it fails anyway
			}
			all = append(all, map[string]any{"anyOf": branches})
		}
	}
	if len(all) == 1 {
		return all[0]
	}
	return map[string]any{"allOf": all}
}

// isNumberText reports whether s is a JSON number (an integer, with
// integer: no fraction and no exponent).
func isNumberText(s string, integer bool) bool {
	if s == "" {
		return false
	}
	if integer && strings.ContainsAny(s, ".eE") {
		return false
	}
	p := jsonvalue.Parser{S: s}
	if c := s[0]; c != '-' && (c < '0' || c > '9') {
		return false
	}
	p.Number()
	return p.Err == nil && p.I == len(s)
}
