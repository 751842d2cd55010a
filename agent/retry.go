package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// ProviderError is a failed call to a model provider, as an adapter
// reports it. The model-retry policy and turn/modelRetryScheduled read
// its Kind, HTTPStatus and RetryAfter; Message is the provider's own text:
// it is in the error Run returns, for the developer, but never on the
// session stream, which carries words derived from Kind instead.
type ProviderError struct {
	System     string           // the provider system, e.g. "openai", "anthropic"
	Kind       events.ErrorKind // rate_limit, overloaded, server_error, timeout, connection, bad_request, auth, …
	HTTPStatus int              // 0 when no HTTP response arrived
	RetryAfter time.Duration    // the provider's Retry-After, 0 when absent
	Message    string
	Err        error // the underlying error, if any
}

func (e *ProviderError) Error() string {
	msg := "agent: provider"
	if e.System != "" {
		msg += " " + e.System
	}
	msg += ": " + string(e.Kind)
	if e.HTTPStatus != 0 {
		msg += " (HTTP " + strconv.Itoa(e.HTTPStatus) + ")"
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

func (e *ProviderError) Unwrap() error { return e.Err }

// Retryable reports whether calling again may succeed: rate limits,
// overload, server errors, timeouts and lost connections; never a bad
// request (400) or an auth failure (401, 403).
func (e *ProviderError) Retryable() bool {
	switch e.HTTPStatus {
	case 400, 401, 403, 404, 422:
		return false
	}
	return e.Kind.Retryable()
}

// RetryPolicy bounds and paces retries: of one model call
// (WithModelRetry), or of a whole turn (WithTurnRetry). The zero value
// means defaults.
type RetryPolicy struct {
	// MaxAttempts counts attempts, the first included (default 3).
	MaxAttempts int
	// Backoff is the delay before attempt+1 after attempt failed with err
	// (default DefaultBackoff). Return 0 to retry at once; a negative delay
	// counts as 0.
	Backoff func(attempt int, err error) time.Duration
	// Retryable decides whether err may be retried (default
	// DefaultRetryable).
	Retryable func(err error) bool
}

// Backoff bounds for DefaultBackoff.
const (
	BackoffBase = 500 * time.Millisecond
	BackoffMax  = 30 * time.Second
)

// DefaultBackoff is exponential with equal jitter: a random delay in
// [d/2, d] where d = BackoffBase·2^(attempt-1), capped at BackoffMax. A
// provider's Retry-After is honoured as the delay, up to BackoffMax.
func DefaultBackoff(attempt int, err error) time.Duration {
	var pe *ProviderError
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		return min(pe.RetryAfter, BackoffMax)
	}
	d := BackoffMax
	if attempt < 16 {
		d = min(BackoffBase<<(attempt-1), BackoffMax)
	}
	return d/2 + rand.N(d/2+1)
}

// DefaultRetryable retries a retryable *ProviderError and a network
// timeout; nothing else, and never a cancelled context.
func DefaultRetryable(err error) bool {
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
		p.Retryable = DefaultRetryable
	}
	return p
}

func (p RetryPolicy) validate(name string) error {
	if p.MaxAttempts < 0 || p.MaxAttempts > 100 {
		return fmt.Errorf("%w: %s MaxAttempts %d: want 1..100 (0 means 3)", ErrInvalidOption, name, p.MaxAttempts)
	}
	return nil
}

// WithModelRetry retries failed model calls under p. Each scheduled retry
// is recorded (turn/modelRetryScheduled, with WithEvents) before the wait
// begins, so clients see it while the turn is still running. A context
// cancelled during the wait ends the run at once with its cause.
func WithModelRetry(p RetryPolicy) Option {
	return optionFunc(func(c *config) {
		if err := p.validate("WithModelRetry"); err != nil {
			c.errs = append(c.errs, err)
		}
		p := p.withDefaults()
		c.modelRetry = &p
	})
}

// WithTurnRetry re-runs a whole turn, from a fresh conversation, when it
// fails with an error p deems retryable (by default a retryable provider
// error that outlasted any model retries). Each scheduled turn retry is
// recorded (turn/retryScheduled) before the wait begins.
func WithTurnRetry(p RetryPolicy) Option {
	return optionFunc(func(c *config) {
		if err := p.validate("WithTurnRetry"); err != nil {
			c.errs = append(c.errs, err)
		}
		p := p.withDefaults()
		c.turnRetry = &p
	})
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
