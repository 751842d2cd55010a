package events

import (
	"errors"
	"fmt"
	"time"
)

// Option configures [NewStream] or [OpenFile]. Each option belongs to one
// of them: [WithClock] and [WithBuffer] to NewStream, [SyncEvery] to
// OpenFile; passing one to the other is an error, as is an invalid value.
// No options means defaults.
type Option interface {
	apply(*config)
}

// config is what the options set; target is the function being
// configured.
type config struct {
	target string // "NewStream" or "OpenFile"
	errs   []error

	// NewStream
	clock  func() time.Time
	buffer int

	// OpenFile
	every    int
	interval time.Duration
	tick     <-chan time.Time // test hook: replaces the interval ticker
	synced   func()           // test hook: called after each background fsync
	noSync   bool             // test hook: never fsync (fuzzing)
}

type option struct {
	name   string // for errors: "WithClock"
	target string // the function it configures
	set    func(*config) error
}

func (o option) apply(c *config) {
	if o.target != c.target {
		c.errs = append(c.errs, fmt.Errorf("events: %s is an option of %s, not of %s", o.name, o.target, c.target))
		return
	}
	if err := o.set(c); err != nil {
		c.errs = append(c.errs, fmt.Errorf("events: %s: %w", o.name, err))
	}
}

func newConfig(target string, opts []Option) (config, error) {
	c := config{target: target, clock: time.Now, buffer: 1024, every: 1}
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&c)
		}
	}
	return c, errors.Join(c.errs...)
}

// WithClock sets the clock that stamps records and their IDs (default
// time.Now). Tests pass a fixed clock to get byte-identical logs and
// frames. An option of NewStream.
func WithClock(now func() time.Time) Option {
	return option{"WithClock", "NewStream", func(c *config) error {
		if now == nil {
			return errors.New("nil clock")
		}
		c.clock = now
		return nil
	}}
}

// WithBuffer sets how many recent notifications a Stream keeps in memory
// for its subscribers (default 1024). A subscriber further behind than
// that reads from the log instead, so the size bounds memory, never
// delivery. An option of NewStream.
func WithBuffer(n int) Option {
	return option{"WithBuffer", "NewStream", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("n = %d, want >= 1", n)
		}
		c.buffer = n
		return nil
	}}
}

// SyncEvery batches fsyncs: the file is fsynced once n records are pending
// and, when interval > 0, every interval while any are pending (and on
// Close). SyncEvery(1, 0) is the default: fsync before every Append
// returns. An option of OpenFile.
//
// Batching trades durability for throughput. A process crash loses
// nothing either way: each record is written to the file (one write call)
// before Append returns. A machine or power failure can lose the records
// appended since the last fsync: at most n-1 records, and at most interval
// of appends when interval > 0. Subscribers may already have seen them;
// their cursors then name records the reopened log no longer has, and
// resuming from one fails with [ErrStale] rather than skipping the
// records that take their place.
func SyncEvery(n int, interval time.Duration) Option {
	return option{"SyncEvery", "OpenFile", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("n = %d, want >= 1", n)
		}
		if interval < 0 {
			return fmt.Errorf("interval = %v, want >= 0", interval)
		}
		c.every, c.interval = n, interval
		return nil
	}}
}
