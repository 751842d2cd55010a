package engine

import (
	"strings"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// isECMARegex reports whether s is a regular expression by ECMA-262's
// grammar, as the format regex asks, read with the u flag (as the
// JSON-Schema-Test-Suite reads it): no identity escape of a letter, no
// lone brace or bracket. It checks syntax only; nothing is compiled.
func isECMARegex(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	p := &ecmaParser{s: s, names: map[string]bool{}}
	if !p.disjunction() || p.i != len(s) {
		return false
	}
	if p.maxBackref > p.groups {
		return false
	}
	for _, n := range p.refNames {
		if !p.names[n] {
			return false
		}
	}
	return true
}

type ecmaParser struct {
	s          string
	i          int
	groups     int
	maxBackref int
	names      map[string]bool
	refNames   []string
	depth      int
}

func (p *ecmaParser) peek(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

func (p *ecmaParser) disjunction() bool {
	if p.depth++; p.depth > jsonvalue.MaxDepth {
		return false
	}
	defer func() { p.depth-- }()
	for {
		if !p.alternative() {
			return false
		}
		if !p.peek('|') {
			return true
		}
		p.i++
	}
}

func (p *ecmaParser) alternative() bool {
	for p.i < len(p.s) && p.s[p.i] != '|' && p.s[p.i] != ')' {
		quantifiable, ok := p.term()
		if !ok {
			return false
		}
		if p.quantifier() {
			if !quantifiable {
				return false
			}
		} else if p.i < len(p.s) && p.s[p.i] == '{' {
			return false
		}
	}
	return true
}

// term reads one term and reports whether a quantifier may follow it.
func (p *ecmaParser) term() (quantifiable, ok bool) {
	c := p.s[p.i]
	switch c {
	case '^', '$':
		p.i++
		return false, true
	case '\\':
		if strings.HasPrefix(p.s[p.i:], `\b`) || strings.HasPrefix(p.s[p.i:], `\B`) {
			p.i += 2
			return false, true
		}
		p.i++
		return true, p.atomEscape()
	case '(':
		return p.group()
	case '[':
		return true, p.class()
	case '.':
		p.i++
		return true, true
	case '*', '+', '?', ')', ']', '{', '}', '|':
		return false, false
	}
	_, n := utf8.DecodeRuneInString(p.s[p.i:])
	p.i += n
	return true, true
}

func (p *ecmaParser) group() (quantifiable, ok bool) {
	rest := p.s[p.i:]
	lookaround := false
	switch {
	case strings.HasPrefix(rest, "(?="), strings.HasPrefix(rest, "(?!"):
		p.i += 3
		lookaround = true
	case strings.HasPrefix(rest, "(?<="), strings.HasPrefix(rest, "(?<!"):
		p.i += 4
		lookaround = true
	case strings.HasPrefix(rest, "(?:"):
		p.i += 3
	case strings.HasPrefix(rest, "(?<"):
		p.i += 3
		name, ok := p.groupName()
		if !ok || p.names[name] {
			return false, false
		}
		p.names[name] = true
		p.groups++
	case strings.HasPrefix(rest, "(?"):
		// Modifiers: (?ims-ims:…), each flag once; a group of flags for
		// the whole pattern is no ECMA-262.
		j := p.i + 2
		seen := map[byte]bool{}
		minus := false
		for j < len(p.s) && (strings.IndexByte("ims", p.s[j]) >= 0 || p.s[j] == '-' && !minus) {
			if p.s[j] == '-' {
				minus = true
			} else if seen[p.s[j]] {
				return false, false
			} else {
				seen[p.s[j]] = true
			}
			j++
		}
		if j == p.i+2 || j >= len(p.s) || p.s[j] != ':' {
			return false, false
		}
		p.i = j + 1
	default:
		p.i++
		p.groups++
	}
	if !p.disjunction() || !p.peek(')') {
		return false, false
	}
	p.i++
	return !lookaround, true
}

func (p *ecmaParser) groupName() (string, bool) {
	end := strings.IndexByte(p.s[p.i:], '>')
	if end <= 0 {
		return "", false
	}
	name := p.s[p.i : p.i+end]
	for k, r := range name {
		if !(r == '$' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80 || k > 0 && r >= '0' && r <= '9') {
			return "", false
		}
	}
	p.i += end + 1
	return name, true
}

func (p *ecmaParser) quantifier() bool {
	if p.i >= len(p.s) {
		return false
	}
	switch p.s[p.i] {
	case '*', '+', '?':
		p.i++
	case '{':
		j := p.i + 1
		lo := p.digits(&j)
		if lo < 0 {
			return false
		}
		hi := lo
		if j < len(p.s) && p.s[j] == ',' {
			j++
			hi = p.digits(&j)
			if hi < 0 {
				hi = int(^uint(0) >> 1)
			}
		}
		if j >= len(p.s) || p.s[j] != '}' || hi < lo {
			return false
		}
		p.i = j + 1
	default:
		return false
	}
	if p.peek('?') {
		p.i++
	}
	return true
}

// digits reads decimal digits at *j: their value (saturated), or -1 for
// none.
func (p *ecmaParser) digits(j *int) int {
	start, n := *j, 0
	for *j < len(p.s) && p.s[*j] >= '0' && p.s[*j] <= '9' {
		n = min(n*10+int(p.s[*j]-'0'), 1<<30)
		*j++
	}
	if *j == start {
		return -1
	}
	return n
}

// atomEscape reads what follows a backslash outside a class.
func (p *ecmaParser) atomEscape() bool {
	if p.i >= len(p.s) {
		return false
	}
	c := p.s[p.i]
	switch {
	case c >= '1' && c <= '9':
		j := p.i
		p.maxBackref = max(p.maxBackref, p.digits(&j))
		p.i = j
		return true
	case c == 'k':
		p.i++
		if !p.peek('<') {
			return false
		}
		p.i++
		name, ok := p.groupName()
		p.refNames = append(p.refNames, name)
		return ok
	}
	_, ok := p.escape(false)
	return ok
}

// escape reads a character escape or class escape after a backslash; it
// reports whether it stands for one character (a range may end there).
func (p *ecmaParser) escape(inClass bool) (single, ok bool) {
	c := p.s[p.i]
	p.i++
	switch {
	case strings.IndexByte("dDsSwW", c) >= 0:
		return false, true
	case c == 'p' || c == 'P':
		if !p.peek('{') {
			return false, false
		}
		end := strings.IndexByte(p.s[p.i:], '}')
		if end < 2 {
			return false, false
		}
		for _, r := range p.s[p.i+1 : p.i+end] {
			if !(r == '_' || r == '=' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false, false
			}
		}
		p.i += end + 1
		return false, true
	case strings.IndexByte("fnrtv", c) >= 0:
		return true, true
	case c == 'c':
		if p.i < len(p.s) && isAlpha(p.s[p.i]) {
			p.i++
			return true, true
		}
		return false, false
	case c == '0':
		return !(p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9'), true
	case c == 'x':
		if p.i+2 <= len(p.s) && jsonvalue.IsHex(p.s[p.i]) && jsonvalue.IsHex(p.s[p.i+1]) {
			p.i += 2
			return true, true
		}
		return false, false
	case c == 'u':
		if p.peek('{') {
			end := strings.IndexByte(p.s[p.i:], '}')
			if end < 2 {
				return false, false
			}
			v := 0
			for k := p.i + 1; k < p.i+end; k++ {
				if !jsonvalue.IsHex(p.s[k]) {
					return false, false
				}
				v = min(v*16+hexVal(p.s[k]), 0x110000)
			}
			p.i += end + 1
			return v <= 0x10FFFF, v <= 0x10FFFF
		}
		if p.i+4 <= len(p.s) && jsonvalue.IsHex(p.s[p.i]) && jsonvalue.IsHex(p.s[p.i+1]) && jsonvalue.IsHex(p.s[p.i+2]) && jsonvalue.IsHex(p.s[p.i+3]) {
			p.i += 4
			return true, true
		}
		return false, false
	case strings.IndexByte(`^$\.*+?()[]{}|/`, c) >= 0:
		return true, true
	case inClass && (c == '-' || c == 'b'):
		return true, true
	}
	return false, false
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// class reads a character class, [ ... ].
func (p *ecmaParser) class() bool {
	p.i++ // '['
	if p.peek('^') {
		p.i++
	}
	// atom reads one class atom: its code point, or -1 for a class
	// escape (\d …), which no range may use.
	atom := func() (rune, bool) {
		if p.s[p.i] == '\\' {
			p.i++
			if p.i >= len(p.s) {
				return 0, false
			}
			start := p.i
			single, ok := p.escape(true)
			if !ok {
				return 0, false
			}
			if !single {
				return -1, true
			}
			return escapedRune(p.s[start:p.i]), true
		}
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += n
		return r, true
	}
	for p.i < len(p.s) && p.s[p.i] != ']' {
		lo, ok := atom()
		if !ok {
			return false
		}
		if p.peek('-') && p.i+1 < len(p.s) && p.s[p.i+1] != ']' {
			p.i++
			hi, ok := atom()
			if !ok || lo < 0 || hi < 0 || hi < lo {
				return false
			}
		}
	}
	if !p.peek(']') {
		return false
	}
	p.i++
	return true
}

// escapedRune is the code point of a single-character escape, without
// its backslash, for comparing the ends of a range.
func escapedRune(e string) rune {
	switch e[0] {
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	case 'b':
		return '\b'
	case '0':
		return 0
	case 'c':
		return rune(e[1] % 32)
	case 'x', 'u':
		v := 0
		for k := 1; k < len(e); k++ {
			if jsonvalue.IsHex(e[k]) {
				v = v*16 + hexVal(e[k])
			}
		}
		return rune(v)
	}
	r, _ := utf8.DecodeRuneInString(e)
	return r
}
