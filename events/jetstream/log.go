package jetstream

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

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
// events.ErrInvalid). A cluster that does not answer, or is electing a
// leader, is tried again until ctx ends or [WithRetry] passes; then Open
// fails with an error matching events.ErrUnavailable: nothing is wrong
// with the log, so open it again later. Close releases the log, not js's
// connection.
func Open(ctx context.Context, js jetstream.JetStream, session string, opts ...Option) (*Log, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, &events.Error{Op: "open", Detail: err.Error(), Err: events.ErrInvalid}
	}
	if js == nil || session == "" {
		return nil, &events.Error{Op: "open", Detail: "nil JetStream or empty session", Err: events.ErrInvalid}
	}
	// Each try is a whole open, its requests each bounded by the timeout
	// (a long session takes as long as it takes to read); WithRetry
	// bounds when a try may start again, not how long one takes.
	deadline := time.Now().Add(o.retry)
	for n := 0; ; n++ {
		l, err := open(ctx, js, session, o)
		if err == nil || !transient(err) {
			return l, err
		}
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			return nil, &events.Error{Op: "open", Detail: "stream " + o.stream + " could not be reached in time; open the log again later", Err: fmt.Errorf("%w: %w", events.ErrUnavailable, err)}
		}
		t := time.NewTimer(backoff(n))
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

// open is one try of Open, with its options read.
func open(ctx context.Context, js jetstream.JetStream, session string, o options) (*Log, error) {
	st, err := hedged(ctx, o.timeout, func(ctx context.Context) (jetstream.Stream, error) { return js.Stream(ctx, o.stream) })
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
