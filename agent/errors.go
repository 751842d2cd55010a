package agent

import (
	"errors"
	"strconv"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// Errors that say why a run stopped. Failures of the output contract are
// *enforce.OutputError; denials are *middleware.DeniedError.
var (
	// ErrMaxIterations: the run reached its iteration bound without a
	// final answer.
	ErrMaxIterations = errors.New("agent: iteration limit reached")
	// ErrEmptyAnswer: the model's final answer was empty, and no output
	// schema was there to judge it.
	ErrEmptyAnswer = errors.New("agent: model returned an empty answer")
	// ErrModel is matched by every failure of a Model call, including a
	// panic inside Generate.
	ErrModel = errors.New("agent: model call failed")
	// ErrInvalidOption is matched by the error Run returns when New was
	// given an invalid option.
	ErrInvalidOption = errors.New("agent: invalid option")

	errToolPanic  = errors.New("tool panicked")
	errModelPanic = errors.New("model panicked")
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
	switch e.Kind {
	case events.KindRateLimit, events.KindOverloaded, events.KindServerError, events.KindTimeout, events.KindConnection:
		return true
	}
	return false
}
