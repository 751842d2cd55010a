package enforce

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/enforcer-go/enforcer/enforce/internal/scan"
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
	ptr     string // the array's pointer, escaped as Partial's are
	deliver func(Element)
	closed  bool
	watch   scan.Watch // what the Incremental's scanner delivers, and to whom
}

// elementSink is an Elements as its scanner's [scan.Sink].
type elementSink Elements

func (s *elementSink) Element(i int, text string) {
	s.deliver(Element{Index: i, Text: text, array: s.ptr})
}

// ErrPointer is what [NewElements] returns for a pointer that is not a
// JSON Pointer (RFC 6901: "" or "/"-separated reference tokens), or
// where no answer the schema passes holds an array.
var ErrPointer = errors.New("enforce: not a pointer to an array")

// NewElements returns an [Elements] reading the answer through st, from
// [Schema.Stream] or [Schema.StreamValidating] with nothing written yet,
// that calls deliver with each element of the array at pointer. deliver
// runs inside Write and Close.
func NewElements(st *Incremental, pointer string, deliver func(Element)) (*Elements, error) {
	toks, why := jsonvalue.PointerTokens(pointer)
	if why != "" {
		return nil, fmt.Errorf("%w: %q %s", ErrPointer, pointer, why)
	}
	s := st.schemaOf()
	// Refused at once, or the model is asked for what can never be read.
	// A kind's contract (nil here) has no schema to ask.
	if s != nil {
		if why := s.parts().fast.ArrayAt(toks); why != "" {
			return nil, fmt.Errorf("%w: %q: %s", ErrPointer, pointer, why)
		}
	}
	if deliver == nil {
		deliver = func(Element) {}
	}
	e := &Elements{st: st, s: s, ptr: pointer, deliver: deliver}
	if st.mend == nil && st.kind == nil {
		// The scanner delivers them as they close; with repairs, Close
		// delivers them from the mended answer.
		e.watch = scan.Watch{Tokens: toks, Sink: (*elementSink)(e)}
		st.sc.Watch(&e.watch)
	}
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

// Write is [Incremental.Write], delivering the elements that close in p.
func (e *Elements) Write(p []byte) (int, error) { return e.st.Write(p) }

// WriteString is [Incremental.WriteString], delivering the elements that
// close in p.
func (e *Elements) WriteString(p string) (int, error) { return e.st.WriteString(p) }

// Close is [Incremental.Close]; when the answer passes, it first delivers
// the elements not yet delivered. Later calls deliver nothing.
func (e *Elements) Close() error {
	err := e.st.Close()
	if e.closed {
		return err
	}
	e.closed = true
	if err != nil {
		return err
	}
	if next, items, whole := e.st.sc.Watched(); !whole || next < items {
		e.rest(next)
	}
	return nil
}

// rest delivers, from the whole answer (mended, with repairs), the
// elements after those delivered.
func (e *Elements) rest(next int) {
	answer := e.st.sc.Text()
	if e.st.mend != nil {
		answer, _ = e.s.Repaired(e.st.mend.Text())
	}
	for i, text := range jsonvalue.Items(answer, e.ptr, next) {
		e.deliver(Element{Index: next + i, Text: text, array: e.ptr})
	}
}
