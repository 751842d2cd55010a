package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce"
)

// Element is an element of the answer's array, from
// [ElementStream.Elements].
type Element[E any] struct {
	// Value is the element, decoded into E.
	Value E
	// Index is its 0-based position in the array.
	Index int
	// Attempt numbers the row of the answer it belongs to, as
	// [Partial.Attempt] does.
	Attempt int
	// Restart announces that the elements yielded before are void: their
	// answer failed (a corrective turn follows), its stream broke and the
	// model call is retried, or the answer that passed differs from what
	// was yielded (an act-output step rewrote it, a repair mended it). A
	// Restart has no Value and Index -1; the elements of the answer of
	// Attempt follow it from index 0.
	Restart bool
}

// ElementStream is a run of [RunElements]: range over
// [ElementStream.Elements] to take the array's elements as they close,
// then ask [ElementStream.Result] for the whole answer.
type ElementStream[A, E any] struct {
	ctx     context.Context
	a       *Agent
	input   string
	pointer string

	started bool
	v       A
	res     *Result
	err     error
}

// RunElements is [RunTyped] for an answer A holding an array of E at
// pointer, a JSON Pointer ("" for an answer that is the array, "/items"
// for its member items), whose elements are yielded one by one as the
// answer streams:
//
//	s := agent.RunElements[[]Item, Item](ctx, a, "List the items.", "")
//	for e := range s.Elements() {
//		if e.Restart {
//			clear(view) // the elements shown before are void
//			continue
//		}
//		view[e.Index] = e.Value
//	}
//	items, res, err := s.Result() // as RunTyped[[]Item] gives them
//
// An element is yielded as soon as its closing byte arrives, whole and
// passing the subschema its path gives it and the validators of its
// members ([enforce.Validator.At]): see [enforce.Elements]. An element
// that can no longer pass fails the answer there, and with
// [WithEarlyAbort] the reply is cut at that byte, with a corrective turn
// as usual. Elements not yielded as they streamed (a model that does not
// stream, a schema whose path does not decide an element's subschema, an
// act-output step, a repair) are yielded once the answer passes. So,
// when the run passes, the elements yielded since the last Restart are
// the passing answer's, each once, in order, whatever came before; a
// delivered element is never taken back without a Restart.
//
// Nothing runs until Elements is ranged over or Result is called; the
// run happens on the caller's goroutine, inside the range loop. Breaking
// out of it ends the run, as it does for [TypedStream.Partials]. An
// ElementStream is for one goroutine.
func RunElements[A, E any](ctx context.Context, a *Agent, input, pointer string) *ElementStream[A, E] {
	return &ElementStream[A, E]{ctx: ctx, a: a, input: input, pointer: pointer}
}

// elementsHook opens an [enforce.Elements] on each streamed answer of a
// run of [RunElements]; it reaches the judge in the run's context.
type elementsHook struct {
	pointer string
	deliver func(el *enforce.Elements, attempt int, e enforce.Element)
}

type elementsKey struct{}

// elementsOf is the run's elementsHook, nil for other runs.
func elementsOf(ctx context.Context) *elementsHook {
	h, _ := ctx.Value(elementsKey{}).(*elementsHook)
	return h
}

// kindOf is the ledger option naming the run's output kind: its rows
// say elements for a run of [RunElements].
func kindOf(ctx context.Context) []enforce.LedgerOption {
	if elementsOf(ctx) == nil {
		return nil
	}
	return []enforce.LedgerOption{enforce.WithKind(enforce.KindElements)}
}

// check refuses, before the model is called, a pointer where no answer
// schema passes holds an array; nil without a hook.
func (h *elementsHook) check(schema *enforce.Schema) error {
	if h == nil {
		return nil
	}
	if _, err := enforce.NewElements(schema.Stream(), h.pointer, nil); err != nil {
		return fmt.Errorf("%w: RunElements: %w", ErrInvalidOption, err)
	}
	return nil
}

// open returns the Elements reading es, an answer of the row attempt;
// nil without a hook.
func (h *elementsHook) open(es *enforce.Incremental, attempt int) *enforce.Elements {
	if h == nil {
		return nil
	}
	var el *enforce.Elements
	el, err := enforce.NewElements(es, h.pointer, func(e enforce.Element) { h.deliver(el, attempt, e) })
	if err != nil {
		return nil // refused before the run (see check)
	}
	return el
}

// Elements runs the agent and yields the array's elements as they close,
// announcing with a Restart each time those yielded before are void; the
// last ones yielded, when the run passes, are the passing answer's.
// Later ranges yield nothing. Breaking out of the loop ends the run at
// once (its model call cancelled); Result then returns an error matching
// [ErrStoppedReading] with the rows so far. A panic in the loop body ends
// the run the same way.
func (s *ElementStream[A, E]) Elements() iter.Seq[Element[E]] {
	return func(yield func(Element[E]) bool) {
		if s.started {
			return
		}
		s.started = true
		if !isPointer(s.pointer) {
			s.err = fmt.Errorf("%w: RunElements: %q is not a JSON Pointer", ErrInvalidOption, s.pointer)
			s.res = &Result{TurnID: turnID(s.ctx)}
			s.a.refused(s.ctx, s.input, s.res, s.err)
			return
		}
		ctx, cancel := context.WithCancelCause(s.ctx)
		defer cancel(nil)
		var (
			view      []E // yielded since the last Restart
			attempt   int // theirs
			from      *enforce.Elements
			off       bool // from yielded an element E does not take: no more of it
			stopped   bool
			bodyPanic *panicked
		)
		emit := func(e Element[E]) {
			if !call(yield, e, &bodyPanic) {
				stopped = true
				cancel(ErrStoppedReading)
			}
		}
		restart := func(att int) {
			if len(view) > 0 {
				emit(Element[E]{Index: -1, Attempt: att, Restart: true})
			}
			view, attempt = nil, att
		}
		hook := &elementsHook{pointer: s.pointer, deliver: func(el *enforce.Elements, att int, e enforce.Element) {
			if stopped {
				return
			}
			if el != from {
				from, off = el, false
				restart(att)
			}
			var v E
			if off || stopped || json.Unmarshal([]byte(e.Text), &v) != nil {
				off = true // the run's end yields it, if the answer passes
				return
			}
			view, attempt = append(view, v), att
			emit(Element[E]{Value: v, Index: e.Index, Attempt: att})
		}}
		watch := func(*enforce.Schema, *enforce.Incremental, int, int, bool) bool { return !stopped }
		s.v, s.res, s.err = runTyped[A](context.WithValue(ctx, elementsKey{}, hook), s.a, s.input, watch)
		if s.err == nil && !stopped {
			s.err = s.finish(view, attempt, restart, emit, &stopped)
		}
		if bodyPanic != nil {
			panic(bodyPanic.v) // the loop body's, past the run's own recovers
		}
	}
}

// finish yields the passing answer's elements not yet yielded, after a
// Restart when those yielded are not its own.
func (s *ElementStream[A, E]) finish(view []E, attempt int, restart func(int), emit func(Element[E]), stopped *bool) error {
	items, err := elementsIn[E](s.res.Output, s.pointer)
	if err != nil {
		return err
	}
	att := 1
	if n := len(s.res.Attempts); n > 0 {
		att = s.res.Attempts[n-1].Attempt
	}
	same := attempt == att && len(view) <= len(items)
	for i := 0; same && i < len(view); i++ {
		same = reflect.DeepEqual(view[i], items[i])
	}
	if !same {
		restart(att)
		view = nil
	}
	for i := len(view); i < len(items) && !*stopped; i++ {
		emit(Element[E]{Value: items[i], Index: i, Attempt: att})
	}
	return nil
}

// elementsIn decodes the elements of the array at pointer in answer, a
// passing answer.
func elementsIn[E any](answer, pointer string) ([]E, error) {
	var doc any
	d := json.NewDecoder(strings.NewReader(answer))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if pointer != "" {
		for _, tok := range strings.Split(pointer[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch v := doc.(type) {
			case map[string]any:
				doc = v[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(v) {
					return nil, fmt.Errorf("agent: the answer has no %s", pointer)
				}
				doc = v[i]
			default:
				return nil, fmt.Errorf("agent: the answer has no %s", pointer)
			}
		}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var items []E
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("agent: the answer's %q does not decode into []%v: %w", pointer, reflect.TypeFor[E](), err)
	}
	return items, nil
}

// isPointer reports whether p is a JSON Pointer (RFC 6901), as
// enforce.NewElements requires.
func isPointer(p string) bool {
	return p == "" || p[0] == '/' && strings.Count(p, "~") == strings.Count(p, "~0")+strings.Count(p, "~1")
}

// Result runs the agent, unless Elements did, and returns what
// [RunTyped] returns for A: the final value, the *Result and the error.
func (s *ElementStream[A, E]) Result() (A, *Result, error) {
	if !s.started {
		for range s.Elements() {
		}
	}
	return s.v, s.res, s.err
}
