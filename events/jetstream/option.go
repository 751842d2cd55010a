package jetstream

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Option configures [Open]. No options means defaults; an invalid value
// makes Open fail and say which.
type Option interface{ apply(*options) }

type options struct {
	stream   string
	prefix   string
	replicas int // > 0: create the stream with this many replicas
	timeout  time.Duration
	retry    time.Duration // how long Open and an Append keep trying (WithRetry)
	async    int           // > 0: Append queues, at most this many records (Async)
	errs     []error
}

type option func(*options)

func (f option) apply(o *options) { f(o) }

// DefaultStream is the name of the stream the logs live in unless
// WithStream names another.
const DefaultStream = "ENFORCER_SESSIONS"

// DefaultSubjectPrefix is the prefix of the sessions' subjects unless
// WithSubjectPrefix sets another.
const DefaultSubjectPrefix = "enforcer.session"

func newOptions(opts []Option) (options, error) {
	o := options{stream: DefaultStream, prefix: DefaultSubjectPrefix, timeout: 5 * time.Second, retry: 15 * time.Second}
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
		}
	}
	return o, errors.Join(o.errs...)
}

func badOption(name, format string, args ...any) error {
	return fmt.Errorf("events/jetstream: %s: "+format, append([]any{name}, args...)...)
}

// WithStream names the JetStream stream that holds the sessions (default
// DefaultStream).
func WithStream(name string) Option {
	return option(func(o *options) {
		if name == "" || strings.ContainsAny(name, ".*> \t\r\n") {
			o.errs = append(o.errs, badOption("WithStream", "%q is not a stream name", name))
			return
		}
		o.stream = name
	})
}

// WithSubjectPrefix sets the subject prefix of the sessions (default
// DefaultSubjectPrefix): session s is on "<prefix>.<s>".
func WithSubjectPrefix(prefix string) Option {
	return option(func(o *options) {
		if prefix == "" || strings.ContainsAny(prefix, "*> \t\r\n") || strings.HasPrefix(prefix, ".") || strings.HasSuffix(prefix, ".") || strings.Contains(prefix, "..") {
			o.errs = append(o.errs, badOption("WithSubjectPrefix", "%q is not a subject prefix", prefix))
			return
		}
		o.prefix = prefix
	})
}

// CreateStream makes Open create a missing stream: file storage, limits
// retention, subjects "<prefix>.>", and replicas copies (1, or 3 on a
// cluster of three or more). An existing stream is used as it is.
func CreateStream(replicas int) Option {
	return option(func(o *options) {
		if replicas < 1 || replicas > 5 {
			o.errs = append(o.errs, badOption("CreateStream", "replicas = %d, want 1 to 5", replicas))
			return
		}
		o.replicas = replicas
	})
}

// WithTimeout bounds each request to the server (default 5s); a request
// that times out is tried again within [WithRetry].
func WithTimeout(d time.Duration) Option {
	return option(func(o *options) {
		if d <= 0 {
			o.errs = append(o.errs, badOption("WithTimeout", "d = %v, want > 0", d))
			return
		}
		o.timeout = d
	})
}

// WithRetry bounds how long [Open], and [Log.Append] for each record, keep
// trying a request that got no answer or met a cluster electing a stream
// leader (default 15s; 0 tries once). An Append resends the same message,
// which the stream recognises when the first one was stored. What is
// still unanswered then fails with an error matching
// events.ErrUnavailable. An [Async] log's publisher keeps trying until
// Close; Close waits this long for the queue.
func WithRetry(d time.Duration) Option {
	return option(func(o *options) {
		if d < 0 {
			o.errs = append(o.errs, badOption("WithRetry", "d = %v, want >= 0", d))
			return
		}
		o.retry = d
	})
}
