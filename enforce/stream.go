package enforce

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Incremental judges an answer as its bytes arrive ([Incremental.Write]),
// and gives the whole answer's verdict at [Incremental.Close], exactly as
// [Schema.Check] does. Make one with [Schema.Stream]; it is not safe for
// concurrent use.
//
// A write fails early, with a *[CheckError], only when no completion of
// the bytes read can pass: at json-parse, every completion within the
// size bound fails with that very error; at schema-validate, its one
// issue is among Check's issues for every completion that parses within
// the bounds ([MaxAnswerBytes], [MaxCheckWork], and numbers that fit a
// float64 where enum, const or uniqueItems compare them: Check reports
// such a number alone). Where the schema does not let a prefix decide,
// the verdict waits for Close.
type Incremental struct {
	// mend judges in its place for a schema with repairs.
	mend *mendStream
	// noSchema: no early verdicts at schema-validate (a mendStream's
	// inner Incremental, when values may still be coerced).
	noSchema bool
	// pointed are the schema's validators of one member ([Validator.At]),
	// asked with vctx and vtry when it closes ([Schema.StreamValidating]).
	pointed []Validator
	vctx    context.Context
	vtry    Try

	s     *Schema
	limit int
	buf   strings.Builder
	read  int // bytes judged: the answer so far is buf.String()[:read]

	state   uint8
	stack   []frame
	keys    []string         // member names of the open objects, innermost last
	cur     *engine.PlanNode // the plan for the value about to begin
	tok     int              // where the current string, number or literal began
	key     bool             // the string is a member name
	esc     uint8            // in a string: 0, or after '\\' (1), or 2..5 in a \u escape
	escaped bool             // the string has an escape
	utf     uint8            // in a string: bytes of an unfinished UTF-8 sequence
	num     uint8            // where in a number (numSign, …)
	exp     int              // a number's exponent so far, as the parser counts it
	long    bool             // the number is already longer than maxNumberLength
	lit     string           // the literal being matched
	doomAt  int              // the first byte of an error waiting for its character

	// inc: values are checked by the fast path as they end (see
	// passesHere); rootOK: the whole value passed.
	inc, rootOK bool
	broken      bool // a lazyDoc did not parse: Close judges the text

	asks    int   // documents gojsonschema was asked about
	verdict error // the early verdict, once given
	closed  bool

	// For Partial: where the value began and ended (-1 until then), the
	// value about to close, and the values whose subschema is known.
	rootStart, rootEnd int
	tape               partialTape
	// The answer as parseJSON gives it, built as values end: the values
	// whose container has not ended, and the values and member names
	// begun, for Close.
	docs          []pdoc
	values, names int

	// Room for a typical answer's nesting and member names, allocated
	// with the Incremental.
	stackBuf [8]frame
	keysBuf  [32]string
	docsBuf  [32]pdoc
}

type frame struct {
	obj bool
	// bad: some member or item so far did not pass the subschema its
	// path gives it, or that subschema is not known (see passesHere).
	bad bool
	// linked: kc is c.member(key), found with the plan's node.
	linked bool
	node   *engine.PlanNode
	n      int    // members or items begun
	key    string // the current member's name
	kc     *engine.Node
	// The object's member names are Incremental.keys[keys:], and also in set
	// once there are many.
	keys  int
	set   map[string]struct{}
	safe  int // just past the last whole member or item, or the opening bracket
	start int // where it began
	docs  int // where its members or items begin in Incremental.docs
	// For Partial: the values begun before it, and the subschema that
	// applies to it (when known from the path, and, before Partial is
	// called, when the Incremental checks values as they end).
	values int
	c      *engine.Node
	// uniq holds the eqKeys of an array's items, where its subschema has
	// uniqueItems, to find a duplicate when it closes.
	uniq map[string]struct{}
}

// Stream returns an incremental judge for an answer that arrives in
// pieces: see [Incremental] for when it fails an answer before it ends
// and what that verdict promises. Those of one Schema may run
// concurrently.
func (s *Schema) Stream() *Incremental {
	if s.repairs != 0 {
		return &Incremental{mend: newMendStream(s)}
	}
	st := &Incremental{s: s, limit: s.maxAnswerBytes(), state: stValue, rootStart: -1, rootEnd: -1,
		inc: s.fast != nil && s.fan == nil}
	if s.fan == nil {
		// Where recursion fans out, one value may cost more than any
		// answer's share before the answer's whole cost is counted: the
		// judge only reads, and Close judges.
		st.cur = s.plan.Root(s.fast)
	}
	st.stack, st.keys, st.docs = st.stackBuf[:0], st.keysBuf[:0], st.docsBuf[:0]
	return st
}

// StreamValidating returns an [Incremental] that also asks the schema's
// validators of one member ([Validator.At]), with ctx and at, as soon as
// that member's value closes: an issue they find fails the answer there.
// One that errs, panics or outlives ctx gives no early verdict.
func (s *Schema) StreamValidating(ctx context.Context, at Try) *Incremental {
	st := s.Stream()
	if st.mend != nil {
		return st // validators judge the mended answer, at its end
	}
	for _, v := range s.validators {
		if v.pointed {
			st.pointed = append(st.pointed, v)
		}
	}
	st.vctx, st.vtry = ctx, at
	return st
}

// validateClosed asks the validators of the value that just closed at
// depth d, s[start:end], and gives the first one's issues as the verdict.
// Nothing after a closed value can change it, so an issue found on it is
// the one the validator finds at the answer's end.
func (st *Incremental) validateClosed(d, start, end int) bool {
	if len(st.pointed) == 0 || st.verdict != nil {
		return false
	}
	ptr := st.pointer(d)
	for _, v := range st.pointed {
		if v.at != ptr {
			continue
		}
		// The member as [Validator.member] gives it at the answer's end:
		// parsed and encoded again, so the validator reads the same text.
		tree, err := jsonvalue.Parse(st.buf.String()[start:end])
		if err != nil {
			continue
		}
		text, err := json.Marshal(tree)
		if err != nil {
			continue
		}
		r, ok := v.call(st.vctx, string(text), st.vtry)
		if !ok || r.panicked || r.exited || (r.err != nil && !errors.Is(r.err, ErrBeyondRepair)) {
			continue
		}
		issues, err := v.found(r)
		if err != nil || len(issues) == 0 {
			continue // no issue, or the validator could not judge: the end decides
		}
		sort.SliceStable(issues, func(i, k int) bool { return issues[i].Path < issues[k].Path })
		st.verdict = &CheckError{Stage: StageSchemaValidate, Issues: issues, byValidators: true, beyondRepair: r.err != nil}
		return true
	}
	return false
}

// Incremental states, between two bytes.
const (
	stValue     uint8 = iota // a value must begin
	stArrayOpen              // after '[': a value or ']'
	stObjOpen                // after '{': a member name or '}'
	stName                   // after ',' in an object: a member name
	stColon                  // after a member name
	stAfter                  // after a value
	stString
	stNumber
	stLiteral
	stRune // doomed at doomAt, waiting for the character there to end
)

// Where in a number.
const (
	numSign  uint8 = iota // after '-'
	numZero               // after a leading 0
	numInt                // in the integer digits
	numDot                // after '.'
	numFrac               // in the fraction digits
	numE                  // after 'e'
	numESign              // after the exponent's sign
	numExp                // in the exponent digits
)

// kindValue is a value of each kind, for an issue that depends on the
// kind alone.
var kindValue = map[engine.Kinds]any{
	engine.KindNull: nil, engine.KindBoolean: true, engine.KindNumber: json.Number("0"), engine.KindString: "",
	engine.KindArray: []any{}, engine.KindObject: map[string]any{},
}

var errStreamClosed = errors.New("enforce: write to a closed Stream")

// Write judges the next bytes of the answer. While the answer can still
// pass it returns len(p), nil. Once it cannot, it returns the early
// verdict, a *[CheckError], with n the bytes of p read up to and
// including the byte at which the verdict was given; every later write
// returns 0 and the same verdict.
func (st *Incremental) Write(p []byte) (int, error) {
	if st.mend != nil {
		return st.mend.write(string(p))
	}
	if err := st.stopped(); err != nil {
		return 0, err
	}
	st.grow(len(p))
	st.buf.Write(p[:st.room(len(p))])
	return st.judge(len(p))
}

// WriteString is [Incremental.Write] for a string.
func (st *Incremental) WriteString(p string) (int, error) {
	if st.mend != nil {
		return st.mend.write(p)
	}
	if err := st.stopped(); err != nil {
		return 0, err
	}
	st.grow(len(p))
	st.buf.WriteString(p[:st.room(len(p))])
	return st.judge(len(p))
}

// stopped is why a write reads nothing: the Incremental is closed, or its
// verdict is given; nil while the answer can still pass.
func (st *Incremental) stopped() error {
	if st.closed {
		return errStreamClosed
	}
	return st.verdict
}

// grow makes room for n more bytes, starting at 2 KiB: a typical answer
// then never grows the buffer.
func (st *Incremental) grow(n int) {
	if st.buf.Cap() == 0 {
		st.buf.Grow(min(max(2048, 2*n), st.limit+1))
	}
}

// room is how many of n more bytes to keep: one past the size bound is
// enough to judge the answer too long.
func (st *Incremental) room(n int) int {
	return min(n, st.limit+1-st.buf.Len())
}

// Close ends the answer and returns its verdict: the early verdict if a
// write gave one, else exactly what [Schema.Check] returns for every byte
// written. Later calls return the same.
func (st *Incremental) Close() error {
	if st.mend != nil {
		return st.mend.close()
	}
	if !st.closed {
		st.closed = true
		if st.verdict == nil && st.state == stNumber && !st.long && st.num != numSign && st.num != numDot && st.num != numE && st.num != numESign {
			var v any = json.Number(st.buf.String()[st.tok:st.read]) // the answer's end ends its number
			st.done(st.read, v, st.passesHere(v))
		}
		if st.verdict == nil {
			// What the Incremental read is what Check would parse: judge its
			// tree, or, where the Incremental could not follow, the text.
			var err error
			if st.inc && st.rootOK && st.isWhole() {
				// Every value passed as it ended: the tree need not be built.
				err = st.s.checkParsed(st.buf.String(), nil, st.values, st.names, true)
			} else if doc, ok := st.whole(); ok {
				err = st.s.checkParsed(st.buf.String(), doc, st.values, st.names, st.inc && st.rootOK)
			} else {
				err = st.s.Check(st.buf.String())
			}
			if err != nil {
				st.verdict = err
			}
		}
	}
	return st.verdict
}

// judge reads the n bytes just buffered, stopping at a verdict.
func (st *Incremental) judge(n int) (int, error) {
	s := st.buf.String()
	start := st.read
	end := len(s)
	if end > st.limit {
		end = st.limit
	}
	i := st.run(s, start, end)
	st.read = i
	if st.verdict == nil && len(s) > st.limit {
		st.read = st.limit + 1
		st.verdict = tooLong(st.limit)
	}
	if st.verdict != nil {
		return st.read - start, st.verdict
	}
	return n, nil
}

// run steps through s[i:end] and returns where it stopped: end, or just
// past the byte that gave a verdict.
func (st *Incremental) run(s string, i, end int) int {
	for i < end {
		c := s[i]
		switch st.state {
		case stValue, stArrayOpen:
			if isSpace(c) {
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
			case isSpace(c):
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
			case isSpace(c):
			case c == ':':
				st.state = stValue
			default:
				if st.syntax(s, i) {
					return i + 1
				}
			}
			i++
		case stAfter:
			if isSpace(c) {
				i++
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

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// begin starts the value whose first byte is s[i], and reports whether
// that gave a verdict.
func (st *Incremental) begin(s string, i int) bool {
	c := s[i]
	n := st.cur
	switch {
	case c == '{' || c == '[':
		if len(st.stack)+1 > MaxDepth {
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
		st.stack = append(st.stack, frame{obj: k == engine.KindObject, node: n, keys: len(st.keys), start: i, safe: i + 1, docs: len(st.docs), values: st.values})
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
func (st *Incremental) pop(end int) bool {
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
		ok = st.inc && c != nil && !bad && ownPasses(c, doc)
		if !ok && st.inc && c != nil && st.closedFails(len(st.stack)-1, doc, size) {
			// Left open, as a value that doomed the answer is: what was
			// read before it stays, for Partial.
			return true
		}
		st.dropKids(f.n)
	}
	st.keys = st.keys[:f.keys]
	st.stack = st.stack[:len(st.stack)-1]
	st.state = stAfter
	st.ended(end, doc)
	st.verified(ok)
	if st.tape.on && len(st.stack) > 0 {
		st.settleOne(doc, c, size, "", st.inc && !bad, ok)
	}
	return st.validateClosed(len(st.stack), start, end) || st.duplicate()
}

// duplicate gives the verdict on an item that just closed equal to an
// item before it, in an array whose subschema its path decides and says
// uniqueItems: from then on no completion keeps the items unique.
func (st *Incremental) duplicate() bool {
	d := len(st.stack)
	if d == 0 || !st.inc || st.verdict != nil {
		return false
	}
	f := &st.stack[d-1]
	if f.obj || f.c == nil || !f.c.Unique {
		return false
	}
	item := &st.docs[len(st.docs)-1]
	item.v = st.built(item.v)
	key, ok := engine.EqKey(item.v)
	if !ok {
		return false // gojsonschema cannot compare it: Check decides
	}
	if _, dup := f.uniq[key]; !dup {
		if f.uniq == nil {
			f.uniq = map[string]struct{}{}
		}
		f.uniq[key] = struct{}{}
		return false
	}
	items := st.peekContainer(false, len(st.docs)-f.docs)
	return st.ask(d-1, items, f.n, false, "", func(is Issue, want string) bool {
		return is.Path == want && is.Keyword == "uniqueItems"
	})
}

// cloneTree copies the objects and arrays of a parsed tree.
func cloneTree(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = cloneTree(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = cloneTree(e)
		}
		return a
	}
	return v
}

// closedScalar is closedFails for the string, number or literal v that
// just ended, where the path decides its subschema.
func (st *Incremental) closedScalar(v any) bool {
	if !st.inc {
		return false
	}
	d := len(st.stack)
	if (d == 0 && st.s.fast == nil) || (d > 0 && st.childSchema(d) == nil) {
		return false
	}
	return st.closedFails(d, v, 1)
}

// stringByte steps a string at s[i] = c, past its plain text.
func (st *Incremental) stringByte(s string, i int, c byte) bool {
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
func (st *Incremental) endString(raw string) bool {
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
		return st.done(st.tok+len(raw), v, ok)
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

// unlisted gives the verdict on a member name additionalProperties false
// refuses beside patternProperties, or under a subschema the plan does
// not follow (allOf, …): once the name has closed, whether a property or
// a pattern lists it is decided, whatever the member's value.
func (st *Incremental) unlisted(f *frame, name string) bool {
	c := f.c
	if !st.inc || c == nil || !c.AddlFalse {
		return false
	}
	if _, listed := c.Props[name]; listed {
		return false
	}
	for _, pp := range c.Patterns {
		if pp.Re.MatchString(name) {
			return false
		}
	}
	return st.schema(len(st.stack)-1, map[string]any{name: nil}, true, name, "additionalProperties")
}

func decodeString(raw string) string {
	p := jsonvalue.Parser{S: raw}
	return p.Str()
}

// decode is the value of the string raw just read, quotes included:
// without an escape, its text (the Incremental checked its UTF-8).
func (st *Incremental) decode(raw string) string {
	if !st.escaped {
		return raw[1 : len(raw)-1]
	}
	return decodeString(raw)
}

// passesHere reports whether v, the value that just ended (a string,
// number or literal), passes the subschema its path gives it, by the
// fast path: false when that subschema is not known (see
// engine.Node.Member). Where it passes, no early verdict can come from it:
// no keyword of that subschema, the only one applying to it, reports an
// issue at its pointer.
func (st *Incremental) passesHere(v any) (ok bool) {
	if !st.inc {
		return false
	}
	var c *engine.Node
	if d := len(st.stack); d == 0 {
		c = st.s.fast
	} else {
		c = st.childSchema(d)
	}
	if c == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return c.Check(v, nil)
}

// shapePasses is c.checkOwn of the object or array f, which ends now,
// for a c whose own keywords need only its member names and size
// (c.shapeOnly).
func (st *Incremental) shapePasses(c *engine.Node, f *frame) bool {
	if c.Always {
		return true
	}
	if f.obj {
		if c.Types != 0 && c.Types&engine.KindObject == 0 {
			return false
		}
		if c.MinProps >= 0 && f.n < c.MinProps || c.MaxProps >= 0 && f.n > c.MaxProps {
			return false
		}
		for _, r := range c.Required {
			if !st.has(f, r) {
				return false
			}
		}
		return true
	}
	if c.Types != 0 && c.Types&engine.KindArray == 0 {
		return false
	}
	return !(c.MinItems >= 0 && f.n < c.MinItems || c.MaxItems >= 0 && f.n > c.MaxItems)
}

// ownPasses is c.checkOwn(doc), false should it panic.
func ownPasses(c *engine.Node, doc any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return c.CheckOwn(doc)
}

// verified records whether the value that just ended passed the
// subschema its path gives it, in its container or as the whole answer.
func (st *Incremental) verified(ok bool) {
	if d := len(st.stack); d > 0 {
		if !ok {
			st.stack[d-1].bad = true
		}
		return
	}
	st.rootOK = ok
}

// has reports whether the object f already has a member name.
func (st *Incremental) has(f *frame, name string) bool {
	if f.set != nil {
		_, ok := f.set[name]
		return ok
	}
	for _, k := range st.keys[f.keys:] {
		if k == name {
			return true
		}
	}
	return false
}

func (st *Incremental) add(f *frame, name string) {
	if f.set == nil && len(st.keys)-f.keys < 16 {
		st.keys = append(st.keys, name)
		return
	}
	if f.set == nil {
		f.set = make(map[string]struct{}, 32)
		for _, k := range st.keys[f.keys:] {
			f.set[k] = struct{}{}
		}
	}
	f.set[name] = struct{}{}
}

// numberByte steps a number at s[i] = c. ended: c is not part of the
// number, which ended before it (c is judged again, after it).
func (st *Incremental) numberByte(s string, i int, c byte) (ended, doomed bool) {
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
func (st *Incremental) endNumber(s string, i int) bool {
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
	}
	return false
}

// mayFollow reports whether c may follow a value where the Incremental is.
func (st *Incremental) mayFollow(c byte) bool {
	if isSpace(c) {
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

// scalar judges a closed string, number or literal against the plan.
func (st *Incremental) scalar(k engine.Kinds, text string) bool {
	n := st.cur
	if n == nil || !n.MayFail(k, text) {
		return false
	}
	var v any
	switch k {
	case engine.KindString:
		v = text
	case engine.KindNumber:
		v = json.Number(text)
	case engine.KindBoolean:
		v = text == "true"
	}
	return st.schema(len(st.stack), v, false, "", engine.ScalarKeywords...)
}

// Bounds on asking gojsonschema: at most maxAsks documents per Incremental,
// each with at most maxAskItems array items on the path to the value.
// Past them the Incremental gives no early schema-validate verdict.
const (
	maxAsks     = 64
	maxAskItems = 4096
)

// syntax is an error at s[i]. Its message names the character that
// starts there, so one of several bytes is given once they all are read.
func (st *Incremental) syntax(s string, i int) bool {
	if s[i] < utf8.RuneSelf || utf8.FullRuneInString(s[i:i+1]) {
		return st.giveSyntax(s[:i+1], i)
	}
	st.state, st.doomAt = stRune, i
	return false
}

// giveSyntax gives the json-parse verdict on prefix, which no completion
// can parse since its byte at doom; the parser writes it. Should the
// parser not fail there, the Incremental gives no early verdict at all, and
// Close decides.
func (st *Incremental) giveSyntax(prefix string, doom int) bool {
	err := func() error { _, err := jsonvalue.Parse(prefix); return err }()
	var se *jsonvalue.SyntaxError
	if errors.As(err, &se) && se.Offset <= doom {
		st.verdict = parseFailure(prefix, err)
		return true
	}
	st.giveUp()
	return false
}

// giveUp stops early verdicts: a state the Incremental cannot judge.
func (st *Incremental) giveUp() {
	st.state = stGaveUp
}

const stGaveUp = 255

// schema asks gojsonschema about the value v at depth d of the stack
// (with member name, for additionalProperties, the member of the object
// there) and gives the schema-validate verdict when it reports an issue
// at that pointer with one of keywords. The validator judges a document
// that holds only the path to v, so its issue is the one it reports for
// every completion (see [Incremental]).
func (st *Incremental) schema(d int, v any, isMember bool, member string, keywords ...string) bool {
	return st.ask(d, v, 0, isMember, member, func(is Issue, want string) bool {
		return is.Path == want && slices.Contains(keywords, is.Keyword)
	})
}

// closedFails gives the verdict on a value that just closed at depth d,
// holding size values, whose subschema its path decides (the fast path's
// c is known from the path alone) and which the fast path failed: every
// issue at or below its pointer is decided, whatever keyword found it
// (required, minItems, anyOf, not, …), since nothing after the value can
// change the value or the subschemas that apply to it.
func (st *Incremental) closedFails(d int, v any, size int) bool {
	return st.ask(d, v, size, false, "", func(is Issue, want string) bool {
		return is.Path == want || strings.HasPrefix(is.Path, want+"/")
	})
}

// ask validates a document that holds only the path to the value v at
// depth d (with member name: the member of the object there), of size
// values, and gives the first issue accept takes as the verdict.
func (st *Incremental) ask(d int, v any, size int, isMember bool, member string, accept func(is Issue, want string) bool) bool {
	if st.noSchema {
		return false
	}
	// Bound the work: each ask builds and validates a document as long as
	// the arrays on the path, and a value the filter wrongly suspects may
	// come again and again.
	if st.asks++; st.asks > maxAsks {
		return false
	}
	items := size
	if a, ok := v.([]any); ok {
		items = max(items, len(a))
	}
	var ptr strings.Builder
	for _, f := range st.stack[:d] {
		if !f.obj {
			items += f.n
		}
		ptr.WriteByte('/')
		if f.obj {
			ptr.WriteString(jsonvalue.EscapePointer(f.key))
		} else {
			ptr.WriteString(strconv.Itoa(f.n - 1))
		}
	}
	if isMember {
		ptr.WriteByte('/')
		ptr.WriteString(jsonvalue.EscapePointer(member))
	}
	if items > maxAskItems || ptr.Len() > MaxQuote {
		return false // a cut pointer could name another value's issue
	}
	doc := v
	if st.s.canonical {
		doc = cloneTree(v) // validate canonicalizes in place; v stays as read, for Close
	}
	for j := d - 1; j >= 0; j-- {
		f := st.stack[j]
		if f.obj {
			doc = map[string]any{f.key: doc}
		} else {
			a := make([]any, f.n)
			a[f.n-1] = doc
			doc = a
		}
	}
	err := st.s.validate(doc)
	var ce *CheckError
	if !errors.As(err, &ce) {
		return false
	}
	want := quote(ptr.String())
	for _, is := range ce.Issues {
		if accept(is, want) {
			st.verdict = &CheckError{Stage: StageSchemaValidate, Issues: []Issue{is}}
			return true
		}
	}
	return false
}
