package events

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Option configures [NewStream]: [WithClock], [WithBuffer],
// [WithKeepAlive]. No options
// means defaults; an invalid value makes NewStream fail and say which.
type Option interface{ apply(*streamOptions) }

// FileOption configures [OpenFile] and [FollowFile]: [SyncEvery],
// [PollEvery]. It is a type of its own,
// so an option given to the wrong constructor does not compile.
type FileOption interface{ applyFile(*fileOptions) }

type streamOptions struct {
	clock     func() time.Time
	buffer    int
	keepAlive time.Duration
	errs      []error
}

type fileOptions struct {
	every    int
	interval time.Duration
	poll     time.Duration
	errs     []error

	// test hooks
	tick     <-chan time.Time   // replaces the interval ticker
	synced   func()             // called after each pass of the background syncer
	noSync   bool               // never fsync (fuzzing)
	syncFile func() error       // called instead of each fsync of the file
	opened   func()             // called between opening the file and locking it
	pollTick <-chan time.Time   // replaces the poll ticker of a waiting reader
	commit   *committer         // replaces the log's committer
	syncDir  func(string) error // called instead of each fsync of a directory
}

type streamOption func(*streamOptions)

func (f streamOption) apply(o *streamOptions) { f(o) }

type fileOption func(*fileOptions)

func (f fileOption) applyFile(o *fileOptions) { f(o) }

func newStreamOptions(opts []Option) (streamOptions, error) {
	o := streamOptions{clock: time.Now, buffer: 1024, keepAlive: 15 * time.Second}
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
		}
	}
	return o, errors.Join(o.errs...)
}

func newFileOptions(opts []FileOption) (fileOptions, error) {
	o := fileOptions{every: 1, poll: defaultPoll}
	for _, opt := range opts {
		if opt != nil {
			opt.applyFile(&o)
		}
	}
	return o, errors.Join(o.errs...)
}

// badOption is the error of an option given an invalid value.
func badOption(name, format string, args ...any) error {
	return fmt.Errorf("events: %s: "+format, append([]any{name}, args...)...)
}

// WithClock sets the clock that stamps records and their IDs, and that
// [Stream.Close] measures its minute on (default time.Now). Tests pass a
// fixed clock to get byte-identical logs and frames.
func WithClock(now func() time.Time) Option {
	return streamOption(func(o *streamOptions) {
		if now == nil {
			o.errs = append(o.errs, badOption("WithClock", "nil clock"))
			return
		}
		o.clock = now
	})
}

// WithBuffer sets how many recent notifications a Stream keeps in memory
// for its subscribers (default 1024); the buffer starts small and doubles
// with use up to that bound, so an idle session costs a few KiB. A
// subscriber further behind than that reads from the log instead, so the
// size bounds memory, never delivery.
func WithBuffer(n int) Option {
	return streamOption(func(o *streamOptions) {
		if n < 1 {
			o.errs = append(o.errs, badOption("WithBuffer", "n = %d, want >= 1", n))
			return
		}
		o.buffer = n
	})
}

// WithKeepAlive sets how often [Stream.ServeHTTP] writes a comment line
// (": keep-alive") to each client (default 15 seconds), so that proxies
// and browsers do not close a connection that is idle while a turn waits
// out a long backoff. Clients ignore comments. interval must be > 0.
func WithKeepAlive(interval time.Duration) Option {
	return streamOption(func(o *streamOptions) {
		if interval <= 0 {
			o.errs = append(o.errs, badOption("WithKeepAlive", "interval = %v, want > 0", interval))
			return
		}
		o.keepAlive = interval
	})
}

// SyncEvery batches fsyncs: once n records are pending and, when
// interval > 0, every interval while any are (and on Close). SyncEvery(1,
// 0), the default, syncs each record before its Append returns, sharing
// the sync with concurrent appends (see [OpenFile]). A process crash
// loses nothing either way; a power failure can lose the records since
// the last fsync (at most n-1, and at most interval of appends), and a
// cursor naming one is then [ErrStale].
func SyncEvery(n int, interval time.Duration) FileOption {
	return fileOption(func(o *fileOptions) {
		switch {
		case n < 1:
			o.errs = append(o.errs, badOption("SyncEvery", "n = %d, want >= 1", n))
		case interval < 0:
			o.errs = append(o.errs, badOption("SyncEvery", "interval = %v, want >= 0", interval))
		default:
			o.every, o.interval = n, interval
		}
	})
}

// PollEvery sets how often a reader opened by FollowFile checks the file
// for new records while it waits (default 50ms): the most a record
// written by another process waits before the reader sees it. Each check
// is one fstat. d must be at least a millisecond.
func PollEvery(d time.Duration) FileOption {
	return fileOption(func(o *fileOptions) {
		if d < time.Millisecond {
			o.errs = append(o.errs, badOption("PollEvery", "d = %v, want >= 1ms", d))
			return
		}
		o.poll = d
	})
}

// fsync syncs f, or the directory dir when f is nil; the noSync and
// syncFile test hooks replace it.
func (o *fileOptions) fsync(f *os.File, dir string) error {
	switch {
	case o.noSync:
		return nil
	case f != nil && o.syncFile != nil:
		return o.syncFile()
	case f != nil:
		return f.Sync()
	case o.syncDir != nil:
		return o.syncDir(dir)
	}
	return syncDir(dir)
}
