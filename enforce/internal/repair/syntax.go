package repair

import (
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// The syntax repair ([Syntax]) reads a value in the relaxed syntax
// models write — JSON5's commonest liberties and Python's literals — and
// writes the same value in JSON, keeping the answer's whitespace, member
// order and number text. Only the spelling changes: a single-quoted
// string is the same string double-quoted, an unquoted member name the
// same name quoted, True/False/None are true/false/null, and a trailing
// comma or a comment is dropped, and a comma missing between members on
// separate lines is written.
//
// The quote repair ([Quote]) rides on the same reader: a bare word
// as a member's value (day: Monday, "unit": celsius) is written as the
// same word quoted, and its place in the output is noted, so that the
// caller keeps the result only where the schema admits a string at every
// such place, and no boolean where the word is a yes or a no
// (Mender.stringsAdmitted). A word some language reads as a literal is
// never quoted (literalWord).

// relaxed is what the relaxer made of a value: its JSON, the repairs it
// used (of those allowed), and where in it each bare word it quoted
// begins (ascending).
type relaxed struct {
	json string
	used Set
	bare []int
}

// relax returns text, one value in relaxed syntax with whitespace and
// comments around it, written in JSON's syntax, taking only the liberties
// of allow (Syntax, Quote). Its strings are copied as written:
// the caller checks that the result parses.
func relax(text string, allow Set) (relaxed, bool) {
	r := relaxer{s: text, allow: allow}
	r.b.Grow(len(text) + 16)
	r.space()
	if !r.value() {
		return relaxed{}, false
	}
	r.space()
	if r.fail || r.i != len(text) {
		return relaxed{}, false
	}
	return relaxed{r.b.String(), r.used, r.bare}, true
}

// relaxAt reads one value in relaxed syntax at text[i:]: where it ends
// (-1 when it is not one, or what it writes is not JSON: an escape or a
// byte no JSON string holds), the value written as JSON, and how many
// bytes were read.
func relaxAt(text string, i int, allow Set) (end int, value relaxed, read int) {
	r := relaxer{s: text, i: i, allow: allow}
	if !r.value() || r.fail {
		return -1, relaxed{}, r.i - i + 1
	}
	if v := r.b.String(); validJSON(v) {
		return r.i, relaxed{v, r.used, r.bare}, 2 * (r.i - i)
	}
	return -1, relaxed{}, 2 * (r.i - i)
}

type relaxer struct {
	s     string
	i     int
	depth int
	fail  bool
	b     strings.Builder
	// allow is the liberties the reader may take; used, those it took;
	// bare, where each bare word it quoted begins in b.
	allow, used Set
	bare        []int
	// member says the value about to be read is an object member's.
	member bool
}

// take reports whether the reader may take the liberty of repair rs, and
// notes it as taken when it may.
func (r *relaxer) take(rs Set) bool {
	if r.allow&rs == 0 {
		return false
	}
	r.used |= rs
	return true
}

// space copies whitespace and drops comments.
func (r *relaxer) space() { r.b.WriteString(r.skip()) }

// skip reads whitespace and comments and returns the whitespace.
func (r *relaxer) skip() string {
	start := r.i
	var kept []byte // only once a comment was dropped
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case jsonvalue.IsSpace(c):
			if kept != nil {
				kept = append(kept, c)
			}
			r.i++
			continue
		case c == '/' && r.at(r.i+1) == '/':
			if !r.take(Syntax) {
				break
			}
			if kept == nil {
				kept = append([]byte{}, r.s[start:r.i]...)
			}
			end := strings.IndexByte(r.s[r.i:], '\n')
			if end < 0 {
				r.i = len(r.s)
				return string(kept)
			}
			r.i += end // the newline is whitespace
			continue
		case c == '/' && r.at(r.i+1) == '*':
			if !r.take(Syntax) {
				break
			}
			if kept == nil {
				kept = append([]byte{}, r.s[start:r.i]...)
			}
			end := strings.Index(r.s[r.i+2:], "*/")
			if end < 0 {
				r.fail = true
				return string(kept)
			}
			r.i += 2 + end + 2
			continue
		}
		break
	}
	if kept != nil {
		return string(kept)
	}
	return r.s[start:r.i]
}

func (r *relaxer) value() bool {
	if r.fail || r.i >= len(r.s) {
		return false
	}
	switch c := r.s[r.i]; {
	case c == '{':
		return r.container('}')
	case c == '[':
		return r.container(']')
	case c == '"' || c == '\'':
		return r.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	}
	for _, lit := range [...]struct{ in, out string }{
		{"true", "true"}, {"false", "false"}, {"null", "null"},
		{"True", "true"}, {"False", "false"}, {"None", "null"},
	} {
		if strings.HasPrefix(r.s[r.i:], lit.in) && !IdentByte(r.at(r.i+len(lit.in))) {
			if lit.in != lit.out && !r.take(Syntax) {
				return false
			}
			r.b.WriteString(lit.out)
			r.i += len(lit.in)
			return true
		}
	}
	return r.bareWord()
}

// bareWord reads, as a member's value, words of identifier bytes, one
// space between words, that begin with a letter or '_', and writes them
// as a string. Only a member's: a name says what the word is for, where
// "[see below]" in prose or an array's bare items say nothing. A word
// that another language reads as a literal (literalWord) is no string;
// nor is anything with other bytes in it (Math.PI, 2 * x, f(x)), which
// the caller then finds where a ',' belongs.
func (r *relaxer) bareWord() bool {
	if c := r.at(r.i); !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || r.allow&Quote == 0 || !r.member {
		return false
	}
	start := r.i
	for {
		for r.i < len(r.s) && IdentByte(r.s[r.i]) {
			r.i++
		}
		if r.at(r.i) != ' ' || !IdentByte(r.at(r.i+1)) {
			break
		}
		r.i++
	}
	word := r.s[start:r.i]
	if literalWord(word) {
		r.i = start
		return false
	}
	r.take(Quote)
	r.bare = append(r.bare, r.b.Len())
	r.b.WriteByte('"')
	r.b.WriteString(word)
	r.b.WriteByte('"')
	return true
}

// literalWord reports whether word, in any case, is a literal where it is
// written bare in some language a model writes: null (JSON, YAML, SQL,
// Java), nil (Go, Ruby, Lua, Swift), none (Python), true and false
// (everywhere), NaN, inf, Infinity and undefined (JavaScript, Python,
// numpy), NA (R), undef (Perl), nullptr (C++), Nothing (Visual Basic)
// and missing (Julia). Such a word has two readings, the literal and the word, and
// the string reading invents a value ({"middle_name": NULL} is no name
// "NULL"): the quote repair leaves it, whatever the schema admits, and
// the model is asked. Python's own True, False and None never get here:
// the syntax repair reads them as the literals they are, and without it
// they are not read. (yes, no, on and off, YAML 1.1's booleans, are words
// first: see yesNoWord.)
func literalWord(word string) bool {
	for _, lit := range [...]string{"null", "nil", "none", "true", "false", "nan", "inf", "infinity", "undefined", "na", "undef", "nullptr", "nothing", "missing"} {
		if strings.EqualFold(word, lit) {
			return true
		}
	}
	return false
}

// yesNoWord reports whether word, in any case, is one of YAML 1.1's
// booleans (yes, no, on, off, y, n): a word, and a boolean to a YAML
// reader. The quote repair quotes it only where the schema admits no
// boolean, where the word is the one reading that can pass.
func yesNoWord(word string) bool {
	for _, lit := range [...]string{"yes", "no", "on", "off", "y", "n"} {
		if strings.EqualFold(word, lit) {
			return true
		}
	}
	return false
}

func (r *relaxer) at(i int) byte {
	if i < len(r.s) {
		return r.s[i]
	}
	return 0
}

// container reads an object (close '}') or an array (close ']'), whose
// last member or item may be followed by a comma.
func (r *relaxer) container(close byte) bool {
	if r.depth++; r.depth > jsonvalue.MaxDepth {
		return false
	}
	defer func() { r.depth-- }()
	r.b.WriteByte(r.s[r.i])
	r.i++
	r.space()
	first := true
	for {
		if r.fail || r.i >= len(r.s) {
			return false
		}
		if r.s[r.i] == close {
			r.b.WriteByte(close)
			r.i++
			return true
		}
		if !first {
			return false // a value where ',' or the close belongs
		}
		if close == '}' {
			if !r.name() {
				return false
			}
			r.space()
			if r.at(r.i) != ':' {
				return false
			}
			r.b.WriteByte(':')
			r.i++
			r.space()
		}
		r.member = close == '}'
		if !r.value() {
			return false
		}
		ws := r.skip()
		if r.at(r.i) == ',' {
			r.i++
			after := r.skip()
			r.b.WriteString(ws)
			if r.at(r.i) != close {
				r.b.WriteByte(',')
			} else if !r.take(Syntax) { // a trailing comma is dropped
				return false
			}
			r.b.WriteString(after)
			continue
		}
		if close == '}' && strings.IndexByte(ws, '\n') >= 0 && nameStart(r.at(r.i)) && r.take(Syntax) {
			// The next member on a line of its own, the comma before it
			// forgotten: a name cannot follow a value in any other reading.
			r.b.WriteByte(',')
			r.b.WriteString(ws)
			continue
		}
		r.b.WriteString(ws)
		first = false
	}
}

// name reads a member name: a string in either quote, or a bare
// identifier, which it quotes.
func (r *relaxer) name() bool {
	c := r.at(r.i)
	if c == '"' || c == '\'' {
		return r.str()
	}
	start := r.i
	for r.i < len(r.s) && IdentByte(r.s[r.i]) {
		r.i++
	}
	if r.i == start || (r.s[start] >= '0' && r.s[start] <= '9') || r.s[start] == '-' || !r.take(Syntax) {
		return false
	}
	r.b.WriteByte('"')
	r.b.WriteString(r.s[start:r.i])
	r.b.WriteByte('"')
	return true
}

// nameStart reports whether c can begin a member name.
func nameStart(c byte) bool {
	return c == '"' || c == '\'' || (IdentByte(c) && c != '-' && (c < '0' || c > '9'))
}

// IdentByte reports whether c may stand in an unquoted member name.
func IdentByte(c byte) bool {
	return c == '_' || c == '$' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// str reads a string in double or single quotes and writes it in double
// quotes. Escapes are copied as written (the JSON parser judges them),
// but for \' , which JSON spells as a plain quote.
func (r *relaxer) str() bool {
	q := r.s[r.i]
	if q == '\'' && !r.take(Syntax) {
		return false
	}
	r.i++
	r.b.WriteByte('"')
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == q:
			r.b.WriteByte('"')
			r.i++
			return true
		case c == '\n':
			return false
		case c == '\\':
			if r.i+1 >= len(r.s) {
				return false
			}
			if r.s[r.i+1] == '\'' {
				if !r.take(Syntax) {
					return false
				}
				r.b.WriteByte('\'')
			} else {
				r.b.WriteString(r.s[r.i : r.i+2])
			}
			r.i += 2
		case c == '"': // only inside single quotes
			r.b.WriteString(`\"`)
			r.i++
		default:
			r.b.WriteByte(c)
			r.i++
		}
	}
	return false
}

// number copies a number in JSON's own syntax.
func (r *relaxer) number() bool {
	p := jsonvalue.Parser{S: r.s, I: r.i}
	if p.Number(); p.Err != nil {
		return false
	}
	r.b.WriteString(r.s[r.i:p.I])
	r.i = p.I
	return true
}
