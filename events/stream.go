package events

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"sync"
	"time"
)

// Stream is one session's stream: it appends events to a Log and fans the
// folded notifications out to subscribers and turn-waiters. It is safe for
// concurrent use. The zero value is not usable; call NewStream.
type Stream struct {
	id    string // "" until the first record, for Follow with no id (guarded by mu then)
	log   Log
	clock func() time.Time
	idKey uint32 // mixes the session into record IDs

	writeTimeout time.Duration // test hook: bounds each SSE write (default sseWriteTimeout)
	keepAlive    time.Duration // WithKeepAlive
	// test hook: the keep-alive ticker of one SSE response (default time.NewTicker)
	ticker func(time.Duration) (<-chan time.Time, func())

	wmu sync.Mutex // serializes appends; held across the log write
	// held are the records the log refused with ErrUnavailable, oldest
	// first, numbered after last; they are appended again, in order,
	// before any later record (guarded by wmu).
	held []heldRecord
	// ends is how many of held end an open turn; the others are bounded
	// by heldMax (guarded by wmu).
	ends int
	// open are the turns whose turn/started is stored or kept and whose
	// end is neither: each may need a place in held to end (guarded by
	// wmu).
	open      map[string]bool
	retrying  chan struct{} // closed when the retrier of held has stopped; nil when none runs (guarded by wmu)
	retryWait time.Duration // test hook: how long the retrier waits between passes (default heldRetryWait)
	// test hook: the timer of the retrier (default time.After)
	after func(time.Duration) <-chan time.Time

	mu        sync.Mutex // guards the rest
	last      int64      // last published sequence number
	ring      []entry    // ring[(seq-1) % len] holds the newest len(ring) entries
	ringMax   int        // what ring grows to (WithBuffer)
	subs      map[chan struct{}]struct{}
	terminals map[string]int64 // turn ID -> sequence of its first terminal
	waiters   map[string][]chan entry
	closed    bool  // by Close, or by a failed log append (then cause is set)
	cause     error // the log's error that closed the stream, if any
	logClosed bool
	done      chan struct{}

	readOnly   bool               // opened by Follow
	stopFollow context.CancelFunc // stops the pump of a followed log
	followed   chan struct{}      // closed when the pump has stopped
}

// NewStream returns the stream of session id over log, which it owns (Close
// closes it). A log that already holds records is read once, so that
// sequence numbers and cursors continue and WaitTurn sees turns that ended
// before a restart; its records must all belong to session id. An empty
// or malformed id (see Bounds in the package doc) or a nil log is refused
// with ErrInvalid.
func NewStream(id string, log Log, opts ...Option) (*Stream, error) {
	o, err := newStreamOptions(opts)
	if err != nil {
		return nil, err
	}
	if id == "" || log == nil {
		return nil, &Error{Op: "open", Detail: "empty session id or nil log", Err: ErrInvalid}
	}
	return newStream(id, log, o)
}

// newStream is NewStream once the options are read; an empty id (from
// Follow) is the session of the log's first record.
func newStream(id string, log Log, o streamOptions) (*Stream, error) {
	if err := checkID(id); err != nil {
		return nil, &Error{Op: "open", Detail: fmt.Sprintf("session id %.40q %v", id, err), Err: ErrInvalid}
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	s := &Stream{
		id: id, log: log, clock: o.clock, idKey: h.Sum32(), keepAlive: o.keepAlive,
		ring:      make([]entry, min(o.buffer, ringStart)),
		ringMax:   o.buffer,
		subs:      map[chan struct{}]struct{}{},
		terminals: map[string]int64{},
		waiters:   map[string][]chan entry{},
		open:      map[string]bool{},
		done:      make(chan struct{}),
		retryWait: heldRetryWait, after: time.After,
	}
	for rec, err := range log.Records(0) {
		if err != nil {
			return nil, err
		}
		if err := s.belongs("open", rec); err != nil {
			return nil, err
		}
		e, err := fold(rec)
		if err != nil {
			return nil, err
		}
		s.publish(e)
		s.track(e)
	}
	return s, nil
}

// belongs checks that rec is of the stream's session, which a stream
// that Follow was given no id for takes from its first record; s.mu must
// be held (or s not yet shared).
func (s *Stream) belongs(op string, rec Record) error {
	if s.id == "" {
		if err := checkID(rec.Stream); err != nil {
			return &Error{Op: op, Seq: rec.Sequence, Detail: fmt.Sprintf("session id %.40q %v", rec.Stream, err), Err: ErrCorrupt}
		}
		s.id = rec.Stream
	}
	if rec.Stream != s.id {
		return &Error{Op: op, Seq: rec.Sequence, Detail: fmt.Sprintf("record belongs to session %q", rec.Stream), Err: ErrCorrupt}
	}
	return nil
}

// Append makes ev durable in the log, then delivers its notification to
// subscribers and, for turn/completed and turn/unqueued, to WaitTurn. It
// returns the notification. An event that breaks its producer contract is
// refused with ErrInvalid and nothing is recorded.
//
// An error matching [ErrUnavailable] means the log could not be reached
// in time; the stream stays open and keeps the record: it is appended
// again, before any later one, by the next Append, by a retry in the
// background every few seconds, or by Close, so the log holds every
// record in order, once. The end of a turn that started (its
// turn/started stored or kept) is always kept; of the other events at
// most 64 wait so, and a turn/started only while fewer than 64 turns are
// open, so that every turn that started can still end. An event past
// that is refused with [ErrDropped] and lost. WaitTurn and subscribers see a kept record once it is
// stored. Any other error is the log's: the record was not stored, and
// the stream closes itself, so that waiters and subscribers end with an
// error matching ErrClosed and wrapping the log's error (see Producers
// in the package doc). Record IDs are unique within a session, and
// deterministic with a fixed clock ([WithClock]).
func (s *Stream) Append(ev Event) (Notification, error) {
	// The record's ID is a UUIDv7 layout whose 48-bit timestamp comes from
	// the clock, whose random bits are a hash of the session ID, and whose
	// last 48 bits are the sequence number (1, 2, …): unique across
	// sessions with overwhelming likelihood.
	if s.readOnly {
		return Notification{}, &Error{Op: "append", Detail: "a stream opened by Follow is read-only; append through the writer's stream", Err: ErrInvalid}
	}
	ev, err := checkEvent(ev)
	if err != nil {
		return Notification{}, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	closed, seq := s.closed, s.last+1+int64(len(s.held))
	s.mu.Unlock()
	if closed {
		return Notification{}, s.closedErr("append")
	}
	now := s.clock()
	rec := Record{Stream: s.id, Sequence: seq, ID: recordID(now, s.idKey, seq), Time: time.UnixMilli(now.UnixMilli()).UTC(), Event: ev}
	e, err := foldChecked(rec)
	if err != nil {
		return Notification{}, err
	}
	if err := s.appendHeld(); err != nil {
		return Notification{}, s.keep(rec, e, err)
	}
	if err := s.log.Append(rec); err != nil {
		return Notification{}, s.keep(rec, e, err)
	}
	s.track(e)
	s.mu.Lock()
	s.publish(e)
	s.mu.Unlock()
	return e.n, nil
}

// heldRetryWait is how long the retrier of kept records waits between
// passes; each pass is itself bounded by the log's own retries.
const heldRetryWait = 2 * time.Second

// closeWait is how long, on the stream's clock, Close keeps appending
// the kept records while the log is unavailable.
const closeWait = time.Minute

// closePasses bounds the passes of Close too, for a clock that does not
// move (a test's): heldRetryWait apart, about a minute.
const closePasses = 30

// heldMax is how many kept records that end no open turn may wait for a
// log that is unavailable, and how many turns may be open when a
// turn/started is kept: so at most heldMax more end a turn.
const heldMax = 64

// heldRecord is a record kept for an unavailable log, with its fold.
type heldRecord struct {
	rec Record
	e   entry
	end bool // it ends an open turn (counted in ends)
}

// track notes that e is stored or kept: a turn/started opens its turn,
// a terminal ends it; s.wmu must be held (or s not yet shared).
func (s *Stream) track(e entry) {
	switch {
	case e.terminal:
		delete(s.open, e.turn)
	case e.n.Method == MethodTurnStarted:
		s.open[e.turn] = true
	}
}

// appendHeld appends the kept records, in order, until one fails;
// s.wmu must be held. A failure other than ErrUnavailable closes the
// stream.
func (s *Stream) appendHeld() error {
	for len(s.held) > 0 {
		h := s.held[0]
		if err := s.log.Append(h.rec); err != nil {
			if !errors.Is(err, ErrUnavailable) {
				s.fail(err)
			}
			return err
		}
		if h.end {
			s.ends--
		}
		s.held[0] = heldRecord{}
		s.held = s.held[1:]
		s.mu.Lock()
		s.publish(h.e)
		s.mu.Unlock()
	}
	s.held = nil // drop the emptied array
	return nil
}

// keep handles the log's refusal err of rec (folded as e), which follows
// the kept records: it keeps rec when the log was unavailable and there is room, and
// closes the stream when the log failed otherwise; s.wmu must be held.
// It returns the error for Append.
//
// The end of an open turn is always kept: the places it takes are
// bounded by the open turns, which a kept turn/started may make heldMax
// at most. A turn whose turn/started was dropped is not open, so its
// events, its end too, take places of the others: a turn that never
// started in the log cannot crowd out the end of one that did.
func (s *Stream) keep(rec Record, e entry, err error) error {
	end := e.terminal && s.open[e.turn]
	switch {
	case errors.Is(err, ErrInvalid):
		return err
	case !errors.Is(err, ErrUnavailable):
		s.fail(err)
		return err
	case end:
	case len(s.held)-s.ends >= heldMax:
		return &Error{Op: "append", Seq: e.seq, Detail: fmt.Sprintf("the log is unavailable and %d records wait for it already; this event was not kept", len(s.held)), Err: ErrDropped}
	case e.n.Method == MethodTurnStarted && !s.open[e.turn] && len(s.open) >= heldMax:
		return &Error{Op: "append", Seq: e.seq, Detail: fmt.Sprintf("the log is unavailable and %d turns are open; this turn/started was not kept", len(s.open)), Err: ErrDropped}
	}
	if end {
		s.ends++
	}
	s.held = append(s.held, heldRecord{rec, e, end})
	s.track(e)
	if s.retrying == nil {
		s.retrying = make(chan struct{})
		go s.retryHeld(s.retrying)
	}
	return &Error{Op: "append", Seq: e.seq, Detail: "the event is kept and will be appended again before the next one", Err: err}
}

// retryHeld appends the kept records again every retryWait until none is
// left or the stream closes; it closes stopped when it returns.
func (s *Stream) retryHeld(stopped chan struct{}) {
	defer close(stopped)
	for {
		select {
		case <-s.done:
			return
		case <-s.after(s.retryWait):
		}
		s.wmu.Lock()
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			s.wmu.Unlock()
			return
		}
		err := s.appendHeld()
		if err == nil || !errors.Is(err, ErrUnavailable) {
			s.retrying = nil
			s.wmu.Unlock()
			return
		}
		s.wmu.Unlock()
	}
}

// fail closes the stream because the log could not store a record (the
// log may refuse every later append, so no turn could be seen to end) or,
// on a followed log, could not be read. Waiters and subscribers end with
// an error wrapping cause.
func (s *Stream) fail(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed, s.cause = true, cause
		close(s.done)
	}
}

// closedErr is the error of an operation on a closed stream: ErrClosed,
// and the log's error when that closed it. It takes s.mu.
func (s *Stream) closedErr(op string) error {
	s.mu.Lock()
	cause := s.cause
	s.mu.Unlock()
	if cause == nil {
		return &Error{Op: op, Err: ErrClosed}
	}
	detail := "a log append failed"
	if s.readOnly {
		detail = "reading the followed log failed"
	}
	return &Error{Op: op, Detail: detail, Err: fmt.Errorf("%w: %w", ErrClosed, cause)}
}

// ringStart is how many entries a new stream's ring holds: an idle
// session costs little, and the ring doubles with use up to its bound.
const ringStart = 8

// publish makes e visible; s.mu must be held (or s not yet shared).
func (s *Stream) publish(e entry) {
	if e.seq > int64(len(s.ring)) && len(s.ring) < s.ringMax {
		// Not yet wrapped: entry seq is at seq-1, in the grown ring too.
		ring := make([]entry, min(2*len(s.ring), s.ringMax))
		copy(ring, s.ring)
		s.ring = ring
	}
	s.last = e.seq
	s.ring[(e.seq-1)%int64(len(s.ring))] = e
	for c := range s.subs {
		select {
		case c <- struct{}{}:
		default: // already woken
		}
	}
	if e.terminal {
		if _, ok := s.terminals[e.turn]; !ok {
			s.terminals[e.turn] = e.seq
			for _, c := range s.waiters[e.turn] {
				c <- e // buffered, one send each
			}
			delete(s.waiters, e.turn)
		}
	}
}

func recordID(t time.Time, key uint32, seq int64) string {
	var b [16]byte
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(b[0:6], ms[2:])
	b[6] = 0x70 | byte(key>>28)&0x0f
	b[7] = byte(key >> 20)
	b[8] = 0x80 | byte(key>>14)&0x3f
	b[9] = byte(key >> 6)
	var sq [8]byte
	binary.BigEndian.PutUint64(sq[:], uint64(seq))
	copy(b[10:16], sq[2:])
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}

// Subscribe yields the notifications after the view cursor after ("" for
// the whole stream), recorded and then new, each once and in order. It
// ends after yielding an error: the context's cause, [ErrClosed] (wrapping
// the log's error when a failed append closed it), [ErrCursor] for a
// malformed or foreign cursor, [ErrStale] for one naming a record the
// stream does not hold, or the log's read error. A subscriber never slows
// Append: one that falls behind the buffer ([WithBuffer]) re-reads the
// log, losing nothing.
func (s *Stream) Subscribe(ctx context.Context, after string) iter.Seq2[Notification, error] {
	return func(yield func(Notification, error) bool) {
		pos, err := s.position(after)
		if err == nil {
			err = s.follow(ctx, pos, func(e *entry) bool { return yield(e.n, nil) })
		}
		if err != nil {
			yield(Notification{}, err)
		}
	}
}

// position resolves a cursor against the stream: the cursor must name a
// record the stream holds, the very record it was issued for.
func (s *Stream) position(c string) (int64, error) {
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	if id == "" && c != "" { // a followed log that holds no record yet
		return 0, &Error{Op: "subscribe", Detail: fmt.Sprintf("cursor %.80q is ahead of the stream, which holds no record yet", c), Err: ErrStale}
	}
	pos, err := parseCursor(id, c)
	if err != nil || pos == 0 {
		return pos, err
	}
	stale := func(why string) error {
		return &Error{Op: "subscribe", Seq: pos, Detail: fmt.Sprintf("cursor %.80q %s", c, why), Err: ErrStale}
	}
	s.mu.Lock()
	last := s.last
	e, inRing := s.at(pos)
	s.mu.Unlock()
	switch {
	case pos > last:
		return 0, stale("is ahead of the stream")
	case !inRing:
		var rerr error
		if e, rerr = s.readEntry(pos); rerr != nil {
			return 0, rerr
		}
	}
	if e.cursor != c {
		return 0, stale("names a record the stream no longer holds")
	}
	return pos, nil
}

// follow calls yield for every entry after pos until yield returns false
// (then it returns nil) or ctx ends or the stream closes.
func (s *Stream) follow(ctx context.Context, pos int64, yield func(*entry) bool) error {
	wake := make(chan struct{}, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.closedErr("subscribe")
	}
	s.subs[wake] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, wake)
		s.mu.Unlock()
	}()

	batch := make([]entry, 0, 64)
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		s.mu.Lock()
		last, closed, oldest := s.last, s.closed, s.last-int64(len(s.ring))+1
		if pos+1 >= oldest {
			for seq := pos + 1; seq <= last && len(batch) < cap(batch); seq++ {
				batch = append(batch, s.ring[(seq-1)%int64(len(s.ring))])
			}
		}
		s.mu.Unlock()
		if closed {
			return s.closedErr("subscribe")
		}
		switch {
		case len(batch) > 0:
			for i := range batch {
				if !yield(&batch[i]) {
					return nil
				}
				pos = batch[i].seq
			}
			clear(batch) // drop references to frames
			batch = batch[:0]
		case pos < last: // fell out of the buffer: catch up from the log
			for rec, err := range s.log.Records(pos) {
				if err != nil {
					return s.closedOr(err)
				}
				e, err := fold(rec)
				if err != nil {
					return err
				}
				if !yield(&e) {
					return nil
				}
				if pos = e.seq; pos >= last || ctx.Err() != nil {
					break
				}
			}
		default:
			select {
			case <-ctx.Done():
				return context.Cause(ctx)
			case <-s.done:
				return s.closedErr("subscribe")
			case <-wake:
			}
		}
	}
}

// closedOr reports ErrClosed for an error caused by closing the stream.
func (s *Stream) closedOr(err error) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return s.closedErr("subscribe")
	}
	return err
}

// WaitTurn blocks until the turn's first turn/completed or turn/unqueued
// notification is appended, or returns it at once if it already was, and
// returns it. Retry and ledger notifications never resolve it. It returns
// context.Cause(ctx) when ctx ends first and ErrClosed when the stream
// closes — wrapping the log's error when a failed append closed it, for
// then the turn's end can no longer be recorded.
func (s *Stream) WaitTurn(ctx context.Context, turnID string) (Notification, error) {
	s.mu.Lock()
	if seq, ok := s.terminals[turnID]; ok {
		e, inRing := s.at(seq)
		s.mu.Unlock()
		if inRing {
			return e.n, nil
		}
		return s.read(seq)
	}
	if s.closed {
		s.mu.Unlock()
		return Notification{}, s.closedErr("wait")
	}
	c := make(chan entry, 1)
	s.waiters[turnID] = append(s.waiters[turnID], c)
	s.mu.Unlock()

	select {
	case e := <-c:
		return e.n, nil
	case <-ctx.Done():
	case <-s.done:
	}
	s.mu.Lock()
	ws := s.waiters[turnID]
	for i, w := range ws {
		if w == c {
			s.waiters[turnID] = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(s.waiters[turnID]) == 0 {
		delete(s.waiters, turnID)
	}
	s.mu.Unlock()
	select {
	case e := <-c: // the terminal landed as we gave up: report it
		return e.n, nil
	default:
	}
	if ctx.Err() != nil {
		return Notification{}, context.Cause(ctx)
	}
	return Notification{}, s.closedErr("wait")
}

// at returns the buffered entry seq; s.mu must be held.
func (s *Stream) at(seq int64) (entry, bool) {
	e := s.ring[(seq-1)%int64(len(s.ring))]
	return e, e.seq == seq
}

// read folds record seq from the log.
func (s *Stream) read(seq int64) (Notification, error) {
	e, err := s.readEntry(seq)
	return e.n, err
}

// readEntry folds record seq from the log.
func (s *Stream) readEntry(seq int64) (entry, error) {
	for rec, err := range s.log.Records(seq - 1) {
		if err != nil {
			return entry{}, s.closedOr(err)
		}
		return fold(rec)
	}
	return entry{}, &Error{Op: "read", Seq: seq, Detail: "record missing from the log", Err: ErrCorrupt}
}

// Close ends every subscription and wait with ErrClosed and closes the log.
// Appends after Close fail with ErrClosed. Close waits for an Append in
// progress. It first appends the records kept for an unavailable log
// (see Append), trying for about a minute of the stream's clock
// ([WithClock]), however long each append of the log takes: it starts
// no pass that, as long as the last, would end past it; those the log still refuses
// are reported by an error matching ErrUnavailable that names them (they
// were not stored, or not acknowledged). It also closes the log of a stream that a failed
// log append closed.
func (s *Stream) Close() error {
	if s.stopFollow != nil {
		s.stopFollow()
		<-s.followed
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	var lost error
	var start time.Time
	for pass := 0; !closed && len(s.held) > 0; pass++ {
		began := s.clock() // read only when records are kept: a clock may be a test's sequence
		if pass == 0 {
			start = began
		}
		err := s.appendHeld()
		// A pass takes what the log's own retries take: seconds while it
		// elects a leader, its whole bound (15 s for JetStream) while its
		// stream is gone. Another pass starts only if one as long would
		// end within closeWait, so Close keeps its minute either way.
		now := s.clock()
		if err != nil && errors.Is(err, ErrUnavailable) && pass < closePasses &&
			now.Sub(start)+s.retryWait+now.Sub(began) <= closeWait {
			<-s.after(s.retryWait) // an election takes seconds
			continue
		}
		if err != nil && len(s.held) > 0 {
			first, last := s.held[0].e.seq, s.held[len(s.held)-1].e.seq
			lost = &Error{Op: "close", Seq: first, Detail: fmt.Sprintf("records %d to %d were not acknowledged by the log", first, last), Err: err}
		}
		break
	}
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	logClosed := s.logClosed
	s.logClosed = true
	s.mu.Unlock()
	if r := s.retrying; r != nil {
		// The retrier wakes on done and stops without the lock once it
		// sees the stream closed; it takes wmu only after done.
		s.wmu.Unlock()
		<-r
		s.wmu.Lock()
		s.retrying = nil
	}
	if logClosed {
		return lost
	}
	return errors.Join(lost, s.log.Close())
}
