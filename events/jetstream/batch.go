package jetstream

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// Async makes Append return once the record is queued (and in this log's
// view), not acknowledged, so that a run does not wait on the log. A
// goroutine publishes the queue in order with the subject's expected
// last sequence, so a second writer still conflicts, and sends a record
// that got no answer or met a leader election again until it is stored,
// however long that takes (see [WithRetry]). At most n records are
// queued; a writer's crash loses at most those. [Log.Flush] waits until
// the queue is stored.
//
// A full queue: while the publisher is being answered, Append waits for
// room, at most [WithTimeout]; while it is retrying (the stream does not
// answer), Append fails at once. Either way the error matches
// events.ErrUnavailable and the record is not queued; an events.Stream
// keeps it and appends it again (see events.Stream.Append). A publish
// that fails for good (another writer, a closed connection) is reported
// by the next Append or Close and every one after; the records behind it
// leave the view, and Wait and Records return it. Close publishes the
// queue, waiting at most WithRetry, and names the records it could not
// store; the log must be closed.
func Async(n int) Option {
	// Details. The queued records are published as soon as the ones
	// before them are acknowledged (no delay is added), so they are the
	// appends of the last n round trips at most; what the stream keeps is
	// always a prefix of what was appended, with no gap. Subscribers of a
	// Stream over the log were given the queued records already: after a
	// failure for good, open the log again to read what the stream holds.
	//
	// Publishes are not pipelined. A record published before its
	// predecessor is acknowledged cannot carry the expected subject
	// sequence, and a Nats-Msg-Id of session and record number only
	// refuses another writer's record of the same number: if another
	// writer's record k is stored just before this log's k (refused)
	// while this log's k+1, k+2 are on the wire, those are stored after
	// it, and the subject holds two writers' records with no gap. (An
	// atomic batch, nats-server 2.12's AllowAtomicPublish, would be safe,
	// but on file storage it costs milliseconds a batch, more than a
	// hundred single publishes.) So throughput stays that of a
	// synchronous Append; the caller no longer waits for the round trip.
	return option(func(o *options) {
		if n < 1 {
			o.errs = append(o.errs, badOption("Async", "n = %d, want >= 1", n))
			return
		}
		o.async = n
	})
}

// batcher is the queue of an Async log; its fields are guarded by the
// log's mu.
type batcher struct {
	pending []queued   // the records appended and not yet acknowledged, in order
	cond    *sync.Cond // on the log's mu: the queue or the state changed
	closing bool       // Close is draining the queue
	stalled bool       // the publish in flight got no answer, or met an election, and is being tried again
	ctx     context.Context
	stop    context.CancelFunc // makes the publisher give up (Close, after WithRetry)
	done    chan struct{}
}

type queued struct {
	rec  events.Record
	data []byte
}

// last is the sequence number of the last record in this log's view;
// l.mu must be held. Queued records are in the view until a publish
// fails: they will never be published.
func (l *Log) last() int64 {
	n := int64(len(l.seqs))
	if l.b != nil && l.broken == nil {
		n += int64(len(l.b.pending))
	}
	return n
}

// lostQueue returns the error that stopped the publisher of an Async log
// with records still queued (they never will be published), else nil;
// l.mu must be held.
func (l *Log) lostQueue() error {
	if l.b == nil || len(l.b.pending) == 0 {
		return nil
	}
	return l.broken
}

// queuedRecords returns a copy of the records queued that are in this
// log's view; l.mu must be held.
func (l *Log) queuedRecords() []events.Record {
	if l.b == nil || len(l.b.pending) == 0 || l.broken != nil {
		return nil
	}
	recs := make([]events.Record, len(l.b.pending))
	for i, q := range l.b.pending {
		recs[i] = q.rec
	}
	return recs
}

// publishing says whether records of this log are queued; the watch
// leaves the subject's messages to the publisher meanwhile (this log's
// own, or another writer's that will make this log's publish fail with a
// conflict); l.mu must be held.
func (l *Log) publishing() bool { return l.b != nil && len(l.b.pending) > 0 }

// enqueue is Append of an Async log: rec, marshalled as data, is checked
// and queued.
func (l *Log) enqueue(rec events.Record, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var timedOut bool
	for {
		switch {
		case l.closed || l.b != nil && l.b.closing:
			return &events.Error{Op: "append", Seq: rec.Sequence, Err: events.ErrClosed}
		case l.broken != nil:
			return l.broken
		case rec.Sequence != l.last()+1:
			return &events.Error{Op: "append", Seq: rec.Sequence, Detail: fmt.Sprintf("sequence must be %d", l.last()+1), Err: events.ErrCorrupt}
		}
		if l.b == nil {
			ctx, stop := context.WithCancel(context.Background())
			l.b = &batcher{cond: sync.NewCond(&l.mu), ctx: ctx, stop: stop, done: make(chan struct{})}
			go l.publish(l.b)
		}
		b := l.b
		switch {
		case len(b.pending) < l.o.async:
			b.pending = append(b.pending, queued{rec, data})
			b.cond.Broadcast()
			if l.grew != nil {
				close(l.grew)
				l.grew = nil
			}
			return nil
		case b.stalled || timedOut:
			// A full queue behind a stream that does not answer: the
			// caller must not wait on it (see Async).
			return &events.Error{Op: "append", Seq: rec.Sequence, Detail: fmt.Sprintf("the queue of %d records is full and stream %s has not acknowledged its first one yet; the record was not queued", l.o.async, l.name), Err: events.ErrUnavailable}
		}
		t := time.AfterFunc(l.o.timeout, func() {
			l.mu.Lock()
			timedOut = true
			b.cond.Broadcast()
			l.mu.Unlock()
		})
		b.cond.Wait()
		t.Stop()
	}
}

// publish publishes the queued records of b in order, one at a time,
// until Close has drained the queue or a publish failed for good (or
// Close gave up on it).
func (l *Log) publish(b *batcher) {
	defer close(b.done)
	stalled := func() {
		l.mu.Lock()
		b.stalled = true
		b.cond.Broadcast()
		l.mu.Unlock()
	}
	l.mu.Lock()
	for {
		for len(b.pending) == 0 && !b.closing {
			b.cond.Wait()
		}
		if len(b.pending) == 0 || l.broken != nil {
			l.mu.Unlock()
			return
		}
		q := b.pending[0]
		var expect uint64
		if n := len(l.seqs); n > 0 {
			expect = l.seqs[n-1]
		}
		l.mu.Unlock()
		at, err := l.store(b.ctx, q.rec.Sequence, q.data, expect, stalled)
		l.mu.Lock()
		b.stalled = false
		if err != nil {
			if l.broken == nil { // unavailable (Close gave up): the records queued were not stored
				first, last := q.rec.Sequence, b.pending[len(b.pending)-1].rec.Sequence
				l.broken = &events.Error{Op: "append", Seq: first, Detail: fmt.Sprintf("records %d to %d were queued and not acknowledged before Close gave up", first, last), Err: err}
			}
			b.cond.Broadcast()
			if l.grew != nil { // a Wait returns the failure
				close(l.grew)
				l.grew = nil
			}
			l.mu.Unlock()
			return
		}
		b.pending[0] = queued{}
		b.pending = b.pending[1:]
		l.remember(q.rec, q.data, at)
		b.cond.Broadcast()
	}
}

// Flush waits until every record an [Async] log queued is acknowledged
// and returns nil, or returns the error that stopped the log; when ctx
// ends first it returns an error matching events.ErrUnavailable that
// names the records still queued (the publisher goes on with them). On a
// log without Async it returns nil at once.
func (l *Log) Flush(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		l.mu.Lock()
		if l.b != nil {
			l.b.cond.Broadcast()
		}
		l.mu.Unlock()
	})
	defer stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.b != nil && len(l.b.pending) > 0 && l.broken == nil {
		if ctx.Err() != nil {
			first, last := l.b.pending[0].rec.Sequence, l.b.pending[len(l.b.pending)-1].rec.Sequence
			return &events.Error{Op: "flush", Seq: first, Detail: fmt.Sprintf("records %d to %d are queued, not yet acknowledged", first, last), Err: fmt.Errorf("%w: %w", events.ErrUnavailable, context.Cause(ctx))}
		}
		l.b.cond.Wait()
	}
	return l.broken
}

// drain is the part of Close of an Async log: it publishes the queued
// records, waits for their acknowledgements, at most WithRetry once the
// stream stops answering, and returns the error that stopped the log, if
// any.
func (l *Log) drain() error {
	l.mu.Lock()
	b := l.b
	if b == nil {
		l.mu.Unlock()
		return nil
	}
	b.closing = true
	b.cond.Broadcast()
	l.mu.Unlock()
	t := time.AfterFunc(max(l.o.retry, l.o.timeout), b.stop)
	<-b.done
	t.Stop()
	b.stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.broken
}
