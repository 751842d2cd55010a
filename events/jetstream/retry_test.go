package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// lossyJS fails the publishes of record at, as a stream electing its
// leader does: the first lose times it publishes and loses the
// acknowledgement (the record is stored, the writer hears nothing), the
// next refuse times nobody answers (nothing is stored). With instead set,
// a lost publish stores that data in the record's place: another
// writer's record. With failWith set, both fail with that error.
type lossyJS struct {
	jetstream.JetStream
	at            int64
	mu            sync.Mutex
	lose, refuse  int
	instead       []byte
	failWith      error
	published     int // publishes of record at
	openFailures  int // the next Stream calls that time out
	streamLookups int
}

func (j *lossyJS) Publish(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	var rec events.Record
	if rec.UnmarshalJSON(data) == nil && rec.Sequence == j.at {
		j.mu.Lock()
		j.published++
		lose, refuse := j.lose > 0, j.lose == 0 && j.refuse > 0
		switch {
		case lose:
			j.lose--
		case refuse:
			j.refuse--
		}
		j.mu.Unlock()
		switch {
		case lose:
			stored := data
			if j.instead != nil {
				stored = j.instead
			}
			if _, err := j.JetStream.Publish(ctx, subject, stored, opts...); err != nil {
				return nil, err
			}
			if j.failWith != nil {
				return nil, j.failWith
			}
			return nil, fmt.Errorf("no acknowledgement: %w", context.DeadlineExceeded)
		case refuse && j.failWith != nil:
			return nil, j.failWith
		case refuse:
			return nil, jetstream.ErrNoStreamResponse
		}
	}
	return j.JetStream.Publish(ctx, subject, data, opts...)
}

func (j *lossyJS) Stream(ctx context.Context, name string) (jetstream.Stream, error) {
	j.mu.Lock()
	j.streamLookups++
	fail := j.openFailures > 0
	if fail {
		j.openFailures--
	}
	j.mu.Unlock()
	if fail {
		return nil, &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}
	}
	return j.JetStream.Stream(ctx, name)
}

// An append whose acknowledgement is lost (the record was stored) and
// whose resends meet nobody to answer is sent again until it is
// acknowledged, and stored once: Append returns nil, the log goes on, and
// the stream holds one message a record.
func TestAnAppendWhoseAcknowledgementIsLostIsRetriedAndStoredOnce(t *testing.T) {
	defer enforcerjs.NoBackoff()()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			s := startServer(t, t.TempDir(), -1)
			_, js := connect(t, s.ClientURL())
			ljs := &lossyJS{JetStream: js, at: 2, lose: 1, refuse: 2}
			var opts []enforcerjs.Option
			if async {
				opts = append(opts, enforcerjs.Async(4))
			}
			l := open(t, ljs, session, opts...)
			for seq := int64(1); seq <= 3; seq++ {
				if err := l.Append(tagged("w", seq)); err != nil {
					t.Fatalf("Append(record %d) = %v, want nil", seq, err)
				}
			}
			if err := l.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			if ljs.published != 4 {
				t.Errorf("record 2 was published %d times, want 4 (lost, refused twice, then recognised)", ljs.published)
			}
			checkTagged(t, reopen(t, js, session), "w", 3)
			checkMessages(t, js, 3)
		})
	}
}

// A publish whose connection is reset under it (a server shut down as
// the record went out, stored or not) is sent again, as one that got no
// answer is, and stored once; it does not close the log. Seen at 2,000
// sessions over a leader kill, where it left sessions with no
// turn/completed.
func TestAPublishWhoseConnectionIsResetIsSentAgain(t *testing.T) {
	defer enforcerjs.NoBackoff()()
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	reset := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.ECONNRESET)}
	ljs := &lossyJS{JetStream: js, at: 2, lose: 1, refuse: 1, failWith: reset}
	l := open(t, ljs, session, enforcerjs.Async(4))
	appendTagged(t, l, "w", 1, 3)
	if err := l.Flush(t.Context()); err != nil {
		t.Fatalf("Flush = %v, want every record stored", err)
	}
	if ljs.published != 3 {
		t.Errorf("record 2 was published %d times, want 3 (stored unheard, refused, recognised)", ljs.published)
	}
	checkTagged(t, reopen(t, js, session), "w", 3)
	checkMessages(t, js, 3)
}

// A resend that finds another writer's record in its place (its own was
// never stored) is a conflict, not taken for its own record.
func TestAResendThatFindsAnotherWritersRecordIsAConflict(t *testing.T) {
	defer enforcerjs.NoBackoff()()
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	other, err := tagged("x", 2).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	l := open(t, &lossyJS{JetStream: js, at: 2, lose: 1, instead: other}, session)
	appendTagged(t, l, "w", 1, 1)
	if err := l.Append(tagged("w", 2)); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("Append = %v, want ErrConflict", err)
	}
}

// An append that gets no answer within WithRetry fails with
// ErrUnavailable, not ErrClosed, and the log takes the same record again,
// which is then stored once.
func TestAnAppendUnansweredWithinItsRetryBoundIsUnavailableAndMayBeSentAgain(t *testing.T) {
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	ljs := &lossyJS{JetStream: js, at: 2, lose: 1, refuse: 1 << 30}
	l := open(t, ljs, session, enforcerjs.WithRetry(0))
	appendTagged(t, l, "w", 1, 1)
	err := l.Append(tagged("w", 2))
	var e *events.Error
	if !errors.Is(err, events.ErrUnavailable) || errors.Is(err, events.ErrClosed) || !errors.As(err, &e) || e.Seq != 2 {
		t.Fatalf("Append = %v, want an *events.Error for record 2 matching ErrUnavailable", err)
	}
	if l.Last() != 1 {
		t.Errorf("Last = %d after an unanswered append, want 1", l.Last())
	}
	ljs.mu.Lock()
	ljs.refuse = 0
	ljs.mu.Unlock()
	if err := l.Append(tagged("w", 2)); err != nil { // stored by the lost publish: recognised
		t.Fatalf("Append of the same record again = %v, want nil", err)
	}
	appendTagged(t, l, "w", 3, 3)
	checkTagged(t, reopen(t, js, session), "w", 3)
}

// Open during an election (the cluster answers "temporarily unavailable")
// tries again and opens; one that cannot within WithRetry fails with an
// error matching ErrUnavailable.
func TestOpenDuringAnElectionRetriesAndElseIsUnavailable(t *testing.T) {
	defer enforcerjs.NoBackoff()()
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	open(t, js, session).Close() // create the stream
	ljs := &lossyJS{JetStream: js, openFailures: 3}
	l, err := enforcerjs.Open(t.Context(), ljs, session)
	if err != nil {
		t.Fatalf("Open after 3 unavailable answers = %v, want nil", err)
	}
	l.Close()
	ljs.openFailures = 1 << 30
	_, err = enforcerjs.Open(t.Context(), ljs, session, enforcerjs.WithRetry(50*time.Millisecond))
	var e *events.Error
	if !errors.Is(err, events.ErrUnavailable) || !errors.As(err, &e) {
		t.Fatalf("Open that cannot reach the stream = %v, want an *events.Error matching ErrUnavailable", err)
	}
}

// A full Async queue behind a publisher the stream does not answer
// refuses at once with ErrUnavailable, rather than making the caller wait
// for the log; Flush bounded by a context names what is still queued.
func TestAFullAsyncQueueBehindAStalledPublisherRefusesAtOnce(t *testing.T) {
	defer enforcerjs.NoBackoff()()
	s := startServer(t, t.TempDir(), -1)
	_, js := connect(t, s.ClientURL())
	ljs := &lossyJS{JetStream: js, at: 1, refuse: 1 << 30}
	l := open(t, ljs, session, enforcerjs.Async(2), enforcerjs.WithTimeout(time.Hour))
	appendTagged(t, l, "w", 1, 2)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for !enforcerjs.Stalled(l) { // poll, bounded by ctx: the publisher met its first refusal
		if ctx.Err() != nil {
			t.Fatal("the publisher was never refused")
		}
		time.Sleep(time.Millisecond)
	}
	if err := l.Append(tagged("w", 3)); !errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("Append to a full queue = %v, want ErrUnavailable at once (the timeout is an hour)", err)
	}
	fctx, fcancel := context.WithCancel(t.Context())
	fcancel()
	var e *events.Error
	if err := l.Flush(fctx); !errors.Is(err, events.ErrUnavailable) || !errors.As(err, &e) || e.Seq != 1 {
		t.Fatalf("Flush = %v, want an *events.Error from record 1 matching ErrUnavailable", err)
	}
	ljs.mu.Lock()
	ljs.refuse = 0
	ljs.mu.Unlock()
	if err := l.Flush(t.Context()); err != nil {
		t.Fatalf("Flush once the stream answers = %v", err)
	}
	appendTagged(t, l, "w", 3, 3)
	if err := l.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	checkTagged(t, reopen(t, js, session), "w", 3)
}

// A subject whose last message was deleted (by hand, or lost by the
// stream) refuses the next append for a wrong last sequence, and a read
// of the subject shows the older message for as long as it is asked: a
// few reads in a row are taken for a lagging leader, then believed, so
// the append is a conflict at once, not an unavailable log resent until
// WithRetry or, with Async, until Close.
func TestAnAppendAfterTheLastMessageWasDeletedIsAConflict(t *testing.T) {
	defer enforcerjs.NoBackoff()()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			s := startServer(t, t.TempDir(), -1)
			_, js := connect(t, s.ClientURL())
			opts := []enforcerjs.Option{enforcerjs.WithRetry(time.Minute)}
			if async {
				opts = append(opts, enforcerjs.Async(4))
			}
			l := open(t, js, session, opts...)
			for i := int64(1); i <= 2; i++ {
				if err := l.Append(logtestRecord(i)); err != nil {
					t.Fatal(err)
				}
			}
			if async {
				if err := l.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			st, err := js.Stream(t.Context(), enforcerjs.DefaultStream)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.DeleteMsg(t.Context(), 2); err != nil {
				t.Fatal(err)
			}
			err = l.Append(logtestRecord(3))
			if async && err == nil {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a bound on a hang, never reached when it works
				err = l.Flush(ctx)
				cancel()
			}
			if !errors.Is(err, events.ErrConflict) || errors.Is(err, events.ErrUnavailable) {
				t.Errorf("Append after the last message was deleted = %v, want ErrConflict", err)
			}
		})
	}
}
