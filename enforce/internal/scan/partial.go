package scan

import (
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Partial is enforce's Incremental.Partial: the answer so far as one
// closed JSON document, and the pointers of the values settled.
func (st *Scanner) Partial() (doc []byte, settled []string) {
	// Details. A \u escape of a high surrogate waiting for its pair is
	// left out of an open string, as is an unfinished escape or UTF-8
	// sequence; a number ends at the byte after it, or at Close. After an
	// early verdict, doc holds the values read before the one that doomed
	// the answer. A value settles only where each container above it has
	// its subschema from properties, additionalProperties or items (one
	// schema, or the tuple and additionalItems), through $ref, with
	// nothing else applying subschemas to it or its parts (allOf, anyOf,
	// oneOf, not, if, dependencies with a schema, contains, or a
	// patternProperties pattern matching the member's name); below
	// anything else no value settles, though the value holding it may.
	// Whether a value passes is the schema's exact verdict, by Check's
	// evaluator. A member additionalProperties false refuses never
	// settles. Values are checked as they end from the first call on;
	// that call checks those that ended before it (members of one object
	// in name order). Each value is checked whole, so deep nesting checks
	// the same values once per level: hence the work bound.
	if !st.tape.on {
		st.catchUp()
	}
	return st.partialDoc(), st.tape.settled[:len(st.tape.settled):len(st.tape.settled)]
}

// partialTape is what Partial keeps.
type partialTape struct {
	on      bool // Partial was called: values are checked as they end
	work    int  // values checked, against the work bound
	off     bool // the work bound was passed: no more checking
	settled []string
}

// pdoc is a value of the answer whose container has not ended, as
// jsonvalue.Parse gives it, with its member name.
type pdoc struct {
	key string
	v   any
}

// ended records that a value ended just before end, and is doc as
// jsonvalue.Parse gives it.
func (st *Scanner) ended(end int, doc any) {
	key := ""
	if d := len(st.stack); d > 0 {
		f := &st.stack[d-1]
		f.safe = end
		if f.obj {
			key = f.key
		}
	} else {
		st.rootEnd = end
	}
	st.docs = append(st.docs, pdoc{key: key, v: doc})
}

// done records that a string, number or literal ended just before end,
// and is doc; ok: it passed the subschema its path gives it (see
// Scanner.passesHere). It reports whether a validator of the value gave
// a verdict.
func (st *Scanner) done(end int, doc any, ok bool) bool {
	st.ended(end, doc)
	st.verified(ok)
	if st.tape.on {
		st.settleOne(doc, st.childSchema(len(st.stack)), 1, "", st.inc, ok)
	}
	return st.validateClosed(len(st.stack), st.tok, end) || st.duplicate()
}

// peekContainer builds the object or array that just ended from its n
// members or items, the last n docs, leaving them there (see dropKids).
func (st *Scanner) peekContainer(obj bool, n int) any {
	kids := st.docs[len(st.docs)-n:]
	if obj {
		m := make(map[string]any, n)
		for _, k := range kids {
			m[k.key] = st.built(k.v)
		}
		return m
	}
	a := make([]any, n)
	for j, k := range kids {
		a[j] = st.built(k.v)
	}
	return a
}

// dropKids drops the last n docs, the members or items of the container
// that just ended.
func (st *Scanner) dropKids(n int) {
	kids := st.docs[len(st.docs)-n:]
	st.docs = st.docs[:len(st.docs)-n]
	clear(kids)
}

// lazyDoc stands, in Scanner.docs, for an object or array that passed the
// subschema its path gives it and was not built: the text from start to
// end. It is parsed where the tree is wanted after all (see
// Scanner.built).
type lazyDoc struct{ start, end int }

// lazy drops the n members or items of the object or array that began at
// start and ended before end, and returns its lazyDoc.
func (st *Scanner) lazy(start, end, n int) any {
	kids := st.docs[len(st.docs)-n:]
	st.docs = st.docs[:len(st.docs)-n]
	clear(kids)
	return &lazyDoc{start, end}
}

// built returns v as jsonvalue.Parse gives it: v, or the value a lazyDoc stands
// for. Should that text not parse, which it does, the Scanner breaks:
// Close then judges the text (see Scanner.isWhole).
func (st *Scanner) built(v any) any {
	l, ok := v.(*lazyDoc)
	if !ok {
		return v
	}
	doc, err := jsonvalue.Parse(st.buf.String()[l.start:l.end])
	if err != nil {
		st.broken = true
	}
	return doc
}

// isWhole reports whether the Scanner read exactly one whole value and no
// verdict.
func (st *Scanner) isWhole() bool {
	return st.verdict == nil && !st.broken && st.state == stAfter && len(st.stack) == 0 && len(st.docs) == 1 && st.read == st.buf.Len()
}

// Whole returns the answer as jsonvalue.Parse gives it, once the Scanner
// read exactly one whole value and no verdict.
func (st *Scanner) Whole() (any, bool) {
	if !st.isWhole() {
		return nil, false
	}
	st.docs[0].v = st.built(st.docs[0].v)
	return st.docs[0].v, !st.broken
}

// childSchema is the subschema of the value now read in the object or
// array stack[d-1], when it is known from the path alone; nil for the
// root.
func (st *Scanner) childSchema(d int) *engine.Node {
	if d == 0 {
		return nil
	}
	f := &st.stack[d-1]
	if f.obj {
		if f.linked {
			return f.kc
		}
		return f.c.Member(f.key)
	}
	return f.c.Item(f.n - 1)
}

// enter sets the subschema of the object or array just begun.
func (st *Scanner) enter() {
	d := len(st.stack)
	if d == 1 {
		st.stack[0].c = st.fast
		return
	}
	st.stack[d-1].c = st.childSchema(d - 1)
}

// catchUp starts checking values as they end: it sets the subschemas of
// the open objects and arrays, and checks the values that already ended.
func (st *Scanner) catchUp() {
	st.tape.on = true
	for d := range st.stack {
		if d == 0 {
			st.stack[0].c = st.fast
		} else {
			st.stack[d].c = st.childSchema(d)
		}
	}
	for d := range st.stack {
		f := &st.stack[d]
		end := len(st.docs)
		if d+1 < len(st.stack) {
			end = st.stack[d+1].docs
		}
		prefix := st.pointer(d)
		for j := range st.docs[f.docs:end] {
			st.docs[f.docs+j].v = st.built(st.docs[f.docs+j].v)
		}
		for j, k := range st.docs[f.docs:end] {
			if f.obj {
				st.walk(k.v, prefix+"/"+jsonvalue.EscapePointer(k.key), f.c.Member(k.key))
			} else {
				st.walk(k.v, prefix+"/"+strconv.Itoa(j), f.c.Item(j))
			}
		}
	}
	if len(st.stack) == 0 && len(st.docs) == 1 && st.fast != nil {
		st.docs[0].v = st.built(st.docs[0].v)
		st.walkKids(st.docs[0].v, "", st.fast)
	}
}

// walk checks v, at ptr with subschema c, after the values inside it,
// and returns how many values it holds.
func (st *Scanner) walk(v any, ptr string, c *engine.Node) int {
	if c == nil {
		return countValues(v)
	}
	size := 1 + st.walkKids(v, ptr, c)
	st.settleOne(v, c, size, ptr, false, false)
	return size
}

func (st *Scanner) walkKids(v any, ptr string, c *engine.Node) int {
	n := 0
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			n += st.walk(e, ptr+"/"+strconv.Itoa(i), c.Item(i))
		}
	case map[string]any:
		for _, k := range engine.SortedKeys(v) {
			n += st.walk(v[k], ptr+"/"+jsonvalue.EscapePointer(k), c.Member(k))
		}
	}
	return n
}

func countValues(v any) int {
	n := 1
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			n += countValues(e)
		}
	case map[string]any:
		for _, e := range v {
			n += countValues(e)
		}
	}
	return n
}

// settleOne checks doc, a member or item of size values with subschema
// c (nil: not known), within the work bound, and settles it when it
// passes. Its pointer is ptr, or where the Scanner is when ptr is "".
// checked: the Scanner already checked doc against c, and ok is the
// verdict (see Scanner.passesHere).
func (st *Scanner) settleOne(doc any, c *engine.Node, size int, ptr string, checked, ok bool) {
	t := &st.tape
	if c == nil || t.off {
		return
	}
	if t.work += size; t.work > 4*st.values+4096 {
		t.off = true
		return
	}
	if !checked {
		if st.canonical {
			doc = jsonvalue.CanonicalizeInPlace(doc) // as Check does; doing it twice changes nothing
		}
		ok = c.Passes(doc, false)
	}
	if !ok {
		return
	}
	if ptr == "" {
		ptr = st.pointer(len(st.stack))
	}
	t.settled = append(t.settled, ptr)
}

// pointer returns the JSON Pointer of the value now read in stack[d-1]
// ("" for d 0).
func (st *Scanner) pointer(d int) string {
	var b strings.Builder
	for _, f := range st.stack[:d] {
		b.WriteByte('/')
		if f.obj {
			b.WriteString(jsonvalue.EscapePointer(f.key))
		} else {
			b.WriteString(strconv.Itoa(f.n - 1))
		}
	}
	return b.String()
}

// partialDoc is Partial's doc.
func (st *Scanner) partialDoc() []byte {
	if st.rootStart < 0 {
		return nil
	}
	s := st.buf.String()
	d := len(st.stack)
	open := st.verdict == nil && st.state == stString && !st.key
	var end int
	switch {
	case open:
		end = openStringEnd(s[st.tok:st.read-int(st.esc)-int(st.utf)]) + st.tok
	case d > 0:
		end = st.stack[d-1].safe
	case st.rootEnd >= 0:
		end = st.rootEnd
	default:
		return nil
	}
	doc := make([]byte, 0, end-st.rootStart+d+1)
	doc = append(doc, s[st.rootStart:end]...)
	if open {
		doc = append(doc, '"')
	}
	for j := d - 1; j >= 0; j-- {
		if st.stack[j].obj {
			doc = append(doc, '}')
		} else {
			doc = append(doc, ']')
		}
	}
	return doc
}

// openStringEnd is how much of an open string to keep, s from its
// opening quote to the end of its last whole escape or character: not a
// trailing \u escape of a high surrogate, whose pair may follow.
func openStringEnd(s string) int {
	n := len(s)
	if n < 7 || s[n-6] != '\\' || (s[n-5] != 'u') {
		return n
	}
	if r, ok := jsonvalue.Hex4(s, n-4); !ok || r < 0xD800 || r > 0xDBFF {
		return n
	}
	// The backslash starts an escape when an even number of backslashes
	// precede it.
	b := 0
	for j := n - 7; j >= 0 && s[j] == '\\'; j-- {
		b++
	}
	if b%2 == 1 {
		return n
	}
	return n - 6
}
