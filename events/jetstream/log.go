package jetstream

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// headerRoom is what Append keeps free of the server's max payload for
// the headers of a publish (the expected subject sequence).
const headerRoom = 256

// cacheSize is how many of the newest records a Log keeps decoded, so
// that a follower reads what it was just told about without a request.
const cacheSize = 64

// Log is the log of one session on a JetStream stream; see the package
// doc for the layout. It implements [events.Follower]. It is safe for
// concurrent use.
type Log struct {
	js      jetstream.JetStream
	stream  jetstream.Stream
	name    string // the stream's name
	session string
	subject string
	max     int // the largest record Append publishes, in bytes
	o       options

	amu sync.Mutex // serializes appends; held across the publish

	mu       sync.Mutex // guards the rest
	seqs     []uint64   // seqs[i] is the stream sequence of record i+1
	sums     []uint64   // sums[i] is the digest of its message (see digest), to tell it from another history's
	created  time.Time  // when the stream was created, to tell it from another of its name
	cache    [cacheSize]events.Record
	broken   error         // set when an append may or may not be stored
	closed   bool          // by Close
	grew     chan struct{} // closed when records are added; nil while nobody waits
	stop     chan struct{} // closed by Close
	watch    *watch
	watching bool  // a Wait started the watch (or is starting it)
	werr     error // why the watch failed, reported by Wait

	b *batcher // the queue of an Async log; nil until its first append
}

// Open opens the log of session in the stream ([DefaultStream] unless
// [WithStream]), reading its records once: ones not numbered 1, 2, …
// are events.ErrCorrupt. Unless [CreateStream] is given the stream must
// exist, take the session's subject and keep limits retention (else
// events.ErrInvalid). Close releases the log, not js's connection.
func Open(ctx context.Context, js jetstream.JetStream, session string, opts ...Option) (*Log, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, &events.Error{Op: "open", Detail: err.Error(), Err: events.ErrInvalid}
	}
	if js == nil || session == "" {
		return nil, &events.Error{Op: "open", Detail: "nil JetStream or empty session", Err: events.ErrInvalid}
	}
	cctx, cancel := context.WithTimeout(ctx, o.timeout)
	st, err := js.Stream(cctx, o.stream)
	cancel()
	if errors.Is(err, jetstream.ErrStreamNotFound) && o.replicas > 0 {
		cctx, cancel := context.WithTimeout(ctx, o.timeout)
		defer cancel()
		st, err = js.CreateStream(cctx, jetstream.StreamConfig{
			Name:      o.stream,
			Subjects:  []string{o.prefix + ".>"},
			Storage:   jetstream.FileStorage,
			Retention: jetstream.LimitsPolicy,
			Replicas:  o.replicas,
		})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // created meanwhile
			st, err = js.Stream(cctx, o.stream)
		}
	}
	if err != nil {
		return nil, &events.Error{Op: "open", Detail: "stream " + o.stream, Err: err}
	}
	subject := o.prefix + "." + Token(session)
	if err := fits(st.CachedInfo().Config, subject); err != nil {
		return nil, &events.Error{Op: "open", Detail: "stream " + o.stream + " " + err.Error(), Err: events.ErrInvalid}
	}
	l := &Log{
		js: js, stream: st, name: o.stream, session: session,
		subject: subject, created: st.CachedInfo().Created,
		o: o, stop: make(chan struct{}),
	}
	l.max = int(js.Conn().MaxPayload()) - headerRoom
	if m := st.CachedInfo().Config.MaxMsgSize; m > 0 && int(m)-headerRoom < l.max {
		l.max = int(m) - headerRoom
	}
	if err := l.scan(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// fits says why a stream with configuration c cannot hold a session on
// subject, if it cannot: its subjects do not take the subject (appends
// would find no stream), or its retention is not limits (a work-queue or
// interest stream deletes the records its consumers read, and this log
// reads through consumers).
func fits(c jetstream.StreamConfig, subject string) error {
	if c.Retention != jetstream.LimitsPolicy {
		return fmt.Errorf("has %s retention; a session log needs limits retention", c.Retention)
	}
	for _, filter := range c.Subjects {
		if matches(filter, subject) {
			return nil
		}
	}
	return fmt.Errorf("has subjects %q, none of which takes %s", c.Subjects, subject)
}

// matches says whether subject, which has no wildcard, matches filter.
func matches(filter, subject string) bool {
	for {
		ft, frest, fmore := strings.Cut(filter, ".")
		st, srest, smore := strings.Cut(subject, ".")
		switch {
		case ft == ">":
			return true
		case ft != "*" && ft != st:
			return false
		case !fmore || !smore:
			return fmore == smore
		}
		filter, subject = frest, srest
	}
}

// Token is the last token of the subject of session id: id itself when it
// is made of ASCII letters, digits, '-' and '_', else "~" and id in
// unpadded base64url.
func Token(id string) string {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return "~" + base64.RawURLEncoding.EncodeToString([]byte(id))
		}
	}
	return id
}

// Last returns the sequence number of the last record this log has seen:
// the subject's at Open, its own appends (with Async, queued ones), and
// other writers' while Wait watches.
func (l *Log) Last() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last()
}

// Wait implements events.Follower: nil once this log has seen a record
// with Sequence > after, its own or another writer's (a watch of the
// subject, started by the first Wait, reports those). A closed connection
// is events.ErrClosed; a message that is not the next record, or a
// stream deleted or created again, is events.ErrCorrupt from then on.
func (l *Log) Wait(ctx context.Context, after int64) error {
	// Details. A message not the next record includes one the client
	// keeps from the watch for a status of the server's (a Status header
	// and no data), found by a gap in the consumer's sequence or, when
	// nothing follows it, by what the consumer says it delivered within
	// 5s. The stream is checked to be the one read when the watch starts
	// and whenever it creates its consumer again: its creation time, and
	// the hash of the last record read.
	for {
		l.mu.Lock()
		switch {
		case l.closed:
			l.mu.Unlock()
			return &events.Error{Op: "wait", Err: events.ErrClosed}
		case l.last() > after:
			l.mu.Unlock()
			return nil
		case l.lostQueue() != nil: // records this log took will never be there
			err := l.lostQueue()
			l.mu.Unlock()
			return err
		case l.werr != nil:
			err := l.werr
			l.mu.Unlock()
			return err
		case ctx.Err() != nil:
			l.mu.Unlock()
			return context.Cause(ctx)
		}
		if !l.watching {
			l.watching = true
			start := uint64(1)
			if n := len(l.seqs); n > 0 {
				start = l.seqs[n-1] + 1
			}
			l.mu.Unlock()
			watch, err := l.startWatch(ctx, start)
			l.mu.Lock()
			closed := l.closed
			if err != nil {
				l.watching = false
			} else {
				l.watch = watch
			}
			l.mu.Unlock()
			if err != nil {
				return err
			}
			if closed { // Close ran meanwhile and did not see the watch
				watch.stop()
			}
			continue
		}
		if l.grew == nil {
			l.grew = make(chan struct{})
		}
		grew := l.grew
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-l.stop:
		case <-grew:
		}
	}
}

// watchIdle bounds how long the watch waits for a record in one request
// (a long poll): when a request ends with fewer records than it asked
// for, the watch asks its consumer what it delivered, so a message the
// client kept from it (see swallowed) is reported within watchIdle.
var watchIdle = 5 * time.Second

// follow fetches the subject's messages through cons, which starts at
// stream sequence start, and hands each to seen, until ctx ends, the
// connection closes or seen fails the watch; then it deletes its
// consumer. Each message must be the one after the last the consumer
// delivered: a message the client kept from the watch (see swallowed)
// fails it with ErrCorrupt, whether a later message shows the gap or the
// consumer's count of what it delivered does once a fetch comes up
// short. A fetch that ends without the server's word (no heartbeat, a
// connection that dropped meanwhile) may have lost messages on the way:
// the watch then starts a new consumer after the last message it was
// given, as it does when the server lost its consumer (a restart).
func (l *Log) follow(ctx context.Context, w *watch, cons jetstream.Consumer, start uint64) {
	var delivered uint64 // the consumer sequence of the last message handed to seen
	last := start - 1    // its stream sequence
	pause := time.Duration(0)
	defer func() {
		if l.js.Conn().IsClosed() {
			l.watchFailed(jetstream.ErrConnectionClosed)
		}
		if cons != nil && l.js.Conn().IsConnected() { // else the server removes it once idle
			dctx, cancel := context.WithTimeout(context.Background(), l.o.timeout)
			l.stream.DeleteConsumer(dctx, cons.CachedInfo().Name) // else the server removes it once idle
			cancel()
		}
	}()
	for ctx.Err() == nil && !l.watchEnded() && !l.js.Conn().IsClosed() {
		if pause > 0 { // the server is away or failing: wait a little, not spin
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
			if ctx.Err() != nil {
				return
			}
		}
		if cons == nil {
			var err error
			cons, err = l.checkedConsumer(ctx, last+1)
			if errors.Is(err, events.ErrCorrupt) {
				l.watchCorrupt(err)
				return
			}
			if err != nil {
				cons, pause = nil, min(max(2*pause, 50*time.Millisecond), time.Second)
				continue
			}
			delivered = 0
		}
		ok, clean, err := l.fetchLive(ctx, w, cons, &delivered, &last)
		switch {
		case err != nil:
			l.watchCorrupt(err)
			return
		case ctx.Err() != nil:
			return
		case clean:
			// Did the consumer deliver a message the fetch never gave?
			ictx, cancel := context.WithTimeout(ctx, l.o.timeout)
			info, err := cons.Info(ictx)
			cancel()
			if err == nil {
				if info.Delivered.Consumer > delivered {
					l.watchCorrupt(l.notRecord(info.Delivered.Stream))
					return
				}
				if pause = 0; !ok {
					pause = 50 * time.Millisecond
				}
				continue
			}
		}
		// Start over after the last message given: the consumer may be
		// gone, or have sent messages that never came.
		if ctx.Err() != nil {
			return
		}
		if l.js.Conn().IsConnected() {
			dctx, cancel := context.WithTimeout(ctx, l.o.timeout)
			l.stream.DeleteConsumer(dctx, cons.CachedInfo().Name)
			cancel()
		}
		cons, pause = nil, min(max(2*pause, 50*time.Millisecond), time.Second)
	}
}

// fetchLive makes one long-poll fetch of the watch, bounded by
// watchIdle, handing each message to seen. It returns whether the fetch
// ended well (all it asked for, or the server's word that it expired),
// whether it ended by the server's word at all (so no message of it is
// still on the way), and ErrCorrupt when a message does not follow the
// one before.
func (l *Log) fetchLive(ctx context.Context, w *watch, cons jetstream.Consumer, delivered, last *uint64) (ok, clean bool, err error) {
	fctx, cancel := context.WithTimeout(ctx, watchIdle)
	defer cancel()
	epoch := w.fetching(cancel)
	defer func() {
		if !w.fetched(epoch) {
			clean = false
		}
	}()
	batch, err := cons.Fetch(readBatch, jetstream.FetchMaxBytes(readBytes+int(l.js.Conn().MaxPayload())),
		jetstream.FetchContext(fctx), jetstream.FetchHeartbeat(watchIdle/4))
	if err != nil {
		return false, false, nil
	}
	for msg := range batch.Messages() {
		meta, err := msg.Metadata()
		if err != nil {
			return false, false, nil
		}
		if meta.Sequence.Consumer != *delivered+1 {
			if !w.up(epoch) { // lost while the connection was down
				return false, false, nil
			}
			return false, false, l.notRecord(meta.Sequence.Stream - 1) // the client kept one from us
		}
		*delivered, *last = meta.Sequence.Consumer, meta.Sequence.Stream
		l.seen(msg.Data(), meta)
	}
	err = batch.Error()
	clean = fctx.Err() == nil && !errors.Is(err, jetstream.ErrNoHeartbeat) && !errors.Is(err, nats.ErrConnectionClosed)
	return err == nil, clean, nil
}

// watchEnded says whether the watch has nothing more to do: the log is
// closed or the watch failed.
func (l *Log) watchEnded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed || l.werr != nil
}

// watchCorrupt fails the watch with err, a message it cannot read.
func (l *Log) watchCorrupt(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failWatch(err)
}

// failWatch fails the watch with err, unless it failed already, and wakes
// the waiters; l.mu must be held.
func (l *Log) failWatch(err error) {
	if l.werr == nil {
		l.werr = asError(err, "wait", int64(len(l.seqs))+1, l.subject)
	}
	if l.grew != nil {
		close(l.grew)
		l.grew = nil
	}
}

// watchFailed takes an error of the watch. The watch recovers from the
// others (a server restart, a lost heartbeat) by itself; a closed
// connection ends it, so it ends the log's Wait too.
func (l *Log) watchFailed(err error) {
	if !errors.Is(err, jetstream.ErrConnectionClosed) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failWatch(&events.Error{Op: "wait", Detail: "watching subject " + l.subject, Err: fmt.Errorf("%w: %w", events.ErrClosed, err)})
}

// seen takes a message of the subject from the watch: its data and
// metadata.
func (l *Log) seen(data []byte, meta *jetstream.MsgMetadata) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.werr != nil || l.publishing() {
		return
	}
	next := int64(len(l.seqs)) + 1
	if len(l.seqs) > 0 && meta.Sequence.Stream <= l.seqs[len(l.seqs)-1] {
		return // this log's own append, or one it read already
	}
	rec, err := l.decode(data, next)
	if err != nil {
		l.failWatch(&events.Error{Op: "wait", Seq: next, Detail: "watching subject " + l.subject, Err: err})
		return
	}
	l.remember(rec, data, meta.Sequence.Stream)
}

// Close stops the watch and refuses further use, leaving the connection
// open; with Async it first publishes the queue and returns the error
// that stopped the log, if any.
func (l *Log) Close() error {
	err := l.drain() // an Async log's queue
	l.amu.Lock()     // wait for an append in progress
	defer l.amu.Unlock()
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return err
	}
	l.closed = true
	close(l.stop)
	watch := l.watch
	l.mu.Unlock()
	if watch != nil {
		watch.stop()
	}
	return err
}
