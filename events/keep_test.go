package events

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A turn that started before the kept records reached their bound still
// ends in the log: turns whose turn/started the stream could not keep
// take no terminal place from it. An event refused for want of room
// says so with ErrDropped, not with the sentinels of a kept one.
func TestATurnStartedBeforeTheBoundEndsInTheLog(t *testing.T) {
	s, l, _ := newUnavailableStream(t)
	l.setDown(true)
	t.Cleanup(func() { l.setDown(false) }) // before Close, which waits for the log
	if _, err := s.Append(TurnStarted{TurnID: "a"}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Append(turn/started a) = %v, want it kept (ErrUnavailable)", err)
	}
	for i := 1; i < heldMax; i++ {
		if _, err := s.Append(TurnRetry{TurnID: "a", Attempt: i, NextAttempt: i + 1, MaxAttempts: 2 * heldMax, Reason: "r"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Append(retry %d) = %v, want it kept", i, err)
		}
	}
	// Other turns come and go while the log is away: their starts find
	// no room, and their ends must not take the place a's end needs.
	for i := range 2 * heldMax {
		turn := fmt.Sprintf("b%d", i)
		_, err := s.Append(TurnStarted{TurnID: turn})
		if !errors.Is(err, ErrDropped) || errors.Is(err, ErrUnavailable) {
			t.Fatalf("Append(turn/started %s) past the bound = %v, want ErrDropped and not ErrUnavailable", turn, err)
		}
		_, err = s.Append(TurnCompleted{TurnID: turn, Terminal: TerminalCompleted})
		if !errors.Is(err, ErrDropped) || errors.Is(err, ErrUnavailable) {
			t.Fatalf("Append(turn/completed %s), a turn that never started in the log = %v, want ErrDropped", turn, err)
		}
	}
	if _, err := s.Append(TurnCompleted{TurnID: "a", Terminal: TerminalCompleted}); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrDropped) {
		t.Fatalf("Append(turn/completed a) = %v, want it kept (ErrUnavailable)", err)
	}
	l.setDown(false)
	if _, err := s.Append(TurnStarted{TurnID: "c"}); err != nil {
		t.Fatalf("Append once the log answers = %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := s.WaitTurn(ctx, "a"); err != nil {
		t.Fatalf("WaitTurn(a) once the log answers = %v, want the turn ended", err)
	}
	if got := len(storedMethods(t, l.Log)); got != heldMax+2 {
		t.Errorf("the log holds %d records, want %d: a's, and c's start", got, heldMax+2)
	}
}

// A turn/started is kept only while fewer than heldMax turns are open
// (started, not ended), so that the end of each has a place.
func TestKeptStartsLeaveEachOpenTurnAPlaceToEnd(t *testing.T) {
	s, l, _ := newUnavailableStream(t)
	l.setDown(true)
	t.Cleanup(func() { l.setDown(false) }) // before Close, which waits for the log
	for i := range heldMax {
		if _, err := s.Append(TurnStarted{TurnID: fmt.Sprintf("t%d", i)}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Append(turn/started t%d) = %v, want it kept", i, err)
		}
	}
	if _, err := s.Append(TurnStarted{TurnID: "one-too-many"}); !errors.Is(err, ErrDropped) {
		t.Fatalf("Append(turn/started) with %d turns open = %v, want ErrDropped", heldMax, err)
	}
	for i := range heldMax {
		if _, err := s.Append(TurnCompleted{TurnID: fmt.Sprintf("t%d", i), Terminal: TerminalCompleted}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Append(turn/completed t%d) = %v, want it kept", i, err)
		}
	}
	l.setDown(false)
	if err := s.Close(); err != nil {
		t.Fatalf("Close once the log answers = %v", err)
	}
	if got := len(storedMethods(t, l.Log)); got != 2*heldMax {
		t.Errorf("the log holds %d records, want %d", got, 2*heldMax)
	}
}
