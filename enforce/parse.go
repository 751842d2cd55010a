package enforce

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseError is a json-parse failure at a byte offset of the input.
type parseError struct {
	off int
	msg string
}

// parser decodes exactly one JSON value into the tree gojsonschema walks:
// map[string]any, []any, string, json.Number, bool and nil. It is stricter
// than encoding/json: invalid UTF-8 and duplicate object keys are errors,
// not silently repaired, and nesting is bounded by MaxDepth.
type parser struct {
	s     string
	i     int
	depth int
	n     int // values begun, for MaxCheckWork
	names int // member names read, for MaxCheckWork
	err   *parseError
}

// parseJSON decodes s. On failure it returns a message that names the
// problem and where it is, as line:column (1-based, column in bytes).
func parseJSON(s string) (any, error) {
	v, _, _, err := parseJSONCounting(s)
	return v, err
}

// parseJSONCounting is parseJSON that also counts what the tree holds:
// values (the top-level value, every member value and every item) and
// member names.
func parseJSONCounting(s string) (v any, values, names int, err error) {
	p := parser{s: s}
	p.skipSpace()
	start := p.i
	if p.i == len(s) {
		err := p.errorf(p.i, "empty answer: expected a JSON value")
		err.Start = start
		return nil, 0, 0, err
	}
	v = p.value()
	trailing := false
	if p.err == nil {
		p.skipSpace()
		if p.i < len(s) {
			p.fail(p.i, "unexpected %s after the top-level value (the answer must be exactly one JSON value)", p.describe(p.i))
			trailing = true
		}
	}
	if p.err != nil {
		err := p.errorf(p.err.off, "%s", p.err.msg)
		err.Start, err.Trailing = start, trailing
		return nil, 0, 0, err
	}
	return v, p.n, p.names, nil
}

func (p *parser) errorf(off int, format string, args ...any) *syntaxError {
	line, col := lineCol(p.s, off)
	return &syntaxError{Line: line, Column: col, Offset: off, msg: fmt.Sprintf(format, args...)}
}

// syntaxError is the json-parse stage's issue: the input is not one JSON
// value from byte Offset (at Line:Column) on.
type syntaxError struct {
	Line, Column, Offset int
	// Start is where the value began: the first byte that is not white
	// space (the input's length when there is none).
	Start int
	// Trailing: the value was whole, and Offset is what follows it.
	Trailing bool
	msg      string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.msg)
}

func lineCol(s string, off int) (line, col int) {
	if off > len(s) {
		off = len(s)
	}
	before := s[:off]
	line = 1 + strings.Count(before, "\n")
	col = off - strings.LastIndexByte(before, '\n')
	return line, col
}

func (p *parser) fail(off int, format string, args ...any) {
	if p.err == nil {
		p.err = &parseError{off: off, msg: fmt.Sprintf(format, args...)}
	}
}

// describe names the input at off for an error message without echoing
// more than one character of it.
func (p *parser) describe(off int) string {
	if off >= len(p.s) {
		return "end of input"
	}
	r, size := utf8.DecodeRuneInString(p.s[off:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("invalid UTF-8 byte 0x%02x", p.s[off])
	}
	return fmt.Sprintf("character %q", r)
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() any {
	p.n++
	if p.i >= len(p.s) {
		p.fail(p.i, "unexpected end of input: expected a value")
		return nil
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	default:
		p.fail(p.i, "unexpected %s: expected a value", p.describe(p.i))
		return nil
	}
}

func (p *parser) literal(word string, v any) any {
	if !strings.HasPrefix(p.s[p.i:], word) {
		p.fail(p.i, "unexpected %s: expected a value", p.describe(p.i))
		return nil
	}
	p.i += len(word)
	return v
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(p.i, "nesting deeper than %d levels", MaxDepth)
		return false
	}
	return true
}

func (p *parser) object() any {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	p.i++ // '{'
	m := make(map[string]any)
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m
	}
	for {
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			p.fail(p.i, "unexpected %s: expected a string for an object key", p.describe(p.i))
			return nil
		}
		keyOff := p.i
		k := p.str()
		p.names++
		if p.err != nil {
			return nil
		}
		if _, dup := m[k]; dup {
			p.fail(keyOff, "duplicate object key %q", cut(k, 64))
			return nil
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			p.fail(p.i, "unexpected %s after object key: expected ':'", p.describe(p.i))
			return nil
		}
		p.i++
		p.skipSpace()
		v := p.value()
		if p.err != nil {
			return nil
		}
		m[k] = v
		p.skipSpace()
		if p.i >= len(p.s) {
			p.fail(p.i, "unexpected end of input: expected ',' or '}'")
			return nil
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m
		default:
			p.fail(p.i, "unexpected %s after object value: expected ',' or '}'", p.describe(p.i))
			return nil
		}
	}
}

func (p *parser) array() any {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	p.i++ // '['
	a := make([]any, 0, 4)
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return a
	}
	for {
		p.skipSpace()
		v := p.value()
		if p.err != nil {
			return nil
		}
		a = append(a, v)
		p.skipSpace()
		if p.i >= len(p.s) {
			p.fail(p.i, "unexpected end of input: expected ',' or ']'")
			return nil
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a
		default:
			p.fail(p.i, "unexpected %s after array element: expected ',' or ']'", p.describe(p.i))
			return nil
		}
	}
}

// maxExponent bounds the exponent of a number. The validator compares
// numbers exactly (math/big), and 1e999999 would take seconds to expand;
// no float64 or realistic decimal needs more than a few hundred.
const maxExponent = 1000

// maxNumberLength bounds a number's text for the same reason: converting
// decimal digits is quadratic in their count, so a 1 MiB number took
// seconds and a 10 MiB one minutes.
const maxNumberLength = 1000

func (p *parser) number() any {
	start := p.i
	s := p.s
	i := p.i
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		p.fail(i, "unexpected %s in number: expected a digit", p.describe(i))
		return nil
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			p.fail(i, "unexpected %s after decimal point: expected a digit", p.describe(i))
			return nil
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			p.fail(i, "unexpected %s in exponent: expected a digit", p.describe(i))
			return nil
		}
		expStart, exp := i, 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if exp <= maxExponent {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if exp > maxExponent {
			p.fail(expStart, "exponent larger than %d in number: gojsonschema's exact arithmetic would not finish", maxExponent)
			return nil
		}
	}
	if i-start > maxNumberLength {
		p.fail(start, "number longer than %d characters: gojsonschema's exact arithmetic would not finish", maxNumberLength)
		return nil
	}
	p.i = i
	return json.Number(s[start:i])
}

// str decodes a string starting at the opening quote. A plain string is
// returned as a substring of the input, without copying; escapes and
// errors are strSlow's.
func (p *parser) str() string {
	s := p.s
	start := p.i + 1
	for i := start; i < len(s); {
		switch c := s[i]; {
		case c == '"':
			p.i = i + 1
			return s[start:i]
		case c == '\\' || c < 0x20:
			return p.strSlow(start, i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return p.strSlow(start, i)
			}
			i += size
		}
	}
	return p.strSlow(start, len(s))
}

func (p *parser) strSlow(start, i int) string {
	s := p.s
	var b strings.Builder
	b.Grow(i - start + 16)
	b.WriteString(s[start:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return b.String()
		case c == '\\':
			if i+1 >= len(s) {
				p.fail(len(s), "unexpected end of input in string escape")
				return ""
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
				i += 2
			case 'b':
				b.WriteByte('\b')
				i += 2
			case 'f':
				b.WriteByte('\f')
				i += 2
			case 'n':
				b.WriteByte('\n')
				i += 2
			case 'r':
				b.WriteByte('\r')
				i += 2
			case 't':
				b.WriteByte('\t')
				i += 2
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					p.fail(i, "invalid \\u escape in string: expected 4 hex digits")
					return ""
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A lone surrogate is valid JSON text but no character;
					// like encoding/json, decode it as U+FFFD.
					r2, ok2 := rune(0), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok2 = hex4(s, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b.WriteRune(r)
			default:
				p.fail(i, "invalid escape '\\%c' in string", e)
				return ""
			}
		case c < 0x20:
			p.fail(i, "control character 0x%02x in string: it must be escaped", c)
			return ""
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				p.fail(i, "invalid UTF-8 byte 0x%02x in string", c)
				return ""
			}
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	p.fail(len(s), "unexpected end of input in string")
	return ""
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
