package events

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// unavailableLog is a memory log whose appends fail with ErrUnavailable,
// storing nothing, while down is set: a shared log electing its leader.
type unavailableLog struct {
	Log
	mu      sync.Mutex
	down    bool
	refused int
}

func (l *unavailableLog) Append(rec Record) error {
	l.mu.Lock()
	down := l.down
	if down {
		l.refused++
	}
	l.mu.Unlock()
	if down {
		return &Error{Op: "append", Seq: rec.Sequence, Detail: "no answer from the log", Err: ErrUnavailable}
	}
	return l.Log.Append(rec)
}

// Close leaves the records readable, for the test to check.
func (l *unavailableLog) Close() error { return nil }

func (l *unavailableLog) setDown(down bool) {
	l.mu.Lock()
	l.down = down
	l.mu.Unlock()
}

// newUnavailableStream is a stream over an unavailableLog whose retrier
// of kept records runs only when the test sends on the returned channel.
func newUnavailableStream(t *testing.T) (*Stream, *unavailableLog, chan time.Time) {
	t.Helper()
	l := &unavailableLog{Log: NewMemoryLog()}
	s, err := NewStream(testSession, l, WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	tick := make(chan time.Time)
	s.after = func(time.Duration) <-chan time.Time { return tick }
	t.Cleanup(func() { s.Close() })
	return s, l, tick
}

// storedMethods lists the methods of the records of l, in order.
func storedMethods(t *testing.T, l Log) []Method {
	t.Helper()
	var got []Method
	for rec, err := range l.Records(0) {
		if err != nil {
			t.Fatal(err)
		}
		e, err := fold(rec)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.n.Method)
	}
	return got
}

func sameMethods(t *testing.T, got []Method, want ...Method) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("the log holds %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("the log holds %v, want %v", got, want)
		}
	}
}

// A log that cannot be reached for a middle event of a turn (a leader
// election) does not close the stream: the event is kept, appended first
// when the log answers again, and turn/completed still ends the turn, in
// order, each record once.
func TestAnUnavailableLogLosesNoMiddleEventAndTheTurnStillEnds(t *testing.T) {
	s, l, _ := newUnavailableStream(t)
	if _, err := s.Append(TurnStarted{TurnID: "t1"}); err != nil {
		t.Fatal(err)
	}
	l.setDown(true)
	_, err := s.Append(TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, Reason: "r"})
	var e *Error
	if !errors.Is(err, ErrUnavailable) || !errors.As(err, &e) || e.Seq != 2 || errors.Is(err, ErrClosed) {
		t.Fatalf("Append during the outage = %v, want an *Error for record 2 matching ErrUnavailable and not ErrClosed", err)
	}
	l.setDown(false)
	n, err := s.Append(TurnCompleted{TurnID: "t1", Terminal: TerminalCompleted})
	if err != nil {
		t.Fatalf("Append(turn/completed) once the log answers = %v, want nil", err)
	}
	if got := seqOf(t, n); got != 3 {
		t.Errorf("turn/completed is record %d, want 3: after the kept one", got)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := s.WaitTurn(ctx, "t1"); err != nil {
		t.Fatalf("WaitTurn = %v, want the turn ended", err)
	}
	sameMethods(t, storedMethods(t, l.Log), MethodTurnStarted, MethodTurnRetry, MethodTurnCompleted)
}

// A turn whose own turn/completed met the outage, with nothing appended
// after it, still ends: the stream retries the kept record by itself, and
// a waiting WaitTurn returns once it is stored, not before.
func TestAKeptTerminalReachesTheLogWithoutAnotherAppend(t *testing.T) {
	s, l, tick := newUnavailableStream(t)
	if _, err := s.Append(TurnStarted{TurnID: "t1"}); err != nil {
		t.Fatal(err)
	}
	l.setDown(true)
	if _, err := s.Append(TurnCompleted{TurnID: "t1", Terminal: TerminalCompleted}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Append(turn/completed) during the outage = %v, want ErrUnavailable", err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := s.WaitTurn(t.Context(), "t1")
		waited <- err
	}()
	waitRegistered(s, "t1")
	tick <- time.Time{} // a pass while the log is still down
	tick <- time.Time{} // the retrier is waiting again: that pass is done
	select {
	case err := <-waited:
		t.Fatalf("WaitTurn returned %v before turn/completed was stored", err)
	default:
	}
	l.setDown(false)
	// The pass the second tick began may run before or after the log
	// answers again: either it or the next one stores the record.
	var err error
	select {
	case tick <- time.Time{}:
		err = <-waited
	case err = <-waited:
	}
	if err != nil {
		t.Fatalf("WaitTurn = %v, want the turn ended", err)
	}
	sameMethods(t, storedMethods(t, l.Log), MethodTurnStarted, MethodTurnCompleted)
}

// Close appends the kept records once more and names those the log still
// refuses, with an error matching ErrUnavailable; nothing is left running.
func TestCloseReportsTheRecordsTheLogStillRefuses(t *testing.T) {
	l := &unavailableLog{Log: NewMemoryLog()}
	s, err := NewStream(testSession, l)
	if err != nil {
		t.Fatal(err)
	}
	s.after = func(time.Duration) <-chan time.Time { // no wait
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	l.setDown(true)
	for range 2 {
		if _, err := s.Append(TurnStarted{TurnID: "t1"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Append = %v, want ErrUnavailable", err)
		}
	}
	err = s.Close()
	var e *Error
	if !errors.Is(err, ErrUnavailable) || !errors.As(err, &e) || e.Seq != 1 {
		t.Fatalf("Close = %v, want an *Error from record 1 matching ErrUnavailable", err)
	}
	if s.retrying != nil {
		t.Error("the retrier of kept records is still registered after Close")
	}
	if l.refused < closePasses {
		t.Errorf("the log was asked %d times, want Close to keep trying %d passes", l.refused, closePasses)
	}
	if _, err := s.Append(TurnStarted{TurnID: "t2"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
}

// The kept records are bounded: past heldMax, an event is dropped
// (ErrDropped, not ErrUnavailable), except the end of a turn that
// started, so that it still ends when the log answers again.
func TestKeptRecordsAreBoundedButTerminalsKeepTheirPlace(t *testing.T) {
	s, l, _ := newUnavailableStream(t)
	l.setDown(true)
	for range heldMax {
		if _, err := s.Append(TurnStarted{TurnID: "t1"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Append = %v, want ErrUnavailable", err)
		}
	}
	_, err := s.Append(TurnStarted{TurnID: "t2"})
	if !errors.Is(err, ErrDropped) || errors.Is(err, ErrUnavailable) || len(s.held) != heldMax {
		t.Fatalf("Append past the bound = %v with %d kept, want ErrDropped with %d kept", err, len(s.held), heldMax)
	}
	if _, err := s.Append(TurnCompleted{TurnID: "t1", Terminal: TerminalCompleted}); !errors.Is(err, ErrUnavailable) || len(s.held) != heldMax+1 {
		t.Fatalf("Append(turn/completed) past the bound = %v with %d kept, want it kept too", err, len(s.held))
	}
	l.setDown(false)
	if err := s.Close(); err != nil {
		t.Fatalf("Close once the log answers = %v", err)
	}
	if got := len(storedMethods(t, l.Log)); got != heldMax+1 {
		t.Errorf("the log holds %d records, want %d", got, heldMax+1)
	}
}

// slowUnavailableLog refuses every append with ErrUnavailable after
// taking d of its clock, as a JetStream log whose stream was deleted
// does after its WithRetry (15 s).
type slowUnavailableLog struct {
	Log
	mu  sync.Mutex
	now time.Time
	d   time.Duration
}

func (l *slowUnavailableLog) Append(rec Record) error {
	l.advance(l.d)
	return &Error{Op: "append", Seq: rec.Sequence, Detail: "no answer from the log", Err: ErrUnavailable}
}

func (l *slowUnavailableLog) Close() error { return nil }

func (l *slowUnavailableLog) advance(d time.Duration) {
	l.mu.Lock()
	l.now = l.now.Add(d)
	l.mu.Unlock()
}

func (l *slowUnavailableLog) clock() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.now
}

// Close tries for about a minute of the stream's clock whatever each
// append of the log takes: it starts no pass that would end past it.
func TestCloseTriesForAboutAMinuteHoweverLongTheLogTakes(t *testing.T) {
	for _, d := range []time.Duration{0, time.Second, 15 * time.Second, 50 * time.Second} {
		t.Run(fmt.Sprintf("an append taking %v", d), func(t *testing.T) {
			l := &slowUnavailableLog{Log: NewMemoryLog(), now: time.UnixMilli(1754590940000), d: d}
			s, err := NewStream(testSession, l, WithClock(l.clock))
			if err != nil {
				t.Fatal(err)
			}
			var closing atomic.Bool
			parked := make(chan struct{}, 1)
			s.after = func(d time.Duration) <-chan time.Time {
				c := make(chan time.Time, 1)
				if !closing.Load() { // the background retrier's wait never ends
					parked <- struct{}{}
					return c
				}
				l.advance(d) // Close's passes on the clock at once
				c <- time.Time{}
				return c
			}
			if _, err := s.Append(TurnStarted{TurnID: "t1"}); !errors.Is(err, ErrUnavailable) {
				t.Fatalf("Append = %v, want ErrUnavailable", err)
			}
			<-parked // the retrier waits: the clock is Close's alone
			closing.Store(true)
			start := l.clock()
			err = s.Close()
			took := l.clock().Sub(start)
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("Close = %v, want ErrUnavailable naming the record", err)
			}
			if limit := max(time.Minute, d); took > limit {
				t.Errorf("Close took %v of the stream's clock, want at most %v", took, limit)
			}
			if d <= 15*time.Second && took < 45*time.Second {
				t.Errorf("Close took %v of the stream's clock, want it to keep trying for about a minute", took)
			}
		})
	}
}
