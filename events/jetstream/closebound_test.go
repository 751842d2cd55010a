package jetstream_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// stepClock is a clock that moves on by step at each reading, from the
// moment it is told to: each of Close's readings sees an append of the
// log take step, as the whole WithRetry (15 s by default) an append to a
// deleted stream takes.
type stepClock struct {
	now  atomic.Int64 // Unix nanoseconds
	step atomic.Int64
}

func (c *stepClock) read() time.Time { return time.Unix(0, c.now.Add(c.step.Load())) }

// A record kept for a stream that was then deleted is never stored: every
// append of it meets no responder until WithRetry passes and is
// ErrUnavailable. events.Stream.Close still tries for about a minute of
// its clock, not 30 passes of the log's whole retry bound (about nine
// minutes at the defaults), and names the record.
func TestCloseOfAStreamKeepingARecordForADeletedStreamKeepsItsMinute(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	nc, js := connect(t, s.ClientURL())
	l := open(t, js, session, enforcerjs.WithTimeout(100*time.Millisecond), enforcerjs.WithRetry(150*time.Millisecond))
	clock := &stepClock{}
	clock.now.Store(time.Date(2025, 8, 7, 0, 0, 0, 0, time.UTC).UnixNano())
	st, err := events.NewStream(session, l, events.WithClock(clock.read))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(events.TurnStarted{TurnID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(t.Context(), enforcerjs.DefaultStream); err != nil {
		t.Fatal(err)
	}
	_, err = st.Append(events.TurnCompleted{TurnID: "t1", Terminal: events.TerminalCompleted})
	if !errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("Append to the deleted stream = %v, want ErrUnavailable (kept)", err)
	}

	clock.step.Store(int64(20 * time.Second))
	closed := make(chan error, 1)
	go func() { closed <- st.Close() }()
	select {
	case err = <-closed:
	case <-time.After(20 * time.Second): // a bound on a hang: Close waits 2 s between passes, and one pass fits its minute here
		nc.Close() // the log fails for good: Close ends
		<-closed
		t.Fatal("Close kept trying past its minute: more than 9 passes, each taking 20 s of its clock")
	}
	var e *events.Error
	if !errors.Is(err, events.ErrUnavailable) || !errors.As(err, &e) || e.Seq != 2 {
		t.Errorf("Close = %v, want an *events.Error from record 2 matching ErrUnavailable", err)
	}
	noRetrierLeft(t)
}
