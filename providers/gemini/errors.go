package gemini

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/internal/retryafter"
	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// failure maps a failed call to *agent.ProviderError, from what the SDK
// returned and what the transport saw of the response (c): one failure is
// classified one way, streamed or not.
//
//   - a reply past its bound: ErrReplyTooLarge, of the kind of its status
//     for an error body, unknown otherwise;
//   - an HTTP error: its status's kind, the retry delay from the error's
//     RetryInfo detail (Retry-After when it has none), the API's message;
//   - an error event inside a stream that began with 200: the kind of the
//     status the error carries, with no HTTP status;
//   - a body that ends early, a timeout, a refused connection: connection or
//     timeout;
//   - a complete body that is not the API's JSON (an HTML page with a
//     200, say): unknown, with the status.
func failure(ctx context.Context, err error, c *call) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	status, header, tooLarge, readErr := c.seen()
	var res *http.Response
	if status != 0 {
		res = &http.Response{StatusCode: status, Header: header}
	}
	var apiErr genai.APIError
	isAPI := errors.As(err, &apiErr)
	switch {
	case tooLarge:
		pe := &agent.ProviderError{System: System, Kind: events.KindUnknown, Message: "reply larger than its bound", Err: errors.Join(ErrReplyTooLarge, err)}
		if status >= 100 && status <= 599 {
			pe.HTTPStatus = status
		}
		if status >= 400 && status <= 599 {
			pe.Kind, pe.RetryAfter = events.KindForStatus(status), retryafter.Read(header, time.Now())
		}
		return pe
	case readErr != nil:
		// A body that ended early: an error status still says what failed.
		return wire.Failure(ctx, System, errors.Join(err, readErr), res, "")
	case isAPI && status != 0 && (status < 200 || status > 299):
		pe := wire.Failure(ctx, System, err, res, apiErr.Message).(*agent.ProviderError)
		if d, ok := retryDelay(apiErr.Details); ok {
			pe.RetryAfter = d
		}
		return wire.Unsupported(pe, apiErr.Message, geminiNative, geminiTools)
	case isAPI:
		code := apiErr.Code
		if code < 100 || code > 599 {
			code = statusOf[apiErr.Status]
		}
		pe := wire.EventFailure(System, code, apiErr.Message, err).(*agent.ProviderError)
		pe.RetryAfter, _ = retryDelay(apiErr.Details)
		return pe
	}
	return wire.Failure(ctx, System, err, res, "")
}

// retryDelay reads the retryDelay of a google.rpc.RetryInfo detail, as
// Gemini sends with RESOURCE_EXHAUSTED ("38s", "0.5s"), bounded as
// Retry-After is.
func retryDelay(details []map[string]any) (time.Duration, bool) {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		v, _ := d["retryDelay"].(string)
		f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "s"), 64)
		if err != nil || math.IsNaN(f) || !strings.HasSuffix(v, "s") {
			return 0, false
		}
		switch {
		case f <= 0:
			return 0, true
		case f >= retryafter.Max.Seconds():
			return retryafter.Max, true
		}
		return time.Duration(f * float64(time.Second)), true
	}
	return 0, false
}

// statusOf is the HTTP status Google's API design guide gives each
// canonical error code, for an error event that carries no HTTP code.
var statusOf = map[string]int{
	"INVALID_ARGUMENT":    http.StatusBadRequest,
	"FAILED_PRECONDITION": http.StatusBadRequest,
	"OUT_OF_RANGE":        http.StatusBadRequest,
	"UNAUTHENTICATED":     http.StatusUnauthorized,
	"PERMISSION_DENIED":   http.StatusForbidden,
	"NOT_FOUND":           http.StatusNotFound,
	"ABORTED":             http.StatusConflict,
	"ALREADY_EXISTS":      http.StatusConflict,
	"RESOURCE_EXHAUSTED":  http.StatusTooManyRequests,
	"CANCELLED":           499,
	"INTERNAL":            http.StatusInternalServerError,
	"UNKNOWN":             http.StatusInternalServerError,
	"DATA_LOSS":           http.StatusInternalServerError,
	"NOT_IMPLEMENTED":     http.StatusNotImplemented,
	"UNAVAILABLE":         http.StatusServiceUnavailable,
	"DEADLINE_EXCEEDED":   http.StatusGatewayTimeout,
}

// geminiNative and geminiTools are what a 400 names when the API refuses
// the request's output mode (agent.ProviderError.Unsupported).
var (
	geminiNative = []string{"responsejsonschema", "response_json_schema", "responseschema", "response_schema", "response_mime_type", "responsemimetype"}
	geminiTools  = []string{"tools", "function_declarations", "functiondeclarations", "tool_config", "toolconfig"}
)
