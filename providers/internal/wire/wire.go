package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
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
		pe.RetryAfter = RetryAfter(res.Header, time.Now())
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

// isConnection reports a transport failure: no response, or a body cut off.
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

// MaxRetryAfter bounds a provider's Retry-After so that absurd values cannot
// overflow a time.Duration.
const MaxRetryAfter = 24 * time.Hour

// RetryAfter reads retry-after-ms (milliseconds), then Retry-After (seconds
// or an HTTP date, relative to now). Absent, unparsable or past values are
// 0; a value past MaxRetryAfter, however large ("1e400"), is MaxRetryAfter.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if d, ok := scaled(v, time.Millisecond); ok {
			return d
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if d, ok := scaled(v, time.Second); ok {
		return d
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), MaxRetryAfter)
	}
	return 0
}

func scaled(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if errors.Is(err, strconv.ErrRange) {
		err = nil // past float64's range ("1e400"): ±Inf, or 0, as numbers go
	}
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	if f <= 0 {
		return 0, true
	}
	if f >= float64(MaxRetryAfter/unit) {
		return MaxRetryAfter, true
	}
	return time.Duration(f * float64(unit)), true
}

// rawObject splits a JSON object into its members, each kept as raw JSON.
// The SDK takes schemas as map[string]any; raw members keep numbers and
// nesting byte for byte, where a decoded tree would not.
func rawObject(b json.RawMessage) (map[string]any, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, err
	}
	if members == nil {
		return nil, errors.New("want a JSON object, got null")
	}
	obj := make(map[string]any, len(members))
	for k, v := range members {
		obj[k] = v
	}
	return obj, nil
}

// InlineRoot prepares a schema for the wire: tool parameters and output
// formats. A root that is only a "$ref" to "#/$defs/Name", as
// enforce.SchemaFor and agent.NewTool make, gets that definition inlined
// (providers want "type": "object" at the root) and Name is returned; any
// other schema is returned as is, with name "". "$defs" stays, for
// references within it.
func InlineRoot(b json.RawMessage) (name string, schema map[string]any, err error) {
	root, err := rawObject(b)
	if err != nil {
		return "", nil, err
	}
	ref, _ := root["$ref"].(json.RawMessage)
	var target string
	if json.Unmarshal(ref, &target) != nil || !strings.HasPrefix(target, "#/$defs/") {
		return "", root, nil
	}
	defName := strings.TrimPrefix(target, "#/$defs/")
	var defs map[string]json.RawMessage
	if raw, _ := root["$defs"].(json.RawMessage); json.Unmarshal(raw, &defs) != nil || defs[defName] == nil {
		return "", root, nil
	}
	def, err := rawObject(defs[defName])
	if err != nil {
		return "", root, nil
	}
	// The inlined definition leaves $defs unless something else refers to it.
	if bytes.Count(b, ref) == 1 {
		delete(defs, defName)
		if len(defs) == 0 {
			delete(root, "$defs")
		} else {
			rest, err := json.Marshal(defs)
			if err != nil {
				return "", nil, err
			}
			root["$defs"] = json.RawMessage(rest)
		}
	}
	for k, v := range root {
		switch k {
		case "$ref", "$id":
		default:
			if _, clash := def[k]; !clash {
				def[k] = v
			}
		}
	}
	return defName, def, nil
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

// errStreamCut is the error of a stream that ended, with no transport
// error, before the event that ends a reply: a proxy or server closed the
// connection early.
var errStreamCut = errors.New("stream ended before the reply did")

// StreamCut is the failure of a stream that ended cleanly before the
// event that ends a reply: a lost connection, like a body cut off.
func StreamCut(system string) error {
	return &agent.ProviderError{
		System: system, Kind: events.KindConnection, Message: errStreamCut.Error(),
		Err: fmt.Errorf("%w: %w", errStreamCut, io.ErrUnexpectedEOF),
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
// stream that failed, ctx's cause for a done ctx, and StreamCut for a
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
		yield(agent.Chunk{}, StreamCut(system))
	}
}
