package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"time"
)

// RetryPolicy bounds and paces retries: of one model call
// ([WithModelRetry]), or of a whole turn ([WithTurnRetry]). The zero value
// means defaults.
type RetryPolicy struct {
	// MaxAttempts counts tries, the first included (default 3).
	MaxAttempts int
	// Backoff is the delay before attempt+1 after attempt failed with err
	// (default [DefaultBackoff]). Return 0 to retry at once; a negative delay
	// counts as 0.
	Backoff func(attempt int, err error) time.Duration
	// Retryable decides whether err may be retried. The default retries a
	// *ProviderError whose Retryable method says so, and a network timeout;
	// nothing else, and never a cancelled context. A policy of your own can
	// ask [ProviderError.Retryable] the same way.
	Retryable func(err error) bool
}

// Backoff bounds for [DefaultBackoff].
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 30 * time.Second
)

// DefaultBackoff is exponential with equal jitter: a random delay in
// [d/2, d] where d = 500ms·2^(attempt-1), capped at 30s. A provider's
// Retry-After ([ProviderError.RetryAfter]) is the delay, up to the same
// 30s however long the provider asked for: 30s is the longest
// DefaultBackoff waits. A Backoff of your own may wait longer.
func DefaultBackoff(attempt int, err error) time.Duration {
	var pe *ProviderError
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		return min(pe.RetryAfter, backoffMax)
	}
	d := backoffMax
	if attempt < 16 {
		d = min(backoffBase<<(attempt-1), backoffMax)
	}
	return d/2 + rand.N(d/2+1)
}

// defaultRetryable is [RetryPolicy]'s default Retryable.
func defaultRetryable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Retryable()
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts == 0 {
		p.MaxAttempts = 3
	}
	if p.Backoff == nil {
		p.Backoff = DefaultBackoff
	}
	if p.Retryable == nil {
		p.Retryable = defaultRetryable
	}
	return p
}

func (p RetryPolicy) validate(name string) error {
	if p.MaxAttempts < 0 || p.MaxAttempts > 100 {
		return fmt.Errorf("%w: %s MaxAttempts %d: want 1..100 (0 means 3)", ErrInvalidOption, name, p.MaxAttempts)
	}
	return nil
}

// schedule asks p whether to retry after attempt failed with err, and
// after how long. A policy function that panics stops the retries (the
// panic is logged): a broken policy must not crash the run.
func (a *Agent) schedule(p *RetryPolicy, attempt int, err error) (d time.Duration, retry bool) {
	defer func() {
		if r := recover(); r != nil {
			a.cfg.logger.Error("retry policy panicked; not retrying", "panic", r, "error", err)
			d, retry = 0, false
		}
	}()
	if !p.Retryable(err) {
		return 0, false
	}
	return max(p.Backoff(attempt, err), 0), true
}

// wait blocks for d or until ctx ends, returning the context's cause.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
