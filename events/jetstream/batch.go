package jetstream

import (
	"context"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// Async makes Append return once the record is queued (and in this log's
// view), not acknowledged. A goroutine publishes the queue in order with
// the subject's expected last sequence, so a second writer still
// conflicts. At most n records are queued; a writer's crash loses at most
// those. A publish's error is reported by the next Append or Close and
// every one after; the records behind it leave the view, and Wait and
// Records return it. Close publishes the queue; the log must be closed.
func Async(n int) Option {
	// Details. The queued records are published as soon as the ones
	// before them are acknowledged (no delay is added), so they are the
	// appends of the last n round trips at most, each bounded by
	// WithTimeout; what the stream keeps is always a prefix of what was
	// appended, with no gap. Subscribers of a Stream over the log were
	// given the queued records already: after an error, open the log
	// again to read what the stream holds.
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
			l.b = &batcher{cond: sync.NewCond(&l.mu), done: make(chan struct{})}
			go l.publish(l.b)
		}
		if len(l.b.pending) < l.o.async {
			l.b.pending = append(l.b.pending, queued{rec, data})
			l.b.cond.Broadcast()
			if l.grew != nil {
				close(l.grew)
				l.grew = nil
			}
			return nil
		}
		l.b.cond.Wait()
	}
}

// publish publishes the queued records of b in order, one at a time,
// until Close has drained the queue or a publish failed.
func (l *Log) publish(b *batcher) {
	defer close(b.done)
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
		ctx, cancel := context.WithTimeout(context.Background(), l.o.timeout)
		ack, err := l.js.Publish(ctx, l.subject, q.data, jetstream.WithExpectLastSequencePerSubject(expect))
		cancel()
		if err != nil {
			e := l.failed(q.rec.Sequence, err)
			l.mu.Lock()
			if l.broken == nil { // the stream refused the record: later ones cannot follow it
				l.broken = e
			}
			b.cond.Broadcast()
			if l.grew != nil { // a Wait returns the failure
				close(l.grew)
				l.grew = nil
			}
			l.mu.Unlock()
			return
		}
		l.mu.Lock()
		b.pending[0] = queued{}
		b.pending = b.pending[1:]
		l.remember(q.rec, q.data, ack.Sequence)
		b.cond.Broadcast()
	}
}

// drain is the part of Close of an Async log: it publishes the queued
// records, waits for their acknowledgements and returns the error that
// stopped the log, if any.
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
	<-b.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.broken
}
