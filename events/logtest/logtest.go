// Package logtest is a test suite for implementations of [events.Log]:
// one contract, checked the same way against the memory log, the file log
// and any log of another module (the JetStream log runs it too), as
// testing/slogtest does for slog handlers.
//
//	func TestMyLogKeepsTheContract(t *testing.T) {
//		logtest.Run(t, logtest.Opener{
//			Open:    func(t *testing.T, name string) events.Log { … },
//			Durable: true,
//		})
//	}
package logtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// Opener opens the logs the suite tests.
type Opener struct {
	// Open opens the log called name (a short word; each subtest uses its
	// own names). The first time a name is opened the log must be empty.
	// Open fails t itself when it cannot open the log.
	Open func(t *testing.T, name string) events.Log
	// Durable says that a log closed and opened again by the same name
	// holds the records appended before it was closed.
	Durable bool
	// Follow, when set, opens a reader of the log called name, as another
	// process would (the writer's log stays open): it must see, through
	// Wait and Records, the records the writer appends.
	Follow func(t *testing.T, name string) events.Follower
}

// session is the session ID of every record the suite appends.
const session = "logtest-session"

// waitBound bounds every wait of the suite, so that a log that never
// wakes its waiters fails the test rather than hanging it. It is never
// slept.
const waitBound = 10 * time.Second

// record returns record seq of the suite's session: a turn/started event
// with a deterministic ID and time.
func record(seq int64) events.Record {
	return events.Record{
		Stream:   session,
		Sequence: seq,
		ID:       fmt.Sprintf("018f9008-71aa-7000-8000-%012d", seq),
		Time:     time.UnixMilli(1754590940000 + seq).UTC(),
		Event:    events.TurnStarted{TurnID: fmt.Sprintf("turn-%d", seq), CommandID: fmt.Sprintf("turn-%d", seq)},
	}
}

// Run runs the Log contract as subtests of t against logs from o.Open:
// append order and Last, Records and its after, refusal of a record out of
// sequence (ErrCorrupt) or without an event (ErrInvalid), Close; and, when
// the log supports them, reopening (o.Durable), Wait (the log implements
// events.Follower) and readers in another process (o.Follow).
func Run(t *testing.T, o Opener) {
	t.Run("an empty log has no records", func(t *testing.T) {
		l := open(t, o, "empty")
		if got := l.Last(); got != 0 {
			t.Errorf("Last() = %d, want 0", got)
		}
		if got := collect(t, l, 0); len(got) != 0 {
			t.Errorf("Records(0) yielded %d records, want none", len(got))
		}
	})
	t.Run("records read back in order after any position", func(t *testing.T) {
		l := open(t, o, "order")
		appendN(t, l, 1, 5)
		if got := l.Last(); got != 5 {
			t.Errorf("Last() = %d, want 5", got)
		}
		for _, after := range []int64{-1, 0, 2, 4, 5, 9} {
			want := max(0, min(5, 5-after))
			got := collect(t, l, after)
			if int64(len(got)) != want {
				t.Errorf("Records(%d) yielded %d records, want %d", after, len(got), want)
				continue
			}
			for i, rec := range got {
				same(t, rec, record(max(after, 0)+1+int64(i)))
			}
		}
	})
	t.Run("a reader that stops early stops the records", func(t *testing.T) {
		l := open(t, o, "early")
		appendN(t, l, 1, 3)
		n := 0
		for _, err := range l.Records(0) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		if n != 1 {
			t.Errorf("yielded %d records after the reader stopped, want 1", n)
		}
	})
	t.Run("a record out of sequence is refused and nothing is written", func(t *testing.T) {
		l := open(t, o, "sequence")
		for _, seq := range []int64{0, 2, -1} {
			if err := l.Append(record(seq)); !errors.Is(err, events.ErrCorrupt) || !isEventsError(err) {
				t.Errorf("Append(record %d) to an empty log = %v, want an *events.Error matching ErrCorrupt", seq, err)
			}
		}
		appendN(t, l, 1, 2)
		for _, seq := range []int64{1, 2, 4} {
			if err := l.Append(record(seq)); !errors.Is(err, events.ErrCorrupt) {
				t.Errorf("Append(record %d) after record 2 = %v, want ErrCorrupt", seq, err)
			}
		}
		if got := l.Last(); got != 2 {
			t.Errorf("Last() = %d after refused appends, want 2", got)
		}
		if got := collect(t, l, 0); len(got) != 2 {
			t.Errorf("Records(0) yielded %d records after refused appends, want 2", len(got))
		}
		appendN(t, l, 3, 3) // the log still takes the next record
	})
	t.Run("a record without an event is refused", func(t *testing.T) {
		l := open(t, o, "noevent")
		rec := record(1)
		rec.Event = nil
		if err := l.Append(rec); !errors.Is(err, events.ErrInvalid) {
			t.Errorf("Append(record without event) = %v, want ErrInvalid", err)
		}
		if got := l.Last(); got != 0 {
			t.Errorf("Last() = %d, want 0", got)
		}
	})
	t.Run("a closed log refuses appends and reads", func(t *testing.T) {
		l := open(t, o, "closed")
		appendN(t, l, 1, 1)
		if err := l.Close(); err != nil {
			t.Fatalf("Close() = %v", err)
		}
		if err := l.Append(record(2)); !errors.Is(err, events.ErrClosed) {
			t.Errorf("Append after Close = %v, want ErrClosed", err)
		}
		var errs []error
		for _, err := range l.Records(0) {
			errs = append(errs, err)
		}
		if len(errs) != 1 || !errors.Is(errs[0], events.ErrClosed) {
			t.Errorf("Records after Close yielded %v, want one ErrClosed", errs)
		}
		if err := l.Close(); err != nil {
			t.Errorf("a second Close() = %v, want nil", err)
		}
	})
	if o.Durable {
		t.Run("a reopened log holds every record and continues", func(t *testing.T) {
			l := open(t, o, "reopen")
			appendN(t, l, 1, 3)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			l = open(t, o, "reopen")
			if got := l.Last(); got != 3 {
				t.Errorf("Last() after reopening = %d, want 3", got)
			}
			got := collect(t, l, 0)
			if len(got) != 3 {
				t.Fatalf("Records(0) after reopening yielded %d records, want 3", len(got))
			}
			for i, rec := range got {
				same(t, rec, record(int64(i)+1))
			}
			if err := l.Append(record(3)); !errors.Is(err, events.ErrCorrupt) {
				t.Errorf("Append(record 3) after reopening = %v, want ErrCorrupt", err)
			}
			appendN(t, l, 4, 4)
		})
	}
	if _, ok := open(t, o, "probe").(events.Follower); ok {
		t.Run("Wait", func(t *testing.T) { runWait(t, o) })
	}
	if o.Follow != nil {
		t.Run("a reader in another process sees every record live, in order", func(t *testing.T) {
			w := open(t, o, "follow")
			appendN(t, w, 1, 2)
			r := o.Follow(t, "follow")
			t.Cleanup(func() { r.Close() })
			if got := r.Last(); got != 2 {
				t.Errorf("the reader's Last() = %d, want 2", got)
			}
			ctx, cancel := context.WithTimeout(t.Context(), waitBound)
			defer cancel()
			done := make(chan []events.Record, 1)
			go func() {
				var got []events.Record
				after := int64(2)
				for len(got) < 3 {
					if err := r.Wait(ctx, after); err != nil {
						t.Errorf("the reader's Wait(%d) = %v", after, err)
						break
					}
					for rec, err := range r.Records(after) {
						if err != nil {
							t.Errorf("the reader's Records(%d): %v", after, err)
							break
						}
						got, after = append(got, rec), rec.Sequence
					}
				}
				done <- got
			}()
			appendN(t, w, 3, 5)
			got := <-done
			for i, rec := range got {
				same(t, rec, record(int64(i)+3))
			}
			if err := r.Close(); err != nil {
				t.Errorf("the reader's Close() = %v", err)
			}
			if err := r.Wait(t.Context(), 99); !errors.Is(err, events.ErrClosed) {
				t.Errorf("Wait on a closed reader = %v, want ErrClosed", err)
			}
		})
	}
}

func runWait(t *testing.T, o Opener) {
	t.Run("returns at once when a later record is there", func(t *testing.T) {
		l := open(t, o, "waitnow").(events.Follower)
		appendN(t, l, 1, 2)
		ctx, cancel := context.WithTimeout(t.Context(), waitBound)
		defer cancel()
		for _, after := range []int64{0, 1} {
			if err := l.Wait(ctx, after); err != nil {
				t.Errorf("Wait(%d) with 2 records = %v, want nil", after, err)
			}
		}
	})
	t.Run("wakes on a later append", func(t *testing.T) {
		l := open(t, o, "waitappend").(events.Follower)
		appendN(t, l, 1, 1)
		ctx, cancel := context.WithTimeout(t.Context(), waitBound)
		defer cancel()
		woke := make(chan error, 1)
		go func() {
			for {
				err := l.Wait(ctx, 1)
				if err != nil || l.Last() > 1 {
					woke <- err
					return
				}
			}
		}()
		appendN(t, l, 2, 2)
		if err := <-woke; err != nil {
			t.Errorf("Wait(1) = %v, want nil once record 2 is appended", err)
		}
	})
	t.Run("ends with the context's cause", func(t *testing.T) {
		l := open(t, o, "waitctx").(events.Follower)
		cause := errors.New("the caller gave up")
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(cause)
		var err error
		for range 3 { // a spurious nil is allowed, not forever
			if err = l.Wait(ctx, 0); err != nil {
				break
			}
		}
		if !errors.Is(err, cause) {
			t.Errorf("Wait with a cancelled context = %v, want its cause", err)
		}
	})
	t.Run("ends with ErrClosed when the log closes", func(t *testing.T) {
		l := open(t, o, "waitclose").(events.Follower)
		ctx, cancel := context.WithTimeout(t.Context(), waitBound)
		defer cancel()
		ended := make(chan error, 1)
		go func() {
			for {
				if err := l.Wait(ctx, 0); err != nil {
					ended <- err
					return
				}
			}
		}()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-ended; !errors.Is(err, events.ErrClosed) {
			t.Errorf("Wait on a log closed meanwhile = %v, want ErrClosed", err)
		}
		if err := l.Wait(ctx, 0); !errors.Is(err, events.ErrClosed) {
			t.Errorf("Wait on a closed log = %v, want ErrClosed", err)
		}
	})
}

// open opens the log called name and closes it when the test ends.
func open(t *testing.T, o Opener, name string) events.Log {
	t.Helper()
	l := o.Open(t, name)
	if l == nil {
		t.Fatalf("Open(%q) returned a nil log", name)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func appendN(t *testing.T, l events.Log, from, to int64) {
	t.Helper()
	for seq := from; seq <= to; seq++ {
		if err := l.Append(record(seq)); err != nil {
			t.Fatalf("Append(record %d) = %v", seq, err)
		}
	}
}

func collect(t *testing.T, l events.Log, after int64) []events.Record {
	t.Helper()
	var got []events.Record
	for rec, err := range l.Records(after) {
		if err != nil {
			t.Fatalf("Records(%d): %v", after, err)
		}
		got = append(got, rec)
	}
	return got
}

// same fails t unless got is want, as stored (compared in its JSON form).
func same(t *testing.T, got, want events.Record) {
	t.Helper()
	g, err := got.MarshalJSON()
	if err != nil {
		t.Fatalf("record %d read back: %v", got.Sequence, err)
	}
	w, _ := want.MarshalJSON()
	if string(g) != string(w) {
		t.Errorf("read back\n%s\nwant\n%s", g, w)
	}
}

func isEventsError(err error) bool {
	var e *events.Error
	return errors.As(err, &e)
}
