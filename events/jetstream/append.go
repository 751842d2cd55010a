package jetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// Append publishes rec (Sequence Last()+1) and returns once the stream
// acknowledged it. A publish that gets no answer or meets a leader
// election is sent again, the same message, until [WithRetry] passes;
// the stream stores it once (see the package doc). Errors:
// events.ErrUnavailable when no answer came in time (the record may be
// stored: append the same record again, as an events.Stream does, or
// open the log again); events.ErrConflict when another writer got there
// first; events.ErrClosed when the connection is closed or the outcome
// cannot be known; events.ErrInvalid, unpublished, for a record too
// large. After a conflict or ErrClosed, open the log again. See [Async].
func (l *Log) Append(rec events.Record) error {
	if rec.Event == nil {
		return &events.Error{Op: "append", Seq: rec.Sequence, Detail: "record has no event", Err: events.ErrInvalid}
	}
	data, err := rec.MarshalJSON()
	if err != nil {
		return err
	}
	if len(data) > l.max {
		return &events.Error{Op: "append", Seq: rec.Sequence, Detail: fmt.Sprintf("record of %d bytes is over the %d bytes a message of stream %s can hold", len(data), l.max, l.name), Err: events.ErrInvalid}
	}
	if l.o.async > 0 {
		return l.enqueue(rec, data)
	}
	l.amu.Lock()
	defer l.amu.Unlock()
	l.mu.Lock()
	closed, broken, last := l.closed, l.broken, int64(len(l.seqs))
	var expect uint64
	if last > 0 {
		expect = l.seqs[last-1]
	}
	l.mu.Unlock()
	switch {
	case closed:
		return &events.Error{Op: "append", Seq: rec.Sequence, Err: events.ErrClosed}
	case broken != nil:
		return broken
	case rec.Sequence != last+1:
		return &events.Error{Op: "append", Seq: rec.Sequence, Detail: fmt.Sprintf("sequence must be %d", last+1), Err: events.ErrCorrupt}
	}
	ctx, cancel := context.WithTimeout(context.Background(), max(l.o.retry, l.o.timeout))
	defer cancel()
	at, err := l.store(ctx, rec.Sequence, data, expect, nil)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if int64(len(l.seqs)) < rec.Sequence { // the watch may have seen it first
		l.remember(rec, data, at)
	}
	return nil
}

// failed turns a publish of record seq that failed for good into the
// error Append returns, and breaks the log when the subject holds
// another writer's record or the record may have been stored.
func (l *Log) failed(seq int64, err error) error {
	var api *jetstream.APIError
	var e *events.Error
	switch {
	case errors.Is(err, events.ErrConflict) && errors.As(err, &e):
	case errors.As(err, &api):
		// The stream answered and refused: nothing was written.
		return &events.Error{Op: "append", Seq: seq, Detail: "stream " + l.name + " refused the record", Err: err}
	default:
		e = &events.Error{Op: "append", Seq: seq, Detail: "no acknowledgement from stream " + l.name + "; the record may be stored: open the log again", Err: fmt.Errorf("%w: %w", events.ErrClosed, err)}
	}
	l.mu.Lock()
	l.broken = e
	l.mu.Unlock()
	return e
}
