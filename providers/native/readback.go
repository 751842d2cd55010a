package native

import (
	"encoding/json"
	"strconv"
)

// shape is what the read-back needs of a lowered schema: the members of
// its objects and which of them the lowering made nullable, its items,
// its branches, and where its $ref leads.
type shape struct {
	props    map[string]*shape
	nullable map[string]bool
	items    *shape
	alts     []*shape
	ref      string
	hasRef   bool
	target   *shape
}

// resolve links each $ref's shape to its target's.
func (l *lowerer) resolve() {
	for _, sh := range l.shapes {
		if sh.hasRef {
			sh.target = l.shapes[sh.ref]
		}
	}
}

// flatten is every shape s stands for: itself, its branches, and what its
// $refs lead to, each once.
func flatten(s *shape) []*shape {
	var out []*shape
	seen := map[*shape]bool{}
	var walk func(*shape)
	walk = func(s *shape) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		walk(s.target)
		for _, a := range s.alts {
			walk(a)
		}
	}
	walk(s)
	return out
}

// maxReadBackDepth bounds the nesting the read-back follows; deeper text
// passes through unchanged.
const maxReadBackDepth = 10000

// ReadBack returns the read-back of one answer. It undoes, in the
// answer's text, what the lowering changed: a member the lowering made
// nullable ([Report.Nullable]) whose value is null is removed, with one
// comma, so that the answer judged is the one the contract means: that
// member left out. Only such members are removed, and only where every
// schema the object may be under agrees that the member is one; nothing
// else changes, byte for byte. Text that is not JSON is passed on as
// it came, from the first byte that makes it so (what was removed before
// that byte stays removed, and the text stays not JSON). It reads the
// text in pieces, as a stream arrives, holding back only the bytes of a
// member it may remove until it knows.
func (l *Lowering) ReadBack() *ReadBack {
	rb := &ReadBack{state: stPass}
	if l != nil && l.root != nil {
		rb.root, rb.state = l.root, stValue
	}
	return rb
}

// Text is the read-back of a whole answer, and the pointers of the
// members it removed.
func (l *Lowering) Text(answer string) (string, []string) {
	rb := l.ReadBack()
	s := rb.Write(answer)
	s += rb.Close()
	return s, rb.Removed()
}

// ReadBack is one answer's read-back, from [Lowering.ReadBack]. It is not
// safe for concurrent use.
type ReadBack struct {
	root  []*shape
	stack []frame
	state state
	out   []byte

	// pending holds the bytes of a member that may be removed (from its
	// comma, or its key when it is the first), and while hold is set
	// every byte goes there. restore holds members removed at an object's
	// start whose following comma has not been seen: they come back if
	// the text turns out not to be JSON before the next member is kept.
	pending, restore []byte
	hold             bool
	key, lit         []byte
	escaped          bool
	removed          []string
	uncommitted      int // removals in restore
}

type frame struct {
	array     bool
	shapes    []*shape
	ptr       string
	index     int
	key       string
	first     bool // no member of this object is in the output yet
	expectKey bool // after a comma: a member must follow
	dropComma bool // a first member was removed: its following comma goes too
}

type state int

const (
	stPass      state = iota // not JSON, or past the root value: pass on
	stValue                  // before a value
	stString                 // in a string value
	stLiteral                // in a number, true, false or null
	stKeyOrEnd               // in an object, before a key or its end
	stKey                    // in a key
	stColon                  // after a key
	stAfter                  // after a value inside a container
	stItemOrEnd              // after an array's '['
)

// Removed are the pointers, into the answer, of the members removed.
func (rb *ReadBack) Removed() []string {
	if rb == nil {
		return nil
	}
	return rb.removed
}

// A nil *ReadBack passes the text through.

// Write reads the next piece of the answer and returns what of the text
// can be passed on so far.
func (rb *ReadBack) Write(s string) string {
	if rb == nil {
		return s
	}
	rb.out = rb.out[:0]
	for i := 0; i < len(s); i++ {
		rb.byte(s[i])
	}
	return string(rb.out)
}

// Close ends the answer and returns the rest of the text.
func (rb *ReadBack) Close() string {
	if rb == nil {
		return ""
	}
	rb.out = rb.out[:0]
	if rb.state == stLiteral && len(rb.stack) == 0 {
		rb.endValue()
	}
	if rb.state != stPass {
		// The text ended inside a value: it is not JSON.
		rb.giveBack()
	}
	rb.state = stPass
	return string(rb.out)
}

func (rb *ReadBack) emit(c byte) {
	if rb.hold {
		rb.pending = append(rb.pending, c)
	} else {
		rb.out = append(rb.out, c)
	}
}

// keep passes on the member held: it stays.
func (rb *ReadBack) keep() {
	rb.out = append(rb.out, rb.pending...)
	rb.pending, rb.restore, rb.hold, rb.uncommitted = rb.pending[:0], rb.restore[:0], false, 0
	if len(rb.stack) > 0 {
		rb.top().first = false
	}
}

// giveBack passes on everything held, removals not yet committed
// included: the text is not JSON.
func (rb *ReadBack) giveBack() {
	rb.out = append(append(rb.out, rb.restore...), rb.pending...)
	rb.removed = rb.removed[:len(rb.removed)-rb.uncommitted]
	rb.pending, rb.restore, rb.hold, rb.uncommitted = rb.pending[:0], rb.restore[:0], false, 0
}

func (rb *ReadBack) fail(c byte) {
	rb.giveBack()
	rb.state = stPass
	rb.out = append(rb.out, c)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (rb *ReadBack) top() *frame { return &rb.stack[len(rb.stack)-1] }

func (rb *ReadBack) byte(c byte) {
	switch rb.state {
	case stPass:
		rb.out = append(rb.out, c)
	case stValue:
		rb.value(c)
	case stItemOrEnd:
		if c == ']' {
			rb.emit(c)
			rb.pop()
			return
		}
		rb.value(c)
	case stString:
		rb.emit(c)
		switch {
		case rb.escaped:
			rb.escaped = false
		case c == '\\':
			rb.escaped = true
		case c == '"':
			rb.endValue()
		}
	case stLiteral:
		if c == '}' || c == ']' || c == ',' || isSpace(c) {
			rb.endValue()
			rb.byte(c)
			return
		}
		if rb.hold {
			rb.lit = append(rb.lit, c)
		}
		rb.emit(c)
	case stKeyOrEnd:
		f := rb.top()
		switch {
		case isSpace(c):
			rb.emit(c)
		case c == '"':
			rb.hold = true
			rb.emit(c)
			rb.key = append(rb.key[:0], c)
			rb.state = stKey
		case c == '}' && !f.expectKey:
			rb.closeObject(c)
		default:
			rb.fail(c)
		}
	case stKey:
		rb.emit(c)
		rb.key = append(rb.key, c)
		switch {
		case rb.escaped:
			rb.escaped = false
		case c == '\\':
			rb.escaped = true
		case c == '"':
			f := rb.top()
			f.key, f.expectKey = "", false
			if json.Unmarshal(rb.key, &f.key) != nil {
				rb.giveBack()
				rb.state = stPass
				return
			}
			rb.state = stColon
			if !rb.candidate() {
				rb.keep()
			}
		}
	case stColon:
		switch {
		case isSpace(c):
			rb.emit(c)
		case c == ':':
			rb.emit(c)
			rb.state = stValue
		default:
			rb.fail(c)
		}
	case stAfter:
		f := rb.top()
		switch {
		case isSpace(c):
			rb.emit(c)
		case c == ',' && f.array:
			rb.emit(c)
			f.index++
			rb.state = stValue
		case c == ',':
			if f.dropComma {
				// The comma after a removed first member goes with it.
				f.dropComma = false
				rb.restore = append(append(rb.restore, rb.pending...), c)
				rb.pending = rb.pending[:0]
			} else {
				rb.hold = true
				rb.emit(c)
			}
			f.expectKey = true
			rb.state = stKeyOrEnd
		case c == ']' && f.array:
			rb.emit(c)
			rb.pop()
		case c == '}' && !f.array:
			rb.closeObject(c)
		default:
			rb.fail(c)
		}
	}
}

// closeObject ends the top object: a first member removed with no member
// after it is removed for good.
func (rb *ReadBack) closeObject(c byte) {
	rb.out = append(rb.out, rb.pending...)
	rb.pending, rb.restore, rb.hold, rb.uncommitted = rb.pending[:0], rb.restore[:0], false, 0
	rb.out = append(rb.out, c)
	rb.pop()
}

// candidate reports whether the member whose key was just read may be
// removed: some schema the object may be under made it nullable, and
// none has it as a member it did not.
func (rb *ReadBack) candidate() bool {
	f := rb.top()
	some := false
	for _, s := range f.shapes {
		if s.nullable[f.key] {
			some = true
		} else if s.props[f.key] != nil {
			return false
		}
	}
	return some
}

// value reads the first byte of a value.
func (rb *ReadBack) value(c byte) {
	if isSpace(c) {
		rb.emit(c)
		return
	}
	if rb.hold && c != 'n' {
		// The held member's value is not null: it stays.
		rb.keep()
	}
	switch {
	case c == '{' || c == '[':
		if len(rb.stack) >= maxReadBackDepth {
			rb.fail(c)
			return
		}
		rb.emit(c)
		rb.push(c == '[')
	case c == '"':
		rb.emit(c)
		rb.state = stString
	case c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z':
		rb.lit = append(rb.lit[:0], c)
		rb.emit(c)
		rb.state = stLiteral
	default:
		rb.fail(c)
	}
}

// endValue follows a value's last byte.
func (rb *ReadBack) endValue() {
	if rb.hold && rb.state == stLiteral {
		if string(rb.lit) != "null" {
			rb.keep()
		} else {
			f := rb.top()
			rb.removed = append(rb.removed, f.ptr+"/"+escape(f.key))
			if f.first {
				// Its following comma must go too; until it comes,
				// the member may have to come back.
				rb.restore = append(rb.restore, rb.pending...)
				rb.pending = rb.pending[:0]
				rb.uncommitted++
				f.dropComma = true
			} else {
				rb.pending, rb.hold = rb.pending[:0], false
			}
		}
	}
	if len(rb.stack) == 0 {
		rb.state = stPass
		return
	}
	rb.state = stAfter
}

// children are the shapes of the value about to begin inside the top
// frame (the root's when there is none), and its pointer.
func (rb *ReadBack) children() ([]*shape, string) {
	if len(rb.stack) == 0 {
		return rb.root, ""
	}
	f := rb.top()
	var out []*shape
	if f.array {
		for _, s := range f.shapes {
			out = append(out, flatten(s.items)...)
		}
		return out, f.ptr + "/" + strconv.Itoa(f.index)
	}
	for _, s := range f.shapes {
		out = append(out, flatten(s.props[f.key])...)
	}
	return out, f.ptr + "/" + escape(f.key)
}

func (rb *ReadBack) push(array bool) {
	shapes, ptr := rb.children()
	rb.stack = append(rb.stack, frame{array: array, shapes: shapes, ptr: ptr, first: true})
	if array {
		rb.state = stItemOrEnd
	} else {
		rb.state = stKeyOrEnd
	}
}

func (rb *ReadBack) pop() {
	rb.stack = rb.stack[:len(rb.stack)-1]
	rb.endValue()
}
