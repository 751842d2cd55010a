package events

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// collect runs a subscription in a goroutine and sends what it yields on
// the returned channel, which is closed when the subscription ends.
type yielded struct {
	n   Notification
	err error
}

func TestSubscribeReplaysThenGoesLiveWithoutGapsOrDuplicates(t *testing.T) {
	s, _ := appendAll(t, nil)
	ns := appendStarts(t, s, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := collect(ctx, s, ns[1].Cursor())
	for want := int64(3); want <= 5; want++ {
		y := <-got
		if y.err != nil || seqOf(t, y.n) != want {
			t.Fatalf("replay: got %v, %v; want record %d", y.n.Cursor(), y.err, want)
		}
	}
	appendStarts(t, s, 3)
	for want := int64(6); want <= 8; want++ {
		y := <-got
		if y.err != nil || seqOf(t, y.n) != want {
			t.Fatalf("live: got %v, %v; want record %d", y.n.Cursor(), y.err, want)
		}
	}
	cancel()
	if y := <-got; !errors.Is(y.err, context.Canceled) {
		t.Errorf("after cancel: got %v, want context.Canceled", y.err)
	}
	if _, open := <-got; open {
		t.Error("the subscription yielded after its error")
	}
}

func TestSubscribeFromTheStartGetsEverything(t *testing.T) {
	s, ns := appendAll(t, transcript())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := collect(ctx, s, "")
	for i, want := range ns {
		y := <-got
		if y.err != nil || string(frameBytes(t, y.n)) != string(frameBytes(t, want)) {
			t.Fatalf("notification %d: got %s, %v", i+1, y.n.Params, y.err)
		}
	}
}

func TestASlowSubscriberNeitherBlocksAppendsNorLosesNotifications(t *testing.T) {
	s, err := NewStream(testSession, NewMemoryLog(), WithBuffer(2))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	var got []int64
	done := make(chan error)
	go func() {
		for n, err := range s.Subscribe(ctx, "") {
			if err != nil {
				done <- err
				return
			}
			got = append(got, seqOf(t, n))
			if len(got) == 1 {
				<-release // stall while the appender races ahead
			}
			if len(got) == 100 {
				done <- nil
				return
			}
		}
	}()
	appendStarts(t, s, 1)
	appendStarts(t, s, 99) // returns although the subscriber is stalled
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, seq := range got {
		if seq != int64(i+1) {
			t.Fatalf("delivery %d was record %d; got %v", i+1, seq, got)
		}
	}
}

func TestSubscribersSeeConcurrentAppendsInOrderExactlyOnce(t *testing.T) {
	s, err := NewStream(testSession, NewMemoryLog(), WithBuffer(16))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const appenders, each, subscribers = 4, 250, 4
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, subscribers)
	for range subscribers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := int64(1)
			for n, err := range s.Subscribe(ctx, "") {
				if err != nil {
					errs <- err
					return
				}
				if got := seqOf(t, n); got != want {
					errs <- fmt.Errorf("got record %d, want %d", got, want)
					return
				}
				if want++; want > appenders*each {
					return
				}
			}
		}()
	}
	var aw sync.WaitGroup
	for range appenders {
		aw.Add(1)
		go func() {
			defer aw.Done()
			for range each {
				if _, err := s.Append(TurnStarted{TurnID: "t"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	aw.Wait()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSubscribeRefusesBadCursors(t *testing.T) {
	s, _ := appendAll(t, transcript())
	for name, c := range map[string]string{
		"a cursor of another session":  cursor("other", 1, 0),
		"a cursor ahead of the stream": cursor(testSession, 99, 0),
		"a malformed cursor":           "v:" + testSession + ":x",
		"a negative position":          "v:" + testSession + ":-1",
		"not a cursor at all":          "hello",
	} {
		t.Run(name+" is refused", func(t *testing.T) {
			for _, err := range s.Subscribe(context.Background(), c) {
				if !errors.Is(err, ErrCursor) {
					t.Errorf("got %v, want ErrCursor", err)
				}
			}
		})
	}
}

func TestSubscribeEndsWithTheContextsCauseOrOnClose(t *testing.T) {
	s, _ := appendAll(t, nil)
	cause := errors.New("client went away")
	ctx, cancel := context.WithCancelCause(context.Background())
	got := collect(ctx, s, "")
	cancel(cause)
	if y := <-got; !errors.Is(y.err, cause) {
		t.Errorf("got %v, want the cause", y.err)
	}
	got = collect(context.Background(), s, "")
	s.Close()
	if y := <-got; !errors.Is(y.err, ErrClosed) {
		t.Errorf("got %v, want ErrClosed", y.err)
	}
}

// waitForWaiter spins until a WaitTurn for turn has registered.
func waitForWaiter(s *Stream, turn string) {
	for {
		s.mu.Lock()
		n := len(s.waiters[turn])
		s.mu.Unlock()
		if n > 0 {
			return
		}
		runtime.Gosched()
	}
}

func TestWaitTurn(t *testing.T) {
	retries := []Event{
		TurnStarted{TurnID: "t"},
		TurnRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, Reason: "x"},
		ModelRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3},
		SchemaRetry{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5"},
		SchemaExhausted{TurnID: "t", Attempt: 2, Iteration: 2, Stage: "json-parse", Error: "e"},
		TurnCompleted{TurnID: "other", Terminal: "completed"},
	}
	tests := []struct {
		name   string
		events []Event
		want   Method
	}{
		{"it resolves on turn/completed and never on a retry", append(retries, TurnCompleted{TurnID: "t", Terminal: "failed", Error: &TurnError{Kind: "modelError", Message: "m"}}), "turn/completed"},
		{"it resolves on turn/unqueued", []Event{TurnUnqueued{TurnID: "t"}}, "turn/unqueued"},
		{"the first terminal wins", []Event{TurnUnqueued{TurnID: "t"}, TurnCompleted{TurnID: "t", Terminal: "cancelled"}}, "turn/unqueued"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" while waiting", func(t *testing.T) {
			s, _ := appendAll(t, nil)
			res := make(chan yielded, 1)
			go func() {
				n, err := s.WaitTurn(context.Background(), "t")
				res <- yielded{n, err}
			}()
			waitForWaiter(s, "t")
			for _, ev := range tt.events {
				if _, err := s.Append(ev); err != nil {
					t.Fatal(err)
				}
			}
			y := <-res
			if y.err != nil || y.n.Method != tt.want {
				t.Errorf("WaitTurn = %s, %v; want %s", y.n.Method, y.err, tt.want)
			}
		})
		t.Run(tt.name+" when it already happened", func(t *testing.T) {
			s, _ := appendAll(t, tt.events)
			n, err := s.WaitTurn(context.Background(), "t")
			if err != nil || n.Method != tt.want {
				t.Errorf("WaitTurn = %s, %v; want %s", n.Method, err, tt.want)
			}
		})
	}
	t.Run("a terminal that left the buffer is read from the log", func(t *testing.T) {
		s, err := NewStream(testSession, NewMemoryLog(), WithBuffer(1))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		want, _ := s.Append(TurnCompleted{TurnID: "t", Terminal: "completed"})
		appendStarts(t, s, 3)
		got, err := s.WaitTurn(context.Background(), "t")
		if err != nil || string(got.Params) != string(want.Params) {
			t.Errorf("WaitTurn = %s, %v; want %s", got.Params, err, want.Params)
		}
	})
	t.Run("it returns the context's cause", func(t *testing.T) {
		s, _ := appendAll(t, retries)
		cause := errors.New("deadline for the demo")
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		if _, err := s.WaitTurn(ctx, "t"); !errors.Is(err, cause) {
			t.Errorf("WaitTurn = %v, want the cause", err)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.waiters) != 0 {
			t.Errorf("a cancelled wait left %d waiters behind", len(s.waiters))
		}
	})
	t.Run("it returns ErrClosed when the stream closes", func(t *testing.T) {
		s, _ := appendAll(t, nil)
		res := make(chan error, 1)
		go func() {
			_, err := s.WaitTurn(context.Background(), "t")
			res <- err
		}()
		waitForWaiter(s, "t")
		s.Close()
		if err := <-res; !errors.Is(err, ErrClosed) {
			t.Errorf("WaitTurn = %v, want ErrClosed", err)
		}
		if _, err := s.Append(TurnStarted{TurnID: "t"}); !errors.Is(err, ErrClosed) {
			t.Errorf("Append after Close = %v, want ErrClosed", err)
		}
	})
}

func TestNoGoroutineOutlivesItsSubscriptionOrWait(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := NewStream(testSession, NewMemoryLog())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range s.Subscribe(ctx, "") {
			}
		}()
		go func() {
			defer wg.Done()
			s.WaitTurn(ctx, fmt.Sprint("t", i))
		}()
	}
	appendStarts(t, s, 20)
	cancel()
	wg.Wait()
	s.Close()
	// The test's own goroutines may still be between wg.Done and their
	// exit: yield until they are gone, up to a failure bound (a leak), not
	// for a fixed number of turns, which a loaded machine can outlast.
	for bound := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(bound); {
		runtime.Gosched()
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.subs) != 0 || len(s.waiters) != 0 {
		t.Errorf("%d subscribers and %d waiters left registered", len(s.subs), len(s.waiters))
	}
}
