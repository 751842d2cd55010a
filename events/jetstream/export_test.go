package jetstream

import "time"

// WaitPublished waits until the queue of l, an Async log, is empty, or
// returns the error that stopped it. Each publish is bounded by the log's
// timeout, so the wait is too.
func WaitPublished(l *Log) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.b != nil && len(l.b.pending) > 0 && l.broken == nil {
		l.b.cond.Wait()
	}
	return l.broken
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
