// Package glue holds what the framework integrations share: classifying
// a framework's failed call into *agent.ProviderError. It is internal to
// the integrations.
package glue

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// ErrMalformed is the cause of a reply that arrived but makes no sense.
var ErrMalformed = errors.New("malformed response")

// Failure maps a failed call of system's framework to
// *agent.ProviderError. A framework passes on its provider's error with
// no HTTP status it promises, so the kind is read from the error's shape
// alone: a timeout, a lost connection, else unknown. An error that
// already is a *agent.ProviderError (a framework model written over one
// of this library's adapters) is kept; a done ctx yields its cause.
func Failure(ctx context.Context, system string, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var pe *agent.ProviderError
	if errors.As(err, &pe) {
		return err
	}
	kind := events.KindUnknown
	var ne net.Error
	var ue *url.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		kind = events.KindTimeout
	case errors.As(err, &ue) || errors.As(err, &oe) || errors.Is(err, io.ErrUnexpectedEOF):
		kind = events.KindConnection
	}
	return &agent.ProviderError{System: system, Kind: kind, Err: err}
}

// Malformed is the failure of a reply that arrived but makes no sense.
func Malformed(system, what string) error {
	return &agent.ProviderError{System: system, Kind: events.KindUnknown, Message: "malformed response: " + what, Err: ErrMalformed}
}
