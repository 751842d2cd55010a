package jsonvalue

import "strings"

// Enter begins an array or object at p.I, false (p.Err saying why)
// when it nests deeper than MaxDepth; Leave ends it.
func (p *Parser) Enter() bool { return p.enter() }

// Leave ends what Enter began.
func (p *Parser) Leave() { p.depth-- }

// Counts is what Value and Skip have read so far: values begun and
// member names.
func (p *Parser) Counts() (values, names int) { return p.n, p.names }

// Skip reads the value at p.I as Value does, refusing what it refuses,
// without building it; false when p.Err says why. It allocates nothing
// but for an object of more than 16 members or a string with escapes.
func (p *Parser) Skip() bool {
	p.n++
	if p.I >= len(p.S) {
		p.fail(p.I, "unexpected end of input: expected a value")
		return false
	}
	switch c := p.S[p.I]; {
	case c == '{':
		return p.skipObject()
	case c == '[':
		return p.skipArray()
	case c == '"':
		p.Str()
	case c == '-' || (c >= '0' && c <= '9'):
		p.NumberText()
	case c == 't':
		p.literal("true", true)
	case c == 'f':
		p.literal("false", false)
	case c == 'n':
		p.literal("null", nil)
	default:
		p.fail(p.I, "unexpected %s: expected a value", p.Describe(p.I))
	}
	return p.Err == nil
}

// Keys holds an object's member names as they are read, to refuse a
// duplicate as Value does: in place up to 16, then in a map.
type Keys struct {
	buf [16]string
	n   int // how many of buf hold names, while set is nil
	set map[string]struct{}
}

// Add records k, false when it was there already.
func (ks *Keys) Add(k string) bool {
	if ks.set != nil {
		if _, dup := ks.set[k]; dup {
			return false
		}
		ks.set[k] = struct{}{}
		return true
	}
	for _, x := range ks.buf[:ks.n] {
		if x == k {
			return false
		}
	}
	if ks.n < len(ks.buf) {
		ks.buf[ks.n] = k
		ks.n++
		return true
	}
	ks.set = make(map[string]struct{}, 2*len(ks.buf))
	for _, x := range ks.buf {
		ks.set[x] = struct{}{}
	}
	ks.set[k] = struct{}{}
	return true
}

// Has reports whether k was added.
func (ks *Keys) Has(k string) bool {
	if ks.set != nil {
		_, ok := ks.set[k]
		return ok
	}
	for _, x := range ks.buf[:ks.n] {
		if x == k {
			return true
		}
	}
	return false
}

// Len is how many keys were added.
func (ks *Keys) Len() int {
	if ks.set != nil {
		return len(ks.set)
	}
	return ks.n
}

// Member reads an object member's name and the colon after it, p.I at
// the first byte after the '{' or ','; false when p.Err says why. The
// caller reads the value next.
func (p *Parser) Member(ks *Keys) (string, bool) {
	p.SkipSpace()
	if p.I >= len(p.S) || p.S[p.I] != '"' {
		p.fail(p.I, "unexpected %s: expected a string for an object key", p.Describe(p.I))
		return "", false
	}
	keyOff := p.I
	k := p.Str()
	p.names++
	if p.Err != nil {
		return "", false
	}
	if !ks.Add(k) {
		p.fail(keyOff, "duplicate object key %q", Clip(k, 64))
		return "", false
	}
	p.SkipSpace()
	if p.I >= len(p.S) || p.S[p.I] != ':' {
		p.fail(p.I, "unexpected %s after object key: expected ':'", p.Describe(p.I))
		return "", false
	}
	p.I++
	p.SkipSpace()
	return k, true
}

// Next reads what follows an object member's value or an array's item,
// close being '}' or ']': more is whether another follows; false ok
// when p.Err says why.
func (p *Parser) Next(close byte) (more, ok bool) {
	p.SkipSpace()
	if p.I >= len(p.S) {
		p.fail(p.I, "unexpected end of input: expected ',' or '%c'", close)
		return false, false
	}
	switch p.S[p.I] {
	case ',':
		p.I++
		return true, true
	case close:
		p.I++
		return false, true
	}
	p.fail(p.I, "unexpected %s after a value: expected ',' or '%c'", p.Describe(p.I), close)
	return false, false
}

// Empty reports whether the array or object begun at p.I-1 closes at
// once with close, and reads past it if so.
func (p *Parser) Empty(close byte) bool {
	p.SkipSpace()
	if p.I < len(p.S) && p.S[p.I] == close {
		p.I++
		return true
	}
	return false
}

func (p *Parser) skipObject() bool {
	if !p.enter() {
		return false
	}
	defer p.Leave()
	p.I++ // '{'
	if p.Empty('}') {
		return true
	}
	var ks Keys
	for {
		if _, ok := p.Member(&ks); !ok || !p.Skip() {
			return false
		}
		more, ok := p.Next('}')
		if !ok || !more {
			return ok
		}
	}
}

func (p *Parser) skipArray() bool {
	if !p.enter() {
		return false
	}
	defer p.Leave()
	p.I++ // '['
	if p.Empty(']') {
		return true
	}
	for {
		p.SkipSpace()
		if !p.Skip() {
			return false
		}
		more, ok := p.Next(']')
		if !ok || !more {
			return ok
		}
	}
}

// Literal reads word (true, false or null) at p.I; false when p.Err says
// why.
func (p *Parser) Literal(word string) bool {
	if !strings.HasPrefix(p.S[p.I:], word) {
		p.fail(p.I, "unexpected %s: expected a value", p.Describe(p.I))
		return false
	}
	p.I += len(word)
	return true
}
