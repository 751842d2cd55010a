package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// killingJS stops a server when it publishes record at: before the
// publish goes out (it meets a connection going down, or a stream
// electing its next leader), or as it goes out (the stop lands before,
// during or after the stream stores the record, and before or after the
// acknowledgement comes back).
type killingJS struct {
	jetstream.JetStream
	at      int64
	during  bool // stop the server as the publish goes out, not before
	kill    func()
	once    sync.Once
	stopped chan struct{} // closed once the server is down
}

func (j *killingJS) Publish(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	var rec events.Record
	if rec.UnmarshalJSON(data) == nil && rec.Sequence == j.at {
		j.once.Do(func() {
			stop := func() {
				j.kill()
				close(j.stopped)
			}
			if j.during {
				go stop()
			} else {
				stop()
			}
		})
	}
	return j.JetStream.Publish(ctx, subject, data, opts...)
}

// dialOrdered connects to urls in their order (the first one first), as
// connect does otherwise.
func dialOrdered(t *testing.T, urls ...string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(strings.Join(urls, ","), nats.DontRandomize(), nats.MaxReconnects(-1),
		nats.ReconnectWait(20*time.Millisecond), nats.ReconnectBufSize(-1), nats.Timeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// openRetrying opens the log of session until it opens, bounded by ctx:
// a cluster settling its placement, or electing a new stream leader,
// answers with errors for a while.
func openRetrying(ctx context.Context, t *testing.T, js jetstream.JetStream, opts ...enforcerjs.Option) *enforcerjs.Log {
	t.Helper()
	for {
		l, err := enforcerjs.Open(ctx, js, session, append([]enforcerjs.Option{enforcerjs.WithTimeout(2 * time.Second)}, opts...)...)
		if err == nil {
			t.Cleanup(func() { l.Close() })
			return l
		}
		select {
		case <-ctx.Done():
			t.Fatalf("cannot open the log: %v", err)
		case <-time.After(50 * time.Millisecond): // retry, bounded by ctx
		}
	}
}

// streamLeader is the index of the server that leads the stream, once
// one does, bounded by ctx.
func streamLeader(ctx context.Context, t *testing.T, servers []*server.Server) int {
	t.Helper()
	for {
		for i, s := range servers {
			if s.JetStreamIsStreamLeader("$G", enforcerjs.DefaultStream) {
				return i
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("no server leads the stream")
		case <-time.After(20 * time.Millisecond): // poll, bounded by ctx
		}
	}
}

// On an R3 stream of a three-node cluster, the node that leads the stream
// is stopped when the writer, connected to it, publishes record 15 of 30
// (before the publish goes out, or as it does), while a follower
// connected to another node reads. The writer's append
// that got no acknowledgement fails with a typed error, and the log opened
// again holds it once or not at all (then it is appended again); nothing
// acknowledged is lost, nothing is stored or delivered twice, and the
// follower goes on to the last record, each once, in order.
func TestALeaderLostMidAppendLosesAndDuplicatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three-node clusters")
	}
	tests := []struct {
		name          string
		async, during bool
	}{
		{"a synchronous writer, the leader stopped before the publish", false, false},
		{"a synchronous writer, the leader stopped as the publish goes out", false, true},
		{"an Async writer, the leader stopped before the publish", true, false},
		{"an Async writer, the leader stopped as the publish goes out", true, true},
	}
	for _, tt := range tests {
		async := tt.async
		t.Run(tt.name, func(t *testing.T) {
			const total, killAt = 30, 15
			servers := startCluster(t)
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			urls := []string{servers[0].ClientURL(), servers[1].ClientURL(), servers[2].ClientURL()}
			openRetrying(ctx, t, dialOrdered(t, urls...), enforcerjs.CreateStream(3)).Close()
			leader := streamLeader(ctx, t, servers)
			other := (leader + 1) % 3

			// The follower, on a node that stays up.
			r, err := events.Follow(session, openRetrying(ctx, t, dialOrdered(t, urls[other])))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			delivered := make(chan []string, 1)
			go func() {
				var ids []string
				for n, err := range r.Subscribe(ctx, "") {
					if err != nil {
						t.Errorf("the follower, after %d records: %v", len(ids), err)
						break
					}
					ev, err := n.Event()
					if err != nil {
						t.Errorf("the follower's notification %s: %v", n.Params, err)
						break
					}
					if ids = append(ids, ev.(events.TurnStarted).TurnID); len(ids) == total {
						break
					}
				}
				delivered <- ids
			}()

			// The writer, connected to the leader first.
			writerURLs := append([]string{urls[leader]}, slices.Delete(slices.Clone(urls), leader, leader+1)...)
			kjs := &killingJS{JetStream: dialOrdered(t, writerURLs...), at: killAt, during: tt.during, stopped: make(chan struct{}),
				kill: func() { servers[leader].Shutdown(); servers[leader].WaitForShutdown() }}
			var opts []enforcerjs.Option
			if async {
				opts = append(opts, enforcerjs.Async(4))
			}
			w := openRetrying(ctx, t, kjs, opts...)
			failures := 0
			for seq := int64(1); seq <= total; {
				err := w.Append(tagged("w", seq))
				if err == nil && async && seq == total {
					err = enforcerjs.WaitPublished(w)
				}
				if err == nil {
					seq++
					continue
				}
				if errors.Is(err, events.ErrUnavailable) { // a full queue during the election: the same record again
					select {
					case <-ctx.Done():
						t.Fatalf("Append(record %d) = %v until the test's end", seq, err)
					case <-time.After(10 * time.Millisecond): // poll, bounded by ctx
					}
					continue
				}
				failures++
				var e *events.Error
				if !errors.As(err, &e) || !errors.Is(err, events.ErrClosed) && !errors.Is(err, events.ErrConflict) {
					t.Fatalf("Append(record %d) = %v, want an *events.Error matching ErrClosed or ErrConflict", seq, err)
				}
				if failures > 5 { // a cluster may move the leader more than once
					t.Fatalf("Append failed %d times; the last: %v", failures, err)
				}
				acked := w.Last() // what the stream acknowledged to this log
				w.Close()
				w = openRetrying(ctx, t, kjs, opts...)
				got := w.Last()
				// Only the one publish in flight can be stored unacknowledged.
				if got < acked || got > acked+1 {
					t.Fatalf("after a failed append, the log opened again holds %d records; %d were acknowledged", got, acked)
				}
				checkTagged(t, w, "w", got) // and it is the record published, stored once
				seq = got + 1
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-kjs.stopped:
			case <-ctx.Done():
				t.Fatal("the stream leader did not stop")
			}
			t.Logf("%d appends failed", failures)

			var ids []string
			select {
			case ids = <-delivered:
			case <-ctx.Done():
				t.Fatal("the follower did not deliver every record within 90s")
			}
			var want []string
			for seq := int64(1); seq <= total; seq++ {
				want = append(want, fmt.Sprintf("w-%d", seq))
			}
			if !slices.Equal(ids, want) {
				t.Errorf("the follower delivered\n%v\nwant\n%v", ids, want)
			}
			checkTagged(t, openRetrying(ctx, t, dialOrdered(t, urls[other])), "w", total)
			st, err := dialOrdered(t, urls[other]).Stream(ctx, enforcerjs.DefaultStream)
			if err != nil {
				t.Fatal(err)
			}
			if n := st.CachedInfo().State.Msgs; n != total {
				t.Errorf("the stream holds %d messages, want %d: one per record", n, total)
			}
		})
	}
}

// flakyJS fails the next fail consumer creations, as a cluster electing
// a stream leader answers them (a timeout).
type flakyJS struct {
	jetstream.JetStream
	fail atomic.Int32
}

func (j *flakyJS) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	st, err := j.JetStream.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return &flakyStream{Stream: st, js: j}, nil
}

type flakyStream struct {
	jetstream.Stream
	js *flakyJS
}

func (s *flakyStream) CreateConsumer(ctx context.Context, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	if s.js.fail.Add(-1) >= 0 {
		return nil, fmt.Errorf("creating a consumer: %w", context.DeadlineExceeded)
	}
	return s.Stream.CreateConsumer(ctx, cfg)
}

// A follower whose watch cannot create its consumer at first (a cluster
// electing a leader times the request out) goes on once it can, instead
// of ending its stream on the first try.
func TestAFollowerWhoseWatchCannotStartAtOnceGoesOn(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	_, rjs := connect(t, s.ClientURL())
	w := open(t, js, session)
	appendTagged(t, w, "w", 1, 1)
	fjs := &flakyJS{JetStream: rjs}
	l := open(t, fjs, session)
	fjs.fail.Store(2)
	r, err := events.Follow(session, l)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	appendTagged(t, w, "w", 2, 3)
	n := 0
	for _, err := range r.Subscribe(ctx, "") {
		if err != nil {
			t.Fatalf("the follower ended after %d records: %v", n, err)
		}
		if n++; n == 3 {
			break
		}
	}
}
