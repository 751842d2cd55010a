package jetstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// watchIdle bounds how long the watch waits for a record in one request
// (a long poll): when a request ends with fewer records than it asked
// for, the watch asks its consumer what it delivered, so a message the
// client kept from it (see swallowed) is reported within watchIdle.
var watchIdle = 5 * time.Second

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
		if cons != nil && l.js.Conn().IsConnected() {
			l.dropConsumer(context.Background(), cons)
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
			l.dropConsumer(ctx, cons)
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
