package jetstream

import (
	"context"
	"time"
)

// WaitPublished waits until the queue of l, an Async log, is empty, or
// returns the error that stopped it.
func WaitPublished(l *Log) error { return l.Flush(context.Background()) }

// NoBackoff makes retries of a request follow at once, until the
// returned func restores the default.
func NoBackoff() (restore func()) {
	old := backoff
	backoff = func(int) time.Duration { return 0 }
	return func() { backoff = old }
}

// Waiting says whether a Wait of l is blocked for a record to come.
func Waiting(l *Log) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.grew != nil
}

// SetReadBatch makes reads ask for at most n messages a request, until
// the returned func restores the default.
func SetReadBatch(n int) (restore func()) {
	old := readBatch
	readBatch = n
	return func() { readBatch = old }
}

// Matches is matches: whether a subject matches a stream's filter.
var Matches = matches

// SetWatchIdle makes a watch's fetch wait at most d for a record, until
// the returned func restores the default.
func SetWatchIdle(d time.Duration) (restore func()) {
	old := watchIdle
	watchIdle = d
	return func() { watchIdle = old }
}

// Stalled says whether the publisher of l, an Async log, is trying a
// record again.
func Stalled(l *Log) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b != nil && l.b.stalled
}

// SetHedgeAfter makes an unanswered read of Open go again beside itself
// after d at least, forgetting how long answers took, until the returned func restores the default.
func SetHedgeAfter(d time.Duration) (restore func()) {
	old, oldTime := hedgeAfter, answerTime.Load()
	hedgeAfter = d
	answerTime.Store(0)
	return func() { hedgeAfter = old; answerTime.Store(oldTime) }
}
