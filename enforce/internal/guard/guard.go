// Package guard runs a caller's function, for enforce a validator's
// check, on a goroutine of its own, so that neither a panic nor a
// runtime.Goexit in it can unwind the caller (a Goexit would end the
// caller's goroutine, and no recover can stop it), and so that a
// context that ends leaves it behind. It knows nothing of validators.
package guard

import (
	"context"
	"errors"
)

// A Result is how one call of a function ended: it returned Value and
// Err, it panicked (Panic is the recovered value), or it Exited,
// neither returning nor panicking: it called runtime.Goexit (t.FailNow,
// testify's require.*).
type Result[T any] struct {
	Value    T
	Err      error
	Panic    any
	Panicked bool
	Exited   bool
}

// Call runs f on a goroutine of its own and returns how it ended. When
// ctx ends first Call returns at once with ok false, leaving f to finish
// on its own goroutine: a function that ignores ctx cannot hold the
// caller, and its goroutine ends, its result dropped, when f returns.
func Call[T any](ctx context.Context, f func() (T, error)) (r Result[T], ok bool) {
	c := make(chan Result[T], 1) // buffered: the goroutine never waits for a reader
	go run(f, c)
	select {
	case r = <-c:
		return r, true
	case <-ctx.Done():
		select {
		case r = <-c: // finished as ctx ended: keep its result
			return r, true
		default:
			return Result[T]{}, false
		}
	}
}

// run calls f and sends how it ended on c, from a deferred function so
// that the result is sent however f ends: returned, panicked or called
// runtime.Goexit.
func run[T any](f func() (T, error), c chan<- Result[T]) {
	var r Result[T]
	returned := false
	defer func() {
		if !returned {
			if p := recover(); p != nil {
				r = Result[T]{Panic: p, Panicked: true}
			} else {
				r = Result[T]{Exited: true}
			}
		}
		c <- r
	}()
	r.Value, r.Err = f()
	returned = true
}

// ErrExited is the Err of a [Checked] whose function called
// runtime.Goexit instead of returning (or, with GODEBUG=panicnil=1,
// called panic(nil), which recover cannot tell from it).
var ErrExited = errors.New("called runtime.Goexit (as t.FailNow and testify's require.* do) instead of returning")

// Checked is how a check run by [Check] ended: Value and Err as it
// returned them; Stopped, ctx's cause, when ctx ended first (nothing was
// concluded); or Failed, when it could not judge: it panicked (Panic,
// and Err when that is an error), exited (Err is ErrExited), or returned
// an error accept refuses (Err).
type Checked[T any] struct {
	Value   T
	Err     error
	Panic   any
	Stopped error
	Failed  bool
}

// Check runs f as [Call] does and reads how it ended as a check's
// caller must: an error accept refuses is a failure, unless ctx has
// ended by then (that error may be ctx's).
func Check[T any](ctx context.Context, f func() (T, error), accept func(error) bool) Checked[T] {
	r, ok := Call(ctx, f)
	switch {
	case !ok:
		return Checked[T]{Stopped: context.Cause(ctx)}
	case r.Panicked:
		err, _ := r.Panic.(error)
		return Checked[T]{Panic: r.Panic, Err: err, Failed: true}
	case r.Exited:
		return Checked[T]{Err: ErrExited, Failed: true}
	case r.Err != nil && !accept(r.Err):
		if cause := context.Cause(ctx); cause != nil {
			return Checked[T]{Stopped: cause}
		}
		return Checked[T]{Err: r.Err, Failed: true}
	}
	return Checked[T]{Value: r.Value, Err: r.Err}
}
