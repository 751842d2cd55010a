package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/internal/retryafter"
)

// Failure classifies a failed call of system's SDK. res is the last HTTP
// response when one arrived (an SDK may return a plain error for an error
// body that is not JSON, and the status must survive that); message is
// the provider's own error text when the adapter decoded one. A status
// outside 100..599 is not kept: the failure is of kind unknown. A
// success body read to a bound ([ErrTooLong]) is of kind unknown, its
// Message naming the bound; an error body read to one keeps its status's
// kind. A cancelled ctx yields its cause instead.
func Failure(ctx context.Context, system string, err error, res *http.Response, message string) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if res != nil && (res.StatusCode < 100 || res.StatusCode > 599) {
		// Go's client accepts any three digits; what is not an HTTP status
		// says nothing about retrying, and cannot travel in an event.
		if message == "" {
			message = "invalid HTTP status " + strconv.Itoa(res.StatusCode)
		}
		res = nil
	}
	pe := &agent.ProviderError{System: system, Kind: events.KindUnknown, Message: message, Err: err}
	var long *tooLong
	errors.As(err, &long)
	switch {
	case res != nil && res.StatusCode >= 400:
		pe.HTTPStatus = res.StatusCode
		pe.Kind = events.KindForStatus(res.StatusCode)
		pe.RetryAfter = retryafter.Read(res.Header, time.Now())
		switch {
		case pe.Message != "":
		case long != nil:
			pe.Message = long.Error()
		default:
			pe.Message = bodyText(res)
		}
	case long != nil:
		// A reply read to its bound: not a lost connection, and not
		// retried, since the provider would send it again.
		if res != nil {
			pe.HTTPStatus = res.StatusCode
		}
		pe.Message = long.Error()
	case isTimeout(err):
		pe.Kind = events.KindTimeout
	case isConnection(err):
		pe.Kind = events.KindConnection
	case res != nil:
		// A success status whose body did not decode.
		pe.HTTPStatus = res.StatusCode
		pe.Message = "malformed response body"
	}
	return pe
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// isConnection reports a transport failure: no response, or a body that
// ends early.
func isConnection(err error) bool {
	var ue *url.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &oe) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// bodyText is the start of an error body that was not the provider's JSON
// (a proxy's HTML page, say), with whitespace collapsed.
func bodyText(res *http.Response) string {
	if res.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
	return strings.Join(strings.Fields(string(b)), " ")
}

// EventFailure classifies an error the provider sent as an event inside a
// stream that had begun with a success. status is the HTTP status the
// provider documents for the event's error type (0 when the type is not
// one it documents); the kind follows from it as for an HTTP error, but
// HTTPStatus stays 0, since the response's own status was a success.
func EventFailure(system string, status int, message string, err error) error {
	kind := events.KindUnknown
	if status != 0 {
		kind = events.KindForStatus(status)
	}
	return &agent.ProviderError{System: system, Kind: kind, Message: message, Err: err}
}

// errStreamEnded is the error of a stream that ended, with no transport
// error, before the event that ends a reply: a proxy or server closed the
// connection early.
var errStreamEnded = errors.New("stream ended before the reply did")

// StreamEnded is the failure of a stream that ended cleanly before the
// event that ends a reply: a lost connection, like a body that ends early.
func StreamEnded(system string) error {
	return &agent.ProviderError{
		System: system, Kind: events.KindConnection, Message: errStreamEnded.Error(),
		Err: fmt.Errorf("%w: %w", errStreamEnded, io.ErrUnexpectedEOF),
	}
}

// Events is the part of an SDK's server-sent event stream an adapter
// reads (both SDKs' ssestream.Stream have it).
type Events[T any] interface {
	Next() bool
	Current() T
	Err() error
	Close() error
}

// ReadStream reads s to its end and yields the chunks read makes of each
// event, stopping at read's first error or when yield returns false; it
// closes s either way. It reads no event after the one for which last
// reports true, the provider's end marker: what a server sends after it
// is no part of the reply, and one that holds the connection open does
// not keep the caller waiting. At the end it yields fail's error for a
// stream that failed, ctx's cause for a done ctx, and StreamEnded for a
// stream that ended cleanly before ended reported the event that ends a
// reply.
func ReadStream[T any](ctx context.Context, system string, s Events[T],
	read func(T) ([]agent.Chunk, error), ended, last func() bool, fail func(error) error,
	yield func(agent.Chunk, error) bool) {
	defer s.Close()
	for s.Next() {
		chunks, err := read(s.Current())
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		for _, c := range chunks {
			if !yield(c, nil) {
				return
			}
		}
		if last() {
			return
		}
	}
	switch err := s.Err(); {
	case err != nil:
		yield(agent.Chunk{}, fail(err))
	case ctx.Err() != nil:
		yield(agent.Chunk{}, context.Cause(ctx))
	case !ended():
		yield(agent.Chunk{}, StreamEnded(system))
	}
}

// errMalformed is inside the failure of a reply that decoded but makes no
// sense.
var errMalformed = errors.New("malformed response")

// Malformed is the failure of a reply of system that decoded but makes no
// sense (what says how: "no choices"), status its HTTP status (0 when
// none is known), of kind unknown.
func Malformed(system string, status int, what string) error {
	return &agent.ProviderError{
		System: system, Kind: events.KindUnknown, HTTPStatus: status,
		Message: "malformed response: " + what,
		Err:     errMalformed,
	}
}

// Status is res's HTTP status, 0 for no response.
func Status(res *http.Response) int {
	if res == nil {
		return 0
	}
	return res.StatusCode
}
