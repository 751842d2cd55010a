package events

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinels say why an operation stopped; *Error carries the details.
// Check them with errors.Is, never by message.
var (
	// ErrInvalid: an event breaks the producer contract (see each event
	// type), so it was not appended.
	ErrInvalid = errors.New("events: invalid event")
	// ErrCorrupt: stored records cannot be read back (a damaged line that
	// is not the last one, a gap in sequence numbers, a foreign stream).
	ErrCorrupt = errors.New("events: corrupt log")
	// ErrCursor: a view cursor is malformed or names another session;
	// ErrStale matches it too.
	ErrCursor = errors.New("events: bad cursor")
	// ErrStale: a view cursor names a record this stream does not hold —
	// the cursor comes from another history of the log (records lost to a
	// power failure under SyncEvery, or a backup restored), whether its
	// position is now held by another record or is past the end of the
	// stream. Start over without a cursor. It matches ErrCursor too.
	ErrStale = fmt.Errorf("%w: from another history of the stream; start over", ErrCursor)
	// ErrClosed: the stream or log was closed — by Close, or because a log
	// append failed (then the error also wraps the log's error).
	ErrClosed = errors.New("events: closed")
	// ErrLocked: another open log — in this process or another — holds
	// the file log's write lock (or the file at the path was replaced
	// each time OpenFile locked it).
	ErrLocked = errors.New("events: log is locked by another writer")
	// ErrConflict: another writer appended to the session's log first, so
	// this append was refused and nothing was written (a shared log,
	// such as one on NATS JetStream, that two processes write to).
	ErrConflict = errors.New("events: another writer appended first")
	// ErrUnavailable: the log could not be reached in time (a leader
	// election, a lost connection, a full queue). Nothing is known to be
	// lost: the record may or may not be stored, and a resend of the same
	// record is recognised, not stored twice. A [Stream] keeps the event
	// and appends it again; a caller of a Log retries the same record or
	// reopens the log.
	ErrUnavailable = errors.New("events: log unavailable")
	// ErrDropped: the log was unavailable and the [Stream] keeps as many
	// records for it as it may (see [Stream.Append]), so this event was
	// neither stored nor kept: it is lost. The stream stays open, and the
	// end of a turn that started is never dropped.
	ErrDropped = errors.New("events: event dropped")
	// ErrUnknownMethod: a notification's method is none of this
	// package's (see the Method constants), so [Notification.Event]
	// cannot decode it; a client can skip a newer server's notification.
	ErrUnknownMethod = errors.New("events: unknown method")
)

// Error is the one error type of this package. Err is one of the sentinels
// above, an underlying I/O or decoding error, or a sentinel joined with the
// error that caused it (errors.Join(ErrCorrupt, cause), or
// fmt.Errorf("%w: %w", ErrClosed, cause)).
type Error struct {
	Op     string // what was being done: "append", "open", "read", "subscribe", ...
	Seq    int64  // the record's sequence number, when one is involved
	Detail string // what was wrong, in words
	Err    error
}

// Error reads from the outside in, "<sentinel>: <op> [record N]: <detail>:
// <cause>", each part only when there is one ("events" stands for a
// missing sentinel), as in
//
//	events: corrupt log: read record 1: line 1 at byte 0 is not a record: unexpected end of JSON input
func (e *Error) Error() string {
	kind, cause := e.parts()
	s := "events"
	if kind != nil {
		s = kind.Error()
	}
	s += ": " + e.Op
	if e.Seq > 0 {
		s += " record " + strconv.FormatInt(e.Seq, 10)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	for _, c := range cause {
		s += ": " + c.Error()
	}
	return s
}

// parts splits Err into its sentinel (nil when it has none) and the
// errors that caused it.
func (e *Error) parts() (kind error, cause []error) {
	switch {
	case e.Err == nil:
		return nil, nil
	case isSentinel(e.Err):
		return e.Err, nil
	}
	if j, ok := e.Err.(interface{ Unwrap() []error }); ok {
		if errs := j.Unwrap(); len(errs) > 1 && isSentinel(errs[0]) {
			return errs[0], errs[1:]
		}
	}
	return nil, []error{e.Err}
}

// isSentinel reports whether err is one of the sentinels above.
func isSentinel(err error) bool {
	switch err {
	case ErrInvalid, ErrCorrupt, ErrCursor, ErrStale, ErrClosed, ErrLocked, ErrConflict, ErrUnavailable, ErrDropped, ErrUnknownMethod:
		return true
	}
	return false
}

func (e *Error) Unwrap() error { return e.Err }

func invalid(format string, args ...any) error {
	return &Error{Op: "append", Detail: fmt.Sprintf(format, args...), Err: ErrInvalid}
}
