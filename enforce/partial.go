package enforce

import (
	"strconv"
	"strings"
)

// Partial returns the answer so far, for showing a typed value as it
// forms.
//
// doc is the bytes read so far as one closed JSON document, nil while no
// value has begun: an open string is closed keeping its whole characters
// so far (an unfinished escape or UTF-8 sequence, and a \u escape of a
// high surrogate waiting for its pair, left out), open arrays and
// objects are closed, and a member whose value has not begun, or is a
// number or literal not yet ended, is left out, as is such an item. A
// number ends at the byte after it, or at Close. After an early verdict,
// doc holds the values read before the one (or the byte) that doomed the
// answer. doc is the caller's.
//
// settled holds the JSON Pointers of the members and items that are
// whole and pass the subschema that applies to them, in the order they
// settled (a value after the members and items inside it). A value
// settles only where that subschema is known from the path alone: each
// object or array above it, up from the root, has its subschema from
// properties, additionalProperties or items (one schema, or the tuple
// and additionalItems), through $ref, with nothing else applying
// subschemas to it or its parts (allOf, anyOf, oneOf, not, if,
// dependencies with a schema, contains, or a patternProperties pattern
// matching the member's name); below anything else no value settles,
// though the value that holds it may. Whether a value passes is the
// schema's exact verdict (as Check gives it, by the same evaluator); a
// Go type's (see [Schema.For]) is given only by Close. A member that
// additionalProperties false refuses never settles. Each later call
// returns the same pointers followed by new ones; the slice is shared,
// so do not change it. To bound the work, checking stops (later values
// then never settle) once the text checked passes four times the bytes
// read plus 64 KiB: each value is checked whole, so deep nesting checks
// the same bytes once per level.
//
// Partial costs about the length of doc, plus checking the values that
// closed since the last call: call it after every write.
func (st *Stream) Partial() (doc []byte, settled []string) {
	st.settle()
	return st.partialDoc(), st.tape.settled[:len(st.tape.settled):len(st.tape.settled)]
}

// partialTape records the values of the answer whose subschema is known
// from their path (see [Stream.Partial]), as they begin and end.
type partialTape struct {
	vals    []pval
	closed  []int32 // indexes in vals, in the order the values ended
	checked int     // closed[:checked] were checked
	work    int     // text checked, against the work bound
	settled []string
}

// pval is one value of the tape.
type pval struct {
	start, end int // end is 0 while the value is open
	parent     int32
	index      int32 // an item's index, or -1 for a member (or the root)
	key        string
	c          *cnode // the subschema that applies to the value, once resolved
	resolved   bool
}

// track records the value beginning at s[i] and returns its index in the
// tape. Which subschema applies to it is worked out only if Partial asks.
func (st *Stream) track(i int) int32 {
	if st.tape.vals == nil {
		st.tape.vals = make([]pval, 0, 64)
		st.tape.closed = make([]int32, 0, 64)
	}
	d := len(st.stack)
	if d == 0 {
		st.rootStart = i
		return st.tape.add(pval{start: i, parent: -1, index: -1})
	}
	f := &st.stack[d-1]
	if !f.obj {
		return st.tape.add(pval{start: i, parent: f.val, index: int32(f.n - 1)})
	}
	return st.tape.add(pval{start: i, parent: f.val, index: -1, key: f.key})
}

// schemaOf returns the subschema that applies to the tape's value i when
// it is known from the path alone (see [Stream.Partial]), else nil.
func (st *Stream) schemaOf(i int32) *cnode {
	v := &st.tape.vals[i]
	if v.resolved {
		return v.c
	}
	switch {
	case v.parent < 0:
		v.c = st.s.fast
	case v.index >= 0:
		v.c = st.schemaOf(v.parent).item(int(v.index))
	default:
		v.c = st.schemaOf(v.parent).member(v.key)
	}
	v.resolved = true
	return v.c
}

func (t *partialTape) add(v pval) int32 {
	t.vals = append(t.vals, v)
	return int32(len(t.vals) - 1)
}

// done records that the value with tape index val ended just
// before end.
func (st *Stream) done(end int, val int32) {
	if d := len(st.stack); d > 0 {
		st.stack[d-1].safe = end
	} else {
		st.rootEnd = end
	}
	st.tape.vals[val].end = end
	st.tape.closed = append(st.tape.closed, val)
}

// partialDoc is Partial's doc.
func (st *Stream) partialDoc() []byte {
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

// openStringEnd is where to cut an open string, s from its opening quote
// to the end of its last whole escape or character: before a trailing
// \u escape of a high surrogate, whose pair may follow.
func openStringEnd(s string) int {
	n := len(s)
	if n < 7 || s[n-6] != '\\' || (s[n-5] != 'u') {
		return n
	}
	if r, ok := hex4(s, n-4); !ok || r < 0xD800 || r > 0xDBFF {
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

// settle checks the values that ended since the last call against their
// subschemas, within the work bound.
func (st *Stream) settle() {
	t := &st.tape
	bound := 4*st.read + 64<<10
	for ; t.checked < len(t.closed); t.checked++ {
		i := t.closed[t.checked]
		v := &t.vals[i]
		if v.parent < 0 || st.schemaOf(i) == nil {
			continue // the root is not a member or an item (Close judges it), or the subschema is not known
		}
		if t.work += v.end - v.start + 16; t.work > bound {
			t.checked = len(t.closed)
			return
		}
		if st.passes(v) {
			t.settled = append(t.settled, st.pointer(v))
		}
	}
}

// passes reports whether the value v passes its subschema.
func (st *Stream) passes(v *pval) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	doc, err := parseJSON(st.buf.String()[v.start:v.end])
	if err != nil {
		return false // cannot happen: the value was read whole
	}
	if st.s.canonical {
		doc = canonicalizeInPlace(doc)
	}
	return v.c.valid(doc)
}

// pointer returns the JSON Pointer of v.
func (st *Stream) pointer(v *pval) string {
	var segs []string
	for e := v; e.parent >= 0; e = &st.tape.vals[e.parent] {
		if e.index >= 0 {
			segs = append(segs, strconv.Itoa(int(e.index)))
		} else {
			segs = append(segs, escapePointer(e.key))
		}
	}
	var b strings.Builder
	for j := len(segs) - 1; j >= 0; j-- {
		b.WriteByte('/')
		b.WriteString(segs[j])
	}
	return b.String()
}
