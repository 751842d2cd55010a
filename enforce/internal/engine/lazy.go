package engine

import (
	"encoding/json"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Compiles reports whether gojsonschema surely compiles tree, which the
// audit made for draft (see Compile): its parse (schema.go, parseSchema)
// refuses nothing in it. It is sound, not complete: false where it
// cannot tell, and then the caller compiles at once, so that whether a
// schema is refused never waits for an answer. It reads every subschema
// gojsonschema parses: definitions too, and each $ref's target.
func Compiles(tree any, draft Draft) bool {
	c := compilesCheck{tree: tree, draft: draft}
	return c.schema(tree)
}

type compilesCheck struct {
	tree  any
	draft Draft
	refs  map[string]bool // the targets read (or being read); nil until the first
}

// gojsonschemaTypes are the names its type keyword takes.
var gojsonschemaTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "number": true, "null": true, "object": true, "string": true}

// safeRef is a reference the audit wrote that gojsonschema resolves as
// this package does: the root, or a pointer of plain names.
var safeRef = regexp.MustCompile(`^#(/[A-Za-z0-9_.\-]+)*$`)

func (c *compilesCheck) schema(v any) bool {
	switch v := v.(type) {
	case bool:
		return c.draft >= Draft6
	case map[string]any:
		return c.object(v)
	}
	return false
}

// schemas is a map of subschemas (definitions, properties).
func (c *compilesCheck) schemas(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, s := range m {
		if !c.schema(s) {
			return false
		}
	}
	return true
}

// list is an array of subschemas (allOf, anyOf, oneOf, items).
func (c *compilesCheck) list(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, s := range l {
		if !c.schema(s) {
			return false
		}
	}
	return true
}

func (c *compilesCheck) object(m map[string]any) bool {
	if _, has := m["definitions"]; has && !c.schemas(m["definitions"]) {
		return false
	}
	if ref, has := m["$ref"]; has {
		// gojsonschema parses the target, and the siblings too once the
		// same reference was parsed before (schema.go, parseSchema).
		rs, ok := ref.(string)
		if !ok || !safeRef.MatchString(rs) {
			return false
		}
		if !c.refs[rs] {
			if c.refs == nil {
				c.refs = map[string]bool{}
			}
			c.refs[rs] = true
			target, found := jsonvalue.ResolvePointer(c.tree, rs[1:])
			if !found || !c.schema(target) {
				return false
			}
		}
	}
	counts := [6]int{-1, -1, -1, -1, -1, -1} // countKeys' values, -1 when absent
	for k, v := range m {
		ok := true
		switch k {
		case "definitions", "$defs", "$ref":
			// read above; $defs is no keyword of gojsonschema's
		case "type":
			ok = c.types(v)
		case "properties":
			ok = c.schemas(v)
		case "additionalProperties", "additionalItems":
			_, isBool := v.(bool)
			_, isMap := v.(map[string]any)
			ok = isBool || isMap && c.schema(v)
		case "patternProperties":
			pm, isMap := v.(map[string]any)
			ok = isMap
			for p, s := range pm {
				if !compilesRegexp(p) || !c.schema(s) {
					ok = false
				}
			}
		case "propertyNames", "contains", "if", "then", "else", "not":
			ok = c.schema(v)
		case "dependencies":
			ok = c.dependencies(v)
		case "items":
			if _, isList := v.([]any); isList {
				ok = c.list(v)
			} else {
				ok = c.schema(v)
			}
		case "allOf", "anyOf", "oneOf":
			ok = c.list(v)
		case "multipleOf", "minimum", "maximum":
			sign, isNum := numberSign(v)
			ok = isNum && (k != "multipleOf" || sign > 0)
		case "exclusiveMinimum", "exclusiveMaximum":
			if c.draft == Draft4 {
				_, isBool := v.(bool)
				_, bounded := m[map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}[k]]
				_, isNum := numberSign(m[map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}[k]])
				ok = isBool && bounded && isNum
			} else {
				_, ok = numberSign(v)
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			n, isNum := v.(json.Number)
			i, err := strconv.Atoi(string(n))
			ok = isNum && err == nil && i >= 0
			counts[slices.Index(countKeys[:], k)] = i
		case "pattern":
			s, isString := v.(string)
			ok = isString && compilesRegexp(s)
		case "format":
			_, ok = v.(string)
		case "required":
			ok = c.names(v, c.draft == Draft4)
		case "uniqueItems":
			_, ok = v.(bool)
		case "const":
			_, ok = EqKey(v)
		case "enum":
			ok = c.enum(v)
		default:
			ok = false // a keyword this check does not know: gojsonschema judges at once
		}
		if !ok {
			return false
		}
	}
	for i := 0; i < len(counts); i += 2 {
		// gojsonschema refuses a minimum above the maximum (of lengths
		// and of members; of items, this check too, to be safe).
		if lo, hi := counts[i], counts[i+1]; lo >= 0 && hi >= 0 && lo > hi {
			return false
		}
	}
	return true
}

// countKeys are the keywords whose value is a count, each minimum
// before its maximum.
var countKeys = [6]string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}

// numberSign is the sign of v, and whether it is a number gojsonschema
// reads (one big.Rat reads): a plain integer read as it is written,
// without a big.Rat, as most bounds are.
func numberSign(v any) (sign int, ok bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if d := strings.TrimPrefix(string(n), "-"); d != "" && strings.Trim(d, "0123456789") == "" {
		switch {
		case strings.Trim(d, "0") == "":
			return 0, true
		case d != string(n):
			return -1, true
		}
		return 1, true
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return 0, false
	}
	return r.Sign(), true
}

// compilesRegexp reports whether regexp.Compile, as gojsonschema calls
// it, compiles p: only its parse can refuse, so only that is run.
func compilesRegexp(p string) bool {
	if plainRegexp(p) {
		return true
	}
	_, err := syntax.Parse(p, syntax.Perl)
	return err == nil
}

// plainRegexp reports whether p is in a small subset of regexp/syntax's
// Perl grammar that it surely parses, read without building anything:
// printable ASCII, literals, ".", anchors, classes of literals and
// ordered ranges, groups without flags, alternation, and *, + or ?
// after an atom. false says nothing: syntax.Parse then decides.
func plainRegexp(p string) bool {
	if len(p) > 256 {
		return false // nesting and size stay far below regexp/syntax's limits
	}
	depth, atom := 0, false // atom: what came last can be repeated
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < 0x20 || c > 0x7e {
			return false
		}
		switch c {
		case '\\':
			if i+1 == len(p) || !plainEscape(p[i+1]) {
				return false
			}
			i++
			atom = true
		case '[':
			end, ok := plainClass(p, i+1)
			if !ok {
				return false
			}
			i, atom = end, true
		case '(':
			if i+1 == len(p) || p[i+1] == '?' || p[i+1] == ')' {
				return false
			}
			depth, atom = depth+1, false
		case ')':
			if depth == 0 {
				return false
			}
			depth, atom = depth-1, true
		case '*', '+', '?':
			if !atom {
				return false
			}
			atom = false
		case '|', '^', '$':
			atom = false
		case '{', '}', ']':
			return false // a count, or a brace or bracket read as itself
		default:
			atom = true
		}
	}
	return depth == 0
}

// plainEscape: \c is a class escape or a punctuation mark escaped, as
// regexp/syntax reads it in and out of classes.
func plainEscape(c byte) bool {
	return strings.IndexByte(`dDwWsS.+*?()|[]{}^$\/-`, c) >= 0
}

// plainClass reads the class whose body starts at p[i] (past its '['),
// in plainRegexp's subset, and returns the index of its ']'.
func plainClass(p string, i int) (end int, ok bool) {
	if i < len(p) && p[i] == '^' {
		i++
	}
	if i < len(p) && p[i] == ']' {
		return 0, false // an empty class, or a ']' read as itself
	}
	for i < len(p) {
		c := p[i]
		switch {
		case c < 0x20 || c > 0x7e || c == '[':
			return 0, false
		case c == ']':
			return i, true
		case c == '\\':
			if i+1 == len(p) || !plainEscape(p[i+1]) || i+2 < len(p) && p[i+2] == '-' {
				return 0, false
			}
			i += 2
		case i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']':
			// A range: both ends literals, in order.
			hi := p[i+2]
			if hi < c || hi > 0x7e || hi == '\\' || hi == '[' {
				return 0, false
			}
			i += 3
		default:
			i++
		}
	}
	return 0, false
}

func (c *compilesCheck) types(v any) bool {
	switch v := v.(type) {
	case string:
		return gojsonschemaTypes[v]
	case []any:
		for i, e := range v {
			s, ok := e.(string)
			if !ok || !gojsonschemaTypes[s] || slices.Contains(v[:i], e) {
				return false
			}
		}
		return true
	}
	return false
}

// names is a list of unique strings (required), not empty where
// nonEmpty.
func (c *compilesCheck) names(v any, nonEmpty bool) bool {
	l, ok := v.([]any)
	if !ok || nonEmpty && len(l) == 0 {
		return false
	}
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return distinct(l)
}

// distinct reports whether no two of l, each a string, are equal:
// pairwise for a short list (no map), by a set for a long one.
func distinct(l []any) bool {
	if len(l) <= 16 {
		for i := 1; i < len(l); i++ {
			if slices.Contains(l[:i], l[i]) {
				return false
			}
		}
		return true
	}
	seen := make(map[string]bool, len(l))
	for _, e := range l {
		s := e.(string)
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// validStrings reports whether every value of l is a string of valid
// UTF-8: then two are equal as gojsonschema compares them (EqKey, their
// encoding) exactly when they are equal strings.
func validStrings(l []any) bool {
	for _, e := range l {
		if s, ok := e.(string); !ok || !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func (c *compilesCheck) dependencies(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, d := range m {
		switch d := d.(type) {
		case []any:
			for _, e := range d {
				if _, ok := e.(string); !ok {
					return false
				}
			}
		default:
			if !c.schema(d) {
				return false
			}
		}
	}
	return true
}

func (c *compilesCheck) enum(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	if validStrings(l) {
		return distinct(l) // an enum of names, as most are: no encoding
	}
	seen := make(map[string]bool, len(l))
	for _, e := range l {
		k, ok := EqKey(e)
		if !ok || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// deepCopy is a copy of tree sharing nothing that can change:
// gojsonschema writes each $ref back into the tree it compiles, which
// a lazy compile must not do under readers of the audited tree.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}
