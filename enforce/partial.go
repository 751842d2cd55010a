package enforce

import (
	"errors"
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
// whole and known to pass the subschema that applies to them, in the
// order they settled (a value after the members and items inside it).
// A value settles only where that subschema is known from the path
// alone: below the root, through properties, additionalProperties,
// items (one schema) and $ref, in subschemas that use no other
// applicator (no allOf, anyOf, patternProperties, items as an array, …)
// — a value below one of those never settles, though the value that
// holds it may. What passes is the schema's verdict; a Go type's (see
// [Schema.For]) is given only by Close. Each later call returns the same
// pointers followed by new ones; the slice is shared, so do not change
// it. To bound the work, checking values against their subschemas stops
// (later values then never settle) once the text checked passes four
// times the bytes read plus 64 KiB.
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
	node       *pnode
}

// track records the value beginning at s[i] with plan node n, when its
// subschema is known, and returns its index in the tape, or -1.
func (st *Stream) track(i int, n *pnode) int32 {
	d := len(st.stack)
	if d == 0 {
		st.rootStart = i
		return st.tape.add(pval{start: i, parent: -1, index: -1, node: n})
	}
	f := &st.stack[d-1]
	if f.val < 0 || f.node == nil {
		return -1
	}
	if !f.obj {
		return st.tape.add(pval{start: i, parent: f.val, index: int32(f.n - 1), node: n})
	}
	if strings.IndexByte(f.key, 0) >= 0 {
		return -1 // the validator's paths cannot name it
	}
	return st.tape.add(pval{start: i, parent: f.val, index: -1, key: f.key, node: n})
}

func (t *partialTape) add(v pval) int32 {
	t.vals = append(t.vals, v)
	return int32(len(t.vals) - 1)
}

// done records that the value with tape index val (or -1) ended just
// before end.
func (st *Stream) done(end int, val int32) {
	if d := len(st.stack); d > 0 {
		st.stack[d-1].safe = end
	} else {
		st.rootEnd = end
	}
	if val >= 0 {
		st.tape.vals[val].end = end
		st.tape.closed = append(st.tape.closed, val)
	}
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
		if v.parent < 0 {
			continue // the root is not a member or an item: Close judges it
		}
		if t.work > bound {
			t.checked = len(t.closed)
			return
		}
		ptr, doc, items := st.pathDoc(i)
		t.work += v.end - v.start + 8*items + 64
		if len(ptr) > MaxQuote-8 || t.work > bound {
			continue
		}
		if st.passes(ptr, doc) {
			t.settled = append(t.settled, ptr)
		}
	}
}

// pathDoc returns the pointer of the tape's value i and a document that
// holds only the path to it, with the array items on that path.
func (st *Stream) pathDoc(i int32) (ptr string, doc any, items int) {
	t := &st.tape
	v := &t.vals[i]
	val, err := parseJSON(st.buf.String()[v.start:v.end])
	if err != nil {
		return "", nil, 0 // cannot happen: the value was read whole
	}
	var segs []string
	doc = val
	for j := i; t.vals[j].parent >= 0; j = t.vals[j].parent {
		e := &t.vals[j]
		if e.index >= 0 {
			a := make([]any, e.index+1)
			a[e.index] = doc
			doc = a
			items += int(e.index) + 1
			segs = append(segs, strconv.Itoa(int(e.index)))
		} else {
			doc = map[string]any{e.key: doc}
			segs = append(segs, escapePointer(e.key))
		}
	}
	var b strings.Builder
	for j := len(segs) - 1; j >= 0; j-- {
		b.WriteByte('/')
		b.WriteString(segs[j])
	}
	return b.String(), doc, items
}

// passes reports whether the validator finds no issue at or below ptr in
// doc. The subschema at ptr is known from the path (see [Stream.Partial]),
// so those issues are exactly the value's against it.
func (st *Stream) passes(ptr string, doc any) bool {
	err := st.s.validate(doc)
	if err == nil {
		return true
	}
	var ce *CheckError
	if !errors.As(err, &ce) {
		return false
	}
	for _, is := range ce.Issues {
		if is.Path == ptr || strings.HasPrefix(is.Path, ptr+"/") || is.Keyword == "validator" {
			return false
		}
	}
	return true
}
