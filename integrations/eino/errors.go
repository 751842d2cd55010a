package eino

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// errMalformed is the cause of a reply that arrived but makes no sense.
var errMalformed = errors.New("malformed response")

// failure maps a failed eino call to *agent.ProviderError. eino passes
// on its provider's error as it is, with no HTTP status it promises, so
// the kind is read from the error's shape alone: a timeout, a lost
// connection, else unknown. An error that already is a
// *agent.ProviderError (an eino model written over one of this
// library's adapters) is kept; a done ctx yields its cause.
func failure(ctx context.Context, err error) error {
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
	return &agent.ProviderError{System: System, Kind: kind, Err: err}
}

func malformed(what string) error {
	return &agent.ProviderError{System: System, Kind: events.KindUnknown, Message: "malformed response: " + what, Err: errMalformed}
}
