package events

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// failFsyncAfter lets the first n fsyncs of the file succeed and fails
// every later one with err.
func failFsyncAfter(n int, err error) FileOption {
	return fileOption(func(o *fileOptions) {
		o.syncFile = func() error { // called under the log's mutex
			if n > 0 {
				n--
				return nil
			}
			return err
		}
	})
}

// waitRegistered returns once turnID has a pending WaitTurn.
func waitRegistered(s *Stream, turnID string) {
	for {
		s.mu.Lock()
		n := len(s.waiters[turnID])
		s.mu.Unlock()
		if n > 0 {
			return
		}
		runtime.Gosched()
	}
}

// closedBy fails the test unless err matches ErrClosed and wraps cause.
func closedBy(t *testing.T, what string, err, cause error) {
	t.Helper()
	var e *Error
	if !errors.Is(err, ErrClosed) || !errors.Is(err, cause) || !errors.As(err, &e) {
		t.Errorf("%s = %v; want an *Error matching ErrClosed and %v", what, err, cause)
	}
}

// After one failed fsync the file log refuses every append, so the turn's
// turn/completed can never be recorded: waits and subscriptions, pending
// and later, must end with the log's error instead of blocking forever.
func TestAFailedFsyncEndsWaitsAndSubscriptionsWithTheLogsError(t *testing.T) {
	errDisk := errors.New("injected fsync failure")
	path := filepath.Join(t.TempDir(), "session.ndjson")
	s := openStream(t, path, failFsyncAfter(1, errDisk))
	if _, err := s.Append(TurnStarted{TurnID: "t1"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	waited := make(chan error, 1)
	go func() {
		_, err := s.WaitTurn(ctx, "t1")
		waited <- err
	}()
	sub := collect(ctx, s, "")
	if y := <-sub; y.err != nil || y.n.Method != "turn/started" {
		t.Fatalf("subscription: got %q, %v; want turn/started", y.n.Method, y.err)
	}
	waitRegistered(s, "t1")

	_, err := s.Append(TurnCompleted{TurnID: "t1", Terminal: TerminalCompleted})
	if !errors.Is(err, errDisk) {
		t.Fatalf("Append with a failing fsync = %v, want the fsync error", err)
	}

	// Later calls fail at once.
	_, err = s.Append(TurnCompleted{TurnID: "t1", Terminal: TerminalFailed, Error: &TurnError{Kind: FailureLogError}})
	closedBy(t, "a later Append", err, errDisk)
	done, stop := context.WithCancel(context.Background())
	stop() // a wrongly accepted call ends at once with context.Canceled
	_, err = s.WaitTurn(done, "t1")
	closedBy(t, "a later WaitTurn", err, errDisk)
	for _, err := range s.Subscribe(done, "") {
		closedBy(t, "a later Subscribe", err, errDisk)
		break
	}

	// Pending ones are released. The bound is a failure bound, not a sleep.
	select {
	case err := <-waited:
		closedBy(t, "the pending WaitTurn", err, errDisk)
	case <-time.After(30 * time.Second):
		t.Fatal("the pending WaitTurn still blocks 30s after the log failed")
	}
	select {
	case y := <-sub:
		closedBy(t, "the pending subscription", y.err, errDisk)
	case <-time.After(30 * time.Second):
		t.Fatal("the pending subscription still blocks 30s after the log failed")
	}

	// Close still closes the log: its lock is released.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := OpenFile(path)
	if err != nil {
		t.Fatalf("OpenFile after Close: %v", err)
	}
	defer l.Close()
	if got := l.Last(); got != 1 {
		t.Errorf("the log holds %d records, want 1 (the failed append cut off)", got)
	}
}

// refusingLog refuses every append with err.
type refusingLog struct {
	Log
	err error
}

func (l refusingLog) Append(Record) error { return l.err }

func TestALogThatRefusesARecordAsInvalidLeavesTheStreamOpen(t *testing.T) {
	s, err := NewStream(testSession, refusingLog{NewMemoryLog(), &Error{Op: "append", Err: ErrInvalid}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		if _, err := s.Append(TurnStarted{TurnID: "t1"}); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrClosed) {
			t.Fatalf("Append = %v, want ErrInvalid and not ErrClosed", err)
		}
	}
}
