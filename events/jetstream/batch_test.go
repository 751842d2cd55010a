package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
	"github.com/enforcer-go/enforcer/events/logtest"
)

// tagged is record seq of the session, its event naming the writer.
func tagged(writer string, seq int64) events.Record {
	return events.Record{Stream: session, Sequence: seq, ID: fmt.Sprintf("018f9008-71aa-7000-8000-%012d", seq),
		Time: time.UnixMilli(1754590940000).UTC(), Event: events.TurnStarted{TurnID: fmt.Sprintf("%s-%d", writer, seq)}}
}

// appendTagged appends records from..to of writer to l, which must take them.
func appendTagged(t testing.TB, l *enforcerjs.Log, writer string, from, to int64) {
	t.Helper()
	for seq := from; seq <= to; seq++ {
		if err := l.Append(tagged(writer, seq)); err != nil {
			t.Fatalf("%s: Append(record %d) = %v", writer, seq, err)
		}
	}
}

// checkTagged checks that l holds records 1..n of writer, in order.
func checkTagged(t testing.TB, l *enforcerjs.Log, writer string, n int64) {
	t.Helper()
	got := readAll(t, l)
	if int64(len(got)) != n {
		t.Fatalf("the session holds %d records, want %d of %s", len(got), n, writer)
	}
	for i, rec := range got {
		want := tagged(writer, int64(i)+1)
		if rec.Sequence != want.Sequence || rec.Event.(events.TurnStarted).TurnID != want.Event.(events.TurnStarted).TurnID {
			t.Fatalf("record %d is %d %v, want %d %v", i+1, rec.Sequence, rec.Event, want.Sequence, want.Event)
		}
	}
}

func TestAsyncLogKeepsTheLogContract(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	_, other := connect(t, s.ClientURL())
	opts := func(name string) []enforcerjs.Option {
		return []enforcerjs.Option{enforcerjs.WithStream("A_" + name), enforcerjs.WithSubjectPrefix("a." + name)}
	}
	var mu sync.Mutex
	writers := map[string]*enforcerjs.Log{}
	logtest.Run(t, logtest.Opener{
		Open: func(t *testing.T, name string) events.Log {
			l, err := enforcerjs.Open(t.Context(), js, "logtest-session", append(opts(name), enforcerjs.CreateStream(1), enforcerjs.Async(2))...)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			writers[name] = l
			mu.Unlock()
			return l
		},
		Durable: true,
		Follow: func(t *testing.T, name string) events.Follower {
			mu.Lock()
			w := writers[name]
			mu.Unlock()
			if err := enforcerjs.WaitPublished(w); err != nil { // another process sees what is published
				t.Fatal(err)
			}
			l, err := enforcerjs.Open(t.Context(), other, "logtest-session", opts(name)...)
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	})
}

func TestAsyncOptionNeedsRoomForARecord(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	if _, err := enforcerjs.Open(t.Context(), js, session, enforcerjs.CreateStream(1), enforcerjs.Async(0)); !errors.Is(err, events.ErrInvalid) {
		t.Errorf("Open with Async(0) = %v, want ErrInvalid", err)
	}
}

func TestAsyncRecordsComeBackInOrderAfterCloseAndReopen(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	l := open(t, js, session, enforcerjs.Async(8))
	appendTagged(t, l, "w", 1, 200)
	if got := l.Last(); got != 200 {
		t.Errorf("Last() = %d right after the appends, want 200 (queued records are in the log's view)", got)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	checkTagged(t, open(t, js, session), "w", 200)
}

func TestAsyncASecondWriterConflictsAndNothingInterleaves(t *testing.T) {
	t.Run("the async writer first", func(t *testing.T) {
		s := startServer(t, t.TempDir(), -1)
		_, js1 := connect(t, s.ClientURL())
		_, js2 := connect(t, s.ClientURL())
		a := open(t, js1, session, enforcerjs.Async(4))
		b := open(t, js2, session) // both saw an empty session
		appendTagged(t, a, "a", 1, 10)
		if err := a.Close(); err != nil {
			t.Fatalf("the first writer's Close() = %v", err)
		}
		if err := b.Append(tagged("b", 1)); !errors.Is(err, events.ErrConflict) {
			t.Errorf("the second writer's Append = %v, want ErrConflict", err)
		}
		checkTagged(t, open(t, js1, session), "a", 10)
	})
	t.Run("the async writer second", func(t *testing.T) {
		s := startServer(t, t.TempDir(), -1)
		_, js1 := connect(t, s.ClientURL())
		_, js2 := connect(t, s.ClientURL())
		a := open(t, js1, session, enforcerjs.Async(4))
		b := open(t, js2, session)
		appendTagged(t, b, "b", 1, 1)
		var errs []error
		for seq := int64(1); seq <= 10; seq++ {
			if err := a.Append(tagged("a", seq)); err != nil {
				errs = append(errs, err)
			}
		}
		errs = append(errs, a.Close())
		if errs[0] == nil || !errors.Is(errs[0], events.ErrConflict) {
			t.Fatalf("the async writer's first error = %v, want ErrConflict", errs[0])
		}
		for _, err := range errs {
			if !errors.Is(err, events.ErrConflict) {
				t.Errorf("after the conflict the async writer got %v, want ErrConflict every time", err)
			}
		}
		checkTagged(t, open(t, js2, session), "b", 1)
	})
	t.Run("two async writers at once", func(t *testing.T) {
		s := startServer(t, t.TempDir(), -1)
		_, js1 := connect(t, s.ClientURL())
		_, js2 := connect(t, s.ClientURL())
		logs := []*enforcerjs.Log{open(t, js1, session, enforcerjs.Async(4)), open(t, js2, session, enforcerjs.Async(4))}
		names := []string{"a", "b"}
		closed := make([]error, 2)
		var wg sync.WaitGroup
		for i, l := range logs {
			wg.Go(func() {
				for seq := int64(1); seq <= 50; seq++ {
					if l.Append(tagged(names[i], seq)) != nil {
						break
					}
				}
				closed[i] = l.Close()
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range closed {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil:
				t.Fatal("both writers' Close() returned nil")
			case !errors.Is(err, events.ErrConflict):
				t.Errorf("writer %s: Close() = %v, want nil or ErrConflict", names[i], err)
			}
		}
		if winner < 0 {
			t.Fatalf("neither writer won: %v", closed)
		}
		checkTagged(t, open(t, js1, session), names[winner], 50)
	})
}

// The writer's connection goes away without Close, as in a crash: what
// the stream keeps is a prefix of what was appended, missing at most the
// queue (n records), and the log reports the loss from then on.
func TestAsyncAWriterCrashLosesAtMostTheQueue(t *testing.T) {
	const n, total = 16, 300
	s := startServer(t, t.TempDir(), -1)
	nc, js := connect(t, s.ClientURL())
	l := open(t, js, session, enforcerjs.Async(n))
	appendTagged(t, l, "w", 1, total)
	nc.Close()
	if err := l.Close(); !errors.Is(err, events.ErrClosed) && err != nil {
		t.Errorf("Close() after the connection closed = %v, want nil or ErrClosed", err)
	} else if err != nil {
		if err := l.Append(tagged("w", total+1)); !errors.Is(err, events.ErrClosed) {
			t.Errorf("Append after the loss = %v, want ErrClosed", err)
		}
	}
	_, js2 := connect(t, s.ClientURL())
	r := open(t, js2, session)
	kept := r.Last()
	if kept < total-n || kept > total {
		t.Fatalf("the stream keeps %d of %d records, want at least %d", kept, total, total-n)
	}
	checkTagged(t, r, "w", kept)
	t.Logf("lost %d of %d records (Async(%d))", total-kept, total, n)
}

func TestAsyncRecordsReachAFollowerInOrder(t *testing.T) {
	const total = 100
	s := startServer(t, t.TempDir(), -1)
	_, js1 := connect(t, s.ClientURL())
	_, js2 := connect(t, s.ClientURL())
	w := open(t, js1, session, enforcerjs.Async(8))
	r := open(t, js2, session)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan []events.Record, 1)
	go func() {
		var got []events.Record
		for after := int64(0); after < total; {
			if err := r.Wait(ctx, after); err != nil {
				t.Errorf("the follower's Wait(%d) = %v", after, err)
				break
			}
			for rec, err := range r.Records(after) {
				if err != nil {
					t.Errorf("the follower's Records(%d): %v", after, err)
					break
				}
				got, after = append(got, rec), rec.Sequence
			}
		}
		done <- got
	}()
	appendTagged(t, w, "w", 1, total)
	got := <-done
	if len(got) != total {
		t.Fatalf("the follower saw %d records, want %d", len(got), total)
	}
	for i, rec := range got {
		if want := fmt.Sprintf("w-%d", i+1); rec.Sequence != int64(i)+1 || rec.Event.(events.TurnStarted).TurnID != want {
			t.Fatalf("the follower's record %d is %d %v, want %s", i+1, rec.Sequence, rec.Event, want)
		}
	}
	if err := w.Close(); err != nil {
		t.Errorf("the writer's Close() = %v", err)
	}
}

// BenchmarkAppendAsync appends records through an Async(64) log and
// closes it, so every record is acknowledged within the timing:
// compare with BenchmarkAppend and BenchmarkRawPublish.
func BenchmarkAppendAsync(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	_, js := connect(b, s.ClientURL())
	l := open(b, js, session, enforcerjs.Async(64))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := l.Append(benchRecord(int64(i) + 1)); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAppendBurst measures what the caller waits for a turn's
// burst of 8 records: 8 acknowledged publishes with a synchronous log,
// 8 queued records with an Async(8) log (whose queue is empty when a
// burst starts; its publishing is outside the timing).
func BenchmarkAppendBurst(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []enforcerjs.Option
	}{{"sync", nil}, {"async", []enforcerjs.Option{enforcerjs.Async(8)}}} {
		b.Run(bc.name, func(b *testing.B) {
			s := startServer(b, b.TempDir(), -1)
			_, js := connect(b, s.ClientURL())
			l := open(b, js, session, bc.opts...)
			b.ReportAllocs()
			b.ResetTimer()
			seq := int64(0)
			for range b.N {
				for range 8 {
					seq++
					if err := l.Append(benchRecord(seq)); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if err := enforcerjs.WaitPublished(l); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// A Stream over an Async log learns of a conflict late: a later Append
// or its Close reports it, and the session holds the other writer's
// records only.
func TestAsyncAStreamReportsALateConflict(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js1 := connect(t, s.ClientURL())
	_, js2 := connect(t, s.ClientURL())
	a := open(t, js1, session, enforcerjs.Async(4))
	b := open(t, js2, session)
	appendTagged(t, b, "b", 1, 1)
	w, err := events.NewStream(session, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(events.TurnStarted{TurnID: "t1"}); err != nil {
		t.Fatalf("the first Append = %v, want nil (queued)", err)
	}
	var appendErr error
	for range 20 {
		if _, appendErr = w.Append(events.TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, Reason: "r"}); appendErr != nil {
			break
		}
	}
	closeErr := w.Close()
	if appendErr != nil && !errors.Is(appendErr, events.ErrConflict) {
		t.Errorf("a later Append = %v, want nil or ErrConflict", appendErr)
	}
	if !errors.Is(closeErr, events.ErrConflict) {
		t.Errorf("the stream's Close() = %v, want ErrConflict", closeErr)
	}
	checkTagged(t, open(t, js2, session), "b", 1)
}

// An Async log whose publisher failed with records queued must not tell
// a Wait that those records are there: Wait returns the failure, and
// Last and Records show only what the stream acknowledged.
func TestAsyncWaitReportsAFailureWithRecordsQueued(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js1 := connect(t, s.ClientURL())
	_, js2 := connect(t, s.ClientURL())
	gj := &gatedJS{JetStream: js1, gate: make(chan struct{})}
	a := open(t, gj, session, enforcerjs.Async(4))
	b := open(t, js2, session)
	appendTagged(t, b, "b", 1, 1) // a has not seen it: its record 1 conflicts
	appendTagged(t, a, "a", 1, 3) // queued; the publisher waits at the gate
	close(gj.gate)
	if err := enforcerjs.WaitPublished(a); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("the async writer's publisher stopped with %v, want ErrConflict", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := a.Wait(ctx, 0); !errors.Is(err, events.ErrConflict) {
		t.Errorf("Wait(0) on the failed async log = %v, want ErrConflict (none of its records was written)", err)
	}
	if got := a.Last(); got != 0 {
		t.Errorf("Last() = %d after the failure, want 0 (nothing acknowledged)", got)
	}
	var errs []error
	for rec, err := range a.Records(0) {
		if err == nil {
			t.Errorf("Records(0) yielded record %d, which the stream never stored", rec.Sequence)
			continue
		}
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], events.ErrConflict) {
		t.Errorf("Records(0) ended with %v, want the conflict", errs)
	}
}

// The same with acknowledged records before the failure: Wait below them
// returns nil, at them the failure; Records yields them, then the error.
func TestAsyncWaitAfterAFailureReportsItPastTheAcknowledgedRecords(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js1 := connect(t, s.ClientURL())
	_, js2 := connect(t, s.ClientURL())
	a := open(t, js1, session, enforcerjs.Async(4))
	appendTagged(t, a, "a", 1, 2)
	if err := enforcerjs.WaitPublished(a); err != nil {
		t.Fatal(err)
	}
	b := open(t, js2, session)
	appendTagged(t, b, "b", 3, 3)
	appendTagged(t, a, "a", 3, 3)
	if err := enforcerjs.WaitPublished(a); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("the async writer's publisher stopped with %v, want ErrConflict", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := a.Wait(ctx, 1); err != nil {
		t.Errorf("Wait(1) = %v, want nil: record 2 is stored", err)
	}
	if err := a.Wait(ctx, 2); !errors.Is(err, events.ErrConflict) {
		t.Errorf("Wait(2) = %v, want ErrConflict", err)
	}
	if got := a.Last(); got != 2 {
		t.Errorf("Last() = %d, want 2", got)
	}
	var seqs []int64
	var last error
	for rec, err := range a.Records(0) {
		if err != nil {
			last = err
			break
		}
		seqs = append(seqs, rec.Sequence)
	}
	if len(seqs) != 2 || !errors.Is(last, events.ErrConflict) {
		t.Errorf("Records(0) yielded %v then %v, want [1 2] then the conflict", seqs, last)
	}
}

// gatedJS holds each Publish until the test lets it through.
type gatedJS struct {
	jetstream.JetStream
	gate chan struct{}
}

func (j *gatedJS) Publish(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	select {
	case <-j.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return j.JetStream.Publish(ctx, subject, data, opts...)
}

// A Wait already blocked past the queue of an Async log wakes when the
// publisher fails, and returns the failure instead of waiting on.
func TestAsyncWaitBlockedWhenThePublisherFailsReturnsTheFailure(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js1 := connect(t, s.ClientURL())
	_, js2 := connect(t, s.ClientURL())
	gj := &gatedJS{JetStream: js1, gate: make(chan struct{})}
	a := open(t, gj, session, enforcerjs.Async(4))
	b := open(t, js2, session)
	appendTagged(t, b, "b", 1, 1)
	appendTagged(t, a, "a", 1, 2) // queued; the publisher waits at the gate
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	waited := make(chan error, 1)
	go func() { waited <- a.Wait(ctx, 2) }()
	for !enforcerjs.Waiting(a) && ctx.Err() == nil {
		runtime.Gosched()
	}
	close(gj.gate)
	if err := <-waited; !errors.Is(err, events.ErrConflict) {
		t.Errorf("Wait(2), blocked when the publisher failed, = %v, want ErrConflict", err)
	}
}
