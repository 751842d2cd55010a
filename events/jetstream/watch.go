package jetstream

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// watch is a running watch of the subject: a goroutine that fetches the
// subject's messages through a consumer of its own and hands each to
// seen.
type watch struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutines ended

	mu    sync.Mutex
	epoch uint64             // counts the connection's reconnects
	fetch context.CancelFunc // ends the fetch in progress, if any
}

// reconnected ends the fetch in progress, whose messages may have been
// lost on the old connection, and marks any fetch that started before.
func (w *watch) reconnected() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.epoch++
	if w.fetch != nil {
		w.fetch()
	}
}

// fetching registers cancel as ending the fetch that starts, and returns
// the epoch it starts in.
func (w *watch) fetching(cancel context.CancelFunc) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fetch = cancel
	return w.epoch
}

// up says whether the connection stayed up since epoch.
func (w *watch) up(epoch uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.epoch == epoch
}

// fetched unregisters the fetch that started in epoch and says whether
// the connection stayed up meanwhile.
func (w *watch) fetched(epoch uint64) bool {
	w.mu.Lock()
	w.fetch = nil
	w.mu.Unlock()
	return w.up(epoch)
}

// stop ends the watch and waits for its goroutine, which deletes its
// consumer.
func (w *watch) stop() {
	w.cancel()
	<-w.done
}

// startWatch starts the watch that reports other writers' records, from
// stream sequence start on: it checks the stream and creates the
// consumer (so a closed connection or another stream fails the first
// Wait), then fetches in a goroutine. A consumer the cluster cannot
// create yet (a server away, a leader being elected) is left to the
// goroutine, which creates it when it can, as after a restart.
func (l *Log) startWatch(ctx context.Context, start uint64) (*watch, error) {
	cons, err := l.checkedConsumer(ctx, start)
	switch {
	case errors.Is(err, events.ErrCorrupt):
		l.watchCorrupt(err) // every later Wait reports it too
		return nil, err
	case err == nil:
	case errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, jetstream.ErrConnectionClosed) || l.js.Conn().IsClosed():
		// as when it closes under a watch
		return nil, &events.Error{Op: "wait", Detail: "watching subject " + l.subject, Err: fmt.Errorf("%w: %w", events.ErrClosed, err)}
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	default:
		cons = nil
	}
	wctx, cancel := context.WithCancel(context.Background())
	w := &watch{cancel: cancel, done: make(chan struct{})}
	nc := l.js.Conn()
	status := nc.StatusChanged(nats.CLOSED, nats.DISCONNECTED, nats.RECONNECTING, nats.CONNECTED)
	var wg sync.WaitGroup
	wg.Go(func() { // ends the watch when the connection closes, a fetch when it drops
		for {
			select {
			case s, ok := <-status:
				switch {
				case !ok || s == nats.CLOSED:
					cancel()
					return
				default:
					w.reconnected()
				}
			case <-wctx.Done():
				return
			}
		}
	})
	wg.Go(func() {
		defer cancel()
		defer nc.RemoveStatusListener(status)
		l.follow(wctx, w, cons, start)
	})
	go func() {
		wg.Wait()
		close(w.done)
	}()
	return w, nil
}

// sameStream returns ErrCorrupt when the stream of l's name is no longer
// the one l read: it was deleted, or deleted and created again (it has
// another creation time), or its message of l's last record is gone or
// holds other data. A consumer created on it at l's last record's stream
// sequence would deliver another history as the rest of this one. Any
// other error (a server away, a timeout) is returned as it is.
func (l *Log) sameStream(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, l.o.timeout)
	defer cancel()
	info, err := l.stream.Info(rctx)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return &events.Error{Op: "wait", Seq: l.Last(), Detail: "stream " + l.name + " was deleted", Err: events.ErrCorrupt}
	case err != nil:
		return err
	case !info.Created.Equal(l.created):
		return &events.Error{Op: "wait", Seq: l.Last(), Detail: fmt.Sprintf("stream %s was deleted and created again (created %v, not %v): it holds another history", l.name, info.Created.UTC(), l.created.UTC()), Err: events.ErrCorrupt}
	}
	l.mu.Lock()
	n := int64(len(l.seqs))
	var at, sum uint64
	if n > 0 {
		at, sum = l.seqs[n-1], l.sums[n-1]
	}
	l.mu.Unlock()
	if n == 0 {
		return nil
	}
	msg, err := l.stream.GetMsg(rctx, at)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return &events.Error{Op: "wait", Seq: n, Detail: fmt.Sprintf("stream %s message %d, the record, was deleted", l.name, at), Err: events.ErrCorrupt}
	case err != nil:
		return err
	case digest(msg.Data) != sum:
		return l.another("wait", n, at)
	}
	return nil
}

// checkedConsumer creates the watch's consumer from stream sequence start
// on the stream l read, checking the stream (sameStream) before and after:
// one deleted and created again between the check and the consumer would
// deliver another history as the rest of this one. An error other than
// ErrCorrupt (a server away, a timeout) creates no consumer: it is tried
// again later.
func (l *Log) checkedConsumer(ctx context.Context, start uint64) (jetstream.Consumer, error) {
	if err := l.sameStream(ctx); err != nil {
		return nil, err
	}
	cons, err := l.consumer(ctx, start, 4*watchIdle)
	if err != nil {
		return nil, err
	}
	if err := l.sameStream(ctx); err != nil {
		l.dropConsumer(context.Background(), cons)
		return nil, err
	}
	return cons, nil
}
