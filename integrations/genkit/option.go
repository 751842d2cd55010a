package genkit

import (
	"fmt"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// Option configures a [Guard].
type Option interface{ apply(*options) error }

type optionFunc func(*options) error

func (f optionFunc) apply(o *options) error { return f(o) }

type options struct {
	retries int
	retry   *agent.RetryPolicy
}

// WithOutputRetries gives a failing answer up to n corrective turns
// (0..enforce.MaxRetries; default 0: the answer is judged once), as
// agent.WithOutputRetries does.
func WithOutputRetries(n int) Option {
	return optionFunc(func(o *options) error {
		if n < 0 || n > enforce.MaxRetries {
			return fmt.Errorf("%w: genkit: WithOutputRetries(%d): want 0..%d", agent.ErrInvalidOption, n, enforce.MaxRetries)
		}
		o.retries = n
		return nil
	})
}

// WithModelRetry retries a model call that failed with a retryable
// *agent.ProviderError (a 429, a 503, …) as agent.WithModelRetry does:
// p's zero fields mean its defaults, and agent.DefaultBackoff waits the
// provider's Retry-After. Off by default. A streamed call is retried only
// when nothing of it was passed on. Genkit's OpenAI-compatible plugin
// runs a client that retries on its own (option.WithMaxRetries): set
// that to 0, or the two retry each other's failures.
func WithModelRetry(p agent.RetryPolicy) Option {
	return optionFunc(func(o *options) error {
		if p.MaxAttempts < 0 {
			return fmt.Errorf("%w: genkit: WithModelRetry: MaxAttempts %d", agent.ErrInvalidOption, p.MaxAttempts)
		}
		if p.MaxAttempts == 0 {
			p.MaxAttempts = 3
		}
		if p.Backoff == nil {
			p.Backoff = agent.DefaultBackoff
		}
		o.retry = &p
		return nil
	})
}
