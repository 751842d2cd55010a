package jetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// Append publishes rec (Sequence Last()+1) and returns once the stream
// acknowledged it: events.ErrConflict when another writer got there
// first, events.ErrClosed for a publish without an answer (stored or
// not), events.ErrInvalid, unpublished, for a record too large. After a
// conflict or an unanswered publish, open the log again. See [Async].
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
	ctx, cancel := context.WithTimeout(context.Background(), l.o.timeout)
	defer cancel()
	ack, err := l.js.Publish(ctx, l.subject, data, jetstream.WithExpectLastSequencePerSubject(expect))
	if err != nil {
		return l.failed(rec.Sequence, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if int64(len(l.seqs)) < rec.Sequence { // the watch may have seen it first
		l.remember(rec, data, ack.Sequence)
	}
	return nil
}

// failed turns a failed publish of record seq into the error Append
// returns, and breaks the log when the record may have been stored.
func (l *Log) failed(seq int64, err error) error {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode {
		case jetstream.JSErrCodeStreamWrongLastSequence, jetstream.JSErrCodeStreamWrongLastSequenceConstant:
			e := &events.Error{Op: "append", Seq: seq, Detail: "subject " + l.subject + " has records this log has not seen; open the log again", Err: fmt.Errorf("%w: %w", events.ErrConflict, err)}
			l.mu.Lock()
			l.broken = e
			l.mu.Unlock()
			return e
		}
		// The stream answered and refused: nothing was written.
		return &events.Error{Op: "append", Seq: seq, Detail: "stream " + l.name + " refused the record", Err: err}
	}
	e := &events.Error{Op: "append", Seq: seq, Detail: "no acknowledgement from stream " + l.name + "; the record may be stored: open the log again", Err: fmt.Errorf("%w: %w", events.ErrClosed, err)}
	l.mu.Lock()
	l.broken = e
	l.mu.Unlock()
	return e
}
