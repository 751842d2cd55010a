package events

import (
	"context"
	"fmt"
	"iter"
	"sync"
)

// Log is the durable, append-only store behind a Stream. Implementations
// must be safe for concurrent use: one appender and any number of readers.
type Log interface {
	// Append stores rec after the last record. rec.Sequence must be Last()+1;
	// anything else is refused with ErrCorrupt. When Append returns nil the
	// record is as durable as the log promises. When it returns an error,
	// Last and Records do not show the record; a log that cannot be sure of
	// that (the file log after a failed write or fsync) refuses every later
	// append until it is reopened — unless its error matches
	// ErrUnavailable: then the record may be stored, and the log takes
	// the same record again, storing it once.
	Append(rec Record) error
	// Last returns the sequence number of the last record, 0 when empty.
	Last() int64
	// Records yields, in order, the records with Sequence > after that were
	// appended before the call. It stops at the first error.
	Records(after int64) iter.Seq2[Record, error]
	// Close releases the log; it makes everything appended durable first.
	Close() error
}

// Follower is a Log whose records may be appended by another process or
// machine. A Stream over a Follower delivers those records live too:
// it waits on the log instead of on its own appends.
type Follower interface {
	Log
	// Wait returns nil once the log may hold a record with Sequence >
	// after (Last, as this process sees it, may then be called again),
	// or an error when ctx ends (its cause) or the log is closed
	// (ErrClosed). A spurious nil return is allowed; a late one must be
	// bounded (a polling log documents its interval).
	Wait(ctx context.Context, after int64) error
}

// NewMemoryLog returns a Log that keeps records in memory. Nothing
// survives the process; use it for tests and for sessions that need no
// replay after a restart.
func NewMemoryLog() Log { return &memLog{} }

type memLog struct {
	mu     sync.RWMutex
	recs   []Record
	closed bool
}

func (l *memLog) Append(rec Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return &Error{Op: "append", Seq: rec.Sequence, Err: ErrClosed}
	}
	if err := nextSeq(int64(len(l.recs)), rec); err != nil {
		return err
	}
	l.recs = append(l.recs, rec)
	return nil
}

func (l *memLog) Last() int64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return int64(len(l.recs))
}

func (l *memLog) Records(after int64) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		l.mu.RLock()
		recs, closed := l.recs, l.closed // records below len never change
		l.mu.RUnlock()
		if closed {
			yield(Record{}, &Error{Op: "read", Err: ErrClosed})
			return
		}
		for _, r := range recs[min(max(after, 0), int64(len(recs))):] {
			if !yield(r, nil) {
				return
			}
		}
	}
}

func (l *memLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	return nil
}

// nextSeq checks that rec may follow the record numbered last.
func nextSeq(last int64, rec Record) error {
	if rec.Sequence != last+1 {
		return &Error{Op: "append", Seq: rec.Sequence, Detail: fmt.Sprintf("sequence must be %d", last+1), Err: ErrCorrupt}
	}
	if rec.Event == nil {
		return &Error{Op: "append", Seq: rec.Sequence, Detail: "record has no event", Err: ErrInvalid}
	}
	return nil
}
