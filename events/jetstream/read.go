package jetstream

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// readBatch is the most messages one request of a read asks for.
var readBatch = 256

// readBytes is what a read asks for in one request, in bytes, beyond one
// message of the largest size: it bounds the memory a read holds.
const readBytes = 4 << 20

// scan reads the subject's records from the first, learning their stream
// sequences: one request for the subject's last message (sent again
// beside itself while unanswered, see hedged), then a read
// through a consumer (see read) up to that message. Each request has its
// own timeout, so a long session takes as long as it takes to read, and
// only a request that hangs fails it.
func (l *Log) scan(ctx context.Context) error {
	last, err := hedged(ctx, l.o.timeout, func(ctx context.Context) (*jetstream.RawStreamMsg, error) {
		return l.stream.GetLastMsgForSubject(ctx, l.subject)
	})
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return &events.Error{Op: "open", Detail: "subject " + l.subject, Err: err}
	}
	var at uint64 // the stream sequence of the last record read
	err = l.read(ctx, 1, 0, func(data []byte, seq uint64) (bool, error) {
		rec, err := l.decode(data, int64(len(l.seqs))+1)
		if err != nil {
			return false, err
		}
		l.remember(rec, data, seq)
		at = seq
		return seq < last.Sequence, nil
	})
	switch {
	case err != nil:
		return asError(err, "open", int64(len(l.seqs))+1, l.subject)
	case at != last.Sequence:
		return &events.Error{Op: "open", Seq: int64(len(l.seqs)) + 1, Detail: fmt.Sprintf("subject %s: its last message, %d, was deleted while the log was read", l.subject, last.Sequence), Err: events.ErrCorrupt}
	}
	return nil
}

// fetch fetches one batch of up to n messages of at most maxBytes from
// cons, bounded by the timeout and ctx, and calls each for every message
// until it returns false or an error. It returns how many messages came
// and whether each wants more.
func (l *Log) fetch(ctx context.Context, cons jetstream.Consumer, n, maxBytes int, each func([]byte, *jetstream.MsgMetadata) (bool, error)) (int, bool, error) {
	fctx, cancel := context.WithTimeout(ctx, l.o.timeout)
	defer cancel()
	batch, err := cons.Fetch(n, jetstream.FetchMaxBytes(maxBytes), jetstream.FetchContext(fctx))
	if err != nil {
		return 0, false, err
	}
	got := 0
	for msg := range batch.Messages() {
		meta, err := msg.Metadata()
		if err != nil {
			return got, false, err
		}
		got++
		if more, err := each(msg.Data(), meta); err != nil || !more {
			return got, false, err
		}
	}
	if err := batch.Error(); err != nil {
		switch {
		case ctx.Err() != nil:
			err = context.Cause(ctx)
		case fctx.Err() != nil:
			err = fmt.Errorf("stream %s sent %d of %d messages within %v: %w", l.name, got, n, l.o.timeout, err)
		}
		return got, false, err
	}
	return got, true, nil
}

// asError wraps an error of read in an *events.Error, unless it is one.
func asError(err error, op string, seq int64, subject string) error {
	var e *events.Error
	if errors.As(err, &e) {
		return err
	}
	return &events.Error{Op: op, Seq: seq, Detail: "reading subject " + subject, Err: err}
}

// read calls each, in order, with the data and stream sequence of the
// subject's messages from stream sequence start on, until each returns
// false or an error, or no message is left; limit > 0 is how many
// messages each may want at most (none are fetched beyond). It reads through an ephemeral
// consumer on the subject (memory storage, no acks, one replica): one
// request creates it, one fetches each batch of up to readBatch messages
// and readBytes bytes, one deletes it; each is bounded by the timeout,
// and a consumer left behind by a crash is removed by the server once
// idle. A fetch that brings nothing while messages are pending fails
// the read; a message the client kept from it (see swallowed) is
// ErrCorrupt.
func (l *Log) read(ctx context.Context, start, limit uint64, each func(data []byte, seq uint64) (bool, error)) error {
	cons, err := l.consumer(ctx, start, 0)
	if err != nil {
		return err
	}
	defer l.dropConsumer(context.WithoutCancel(ctx), cons)
	pending := cons.CachedInfo().NumPending
	if limit > 0 {
		pending = min(pending, limit)
	}
	maxBytes := readBytes + int(l.js.Conn().MaxPayload())
	var delivered uint64 // the consumer sequence of the last message each was given
	for pending > 0 {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		n, failed := int(min(pending, uint64(readBatch))), false
		got, more, err := l.fetch(ctx, cons, n, maxBytes, func(data []byte, meta *jetstream.MsgMetadata) (bool, error) {
			if meta.Sequence.Consumer != delivered+1 { // the client kept one from us
				failed = true
				return false, l.notRecord(meta.Sequence.Stream)
			}
			delivered = meta.Sequence.Consumer
			if pending--; meta.NumPending < pending {
				pending = meta.NumPending
			}
			more, err := each(data, meta.Sequence.Stream)
			failed = err != nil
			return more, err
		})
		switch {
		case failed || err == nil && !more:
			return err // the deferred delete ends the fetch
		case ctx.Err() != nil:
			return context.Cause(ctx)
		case err != nil || got < n:
			if e := l.swallowed(ctx, cons, delivered); e != nil {
				return e
			}
		}
		if err != nil {
			return err
		}
		if got == 0 {
			return fmt.Errorf("stream %s sent none of the %d messages pending within %v: %w", l.name, pending, l.o.timeout, context.DeadlineExceeded)
		}
	}
	return nil
}

// swallowed returns ErrCorrupt when cons delivered a message after
// consumer sequence delivered that the read was never given. The client
// takes a message with a Status header and no data for a status of the
// server's (no messages, a timeout, a completed batch, a control message)
// and keeps it from the read, which would skip it, or take the fetch it
// ended for one that brought nothing; so a read that gets fewer messages
// than it asked for, or an error, asks the consumer what it delivered.
func (l *Log) swallowed(ctx context.Context, cons jetstream.Consumer, delivered uint64) error {
	ictx, cancel := context.WithTimeout(ctx, l.o.timeout)
	defer cancel()
	info, err := cons.Info(ictx)
	if err != nil || info.Delivered.Consumer <= delivered {
		return nil // the read's own error, if any, stands
	}
	return l.notRecord(info.Delivered.Stream)
}

// notRecord is the error of a read that met a message the client took
// for a status of the server's, at or before stream sequence seq.
func (l *Log) notRecord(seq uint64) error {
	return fmt.Errorf("%w: a message of subject %s, at or before stream %s message %d, is not a record (it has a Status header and no data)", events.ErrCorrupt, l.subject, l.name, seq)
}

// decode decodes the message that should hold record seq.
func (l *Log) decode(data []byte, seq int64) (events.Record, error) {
	var rec events.Record
	if err := rec.UnmarshalJSON(data); err != nil {
		return events.Record{}, &events.Error{Op: "read", Seq: seq, Detail: "subject " + l.subject, Err: errors.Join(events.ErrCorrupt, err)}
	}
	switch {
	case rec.Sequence != seq:
		return events.Record{}, &events.Error{Op: "read", Seq: seq, Detail: fmt.Sprintf("record %d where %d was due on subject %s", rec.Sequence, seq, l.subject), Err: events.ErrCorrupt}
	case rec.Stream != l.session:
		return events.Record{}, &events.Error{Op: "read", Seq: seq, Detail: fmt.Sprintf("record of session %q on subject %s", rec.Stream, l.subject), Err: events.ErrCorrupt}
	}
	return rec, nil
}

// digest is the first 8 bytes of data's SHA-256: a record read again
// from the stream must have the digest it had when this log first saw
// it, or the stream holds another history (one deleted and created again
// under its name).
func digest(data []byte) uint64 {
	sum := sha256.Sum256(data)
	return binary.BigEndian.Uint64(sum[:8])
}

// remember adds record rec, stored as data at stream sequence seq, and
// wakes the waiters; l.mu must be held (or l not yet shared).
func (l *Log) remember(rec events.Record, data []byte, seq uint64) {
	l.seqs = append(l.seqs, seq)
	l.sums = append(l.sums, digest(data))
	l.cache[(rec.Sequence-1)%cacheSize] = rec
	if l.grew != nil {
		close(l.grew)
		l.grew = nil
	}
}

// Records yields, in order, the records with Sequence > after this log
// has seen (see Last), reading from the stream those it does not keep. A
// record that is not the message this log saw there (another history)
// ends the read with events.ErrCorrupt; a closed connection with
// events.ErrClosed; an Async log's failure with that failure.
func (l *Log) Records(after int64) iter.Seq2[events.Record, error] {
	// The newest 64 records are kept; the first other one is read with
	// one request, the rest in batches through a consumer. Each record's
	// message is checked by the 8-byte digest kept for it.
	return func(yield func(events.Record, error) bool) {
		l.mu.Lock()
		closed, seqs, sums, queued, lost := l.closed, l.seqs, l.sums, l.queuedRecords(), l.lostQueue() // entries below len never change
		l.mu.Unlock()
		if closed {
			yield(events.Record{}, &events.Error{Op: "read", Err: events.ErrClosed})
			return
		}
		n := int64(len(seqs))
		for i, first := max(after, 0), true; i < n; first = false {
			if rec, ok := l.cached(i + 1); ok || first { // a caller may want one record only
				var err error
				if !ok {
					rec, err = l.record(i+1, seqs[i], sums[i])
				}
				if !yield(rec, err) || err != nil {
					return
				}
				i++
				continue
			}
			recs, err := l.readRange(seqs, sums, i, min(n, i+int64(readBatch)))
			for _, rec := range recs {
				if !yield(rec, nil) {
					return
				}
			}
			if err != nil {
				yield(events.Record{}, err)
				return
			}
			i += int64(len(recs))
		}
		for _, rec := range queued {
			if rec.Sequence > after && !yield(rec, nil) {
				return
			}
		}
		if lost != nil {
			yield(events.Record{}, lost)
		}
	}
}

// cached returns record seq when this log keeps it.
func (l *Log) cached(seq int64) (events.Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec := l.cache[(seq-1)%cacheSize]
	return rec, rec.Sequence == seq && rec.Event != nil
}

// readRange reads records from+1 to to, stored at stream sequences
// seqs[from:to] with digests sums[from:to], in one batch: the consumer
// ends before the caller sees them, so a caller that takes its time
// holds nothing on the server.
func (l *Log) readRange(seqs, sums []uint64, from, to int64) ([]events.Record, error) {
	recs := make([]events.Record, 0, to-from)
	err := l.read(context.Background(), seqs[from], uint64(to-from), func(data []byte, at uint64) (bool, error) {
		i := from + int64(len(recs))
		if at != seqs[i] { // message seqs[i] is gone
			return false, &events.Error{Op: "read", Seq: i + 1, Detail: fmt.Sprintf("stream %s message %d was deleted", l.name, seqs[i]), Err: events.ErrCorrupt}
		}
		if digest(data) != sums[i] {
			return false, l.another("read", i+1, at)
		}
		rec, err := l.decode(data, i+1)
		if err != nil {
			return false, err
		}
		recs = append(recs, rec)
		return i+1 < to, nil
	})
	if err == nil && from+int64(len(recs)) < to {
		i := from + int64(len(recs))
		err = &events.Error{Op: "read", Seq: i + 1, Detail: fmt.Sprintf("stream %s message %d was deleted", l.name, seqs[i]), Err: events.ErrCorrupt}
	}
	if err != nil {
		return recs, asError(l.closedErr(err), "read", from+int64(len(recs))+1, l.subject)
	}
	return recs, nil
}

// closedErr wraps err, an error of a request, so that it matches
// events.ErrClosed when the connection is closed.
func (l *Log) closedErr(err error) error {
	if errors.Is(err, events.ErrClosed) {
		return err
	}
	if l.js.Conn().IsClosed() || errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, jetstream.ErrConnectionClosed) {
		return fmt.Errorf("%w: %w", events.ErrClosed, err)
	}
	return err
}

// record returns record seq, stored at stream sequence at with digest
// sum.
func (l *Log) record(seq int64, at, sum uint64) (events.Record, error) {
	l.mu.Lock()
	rec := l.cache[(seq-1)%cacheSize]
	l.mu.Unlock()
	if rec.Sequence == seq && rec.Event != nil {
		return rec, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.o.timeout)
	defer cancel()
	msg, err := l.stream.GetMsg(ctx, at)
	if err != nil {
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			err = errors.Join(events.ErrCorrupt, err) // deleted from the stream
		}
		err = l.closedErr(err)
		return events.Record{}, &events.Error{Op: "read", Seq: seq, Detail: fmt.Sprintf("stream %s message %d", l.name, at), Err: err}
	}
	if digest(msg.Data) != sum {
		return events.Record{}, l.another("read", seq, at)
	}
	return l.decode(msg.Data, seq)
}

// another is the error of a read that found at stream sequence at a
// message other than record seq as this log first saw it.
func (l *Log) another(op string, seq int64, at uint64) error {
	return &events.Error{Op: op, Seq: seq, Detail: fmt.Sprintf("stream %s message %d is no longer the record read there: the stream holds another history (deleted and created again?)", l.name, at), Err: events.ErrCorrupt}
}

// consumer creates an ephemeral consumer on the subject from stream
// sequence start, bounded by the timeout: memory storage, no acks, one
// replica, removed by the server once idle for the longest of twice the
// timeout, 10s and idle (so a crash leaves none behind).
func (l *Log) consumer(ctx context.Context, start uint64, idle time.Duration) (jetstream.Consumer, error) {
	cctx, cancel := context.WithTimeout(ctx, l.o.timeout)
	defer cancel()
	return l.stream.CreateConsumer(cctx, jetstream.ConsumerConfig{
		FilterSubject:     l.subject,
		DeliverPolicy:     jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:       start,
		AckPolicy:         jetstream.AckNonePolicy,
		MemoryStorage:     true,
		Replicas:          1,
		InactiveThreshold: max(2*l.o.timeout, 10*time.Second, idle),
	})
}

// dropConsumer deletes cons, bounded by ctx and the timeout (else the
// server removes it once idle).
func (l *Log) dropConsumer(ctx context.Context, cons jetstream.Consumer) {
	dctx, cancel := context.WithTimeout(ctx, l.o.timeout)
	defer cancel()
	l.stream.DeleteConsumer(dctx, cons.CachedInfo().Name)
}
