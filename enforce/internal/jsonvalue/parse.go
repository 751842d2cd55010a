package jsonvalue

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest in a value the
// parser reads (enforce.MaxDepth).
const MaxDepth = 1000

// ParseError is a json-parse failure at a byte offset of the input.
type ParseError struct {
	Off int
	Msg string
}

// Parser decodes exactly one JSON value into the tree gojsonschema walks:
// map[string]any, []any, string, json.Number, bool and nil. It is stricter
// than encoding/json: invalid UTF-8 and duplicate object keys are errors,
// not silently repaired, and nesting is bounded by MaxDepth.
type Parser struct {
	S     string // the input
	I     int    // the offset read next
	depth int
	n     int // values begun, for MaxCheckWork
	names int // member names read, for MaxCheckWork
	Err   *ParseError
}

// Parse decodes s. On failure it returns a message that names the
// problem and where it is, as line:column (1-based, column in bytes).
func Parse(s string) (any, error) {
	v, _, _, err := ParseCounting(s)
	return v, err
}

// ParseCounting is Parse that also counts what the tree holds:
// values (the top-level value, every member value and every item) and
// member names.
func ParseCounting(s string) (v any, values, names int, err error) {
	p := Parser{S: s}
	p.SkipSpace()
	start := p.I
	if p.I == len(s) {
		err := p.errorf(p.I, "empty answer: expected a JSON value")
		err.Start = start
		return nil, 0, 0, err
	}
	v = p.Value()
	trailing := false
	if p.Err == nil {
		p.SkipSpace()
		if p.I < len(s) {
			p.fail(p.I, "unexpected %s after the top-level value (the answer must be exactly one JSON value)", p.Describe(p.I))
			trailing = true
		}
	}
	if p.Err != nil {
		err := p.errorf(p.Err.Off, "%s", p.Err.Msg)
		err.Start, err.Trailing = start, trailing
		return nil, 0, 0, err
	}
	return v, p.n, p.names, nil
}

func (p *Parser) errorf(off int, format string, args ...any) *SyntaxError {
	line, col := lineCol(p.S, off)
	return &SyntaxError{Line: line, Column: col, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// SyntaxError is the json-parse stage's issue: the input is not one JSON
// value from byte Offset (at Line:Column) on.
type SyntaxError struct {
	Line, Column, Offset int
	// Start is where the value began: the first byte that is not white
	// space (the input's length when there is none).
	Start int
	// Trailing: the value was whole, and Offset is what follows it.
	Trailing bool
	Msg      string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
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

func (p *Parser) fail(off int, format string, args ...any) {
	if p.Err == nil {
		p.Err = &ParseError{Off: off, Msg: fmt.Sprintf(format, args...)}
	}
}

// Describe names the input at off for an error message without echoing
// more than one character of it.
func (p *Parser) Describe(off int) string {
	if off >= len(p.S) {
		return "end of input"
	}
	r, size := utf8.DecodeRuneInString(p.S[off:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("invalid UTF-8 byte 0x%02x", p.S[off])
	}
	return fmt.Sprintf("character %q", r)
}

// IsSpace reports whether c is JSON's white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace moves p.I past white space.
func (p *Parser) SkipSpace() {
	for p.I < len(p.S) {
		switch p.S[p.I] {
		case ' ', '\t', '\n', '\r':
			p.I++
		default:
			return
		}
	}
}

// Value reads the value at p.I; on failure p.Err says why.
func (p *Parser) Value() any {
	p.n++
	if p.I >= len(p.S) {
		p.fail(p.I, "unexpected end of input: expected a value")
		return nil
	}
	switch c := p.S[p.I]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.Str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.Number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	default:
		p.fail(p.I, "unexpected %s: expected a value", p.Describe(p.I))
		return nil
	}
}

func (p *Parser) literal(word string, v any) any {
	if !strings.HasPrefix(p.S[p.I:], word) {
		p.fail(p.I, "unexpected %s: expected a value", p.Describe(p.I))
		return nil
	}
	p.I += len(word)
	return v
}

func (p *Parser) enter() bool {
	p.depth++
	if p.depth > MaxDepth {
		p.fail(p.I, "nesting deeper than %d levels", MaxDepth)
		return false
	}
	return true
}

func (p *Parser) object() any {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	p.I++ // '{'
	m := make(map[string]any)
	p.SkipSpace()
	if p.I < len(p.S) && p.S[p.I] == '}' {
		p.I++
		return m
	}
	for {
		p.SkipSpace()
		if p.I >= len(p.S) || p.S[p.I] != '"' {
			p.fail(p.I, "unexpected %s: expected a string for an object key", p.Describe(p.I))
			return nil
		}
		keyOff := p.I
		k := p.Str()
		p.names++
		if p.Err != nil {
			return nil
		}
		if _, dup := m[k]; dup {
			p.fail(keyOff, "duplicate object key %q", Clip(k, 64))
			return nil
		}
		p.SkipSpace()
		if p.I >= len(p.S) || p.S[p.I] != ':' {
			p.fail(p.I, "unexpected %s after object key: expected ':'", p.Describe(p.I))
			return nil
		}
		p.I++
		p.SkipSpace()
		v := p.Value()
		if p.Err != nil {
			return nil
		}
		m[k] = v
		p.SkipSpace()
		if p.I >= len(p.S) {
			p.fail(p.I, "unexpected end of input: expected ',' or '}'")
			return nil
		}
		switch p.S[p.I] {
		case ',':
			p.I++
		case '}':
			p.I++
			return m
		default:
			p.fail(p.I, "unexpected %s after object value: expected ',' or '}'", p.Describe(p.I))
			return nil
		}
	}
}

func (p *Parser) array() any {
	if !p.enter() {
		return nil
	}
	defer func() { p.depth-- }()
	p.I++ // '['
	a := make([]any, 0, 4)
	p.SkipSpace()
	if p.I < len(p.S) && p.S[p.I] == ']' {
		p.I++
		return a
	}
	for {
		p.SkipSpace()
		v := p.Value()
		if p.Err != nil {
			return nil
		}
		a = append(a, v)
		p.SkipSpace()
		if p.I >= len(p.S) {
			p.fail(p.I, "unexpected end of input: expected ',' or ']'")
			return nil
		}
		switch p.S[p.I] {
		case ',':
			p.I++
		case ']':
			p.I++
			return a
		default:
			p.fail(p.I, "unexpected %s after array element: expected ',' or ']'", p.Describe(p.I))
			return nil
		}
	}
}

// MaxExponent bounds the exponent of a number. The validator compares
// numbers exactly (math/big), and 1e999999 would take seconds to expand;
// no float64 or realistic decimal needs more than a few hundred.
const MaxExponent = 1000

// MaxNumberLength bounds a number's text for the same reason: converting
// decimal digits is quadratic in their count, so a 1 MiB number took
// seconds and a 10 MiB one minutes.
const MaxNumberLength = 1000

// Number reads the number at p.I.
func (p *Parser) Number() any {
	text, ok := p.NumberText()
	if !ok {
		return nil
	}
	return json.Number(text)
}

// NumberText is Number as the number's text, without boxing it; false
// when p.Err says why there is none.
func (p *Parser) NumberText() (string, bool) {
	start := p.I
	s := p.S
	i := p.I
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
		p.fail(i, "unexpected %s in number: expected a digit", p.Describe(i))
		return "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			p.fail(i, "unexpected %s after decimal point: expected a digit", p.Describe(i))
			return "", false
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
			p.fail(i, "unexpected %s in exponent: expected a digit", p.Describe(i))
			return "", false
		}
		expStart, exp := i, 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if exp <= MaxExponent {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if exp > MaxExponent {
			p.fail(expStart, "exponent larger than %d in number: gojsonschema's exact arithmetic would not finish", MaxExponent)
			return "", false
		}
	}
	if i-start > MaxNumberLength {
		p.fail(start, "number longer than %d characters: gojsonschema's exact arithmetic would not finish", MaxNumberLength)
		return "", false
	}
	p.I = i
	return s[start:i], true
}

// Str decodes a string starting at the opening quote at p.I. A plain
// string is returned as a substring of the input, without copying;
// escapes and errors are strSlow's.
func (p *Parser) Str() string {
	s := p.S
	start := p.I + 1
	for i := start; i < len(s); {
		switch c := s[i]; {
		case c == '"':
			p.I = i + 1
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

func (p *Parser) strSlow(start, i int) string {
	s := p.S
	var b strings.Builder
	b.Grow(i - start + 16)
	b.WriteString(s[start:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.I = i + 1
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
				r, ok := Hex4(s, i+2)
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
						r2, ok2 = Hex4(s, i+2)
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

// Hex4 reads the four hexadecimal digits of a \u escape at s[i:].
func Hex4(s string, i int) (rune, bool) {
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

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Clip shortens s to at most n bytes on a rune boundary, followed by a
// marker that says it was clipped and from what length: the same input always
// gives the same text.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…[clipped: " + strconv.Itoa(i) + " of " + strconv.Itoa(len(s)) + " bytes]"
}

// Quote is s as a JSON string, as encoding/json writes it.
func Quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
