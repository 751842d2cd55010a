package scan

import (
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// run steps through s[i:end] and returns where it stopped: end, or just
// past the byte that gave a verdict.
func (st *Scanner) run(s string, i, end int) int {
	for i < end {
		c := s[i]
		switch st.state {
		case stValue, stArrayOpen:
			if jsonvalue.IsSpace(c) {
				i++
				continue
			}
			if c == ']' && st.state == stArrayOpen {
				if st.pop(i + 1) {
					return i + 1
				}
				i++
				continue
			}
			if st.begin(s, i) {
				return i + 1
			}
			i++
		case stObjOpen, stName:
			switch {
			case jsonvalue.IsSpace(c):
			case c == '"':
				st.state, st.key, st.tok, st.escaped = stString, true, i, false
			case c == '}' && st.state == stObjOpen:
				if st.pop(i + 1) {
					return i + 1
				}
			default:
				if st.syntax(s, i) {
					return i + 1
				}
			}
			i++
		case stColon:
			switch {
			case jsonvalue.IsSpace(c):
			case c == ':':
				st.state = stValue
			default:
				if st.syntax(s, i) {
					return i + 1
				}
			}
			i++
		case stAfter:
			if jsonvalue.IsSpace(c) {
				i++
				if st.watch != nil && st.watch.pend {
					st.elementAfter() // the byte that ended the number element
				}
				continue
			}
			if len(st.stack) == 0 {
				if st.syntax(s, i) {
					return i + 1
				}
				i++
				continue
			}
			f := &st.stack[len(st.stack)-1]
			switch {
			case c == ',' && f.obj:
				st.state = stName
			case c == ',':
				st.state = stValue
				st.cur = nil
				if f.node != nil {
					st.cur = f.node.Items.Live()
				}
			case c == '}' && f.obj, c == ']' && !f.obj:
				if st.pop(i + 1) {
					return i + 1
				}
			default:
				if st.syntax(s, i) {
					return i + 1
				}
			}
			i++
			if st.watch != nil && st.watch.pend && st.verdict == nil && st.state != stRune && st.state != stGaveUp {
				st.elementAfter() // the byte that ended the number element
			}
		case stString:
			// The common case first: plain text, byte by byte.
			if st.esc == 0 && st.utf == 0 {
				for i < end && s[i] >= 0x20 && s[i] < utf8.RuneSelf && s[i] != '"' && s[i] != '\\' {
					i++
				}
				if i == end {
					return i
				}
				c = s[i]
			}
			if st.stringByte(s, i, c) {
				return i + 1
			}
			i++
		case stNumber:
			ended, doomed := st.numberByte(s, i, c)
			if doomed {
				return i + 1
			}
			if !ended {
				i++
			}
		case stLiteral:
			if c != st.lit[i-st.tok] {
				if st.syntax(s, i) {
					return i + 1
				}
				i++
				continue
			}
			i++
			if i-st.tok == len(st.lit) {
				st.state = stAfter
				k := engine.KindBoolean
				var doc any
				if st.lit == "null" {
					k = engine.KindNull
				} else {
					doc = st.lit == "true"
				}
				ok := st.passesHere(doc)
				if !ok && (st.scalar(k, st.lit) || st.closedScalar(doc)) {
					return i
				}
				if st.done(i, doc, ok) {
					return i
				}
				if st.watch != nil {
					st.element(st.tok, i, false)
				}
			}
		case stRune:
			i++
			if utf8.FullRuneInString(s[st.doomAt:i]) && st.giveSyntax(s[:i], st.doomAt) {
				return i
			}
		default: // stGaveUp
			return end
		}
	}
	return i
}

// begin starts the value whose first byte is s[i], and reports whether
// that gave a verdict.
func (st *Scanner) begin(s string, i int) bool {
	c := s[i]
	n := st.cur
	switch {
	case c == '{' || c == '[':
		if len(st.stack)+1 > jsonvalue.MaxDepth {
			return st.syntax(s, i)
		}
	case c == '"', c == '-', c >= '0' && c <= '9', c == 't', c == 'f', c == 'n':
	default:
		return st.syntax(s, i)
	}
	if d := len(st.stack); d > 0 && !st.stack[d-1].obj {
		f := &st.stack[d-1]
		f.n++
		if an := f.node; an != nil && an.MaxItems >= 0 && f.n > an.MaxItems {
			if st.schema(d-1, make([]any, f.n), false, "", "maxItems") {
				return true
			}
		}
	}
	var k engine.Kinds
	switch {
	case c == '{':
		k = engine.KindObject
	case c == '[':
		k = engine.KindArray
	case c == '"':
		k = engine.KindString
		st.state, st.key, st.tok, st.escaped = stString, false, i, false
	case c == '-' || (c >= '0' && c <= '9'):
		k = engine.KindNumber
		st.state, st.tok, st.exp, st.long = stNumber, i, 0, false
		st.num = numInt
		switch c {
		case '-':
			st.num = numSign
		case '0':
			st.num = numZero
		}
	case c == 't' || c == 'f' || c == 'n':
		k, st.lit = engine.KindBoolean, "true"
		if c == 'f' {
			st.lit = "false"
		} else if c == 'n' {
			k, st.lit = engine.KindNull, "null"
		}
		st.state, st.tok = stLiteral, i
	}
	if n != nil && !n.Admits(k) && (k != engine.KindNumber || n.Never) {
		// The issue depends on the value's kind alone: any value of the
		// kind stands for it.
		if st.schema(len(st.stack), kindValue[k], false, "", "type", "false") {
			return true
		}
	}
	st.values++
	if len(st.stack) == 0 {
		st.rootStart = i
	}
	if k == engine.KindObject || k == engine.KindArray {
		on := st.watch != nil && st.onPath()
		st.stack = append(st.stack, frame{obj: k == engine.KindObject, on: on, node: n, keys: len(st.keys), start: i, safe: i + 1, docs: len(st.docs), values: st.values})
		if st.tape.on || st.inc {
			st.enter()
		}
		st.state = stObjOpen
		if k == engine.KindArray {
			st.state = stArrayOpen
			st.cur = nil
			if n != nil {
				st.cur = n.Items.Live()
			}
		}
	}
	return false
}

// pop ends the innermost object or array, just before end, and reports
// whether that gave a verdict.
func (st *Scanner) pop(end int) bool {
	f := &st.stack[len(st.stack)-1]
	start := f.start
	c, size, bad := f.c, st.values-f.values+1, f.bad
	// Its members or items passed their subschemas: check only its own
	// keywords. Where they need no more than its member names and size,
	// and it passes, it is not built (see lazyDoc).
	var doc any
	ok := false
	if st.inc && c != nil && !bad && c.ShapeOnly() { // settleOne then needs no doc either
		ok = st.shapePasses(c, f)
		if ok {
			doc = st.lazy(f.start, end, f.n)
		}
	}
	if !ok {
		doc = st.peekContainer(f.obj, f.n)
		ok = st.inc && c != nil && !bad && c.OwnPasses(doc)
		if !ok && st.inc && c != nil && st.closedFails(len(st.stack)-1, doc, size) {
			// Left open, as a value that doomed the answer is: what was
			// read before it stays, for Partial.
			return true
		}
		st.dropKids(f.n)
	}
	if st.watch != nil {
		st.popping(f)
	}
	st.keys = st.keys[:f.keys]
	st.stack = st.stack[:len(st.stack)-1]
	st.state = stAfter
	st.ended(end, doc)
	st.verified(ok)
	if st.tape.on && len(st.stack) > 0 {
		st.settleOne(doc, c, size, "", st.inc && !bad, ok)
	}
	if st.validateClosed(len(st.stack), start, end) || st.duplicate() {
		return true
	}
	if st.watch != nil {
		st.element(start, end, false)
	}
	return false
}

// stringByte steps a string at s[i] = c, past its plain text.
func (st *Scanner) stringByte(s string, i int, c byte) bool {
	switch {
	case st.utf > 0:
		st.utf++
		seq := s[i+1-int(st.utf) : i+1]
		if utf8.FullRuneInString(seq) {
			st.utf = 0
			if r, size := utf8.DecodeRuneInString(seq); r == utf8.RuneError && size == 1 {
				return st.giveSyntax(s[:i+1], i)
			}
		}
	case st.esc == 1:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			st.esc = 0
		case 'u':
			st.esc = 2
		default:
			return st.giveSyntax(s[:i+1], i)
		}
	case st.esc > 1:
		if !jsonvalue.IsHex(c) {
			return st.giveSyntax(s[:i+1], i)
		}
		if st.esc++; st.esc == 6 {
			st.esc = 0
		}
	case c == '"':
		return st.endString(s[st.tok : i+1])
	case c == '\\':
		st.esc, st.escaped = 1, true
	case c < 0x20:
		return st.giveSyntax(s[:i+1], i)
	case c >= utf8.RuneSelf:
		if utf8.FullRuneInString(s[i : i+1]) { // a byte that starts no character
			return st.giveSyntax(s[:i+1], i)
		}
		st.utf = 1
	}
	return false
}

// endString closes the string raw, quotes included.
func (st *Scanner) endString(raw string) bool {
	st.state = stAfter
	if !st.key {
		n := st.cur
		text := st.decode(raw)
		var v any = text
		ok := st.passesHere(v)
		if !ok && n != nil && (n.HasEnum || n.MinLen >= 0 || n.MaxLen >= 0 || n.Pattern != nil || n.Format != "") && st.scalar(engine.KindString, text) {
			return true
		}
		if !ok && st.closedScalar(v) {
			return true
		}
		if st.done(st.tok+len(raw), v, ok) {
			return true
		}
		if st.watch != nil {
			st.element(st.tok, st.tok+len(raw), false)
		}
		return false
	}
	st.state = stColon
	st.names++
	name := st.decode(raw)
	f := &st.stack[len(st.stack)-1]
	if st.has(f, name) {
		return st.giveSyntax(st.buf.String()[:st.tok+len(raw)], st.tok+len(raw)-1)
	}
	st.add(f, name)
	f.n++
	f.key = name
	f.linked = false
	st.cur = nil
	n := f.node
	if n == nil {
		return st.unlisted(f, name)
	}
	if pp, ok := n.Props[name]; ok {
		st.cur = pp.P.Live()
		if st.inc && n.C == f.c {
			f.kc, f.linked = pp.C, true // f.c.member(name)
		}
		return false
	}
	if n.AddlFalse {
		return st.schema(len(st.stack)-1, map[string]any{name: nil}, true, name, "additionalProperties")
	}
	st.cur = n.Addl.Live()
	return false
}

func decodeString(raw string) string {
	p := jsonvalue.Parser{S: raw}
	return p.Str()
}

// decode is the value of the string raw just read, quotes included:
// without an escape, its text (the Scanner checked its UTF-8).
func (st *Scanner) decode(raw string) string {
	if !st.escaped {
		return raw[1 : len(raw)-1]
	}
	return decodeString(raw)
}

// numberByte steps a number at s[i] = c. ended: c is not part of the
// number, which ended before it (c is judged again, after it).
func (st *Scanner) numberByte(s string, i int, c byte) (ended, doomed bool) {
	digit := c >= '0' && c <= '9'
	switch st.num {
	case numSign:
		switch {
		case c == '0':
			st.num = numZero
		case digit:
			st.num = numInt
		default:
			return false, st.syntax(s, i)
		}
	case numZero, numInt, numFrac:
		switch {
		case digit && st.num != numZero:
		case c == '.' && st.num != numFrac:
			st.num = numDot
		case c == 'e' || c == 'E':
			st.num = numE
		default:
			return true, st.endNumber(s, i)
		}
	case numDot:
		if !digit {
			return false, st.syntax(s, i)
		}
		st.num = numFrac
	case numE, numESign:
		switch {
		case digit:
			st.num = numExp
			st.exp = int(c - '0')
		case (c == '+' || c == '-') && st.num == numE:
			st.num = numESign
		default:
			return false, st.syntax(s, i)
		}
	case numExp:
		if !digit {
			return true, st.endNumber(s, i)
		}
		if st.exp <= jsonvalue.MaxExponent {
			st.exp = st.exp*10 + int(c-'0')
		}
	}
	if st.exp > jsonvalue.MaxExponent {
		return false, st.giveSyntax(s[:i+1], i)
	}
	if i+1-st.tok > jsonvalue.MaxNumberLength {
		st.long = true // judged at the end: an exponent too large would be named first
	}
	return false, false
}

// endNumber ends the number before s[i]. A byte that may not follow a
// value is a json-parse error, judged next, before the number is.
func (st *Scanner) endNumber(s string, i int) bool {
	st.state = stAfter
	if st.long {
		return st.giveSyntax(s[:i+1], i)
	}
	n := st.cur
	var v any = json.Number(s[st.tok:i])
	ok := st.passesHere(v)
	if !ok && st.mayFollow(s[i]) && (n != nil && st.scalar(engine.KindNumber, s[st.tok:i]) || st.closedScalar(v)) {
		return true
	}
	if st.done(i, v, ok) {
		if st.mayFollow(s[i]) {
			return true
		}
		st.verdict = nil // the byte after the number fails the answer at json-parse instead
		return false
	}
	if st.watch != nil {
		st.element(st.tok, i, true)
	}
	return false
}

// mayFollow reports whether c may follow a value where the Scanner is.
func (st *Scanner) mayFollow(c byte) bool {
	if jsonvalue.IsSpace(c) {
		return true
	}
	if len(st.stack) == 0 {
		return false
	}
	if st.stack[len(st.stack)-1].obj {
		return c == ',' || c == '}'
	}
	return c == ',' || c == ']'
}

// syntax is an error at s[i]. Its message names the character that
// starts there, so one of several bytes is given once they all are read.
func (st *Scanner) syntax(s string, i int) bool {
	if s[i] < utf8.RuneSelf || utf8.FullRuneInString(s[i:i+1]) {
		return st.giveSyntax(s[:i+1], i)
	}
	st.state, st.doomAt = stRune, i
	return false
}

// giveSyntax gives the json-parse verdict on prefix, which no completion
// can parse since its byte at doom; the parser writes it. Should the
// parser not fail there, the Scanner gives no early verdict at all, and
// Close decides.
func (st *Scanner) giveSyntax(prefix string, doom int) bool {
	err := func() error { _, err := jsonvalue.Parse(prefix); return err }()
	var se *jsonvalue.SyntaxError
	if errors.As(err, &se) && se.Offset <= doom {
		st.verdict = st.host.Syntax(prefix, err)
		return true
	}
	st.giveUp()
	return false
}

// giveUp stops early verdicts: a state the Scanner cannot judge.
func (st *Scanner) giveUp() {
	st.state = stGaveUp
}

const stGaveUp = 255
