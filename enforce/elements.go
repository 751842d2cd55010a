package enforce

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Element is one element of the array an [Elements] reads, delivered once
// it is whole and passes.
type Element struct {
	// Index is the element's 0-based position in its array.
	Index int
	// Text is the element's JSON: its bytes as the answer wrote them, or,
	// for an element delivered at Close from a mended answer or one the
	// path did not decide (see [Elements]), its value encoded again.
	Text  string
	array string // the array's pointer
}

// Pointer is the element's JSON Pointer in the answer.
func (e Element) Pointer() string { return e.array + "/" + strconv.Itoa(e.Index) }

// Elements is an [Incremental] that also delivers, one by one, the
// elements of the array at a JSON Pointer in the answer: the root array
// (pointer "") or an array inside an object, beside other members. Make
// one with [NewElements] and write the answer to it instead of to its
// Incremental; it is not safe for concurrent use.
//
// An element is delivered within the write that holds its closing byte
// (a number's: the byte after it), before any later byte is judged, once
// it is whole and the Incremental found it passing the subschema its path
// gives it (by Check's own evaluator, as [Incremental.Partial] settles
// values), with no verdict given: a validator the Incremental asks
// ([Schema.StreamValidating]) that found an issue in it holds it back.
// Elements are delivered in order, each once: once one closes without
// passing so (the path does not decide its subschema, or the Incremental
// does not check values as they end, as where recursion fans out), none
// after it is delivered early; they wait for Close. A write that gives
// the early verdict delivers no element at or after the byte that doomed
// the answer.
//
// Close gives the Incremental's verdict and, when the answer passes,
// delivers the elements not yet delivered (for a schema with repairs,
// every element, from the mended answer: such an Incremental delivers
// none early). So every element of a passing answer is delivered by
// Close, and no element is delivered from an answer [Schema.Check]
// fails at or under that element's pointer.
type Elements struct {
	st      *Incremental
	s       *Schema
	ptr     string   // the array's pointer, escaped as Partial's are
	toks    []string // its reference tokens, unescaped
	deliver func(Element)

	text    strings.Builder // every byte written, where elements wait for Close
	base    int             // bytes written before the current write
	written int             // bytes written to st
	early   bool            // elements may be delivered as they close
	next    int             // elements delivered
	done    bool            // a write gave the verdict
	closed  bool

	// The scanner: just enough of JSON to see where the array's elements
	// begin and end; the Incremental judges every byte.
	stack             []elemFrame
	inStr             bool
	esc               bool
	isKey             bool
	strFrom           int // where the string being read began (its opening quote)
	inNum             bool
	lit               int // letters left of a true, false or null
	elemAt            int // stack depth of the element being read, -1 if none
	elemIdx           int // the element read last: its index, and its text's bounds
	elemFrom, elemEnd int
	lost              bool // the bytes are no JSON the scanner follows: no more early elements
	// items: elements the array has begun; whole: the array ended.
	items int
	whole bool

	stackBuf [8]elemFrame // room for a typical answer's nesting
}

type elemFrame struct {
	obj bool
	on  bool // the value at a prefix of the pointer
	// wantKey: in an object, a member name comes next; match: the current
	// member (or item) is at the next prefix of the pointer.
	wantKey, match bool
	items          int // items begun, in an array
}

// ErrPointer is what [NewElements] returns for a pointer that is not a
// JSON Pointer (RFC 6901): "" or "/"-separated reference tokens.
var ErrPointer = errors.New("enforce: not a JSON Pointer")

// NewElements returns an [Elements] reading the answer through st, from
// [Schema.Stream] or [Schema.StreamValidating] with nothing written yet,
// that calls deliver with each element of the array at pointer. deliver
// runs inside Write and Close.
func NewElements(st *Incremental, pointer string, deliver func(Element)) (*Elements, error) {
	if pointer != "" && pointer[0] != '/' {
		return nil, fmt.Errorf("%w: %q does not begin with '/'", ErrPointer, pointer)
	}
	var toks []string
	if pointer != "" {
		for _, t := range strings.Split(pointer[1:], "/") {
			if strings.Count(t, "~") != strings.Count(t, "~0")+strings.Count(t, "~1") {
				return nil, fmt.Errorf("%w: %q has a '~' not followed by 0 or 1", ErrPointer, pointer)
			}
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
		}
	}
	if deliver == nil {
		deliver = func(Element) {}
	}
	e := &Elements{st: st, s: st.schemaOf(), ptr: pointer, toks: toks, deliver: deliver, elemAt: -1}
	e.stack = e.stackBuf[:0]
	e.early = st.mend == nil
	return e, nil
}

// schemaOf is the schema st judges for: a hook of Elements into the
// Incremental.
func (st *Incremental) schemaOf() *Schema {
	if st.mend != nil {
		c, _ := st.mend.Contract().(*repairContract)
		return (*Schema)(c)
	}
	return st.host.s
}

// passedIn is a hook of Elements into the Incremental: see
// scan.Scanner.PassedIn. False for an Incremental with repairs.
func (st *Incremental) passedIn(d int) bool { return st.mend == nil && st.sc.PassedIn(d) }

// answer is a hook of Elements into the Incremental: the bytes written
// to it (up to one past its size bound), for an Incremental without
// repairs.
func (st *Incremental) answer() string { return st.sc.Text() }

// Write is [Incremental.Write], delivering the elements that close in p.
func (e *Elements) Write(p []byte) (int, error) { return e.WriteString(string(p)) }

// WriteString is [Incremental.WriteString], delivering the elements that
// close in p.
func (e *Elements) WriteString(p string) (int, error) {
	if e.done || e.closed {
		return e.st.WriteString(p)
	}
	if !e.early {
		e.text.WriteString(p)
		n, err := e.st.WriteString(p)
		e.done = err != nil
		return n, err
	}
	// Offsets are the answer's: p begins at e.base. What was written
	// before p is in st's own buffer (see Incremental.answer).
	e.base = e.written
	n := 0
	for i := 0; i < len(p) && !e.lost; i++ {
		switch {
		case e.inStr && !e.esc:
			// Most bytes are a string's plain text: skip to its end.
			for i < len(p) && p[i] != '"' && p[i] != '\\' {
				i++
			}
			if i == len(p) {
				continue
			}
		case e.inNum:
			for i < len(p) && numByte[p[i]] {
				i++
			}
			if i == len(p) {
				continue
			}
		case e.lit == 0 && (p[i] == ' ' || p[i] == '\n' || p[i] == ':'):
			continue // nothing the scanner follows
		}
		end, ok := e.scan(p, i)
		if !ok {
			continue
		}
		// Judge up to the element's end, and no further, before
		// delivering it.
		k, err := e.st.WriteString(p[e.written-e.base : end-e.base])
		n += k
		e.written = end
		if err != nil {
			e.done = true
			return n, err
		}
		e.settle()
	}
	k, err := e.st.WriteString(p[e.written-e.base:])
	e.written = e.base + len(p)
	e.done = err != nil
	return n + k, err
}

// span is the answer's bytes from i to j, where p, the bytes being
// written, begins at e.base.
func (e *Elements) span(p string, i, j int) string {
	if i >= e.base {
		return p[i-e.base : j-e.base]
	}
	return e.st.answer()[i:e.base] + p[:j-e.base]
}

// settle delivers the element that just closed, e.elemIdx, if it passed
// and those before it were delivered.
func (e *Elements) settle() {
	if e.elemIdx != e.next || !e.st.passedIn(len(e.toks)) {
		return // Close delivers the rest
	}
	e.deliver(Element{Index: e.elemIdx, Text: e.st.answer()[e.elemFrom:e.elemEnd], array: e.ptr})
	e.next++
}

// Close is [Incremental.Close]; when the answer passes, it first delivers
// the elements not yet delivered. Later calls deliver nothing.
func (e *Elements) Close() error {
	err := e.st.Close()
	if e.closed {
		return err
	}
	e.closed = true
	if err == nil && !(e.early && !e.lost && e.whole && e.next == e.items) {
		e.rest()
	}
	return err
}

// rest delivers, from the whole answer (mended, with repairs), the
// elements after those delivered.
func (e *Elements) rest() {
	answer := e.text.String()
	if e.early {
		answer = e.st.answer()
	}
	if e.s != nil && e.s.repairs != 0 {
		answer, _ = e.s.Repaired(answer)
	}
	doc, err := jsonvalue.Parse(answer)
	if err != nil {
		return
	}
	v, _ := jsonvalue.LookupPointer(doc, e.ptr)
	items, _ := v.([]any)
	for i := e.next; i < len(items); i++ {
		b, err := json.Marshal(items[i])
		if err != nil {
			return
		}
		e.deliver(Element{Index: i, Text: string(b), array: e.ptr})
	}
	e.next = len(items)
}

// scan reads s[i], and reports whether an element of the array ended
// there, with the end of what the Incremental must read to settle it.
func (e *Elements) scan(s string, i int) (end int, closed bool) {
	c := s[i]
	switch {
	case e.inStr:
		switch {
		case e.esc:
			e.esc = false
		case c == '\\':
			e.esc = true
		case c == '"':
			e.inStr = false
			if e.isKey {
				e.key(e.span(s, e.strFrom, e.base+i+1))
				return 0, false
			}
			return e.ended(e.base + i + 1)
		}
		return 0, false
	case e.lit > 0:
		if e.lit--; e.lit == 0 {
			return e.ended(e.base + i + 1)
		}
		return 0, false
	case e.inNum:
		if numByte[c] {
			return 0, false
		}
		e.inNum = false
		// The element's text ends before c; the Incremental ends a
		// number at the byte after it.
		if _, closed = e.ended(e.base + i); closed {
			end = e.base + i + 1
		}
	}
	d := len(e.stack)
	switch c {
	case ' ', '\t', '\n', '\r', ':':
	case '{', '[':
		on := e.begin(i)
		e.stack = append(e.stack, elemFrame{obj: c == '{', on: on, wantKey: c == '{'})
	case '}', ']':
		if d == 0 {
			e.lost = true
			return end, closed
		}
		e.whole = e.whole || d-1 == len(e.toks) && e.stack[d-1].on && !e.stack[d-1].obj
		e.stack = e.stack[:d-1]
		if end2, closed2 := e.ended(e.base + i + 1); closed2 {
			return end2, true
		}
	case ',':
		if d > 0 && e.stack[d-1].obj {
			e.stack[d-1].wantKey = true
		}
	case '"':
		e.inStr, e.strFrom = true, e.base+i
		e.isKey = d > 0 && e.stack[d-1].obj && e.stack[d-1].wantKey
		if e.isKey {
			e.stack[d-1].wantKey = false
		} else {
			e.begin(i)
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		e.begin(i)
		e.inNum = true
	case 't', 'n':
		e.begin(i)
		e.lit = 3
	case 'f':
		e.begin(i)
		e.lit = 4
	default:
		e.lost = true // the Incremental gives its verdict: no more early elements
	}
	return end, closed
}

// numByte holds the bytes that continue a number.
var numByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'.': true, 'e': true, 'E': true, '+': true, '-': true}

// begin notes that a value begins at s[i], and reports whether it is at
// a prefix of the pointer.
func (e *Elements) begin(i int) bool {
	d := len(e.stack)
	if d == 0 {
		return true
	}
	f := &e.stack[d-1]
	if !f.obj {
		idx := f.items
		f.items++
		if f.on && d-1 == len(e.toks) {
			e.elemAt, e.elemIdx, e.elemFrom = d, idx, e.base+i
			e.items = f.items
		}
		f.match = d-1 < len(e.toks) && e.toks[d-1] == strconv.Itoa(idx)
	}
	return f.on && f.match
}

// key notes the member name raw (quoted) just read.
func (e *Elements) key(raw string) {
	f := &e.stack[len(e.stack)-1]
	level := len(e.stack) - 1
	if !f.on || level >= len(e.toks) {
		f.match = false
		return
	}
	name := raw[1 : len(raw)-1]
	if strings.IndexByte(name, '\\') >= 0 {
		var decoded string
		if json.Unmarshal([]byte(raw), &decoded) != nil {
			e.lost = true
			return
		}
		name = decoded
	}
	f.match = name == e.toks[level]
}

// ended notes that a value ended just before end, and reports whether it
// was an element of the array.
func (e *Elements) ended(end int) (int, bool) {
	if e.elemAt != len(e.stack) {
		return 0, false
	}
	e.elemAt, e.elemEnd = -1, end
	return end, true
}
