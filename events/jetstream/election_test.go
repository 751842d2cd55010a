package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// electionSessions is how many sessions run at once in
// TestALeaderKilledMidRunLosesNoTurn: 16, or ENFORCER_ELECTION_SESSIONS
// (the scale runs take 500 and 2000).
func electionSessions(t *testing.T) int {
	if v := os.Getenv("ENFORCER_ELECTION_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ENFORCER_ELECTION_SESSIONS=%q, want a count", v)
		}
		return n
	}
	return 16
}

// Many sessions run turns at once, each an events.Stream over an Async
// log of an R3 stream, their writers connected to the stream's leader.
// Half-way, the leader is shut down, and started again once another node
// leads. No append ends a stream: every session holds every record once,
// in order, every turn ends with turn/completed, Close reports nothing
// lost, and followers on another node, attached throughout, receive
// every record once and see every turn end.
func TestALeaderKilledMidRunLosesNoTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	const turns, perTurn = 4, 5 // turn/started, three retries, turn/completed
	sessions := electionSessions(t)
	servers, opts := startClusterWith(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	urls := []string{servers[0].ClientURL(), servers[1].ClientURL(), servers[2].ClientURL()}
	openRetrying(ctx, t, dialOrdered(t, urls...), enforcerjs.CreateStream(3)).Close()
	leader := streamLeader(ctx, t, servers)
	other := (leader + 1) % 3
	wjs := dialOrdered(t, append([]string{urls[leader]}, slices.Delete(slices.Clone(urls), leader, leader+1)...)...)
	rjs := dialOrdered(t, urls[other])
	logOpts := []enforcerjs.Option{enforcerjs.WithTimeout(2 * time.Second), enforcerjs.WithRetry(time.Minute)}

	// The kill: when half the appends are made, the leader stops; once
	// another node leads, it starts again on its store.
	var appended atomic.Int64
	killAt := int64(sessions * turns * perTurn / 2)
	killed := make(chan struct{})
	var restarted *server.Server
	kill := func() {
		servers[leader].Shutdown()
		servers[leader].WaitForShutdown()
		close(killed)
		rest := slices.Delete(slices.Clone(servers), leader, leader+1)
		streamLeader(ctx, t, rest)
		t.Logf("node %d led the stream and is down; another leads now", leader+1)
		if os.Getenv("ENFORCER_ELECTION_NO_RESTART") != "" {
			return
		}
		s, err := tryStartServer(opts[leader])
		if err != nil {
			t.Errorf("starting the old leader again: %v", err)
			return
		}
		restarted = s
		t.Logf("node %d started again", leader+1)
	}
	var killing sync.WaitGroup
	defer func() {
		killing.Wait()
		if restarted != nil {
			restarted.Shutdown()
			restarted.WaitForShutdown()
		}
	}()

	var wg sync.WaitGroup
	var kept atomic.Int64 // appends refused as unavailable, kept by the stream
	for i := range sessions {
		id := fmt.Sprintf("s%d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var follower sync.WaitGroup
			if i%4 == 0 { // a follower on another node
				fl, err := enforcerjs.Open(ctx, rjs, id, logOpts...)
				if err != nil {
					t.Errorf("session %s: opening the follower: %v", id, err)
					return
				}
				r, err := events.Follow(id, fl)
				if err != nil {
					t.Errorf("session %s: %v", id, err)
					return
				}
				follower.Add(1)
				go func() {
					defer follower.Done()
					defer r.Close()
					followSession(ctx, t, r, id, turns, perTurn)
				}()
			}
			defer follower.Wait()
			l, err := enforcerjs.Open(ctx, wjs, id, append(logOpts, enforcerjs.Async(8))...)
			if err != nil {
				t.Errorf("session %s: Open = %v", id, err)
				return
			}
			st, err := events.NewStream(id, l)
			if err != nil {
				t.Errorf("session %s: %v", id, err)
				return
			}
			for turn := range turns {
				tid := fmt.Sprint("t", turn)
				evs := []events.Event{events.TurnStarted{TurnID: tid}}
				for a := 1; a <= perTurn-2; a++ {
					evs = append(evs, events.TurnRetry{TurnID: tid, Attempt: a, NextAttempt: a + 1, MaxAttempts: perTurn - 1, Reason: "r", Kind: events.RetryCorrective})
				}
				evs = append(evs, events.TurnCompleted{TurnID: tid, Terminal: events.TerminalCompleted})
				for _, ev := range evs {
					_, err := st.Append(ev)
					switch {
					case errors.Is(err, events.ErrUnavailable):
						kept.Add(1)
					case err != nil:
						t.Errorf("session %s: Append = %v, want nil or ErrUnavailable", id, err)
						st.Close()
						return
					}
					if appended.Add(1) == killAt {
						killing.Add(1)
						go func() { defer killing.Done(); kill() }()
					}
				}
			}
			if err := st.Close(); err != nil {
				t.Errorf("session %s: Close = %v, want every record stored", id, err)
			}
		}()
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatal("the leader was never stopped")
	}
	t.Logf("%d sessions, %d appends kept for an unavailable log", sessions, kept.Load())

	// A replica started again catches up before the check reads: a read
	// through a consumer placed on a replica still behind comes up short
	// (left for a later change: Open then reports ErrCorrupt).
	waitReplicasCurrent(ctx, t, rjs)
	for i := range sessions {
		id := fmt.Sprintf("s%d", i)
		l, err := enforcerjs.Open(ctx, rjs, id, logOpts...)
		if err != nil {
			t.Fatalf("session %s: reopening: %v", id, err)
		}
		checkTurns(t, id, readAll(t, l), turns, perTurn)
		l.Close()
	}
	checkMessages(t, rjs, sessions*turns*perTurn)
}

// waitReplicasCurrent returns once both replicas of the R3 stream that
// js reaches are current, bounded by ctx.
func waitReplicasCurrent(ctx context.Context, t *testing.T, js jetstream.JetStream) {
	t.Helper()
	for {
		st, err := js.Stream(ctx, enforcerjs.DefaultStream)
		if err == nil && st.CachedInfo().Cluster != nil && len(st.CachedInfo().Cluster.Replicas) == 2 &&
			st.CachedInfo().Cluster.Replicas[0].Current && st.CachedInfo().Cluster.Replicas[1].Current {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the stream's replicas did not catch up")
		case <-time.After(50 * time.Millisecond): // poll, bounded by ctx
		}
	}
}

// checkMessages checks that the stream js reaches holds want messages:
// one per record.
func checkMessages(t *testing.T, js jetstream.JetStream, want int) {
	t.Helper()
	st, err := js.Stream(t.Context(), enforcerjs.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.CachedInfo().State.Msgs; got != uint64(want) {
		t.Errorf("the stream holds %d messages, want %d: one per record", got, want)
	}
}

// checkTurns checks that recs are turns turns of perTurn records each, in
// order, each turn ending with its turn/completed.
func checkTurns(t *testing.T, id string, recs []events.Record, turns, perTurn int) {
	t.Helper()
	if len(recs) != turns*perTurn {
		t.Errorf("session %s holds %d records, want %d", id, len(recs), turns*perTurn)
		return
	}
	for i, rec := range recs {
		want := fmt.Sprint("t", i/perTurn)
		var got string
		switch ev := rec.Event.(type) {
		case events.TurnStarted:
			got = ev.TurnID
			if i%perTurn != 0 {
				got = "started out of place"
			}
		case events.TurnRetry:
			got = ev.TurnID
		case events.TurnCompleted:
			got = ev.TurnID
			if i%perTurn != perTurn-1 {
				got = "completed out of place"
			}
		}
		if rec.Sequence != int64(i+1) || got != want {
			t.Errorf("session %s record %d: sequence %d, %T of %q, want of turn %s", id, i+1, rec.Sequence, rec.Event, got, want)
			return
		}
	}
}

// followSession reads session id through r until every record came, each
// once and in order, and every turn was seen to end by WaitTurn.
func followSession(ctx context.Context, t *testing.T, r *events.Stream, id string, turns, perTurn int) {
	var ends sync.WaitGroup
	for turn := range turns {
		ends.Add(1)
		go func() {
			defer ends.Done()
			if _, err := r.WaitTurn(ctx, fmt.Sprint("t", turn)); err != nil {
				t.Errorf("session %s: the follower's WaitTurn(t%d) = %v", id, turn, err)
			}
		}()
	}
	defer ends.Wait()
	n := 0
	for note, err := range r.Subscribe(ctx, "") {
		if err != nil {
			t.Errorf("session %s: the follower ended after %d records: %v", id, n, err)
			return
		}
		n++
		if _, err := note.Event(); err != nil {
			t.Errorf("session %s: the follower's notification %d: %v", id, n, err)
			return
		}
		if n == turns*perTurn {
			return
		}
	}
}
