package anthropic

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
)

// failure maps a failed call to *agent.ProviderError. raw is the last HTTP
// response, when one arrived: the SDK returns a plain error, not *sdk.Error,
// for an error body that is not JSON, and the status must survive that.
func failure(ctx context.Context, err error, raw *http.Response) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	pe := &agent.ProviderError{System: System, Kind: events.KindUnknown, Err: err}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		pe.Message = apiErr.Message
		if apiErr.Response != nil {
			raw = apiErr.Response
		}
	}
	switch {
	case raw != nil && raw.StatusCode >= 400:
		pe.HTTPStatus = raw.StatusCode
		pe.Kind = agent.KindForStatus(raw.StatusCode)
		pe.RetryAfter = retryAfter(raw.Header, time.Now())
		if pe.Message == "" {
			pe.Message = bodyText(raw)
		}
	case isTimeout(err):
		pe.Kind = events.KindTimeout
	case isConnection(err):
		pe.Kind = events.KindConnection
	case raw != nil:
		// A success status whose body did not decode.
		pe.HTTPStatus = raw.StatusCode
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

// maxRetryAfter bounds a provider's Retry-After so that absurd values cannot
// overflow a time.Duration.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads retry-after-ms (milliseconds), then Retry-After (seconds
// or an HTTP date, relative to now). Absent, unparsable or past values are 0.
func retryAfter(h http.Header, now time.Time) time.Duration {
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
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return 0
}

func scaled(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	if f <= 0 {
		return 0, true
	}
	if f >= float64(maxRetryAfter/unit) {
		return maxRetryAfter, true
	}
	return time.Duration(f * float64(unit)), true
}
