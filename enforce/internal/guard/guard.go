// Package guard runs a caller's function, for enforce a validator's
// check, on a goroutine of its own, so that neither a panic nor a
// runtime.Goexit in it can unwind the caller (a Goexit would end the
// caller's goroutine, and no recover can stop it), and so that a
// context that ends leaves it behind. It knows nothing of validators.
package guard

import "context"

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
