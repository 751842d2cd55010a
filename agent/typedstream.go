package agent

import (
	"context"
	"fmt"
	"iter"

	"github.com/enforcer-go/enforcer/enforce"
)

// Partial is a typed answer as it forms, from [TypedStream.Partials].
type Partial[T any] struct {
	// Value is the answer read so far, decoded into T: the values begun
	// so far, a string as far as the text goes, and members not yet begun
	// zero (see enforce.Incremental.Partial for which values show).
	Value T
	// Settled holds the JSON Pointers of the members and items that are
	// whole and known to pass their subschema, in the order they settled;
	// each Partial of an answer repeats those before it. It is shared:
	// do not change it.
	Settled []string
	// Attempt numbers the row the answer will have
	// ([Result.Attempts]) if it is a final answer: 1, and one more after
	// each corrective turn ([WithOutputRetries]).
	Attempt int
	// Restart: this is the first Partial of a reply after another one
	// showed a value, and Value starts over; values shown before are void.
	// A corrective turn restarts the value, and so does a model call
	// retried after its stream broke ([WithModelRetry]), which keeps the
	// Attempt.
	Restart bool
}

// TypedStream is a run of [RunTypedStream]: range over
// [TypedStream.Partials] to watch the answer form, then ask
// [TypedStream.Result] for the final value.
type TypedStream[T any] struct {
	ctx   context.Context
	a     *Agent
	input string

	started bool
	v       T
	res     *Result
	err     error
}

// RunTypedStream is [RunTyped] whose answer can be watched as it forms:
//
//	s := agent.RunTypedStream[Weather](ctx, a, "Weather in Paris?")
//	for p := range s.Partials() {
//		show(p.Value, p.Settled) // p.Restart: start the view over
//	}
//	w, res, err := s.Result() // as RunTyped gives them
//
// Nothing runs until Partials is ranged over or Result is called; the run
// happens on the caller's goroutine, inside the range loop. Partials come
// only from a model that streams ([StreamingModel]), and not while tools
// are offered and the text is no JSON value; with [WithOutputTool] they
// show the output tool's arguments. A TypedStream is for one goroutine.
func RunTypedStream[T any](ctx context.Context, a *Agent, input string) *TypedStream[T] {
	return &TypedStream[T]{ctx: ctx, a: a, input: input}
}

// ErrStoppedReading is the cause of a [TypedStream] run the caller ended by
// breaking out of its range loop; it matches context.Canceled.
var ErrStoppedReading = fmt.Errorf("agent: the caller stopped reading the typed stream: %w", context.Canceled)

// Partials runs the agent and yields the answer as it grows, and once
// more whole at the reply's end; later ranges yield nothing. Breaking out
// of the loop ends the run at once (its model call cancelled); Result
// then returns an error matching [ErrStoppedReading] with the rows so
// far. A panic in the loop body ends the run the same way.
func (s *TypedStream[T]) Partials() iter.Seq[Partial[T]] {
	// A partial after every chunk that shows something new until the
	// answer is 4 KiB long, then each time it has grown by a sixteenth:
	// watching costs time linear in the answer's length.
	return func(yield func(Partial[T]) bool) {
		if s.started {
			return
		}
		s.started = true
		ctx, cancel := context.WithCancelCause(s.ctx)
		defer cancel(nil)
		var (
			cur       *enforce.Incremental // the reply shown last
			lastLen   = -1
			lastSet   = -1
			seen      *enforce.Incremental // the reply watched last
			built     int                  // its bytes read when a partial of it was last built
			skipped   bool                 // its latest bytes were read and no partial built
			bodyPanic *panicked
		)
		watch := func(schema *enforce.Schema, es *enforce.Incremental, read, attempt int, end bool) bool {
			if es != seen {
				seen, built, skipped = es, 0, false
			}
			switch {
			case end && !skipped:
				return true // the last partial built was of the whole reply
			case !end && read > partialEvery && read-built < built/partialGrowth:
				skipped = true // see partialEvery
				return true
			}
			built, skipped = read, false
			doc, settled := es.Partial()
			if doc == nil {
				return true
			}
			first := es != cur
			if !first && len(doc) == lastLen && len(settled) == lastSet {
				return true // nothing new to show
			}
			var p Partial[T]
			if schema.Decode(string(doc), &p.Value) != nil {
				return true // a value that does not fit T yet: show the next that does
			}
			p.Settled, p.Attempt, p.Restart = settled, attempt, first && cur != nil
			cur, lastLen, lastSet = es, len(doc), len(settled)
			if !call(yield, p, &bodyPanic) {
				cancel(ErrStoppedReading)
				return false
			}
			return true
		}
		s.v, s.res, s.err = runTyped[T](ctx, s.a, s.input, watch)
		if bodyPanic != nil {
			panic(bodyPanic.v) // the loop body's, past the run's own recovers
		}
	}
}

// Building a partial costs about the length of the answer so far, so a
// partial after every chunk would cost time quadratic in the answer's
// length. A reply's partials are built after every chunk until it is
// partialEvery bytes long; past that, only each time it has grown by
// 1/partialGrowth since the last one built, and once more at its end if
// the last chunk was skipped. Watching an answer of n bytes in chunks of
// c bytes builds at most about partialEvery²/2c + (partialGrowth+1)·n
// bytes of partials (with token-sized chunks, a few MiB and 17·n).
const (
	partialEvery  = 4 << 10
	partialGrowth = 16
)

// panicked holds what a range loop's body panicked with.
type panicked struct{ v any }

// call calls yield(p), and when the loop body panics records the panic in
// *pp and returns false: the run stops, and the panic goes on to the
// range statement once the run has returned, instead of being taken for
// the model's.
func call[P any](yield func(P) bool, p P, pp **panicked) (more bool) {
	defer func() {
		if r := recover(); r != nil {
			*pp, more = &panicked{r}, false
		}
	}()
	return yield(p)
}

// Result runs the agent, unless Partials did, and returns what
// [RunTyped] returns: the final value, the *Result and the error.
func (s *TypedStream[T]) Result() (T, *Result, error) {
	if !s.started {
		s.started = true
		s.v, s.res, s.err = runTyped[T](s.ctx, s.a, s.input, nil)
	}
	return s.v, s.res, s.err
}
