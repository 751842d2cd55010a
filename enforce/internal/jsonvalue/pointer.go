package jsonvalue

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ResolvePointer follows ptr to a subschema (an object or a boolean).
func ResolvePointer(doc any, ptr string) (any, bool) {
	v, ok := LookupPointer(doc, ptr)
	switch v.(type) {
	case map[string]any, bool:
		return v, ok
	}
	return nil, false
}

// LookupPointer follows an unescaped-URI JSON Pointer (RFC 6901) into a
// parsed document.
func LookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapeToken(tok)
		switch d := doc.(type) {
		case map[string]any:
			v, ok := d[tok]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || tok[0] < '0' || tok[0] > '9' || i >= len(d) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			doc = d[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

// EscapePointer escapes s as one token of a JSON Pointer (RFC 6901).
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// PointerAt returns the JSON Pointer of the innermost value of s that
// spans the byte offset off (start < off <= end), or "" for the root. s
// must be valid JSON.
func PointerAt(s string, off int) string {
	p := Parser{S: s}
	var path []string
	best := ""
	var walk func()
	walk = func() {
		p.SkipSpace()
		start := p.I
		if p.I >= len(p.S) || p.Err != nil {
			return
		}
		switch p.S[p.I] {
		case '{':
			p.I++
			for p.Err == nil {
				p.SkipSpace()
				if p.I >= len(p.S) || p.S[p.I] == '}' {
					p.I++
					break
				}
				if p.S[p.I] == ',' {
					p.I++
					continue
				}
				k := p.Str()
				p.SkipSpace()
				p.I++ // ':'
				path = append(path, EscapePointer(k))
				walk()
				path = path[:len(path)-1]
			}
		case '[':
			p.I++
			for n := 0; p.Err == nil; n++ {
				p.SkipSpace()
				if p.I >= len(p.S) || p.S[p.I] == ']' {
					p.I++
					break
				}
				if p.S[p.I] == ',' {
					p.I++
					n--
					continue
				}
				path = append(path, strconv.Itoa(n))
				walk()
				path = path[:len(path)-1]
			}
		default:
			p.Value()
		}
		if start < off && off <= p.I && p.Err == nil {
			if ptr := "/" + strings.Join(path, "/"); len(path) > 0 && len(ptr) > len(best) {
				best = ptr
			}
		}
	}
	walk()
	return best
}

// PointerTokens returns the reference tokens of ptr, unescaped; why
// says what makes ptr no JSON Pointer (RFC 6901), "" when it is one.
func PointerTokens(ptr string) (toks []string, why string) {
	if ptr == "" {
		return nil, ""
	}
	if ptr[0] != '/' {
		return nil, "does not begin with '/'"
	}
	for _, t := range strings.Split(ptr[1:], "/") {
		if strings.Count(t, "~") != strings.Count(t, "~0")+strings.Count(t, "~1") {
			return nil, "has a '~' not followed by 0 or 1"
		}
		toks = append(toks, unescapeToken(t))
	}
	return toks, ""
}

func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// Member returns the value at ptr in the JSON text s, encoded again by
// encoding/json (members sorted by name); false when s does not parse
// or has no value there.
func Member(s, ptr string) (string, bool) {
	tree, err := Parse(s)
	if err != nil {
		return "", false
	}
	v, ok := LookupPointer(tree, ptr)
	if !ok {
		return "", false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}

// Items returns the items of the array at ptr in the JSON text s from
// index from on, each encoded again by encoding/json; none when s does
// not parse or holds no array there.
func Items(s, ptr string, from int) []string {
	tree, err := Parse(s)
	if err != nil {
		return nil
	}
	v, _ := LookupPointer(tree, ptr)
	items, _ := v.([]any)
	var out []string
	for i := from; i < len(items); i++ {
		b, err := json.Marshal(items[i])
		if err != nil {
			break
		}
		out = append(out, string(b))
	}
	return out
}
