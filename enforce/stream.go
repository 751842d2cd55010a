package enforce

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
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
	// kind judges in its place for a contract of a Kind; mend for a
	// schema with repairs.
	kind kindStream
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
	// The answer as jsonvalue.Parse gives it, built as values end: the values
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
	if s.reading != nil {
		return &Incremental{kind: s.reading.stream(s)}
	}
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
	if st.mend != nil || st.kind != nil {
		return st // validators judge the mended answer, or a kind's, at its end
	}
	for _, v := range s.validators {
		if v.pointed {
			st.pointed = append(st.pointed, v)
		}
	}
	st.vctx, st.vtry = ctx, at
	return st
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

var errStreamClosed = errors.New("enforce: write to a closed Incremental")

// Write judges the next bytes of the answer. While the answer can still
// pass it returns len(p), nil. Once it cannot, it returns the early
// verdict, a *[CheckError], with n the bytes of p read up to and
// including the byte at which the verdict was given; every later write
// returns 0 and the same verdict.
func (st *Incremental) Write(p []byte) (int, error) {
	if st.kind != nil {
		return st.kind.write(string(p))
	}
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
	if st.kind != nil {
		return st.kind.write(p)
	}
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
	if st.kind != nil {
		return st.kind.close()
	}
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
