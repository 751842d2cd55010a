package anthropic

import (
	"context"
	"errors"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// failure maps a failed call to *agent.ProviderError. raw is the last HTTP
// response, when one arrived: the SDK returns a plain error, not *sdk.Error,
// for an error body that is not JSON, and the status must survive that.
// An error event inside a stream (an *sdk.Error carrying the stream's
// success status) is classified by its error type.
func failure(ctx context.Context, err error, raw *http.Response) error {
	message := ""
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		if apiErr.StatusCode < 400 && ctx.Err() == nil {
			return wire.EventFailure(System, errorStatus[string(apiErr.Type())], apiErr.Message, err)
		}
		message = apiErr.Message
		if apiErr.Response != nil {
			raw = apiErr.Response
		}
	}
	return wire.Unsupported(wire.Failure(ctx, System, err, raw, message), message,
		[]string{"output_config", "output_format", "structured output"}, []string{"tools", "tool_choice"})
}

// errorStatus is the HTTP status Anthropic's errors documentation gives
// each error type, for an error that arrives inside a stream instead.
var errorStatus = map[string]int{
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"billing_error":         http.StatusPaymentRequired,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"request_too_large":     http.StatusRequestEntityTooLarge,
	"rate_limit_error":      http.StatusTooManyRequests,
	"api_error":             http.StatusInternalServerError,
	"timeout_error":         http.StatusGatewayTimeout,
	"overloaded_error":      529,
}
