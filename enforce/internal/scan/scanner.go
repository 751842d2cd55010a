package scan

import (
	"encoding/json"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
)

// MaxPointer is the longest JSON Pointer an early verdict names
// (enforce.MaxQuote): a longer one would be clipped, and could then name
// another value's issue.
const MaxPointer = 1024

// A Host is the contract a [Scanner] judges for: it writes every
// verdict, and judges the whole answer at Close.
type Host interface {
	// Syntax is the json-parse verdict on prefix, which the parser
	// refused with err.
	Syntax(prefix string, err error) error
	// TooLong is the verdict on an answer past the size bound.
	TooLong() error
	// Ask validates doc, a document that holds only the path to one
	// value, and returns the schema-validate verdict of the first issue
	// match takes; nil when it takes none.
	Ask(doc any, match func(path, keyword string) bool) error
	// Closed is the verdict of the validators of the value at ptr, text,
	// which just closed; nil when they find nothing.
	Closed(ptr, text string) error
	// Check is the verdict on the whole answer, text.
	Check(text string) error
	// CheckParsed is Check of text, which parsed into doc holding values
	// values and names member names; passed: every value passed the
	// fast path as it ended, and doc is nil.
	CheckParsed(text string, doc any, values, names int, passed bool) error
}

// Config is what a [Scanner] reads of the contract.
type Config struct {
	Plan *engine.Plan // the early-verdict plan
	Fast *engine.Node // the fast path's evaluator; nil when there is none
	// FanOut: the schema's recursion fans out, so one value may cost more
	// than any answer's share: the Scanner only reads, and Close judges.
	FanOut    bool
	Canonical bool // the schema compares numbers by their JSON text
	Limit     int  // the longest answer judged, in bytes
	// NoSchema: no early verdicts at schema-validate (the strict judge
	// of an answer whose values may still be coerced).
	NoSchema bool
	// Validating: ask Host.Closed of every value as it closes.
	Validating bool
}

// A Scanner judges an answer as its bytes arrive: enforce's Incremental
// without repairs (see its doc for what an early verdict promises). Init
// it in place; it must not be copied after.
type Scanner struct {
	host       Host
	fast       *engine.Node
	canonical  bool
	noSchema   bool
	validating bool

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

	watch *Watch // the array whose elements are delivered; nil: none

	asks    int    // documents gojsonschema was asked about
	verdict error  // the early verdict, once given
	doomed  string // the pointer of the value a validator refused as it closed
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
	// with the Scanner.
	stackBuf [8]frame
	keysBuf  [32]string
	docsBuf  [32]pdoc
}

type frame struct {
	obj bool
	on  bool // at a prefix of the watched pointer (see Watch)
	// bad: some member or item so far did not pass the subschema its
	// path gives it, or that subschema is not known (see passesHere).
	bad bool
	// linked: kc is c.member(key), found with the plan's node.
	linked bool
	node   *engine.PlanNode
	n      int    // members or items begun
	key    string // the current member's name
	kc     *engine.Node
	// The object's member names are Scanner.keys[keys:], and also in set
	// once there are many.
	keys  int
	set   map[string]struct{}
	safe  int // just past the last whole member or item, or the opening bracket
	start int // where it began
	docs  int // where its members or items begin in Scanner.docs
	// For Partial: the values begun before it, and the subschema that
	// applies to it (when known from the path, and, before Partial is
	// called, when the Scanner checks values as they end).
	values int
	c      *engine.Node
	// uniq holds the eqKeys of an array's items, where its subschema has
	// uniqueItems, to find a duplicate when it closes.
	uniq map[string]struct{}
}

// Init readies st to judge an answer for cfg, asking h.
func (st *Scanner) Init(cfg Config, h Host) {
	*st = Scanner{host: h, fast: cfg.Fast, canonical: cfg.Canonical, noSchema: cfg.NoSchema, validating: cfg.Validating,
		limit: cfg.Limit, state: stValue, rootStart: -1, rootEnd: -1, inc: cfg.Fast != nil && !cfg.FanOut}
	if !cfg.FanOut {
		st.cur = cfg.Plan.Root(cfg.Fast)
	}
	st.stack, st.keys, st.docs = st.stackBuf[:0], st.keysBuf[:0], st.docsBuf[:0]
}

// Scanner states, between two bytes.
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

// Write judges the next bytes of the answer, as enforce's
// Incremental.Write does; the caller refuses writes after Close.
func (st *Scanner) Write(p []byte) (int, error) {
	if st.verdict != nil {
		return 0, st.verdict
	}
	st.grow(len(p))
	st.buf.Write(p[:st.room(len(p))])
	return st.judge(len(p))
}

// WriteString is [Scanner.Write] for a string.
func (st *Scanner) WriteString(p string) (int, error) {
	if st.verdict != nil {
		return 0, st.verdict
	}
	st.grow(len(p))
	st.buf.WriteString(p[:st.room(len(p))])
	return st.judge(len(p))
}

// grow makes room for n more bytes, starting at 2 KiB: a typical answer
// then never grows the buffer.
func (st *Scanner) grow(n int) {
	if st.buf.Cap() == 0 {
		st.buf.Grow(min(max(2048, 2*n), st.limit+1))
	}
}

// room is how many of n more bytes to keep: one past the size bound is
// enough to judge the answer too long.
func (st *Scanner) room(n int) int {
	return min(n, st.limit+1-st.buf.Len())
}

// Close ends the answer and returns its verdict: the early verdict if a
// write gave one, else the Host's on every byte written. Later calls
// return the same.
func (st *Scanner) Close() error {
	if !st.closed {
		st.closed = true
		if st.verdict == nil && st.state == stNumber && !st.long && st.num != numSign && st.num != numDot && st.num != numE && st.num != numESign {
			var v any = json.Number(st.buf.String()[st.tok:st.read]) // the answer's end ends its number
			st.done(st.read, v, st.passesHere(v))
		}
		if st.verdict == nil {
			// What the Scanner read is what Check would parse: judge its
			// tree, or, where the Scanner could not follow, the text.
			var err error
			if st.inc && st.rootOK && st.isWhole() {
				// Every value passed as it ended: the tree need not be built.
				err = st.host.CheckParsed(st.buf.String(), nil, st.values, st.names, true)
			} else if doc, ok := st.Whole(); ok {
				err = st.host.CheckParsed(st.buf.String(), doc, st.values, st.names, false)
			} else {
				err = st.host.Check(st.buf.String())
			}
			if err != nil {
				st.verdict = err
			}
		}
	}
	return st.verdict
}

// judge reads the n bytes just buffered, stopping at a verdict.
func (st *Scanner) judge(n int) (int, error) {
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
		st.verdict = st.host.TooLong()
	}
	if st.verdict != nil {
		return st.read - start, st.verdict
	}
	return n, nil
}

// What enforce's tests observe of a Scanner.

// Counts is the values and member names begun.
func (st *Scanner) Counts() (values, names int) { return st.values, st.names }

// PassedEach reports whether every value passed the fast path as it
// ended, the whole answer too.
func (st *Scanner) PassedEach() bool { return st.inc && st.rootOK }

// Unbuilt reports whether the answer, read whole, was passed and not
// built (its tree is parsed when asked for).
func (st *Scanner) Unbuilt() bool {
	if len(st.docs) != 1 {
		return false
	}
	_, lazy := st.docs[0].v.(*lazyDoc)
	return lazy
}

// Read is how many bytes were judged.
func (st *Scanner) Read() int { return st.read }

// Pending reports whether the answer is doomed already, the verdict
// waiting for the end of a character or of a number.
func (st *Scanner) Pending() bool { return st.state == stRune || st.long }
