package jetstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// The server's error codes of a cluster that cannot serve a request for
// now (nats.go names neither): JSClusterNotAvailErr ("JetStream system
// temporarily unavailable") and JSClusterNotLeaderErr.
const (
	codeClusterNotAvailable jetstream.ErrorCode = 10008
	codeClusterNotLeader    jetstream.ErrorCode = 10009
)

// backoff is the wait before retry n (0, 1, …) of a request: 25ms
// doubling to 1s. A test sets it to zero.
var backoff = func(n int) time.Duration {
	return min(25*time.Millisecond<<min(n, 6), time.Second)
}

// maxStaleReads is how many reads in a row may show nothing newer than
// the refusal of a publish said there is, before that is believed.
const maxStaleReads = 3

// errStaleRead is a read that shows less than the request before it was
// refused for: the store that answered lags, and asking again heals it.
var errStaleRead = errors.New("the stream's last message for the subject is older than the one it refused the publish for")

// transient says whether err, of a request to the server, may heal by
// itself: no answer in time, nobody to answer (a stream electing its
// leader, a server going down), a connection being re-established or
// reset under a write (a server shut down as the request went out), or a
// cluster that says it cannot serve the request now. A closed
// connection, a refusal and anything this package found wrong do not.
func transient(err error) bool {
	var api *jetstream.APIError
	switch {
	case errors.Is(err, events.ErrCorrupt), errors.Is(err, events.ErrInvalid), errors.Is(err, events.ErrConflict),
		errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, jetstream.ErrConnectionClosed):
		return false
	case errors.As(err, &api):
		return api.ErrorCode == codeClusterNotAvailable || api.ErrorCode == codeClusterNotLeader || api.Code == 503
	}
	var netErr net.Error
	return errors.Is(err, errStaleRead) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.As(err, &netErr) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrReconnectBufExceeded) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, nats.ErrDisconnected) || errors.Is(err, nats.ErrNoServers)
}

// retrying calls op until it succeeds, fails for good (not [transient])
// or ctx ends, waiting backoff between tries; each try gets a context
// bounded by the timeout and ctx. It calls stalled, when not nil, after
// each transient failure. It returns the last error, and whether it was
// transient (then ctx ended).
func (l *Log) retrying(ctx context.Context, stalled func(), op func(context.Context) error) (err error, gaveUp bool) {
	for n := 0; ; n++ {
		tctx, cancel := context.WithTimeout(ctx, l.o.timeout)
		err = op(tctx)
		cancel()
		switch {
		case err == nil:
			return nil, false
		case errors.Is(err, events.ErrConflict):
			return err, false
		case ctx.Err() != nil: // the caller gave up, whatever the try met
			return err, true
		case !transient(err):
			return err, false
		}
		if stalled != nil {
			stalled()
		}
		t := time.NewTimer(backoff(n))
		select {
		case <-ctx.Done():
			t.Stop()
			return err, true
		case <-t.C:
		}
	}
}

// msgID is the Nats-Msg-Id of record seq: the server drops a second
// message with it within the stream's duplicate window, a second guard
// beside the expected subject sequence.
func (l *Log) msgID(seq int64) string {
	return l.subject + ":" + strconv.FormatInt(seq, 10)
}

// store publishes data, record seq, after the subject's message at stream
// sequence expect, retrying what may heal until ctx ends, and returns the
// record's stream sequence. A resend of a record whose first publish was
// stored without an answer is recognised, not stored twice: it meets
// "wrong last sequence" (or a duplicate acknowledgement), and the
// subject's message is then read back and taken as ours when its digest
// is our data's; another writer's is a conflict.
// stalled is retrying's.
func (l *Log) store(ctx context.Context, seq int64, data []byte, expect uint64, stalled func()) (uint64, error) {
	var at uint64
	stale := 0 // reads in a row that showed nothing newer than expect
	err, gaveUp := l.retrying(ctx, stalled, func(ctx context.Context) error {
		ack, err := l.js.Publish(ctx, l.subject, data,
			jetstream.WithExpectLastSequencePerSubject(expect), jetstream.WithMsgID(l.msgID(seq)))
		var api *jetstream.APIError
		switch {
		case err == nil && !ack.Duplicate:
			at = ack.Sequence
			return nil
		case err == nil: // a message of our ID is stored: is it ours?
			msg, err := l.stream.GetMsg(ctx, ack.Sequence)
			if err != nil {
				return err
			}
			return l.ours(seq, msg, data, &at)
		case errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant):
			msg, gerr := l.stream.GetLastMsgForSubject(ctx, l.subject)
			if gerr != nil {
				return gerr
			}
			if msg.Sequence <= expect && stale < maxStaleReads {
				// The refusal says a message follows expect, the read says
				// none does: it may come from a store that has not yet
				// applied it (a leader just elected), so ask again, a few
				// times. A read that keeps saying so is the truth (the
				// message was deleted, or the stream lost it): ours then
				// reports the conflict.
				stale++
				return errStaleRead
			}
			return l.ours(seq, msg, data, &at)
		}
		return err
	})
	switch {
	case err == nil:
		return at, nil
	case gaveUp:
		return 0, &events.Error{Op: "append", Seq: seq, Detail: fmt.Sprintf("stream %s did not acknowledge the record in time; it may be stored: append the same record again", l.name), Err: fmt.Errorf("%w: %w", events.ErrUnavailable, err)}
	}
	return 0, l.failed(seq, err)
}

// ours sets *at to msg's stream sequence when msg is data, record seq as
// this log published it; else the subject holds another writer's record.
func (l *Log) ours(seq int64, msg *jetstream.RawStreamMsg, data []byte, at *uint64) error {
	if digest(msg.Data) != digest(data) {
		return &events.Error{Op: "append", Seq: seq, Detail: fmt.Sprintf("subject %s has records this log has not seen (its last at stream sequence %d, %q); open the log again", l.subject, msg.Sequence, msg.Header.Get(jetstream.MsgIDHeader)), Err: events.ErrConflict}
	}
	*at = msg.Sequence
	return nil
}

// hedgeAfter is the least time a read Open makes goes unanswered before
// the same read is sent again beside it (see hedged). A test sets it.
var hedgeAfter = 250 * time.Millisecond

// answerTime is a moving average of how long Open's hedged reads took to
// be answered, in nanoseconds: a read is sent again only once it is
// unanswered for four times as long (and hedgeAfter at least), so that a
// server slow under load is not asked everything twice. 0 until the
// first answer, which counts as hedgeAfter.
var answerTime atomic.Int64

// hedgeWait is how long a hedged read waits for its answer before it is
// sent again beside itself.
func hedgeWait() time.Duration {
	t := time.Duration(answerTime.Load())
	if t == 0 {
		t = hedgeAfter
	}
	return max(hedgeAfter, 4*t)
}

// answered adds an answer that took d to answerTime (weight 1/8).
func answered(d time.Duration) {
	for {
		old := answerTime.Load()
		next := int64(d)
		if old != 0 {
			next = old + (int64(d)-old)/8
		}
		if answerTime.CompareAndSwap(old, next) {
			return
		}
	}
}

// hedged calls op, a read that may be sent twice, bounded by timeout and
// ctx, and once it is unanswered for hedgeWait, then twice as long and
// so on while the calls' timeout allows, calls it again beside the calls
// under way. It returns the first answer, or the first error that is not
// [transient]; a transient error ends it only when no call is left under
// way. A stream that lost its leader does not answer the reads sent to
// it (they wait out their timeout) and answers those sent once another
// node leads, so an Open during an election takes about as long as the
// election, not a whole timeout more; a slow server's first answer still
// counts. The calls still under way are cancelled, and waited for, when
// it returns.
func hedged[T any](ctx context.Context, timeout time.Duration, op func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	first := max(hedgeWait(), time.Nanosecond)
	n := 1 // how many calls there will be at most
	for d, spent := first, time.Duration(0); spent+d < timeout; spent, d = spent+d, 2*d {
		n++
	}
	results := make(chan result, n) // no call waits to be heard
	hctx, cancel := context.WithCancel(ctx)
	var calls sync.WaitGroup
	defer calls.Wait()
	defer cancel()
	call := func() {
		calls.Go(func() {
			tctx, done := context.WithTimeout(hctx, timeout)
			defer done()
			start := time.Now()
			v, err := op(tctx)
			if err == nil {
				answered(time.Since(start))
			}
			results <- result{v, err}
		})
	}
	call()
	pending, wait := 1, first
	again := time.NewTimer(wait)
	defer again.Stop()
	for {
		select {
		case r := <-results:
			pending--
			if r.err == nil || !transient(r.err) || pending == 0 {
				return r.v, r.err
			}
		case <-again.C:
			if n--; n > 0 {
				pending++
				call()
				wait *= 2
				again.Reset(wait)
			}
		}
	}
}
