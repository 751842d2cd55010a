package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// A turn is half written when the server stops; it restarts on the same
// store directory; the writer opens the log again and finishes the turn.
// Every acknowledged record is there, once, in order.
func TestAServerRestartMidTurnLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, -1)
	p := port(s)
	_, js := connect(t, s.ClientURL())
	// The append with the server down is tried once: the test is not of
	// how long the log keeps trying.
	l1 := open(t, js, session, enforcerjs.WithRetry(0))
	w, err := events.NewStream(session, l1)
	if err != nil {
		t.Fatal(err)
	}
	var acked []events.Notification
	for _, ev := range []events.Event{
		events.TurnStarted{TurnID: "t1"},
		events.TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: time.Second, Reason: "provider stream disconnected"},
	} {
		n, err := w.Append(ev)
		if err != nil {
			t.Fatal(err)
		}
		acked = append(acked, n)
	}
	s.Shutdown()
	s.WaitForShutdown()
	if _, err := w.Append(events.TurnRetry{TurnID: "t1", Attempt: 2, NextAttempt: 3, MaxAttempts: 3, Reason: "again"}); err == nil {
		t.Fatal("Append succeeded with the server down")
	}
	// The first writer goes away holding the event it kept, as one that
	// gives up does: its log closes under it, so the stream's Close cannot
	// store the event, says so, and its retrier ends with it.
	if err := l1.Close(); err != nil {
		t.Fatal(err)
	}
	var e *events.Error
	if err := w.Close(); !errors.Is(err, events.ErrClosed) || !errors.As(err, &e) || e.Seq != 3 {
		t.Errorf("the first writer's Close = %v, want an *events.Error naming record 3, matching ErrClosed", err)
	}
	startServer(t, dir, p) // same store, same address: the client reconnects
	l := reopen(t, js, session)
	// The failed append never reached a server (none was running), so
	// Last is exactly the acknowledged records.
	if got := l.Last(); got != int64(len(acked)) {
		t.Fatalf("after the restart the log holds %d records; %d were acknowledged, and no other reached the server", got, len(acked))
	}
	w2, err := events.NewStream(session, l)
	if err != nil {
		t.Fatal(err)
	}
	defer noRetrierLeft(t)
	defer w2.Close()
	if _, err := w2.Append(events.TurnCompleted{TurnID: "t1", Terminal: "completed"}); err != nil {
		t.Fatal(err)
	}
	var got []events.Notification
	for n, err := range w2.Subscribe(t.Context(), "") {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, n); n.Method == "turn/completed" {
			break
		}
	}
	for i, n := range acked {
		if string(got[i].Params) != string(n.Params) {
			t.Errorf("acknowledged record %d reads back as %s, want %s", i+1, got[i].Params, n.Params)
		}
	}
}

// Three servers, an R3 stream; the node that leads the stream is stopped
// mid-run. The writer opens the log again when an append fails and goes
// on. Every acknowledged record is in the stream, once, in order.
func TestAThreeNodeClusterLosesNothingAcknowledgedWhenTheLeaderStops(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	servers := startCluster(t)
	urls := servers[0].ClientURL() + "," + servers[1].ClientURL() + "," + servers[2].ClientURL()
	_, js := connect(t, urls)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var l *enforcerjs.Log
	for { // the cluster may still be settling its placement
		var err error
		if l, err = enforcerjs.Open(ctx, js, session, enforcerjs.CreateStream(3), enforcerjs.WithTimeout(2*time.Second)); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("cannot create the R3 stream: %v", err)
		case <-time.After(50 * time.Millisecond): // retry, bounded by ctx
		}
	}
	w, err := events.NewStream(session, l)
	if err != nil {
		t.Fatal(err)
	}
	const total = 40
	var acked []string // turn IDs
	stopped := false
	for i := 1; len(acked) < total; i++ {
		ev := events.TurnStarted{TurnID: fmt.Sprintf("t%d", i)}
		if _, err := w.Append(ev); err != nil {
			if ctx.Err() != nil {
				t.Fatalf("appends did not resume: %v", err)
			}
			w.Close()
			if w, err = events.NewStream(session, reopen(t, js, session)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		acked = append(acked, ev.TurnID)
		if len(acked) == total/2 && !stopped {
			for _, s := range servers {
				if s.JetStreamIsStreamLeader("$G", enforcerjs.DefaultStream) {
					s.Shutdown()
					stopped = true
					break
				}
			}
			if !stopped {
				t.Fatal("no server leads the stream")
			}
		}
	}
	w.Close()
	l2 := reopen(t, js, session)
	// The stream may also hold a record whose append failed without an
	// answer; the acknowledged ones must all be there, once, in order.
	var stored []string
	seen := map[string]int{}
	for _, rec := range readAll(t, l2) {
		id := rec.Event.(events.TurnStarted).TurnID
		if seen[id]++; slices.Contains(acked, id) {
			stored = append(stored, id)
		}
	}
	if !slices.Equal(stored, acked) {
		t.Errorf("the stream holds the acknowledged records\n%v\nwant\n%v", stored, acked)
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("record %s is stored %d times", id, n)
		}
	}
}

// A reader follows the session across a restart of the server: its
// watch resumes where it was, so it sees every record once, in order.
func TestAFollowerKeepsFollowingAcrossAServerRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, -1)
	p := port(s)
	_, js := connect(t, s.ClientURL())
	_, rjs := connect(t, s.ClientURL())
	// The append with the server down is tried once: the test is not of
	// how long the log keeps trying.
	w, err := events.NewStream(session, open(t, js, session, enforcerjs.WithRetry(0)))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := events.Follow(session, open(t, rjs, session))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	got := make(chan []string, 1)
	go func() {
		var ids []string
		for n, err := range r.Subscribe(ctx, "") {
			if err != nil {
				t.Errorf("the follower: %v", err)
				break
			}
			if ids = append(ids, string(n.Method)); len(ids) == 4 {
				break
			}
		}
		got <- ids
	}()
	appendTurn := func(w *events.Stream, id string) {
		t.Helper()
		if _, err := w.Append(events.TurnStarted{TurnID: id}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Append(events.TurnCompleted{TurnID: id, Terminal: "completed"}); err != nil {
			t.Fatal(err)
		}
	}
	appendTurn(w, "t1")
	if _, err := r.WaitTurn(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	s.WaitForShutdown()
	startServer(t, dir, p)
	w2, err := events.NewStream(session, reopen(t, js, session))
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	appendTurn(w2, "t2")
	if _, err := r.WaitTurn(ctx, "t2"); err != nil {
		t.Fatalf("the follower did not see the turn written after the restart: %v", err)
	}
	if ids := <-got; !slices.Equal(ids, []string{"turn/started", "turn/completed", "turn/started", "turn/completed"}) {
		t.Errorf("the follower's subscriber got %v", ids)
	}
}
