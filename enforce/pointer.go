package enforce

import (
	"strconv"
	"strings"
)

// resolvePointer follows ptr to a subschema (an object or a boolean).
func resolvePointer(doc any, ptr string) (any, bool) {
	v, ok := lookupPointer(doc, ptr)
	switch v.(type) {
	case map[string]any, bool:
		return v, ok
	}
	return nil, false
}

// lookupPointer follows an unescaped-URI JSON Pointer (RFC 6901) into a
// parsed document.
func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
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

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// pointerAt returns the JSON Pointer of the innermost value of s that
// spans the byte offset off (start < off <= end), or "" for the root. s
// must be valid JSON.
func pointerAt(s string, off int) string {
	p := parser{s: s}
	var path []string
	best := ""
	var walk func()
	walk = func() {
		p.skipSpace()
		start := p.i
		if p.i >= len(p.s) || p.err != nil {
			return
		}
		switch p.s[p.i] {
		case '{':
			p.i++
			for p.err == nil {
				p.skipSpace()
				if p.i >= len(p.s) || p.s[p.i] == '}' {
					p.i++
					break
				}
				if p.s[p.i] == ',' {
					p.i++
					continue
				}
				k := p.str()
				p.skipSpace()
				p.i++ // ':'
				path = append(path, escapePointer(k))
				walk()
				path = path[:len(path)-1]
			}
		case '[':
			p.i++
			for n := 0; p.err == nil; n++ {
				p.skipSpace()
				if p.i >= len(p.s) || p.s[p.i] == ']' {
					p.i++
					break
				}
				if p.s[p.i] == ',' {
					p.i++
					n--
					continue
				}
				path = append(path, strconv.Itoa(n))
				walk()
				path = path[:len(path)-1]
			}
		default:
			p.value()
		}
		if start < off && off <= p.i && p.err == nil {
			if ptr := "/" + strings.Join(path, "/"); len(path) > 0 && len(ptr) > len(best) {
				best = ptr
			}
		}
	}
	walk()
	return best
}
